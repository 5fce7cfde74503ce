// The span and point models on hand-written rows: the time rules, what a batch without context can still say,
// local-only sessions left out, deletes counted and not sent, content only when asked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordOf } from '../../../dataset/columns.js';
import type { DeltaBatch } from '../../remote/contract.js';
import { spanIdOf, traceIdOf } from '../ids.js';
import { batchTelemetry } from './batch.js';
import { NO_CONTEXT, type TraceContext } from './traces.js';

const STORE = '/s/state.db';
const origin = { machineId: 'm1', hostname: 'h' };
const key = { machineId: 'm1', store: STORE, sessionId: 's1' };
const session = (over: RecordOf = {}): RecordOf => ({
  store: STORE, session_id: 's1', profile: 'default', source: 'cli', model: 'claude', provider: 'anthropic', policy: 'full',
  started_at: 100, ended_at: 200, last_activity_at: 200, api_call_count: 2, message_count: 6, tool_call_count: 1,
  input_tokens: 10, output_tokens: 20, cache_read_tokens: 30, cache_write_tokens: 40, reasoning_tokens: 5, estimated_cost_usd: 0.5, actual_cost_usd: null, ...over,
});
const msg = (seq: number, role: string, created_at: number, over: RecordOf = {}): RecordOf => ({
  store: STORE, session_id: 's1', message_id: 1000 + seq, logical_id: 1000 + seq, seq, role, kind: 'message', content: `text ${seq}`, created_at, ...over,
});
const MESSAGES = [
  msg(0, 'session_meta', 100, { kind: 'session_meta' }),
  msg(1, 'user', 101),
  msg(2, 'assistant', 103, { model: 'claude', finish_reason: 'tool_calls', tool_calls: JSON.stringify([{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } }]) }),
  msg(3, 'tool', 107, { tool_call_id: 'c1', tool_name: 'terminal' }),
  msg(4, 'assistant', 110, { model: 'claude-2', finish_reason: 'stop' }),
  msg(5, 'user', 150),
];
const batch = (upserts: DeltaBatch['upserts'], deletes: DeltaBatch['deletes'] = []): DeltaBatch => ({ origin, fromSeq: 0, toSeq: 1, upserts, deletes });

test('times: a chat span runs from the message before it to its own; a tool span from the call to its result; a turn to its last message', () => {
  const t = batchTelemetry(batch([{ table: 'sessions', rows: [session()] }, { table: 'messages', rows: MESSAGES }]), NO_CONTEXT, { content: false });
  const byId = new Map(t.spans.map((s) => [s.spanId, s]));
  const span = (what: string) => byId.get(spanIdOf(key, what))!;
  assert.deepEqual([span('session').start, span('session').end], [100, 200]);
  assert.deepEqual([span('turn:1001').start, span('turn:1001').end, span('turn:1001').parentSpanId], [101, 110, spanIdOf(key, 'session')]);
  assert.deepEqual([span('chat:1002').start, span('chat:1002').end, span('chat:1002').parentSpanId], [101, 103, spanIdOf(key, 'turn:1001')]);
  assert.deepEqual([span('tool:1002#0').start, span('tool:1002#0').end], [103, 107]);
  assert.deepEqual([span('chat:1004').start, span('chat:1004').end, span('chat:1004').name], [107, 110, 'chat claude-2']);
  assert.deepEqual([span('turn:1005').start, span('turn:1005').end], [150, 150]);
  assert.equal(t.spans.length, 6);
  assert.ok(t.spans.every((s) => s.traceId === traceIdOf(key)));
  assert.deepEqual(span('chat:1002').attributes['gen_ai.response.finish_reasons'], ['tool_calls']);
  assert.equal(span('session').attributes['gen_ai.usage.input_tokens'], 80);
  assert.equal(span('session').attributes['hermes.cost.usd'], 0.5);
  assert.equal(span('session').attributes['hermes.session.open'], false);
});

test('a batch of new messages without context: the root comes from the session row, the turn is not known (parent: the root)', () => {
  const later = MESSAGES.slice(3, 5);
  const t = batchTelemetry(batch([{ table: 'messages', rows: later }]), NO_CONTEXT, { content: false });
  assert.equal(t.spans.find((s) => s.name === 'hermes.session'), undefined, 'no session row, no root');
  const chat = t.spans.find((s) => s.name === 'chat claude-2')!;
  assert.equal(chat.parentSpanId, spanIdOf(key, 'session'));
  assert.equal(t.spans.length, 1, 'the tool result alone cannot be matched to a call it has not seen');

  const context: TraceContext = { session: () => session(), turnBefore: (_s, _id, seq) => MESSAGES.slice(1, seq) };
  const withContext = batchTelemetry(batch([{ table: 'messages', rows: later }]), context, { content: false });
  const names = withContext.spans.map((s) => s.name).sort();
  assert.deepEqual(names, ['chat claude-2', 'execute_tool terminal', 'hermes.session', 'invoke_agent hermes']);
  assert.equal(withContext.spans.find((s) => s.name === 'chat claude-2')!.parentSpanId, spanIdOf(key, 'turn:1001'));
});

test('local-only sessions give nothing; deletes are counted, not sent', () => {
  const t = batchTelemetry(batch(
    [{ table: 'sessions', rows: [session({ policy: 'local-only' })] }, { table: 'messages', rows: MESSAGES },
      { table: 'model_usage', rows: [{ store: STORE, session_id: 's1', model: 'm', provider: 'p', provider_key: 'k', task: 'title_generation', in_session_totals: 0, api_call_count: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }] }],
    [{ table: 'messages', keys: [{ store: STORE, session_id: 's1', seq: 9 }, { store: STORE, session_id: 's1', seq: 10 }] }],
  ), NO_CONTEXT, { content: false });
  assert.deepEqual([t.spans.length, t.metrics.tokens.length, t.metrics.tokenUsage.length, t.deletesIgnored], [0, 0, 0, 2]);
});

test('points: one series per session and per auxiliary task, cumulative from the start', () => {
  const aux = { store: STORE, session_id: 's1', model: 'small', provider: 'openai', provider_key: 'openai|api.openai.com|', task: 'title_generation', in_session_totals: 0, api_call_count: 1, input_tokens: 3, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0.001, first_seen: 120, last_seen: 121 };
  const main = { ...aux, task: '', in_session_totals: 1 };
  const t = batchTelemetry(batch([{ table: 'sessions', rows: [session()] }, { table: 'model_usage', rows: [aux, main] }]), NO_CONTEXT, { content: false });
  assert.deepEqual(t.metrics.tokens.map((p) => [p.attributes['hermes.task'], p.attributes['hermetic.token.type'], p.value, p.start, p.time]), [
    ['main', 'input', 10, 100, 200], ['main', 'output', 20, 100, 200], ['main', 'cache_read', 30, 100, 200], ['main', 'cache_write', 40, 100, 200], ['main', 'reasoning', 5, 100, 200],
    ['title_generation', 'input', 3, 120, 121], ['title_generation', 'output', 4, 120, 121], ['title_generation', 'cache_read', 0, 120, 121], ['title_generation', 'cache_write', 0, 120, 121], ['title_generation', 'reasoning', 0, 120, 121],
  ]);
  assert.deepEqual(t.metrics.tokenUsage.map((p) => [p.attributes['gen_ai.token.type'], p.count, p.sum, p.attributes['gen_ai.provider.name']]), [
    ['input', 2, 80, undefined], ['output', 2, 20, undefined], ['input', 1, 3, 'openai'], ['output', 1, 4, 'openai'],
  ]);
  // A /model switch changes the session's model and provider, not its main series: the new totals restate it.
  const switched = batchTelemetry(batch([{ table: 'sessions', rows: [session({ model: 'gpt-5', provider: 'openai', input_tokens: 15 })] }]), NO_CONTEXT, { content: false });
  const keyOf = (p: { attributes: Record<string, unknown> }) => JSON.stringify(Object.entries(p.attributes).sort());
  assert.deepEqual(switched.metrics.tokens.map(keyOf), t.metrics.tokens.filter((p) => p.attributes['hermes.task'] === 'main').map(keyOf));
  assert.equal(switched.metrics.tokens.find((p) => p.attributes['hermetic.token.type'] === 'input')!.value, 15);
  assert.deepEqual(t.metrics.cost.map((p) => [p.attributes['hermes.task'], p.attributes['hermetic.cost.kind'], p.value]), [['main', 'estimated', 0.5], ['title_generation', 'estimated', 0.001]]);
});

test('content: the user text on the turn, the reply on the chat, arguments and result on the tool, only when asked', () => {
  const rows = [{ table: 'sessions' as const, rows: [session({ title: 'T', system_prompt: 'be brief' })] }, { table: 'messages' as const, rows: MESSAGES }];
  const off = batchTelemetry(batch(rows), NO_CONTEXT, { content: false });
  assert.ok(off.spans.every((s) => Object.values(s.attributes).every((v) => typeof v !== 'string' || !/text \d|be brief|"ls"/.test(v))));
  const on = batchTelemetry(batch(rows), NO_CONTEXT, { content: true });
  const by = (name: string) => on.spans.find((s) => s.name === name)!.attributes;
  assert.equal(by('invoke_agent hermes')['gen_ai.input.messages'], JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'text 1' }] }]));
  assert.equal(by('chat claude-2')['gen_ai.output.messages'], JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'text 4' }], finish_reason: 'stop' }]));
  assert.equal(by('execute_tool terminal')['gen_ai.tool.call.arguments'], '{"command":"ls"}');
  assert.equal(by('execute_tool terminal')['gen_ai.tool.call.result'], 'text 3');
  assert.equal(by('hermes.session')['gen_ai.system_instructions'], JSON.stringify([{ type: 'text', content: 'be brief' }]));
  assert.equal(by('hermes.session')['hermes.session.title'], 'T');
});

test('the session\'s other Hermes fields are root-span attributes; free texts only with the content, model_config never', () => {
  const attributes = JSON.stringify({
    title_source: 'llm', chat_type: 'dm', pinned: 1, tool_names: ['terminal', 'web_search'], model_config: { provider: 'custom' },
    handoff_error: 'token expired', last_activity_description: 'running terminal', compression_fallback_streak: 2,
  });
  const rows = [{ table: 'sessions' as const, rows: [session({ attributes })] }, { table: 'messages' as const, rows: MESSAGES }];
  const root = (content: boolean) => Object.fromEntries(Object.entries(batchTelemetry(batch(rows), NO_CONTEXT, { content }).spans.find((s) => s.name === 'hermes.session')!.attributes)
    .filter(([k]) => /^hermes\.session\.(title_source|chat_type|pinned|tool_names|model_config|handoff_error|last_activity_description|compression_fallback_streak)$/.test(k)));
  const always = { 'hermes.session.title_source': 'llm', 'hermes.session.chat_type': 'dm', 'hermes.session.pinned': 1, 'hermes.session.tool_names': ['terminal', 'web_search'], 'hermes.session.compression_fallback_streak': 2 };
  assert.deepEqual(root(false), always);
  assert.deepEqual(root(true), { ...always, 'hermes.session.handoff_error': 'token expired', 'hermes.session.last_activity_description': 'running terminal' });
  // No attributes (a dataset from before version 7, or nothing set): nothing added.
  const plain = batchTelemetry(batch([{ table: 'sessions' as const, rows: [session({ attributes: null })] }]), NO_CONTEXT, { content: true });
  assert.deepEqual(Object.keys(plain.spans.find((s) => s.name === 'hermes.session')!.attributes).filter((k) => k.startsWith('hermes.session.') && !['id', 'profile', 'source', 'open', 'message_count', 'tool_call_count', 'end_reason', 'parent_id', 'lineage_kind', 'title'].includes(k.slice(15))), []);
});

test('delegation rows make no telemetry (decision 0054): their subagent\'s own session is the trace, and telemetry cannot take back a state', () => {
  const delegation: RecordOf = { store: STORE, delegation_id: 'deleg_1', parent_session_id: 's1', state: 'completed', dispatched_at: 100, completed_at: 150, goal: 'g', summary: 's', policy: 'full' };
  const t = batchTelemetry(batch([{ table: 'delegations', rows: [delegation] }]), NO_CONTEXT, { content: true });
  assert.deepEqual([t.spans, t.metrics, t.deletesIgnored], [[], { tokenUsage: [], tokens: [], cost: [] }, 0]);
});

test('row issues make no telemetry (decision 0092): the forwarder\'s notes on values it repaired are no span or point', () => {
  const issue: RecordOf = { store: STORE, session_id: 's1', message_id: 1001, field: 'timestamp', problem: 'timestamp noon is not a plausible time; the previous message\'s time is used' };
  const alone = batchTelemetry(batch([{ table: 'row_issues', rows: [issue] }]), NO_CONTEXT, { content: true });
  assert.deepEqual([alone.spans, alone.metrics, alone.deletesIgnored], [[], { tokenUsage: [], tokens: [], cost: [] }, 0]);
  // Beside a session's rows, the same telemetry as without them.
  const rows: DeltaBatch['upserts'] = [{ table: 'sessions', rows: [session()] }, { table: 'messages', rows: MESSAGES }];
  assert.deepEqual(batchTelemetry(batch([...rows, { table: 'row_issues', rows: [issue] }]), NO_CONTEXT, { content: true }), batchTelemetry(batch(rows), NO_CONTEXT, { content: true }));
});

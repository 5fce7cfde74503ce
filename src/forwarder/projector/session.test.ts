// One session → its dataset records, pure and deterministic (spec forwarding §2.3–§2.5, §6.2, §6.4; checklist
// §5.2 #17–#20, #25, #26 and §5.9 #65–#66).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Row } from '../normalize/index.js';
import { redactSensitiveText } from '../../shared/redact/index.js';
import { projectSession, type ProjectInput } from './session.js';

const KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

const T0 = 1784000000.25;
const STORE = '/home/dev/.hermes/state.db';
const HOME = '/home/dev/.hermes';

const sessionRow = (fields: Record<string, unknown> = {}): Row => ({
  id: 'S', source: 'cli', model: 'gpt-5', model_config: '{"provider": "openai"}', system_prompt: null, system_prompt_hash: null,
  parent_session_id: null, started_at: T0, ended_at: null, end_reason: null, message_count: 4, tool_call_count: 1,
  input_tokens: 1200, output_tokens: 300, cache_read_tokens: 5000, cache_write_tokens: 40, reasoning_tokens: 25,
  cwd: '/home/dev/proj', git_branch: 'main', git_repo_root: '/home/dev/proj', billing_provider: 'openai',
  billing_base_url: 'https://api.openai.com/v1?key=sk-should-not-show', billing_mode: 'official_docs_snapshot',
  estimated_cost_usd: 0.0125, actual_cost_usd: null, cost_status: 'estimated', cost_source: 'provider_models_api',
  title: 'list files', last_activity_at: null, api_call_count: 2, handoff_platform: null, rewind_count: 0, ...fields,
});

const msg = (id: number, fields: Record<string, unknown>): Row => ({
  id, session_id: 'S', role: 'user', content: null, tool_call_id: null, tool_calls: null, tool_name: null, timestamp: T0 + id,
  token_count: null, finish_reason: null, reasoning: null, reasoning_content: null, reasoning_details: null,
  codex_message_items: null, api_content: null, platform_message_id: null, active: 1, compacted: 0, display_kind: null,
  _compressed_summary: 0, display_order: null, ...fields,
});

/** An open interactive session: a question, a reasoning + tool-call turn, the tool's answer, the final reply. */
const TRANSCRIPT: Row[] = [
  msg(1, { role: 'user', content: 'Please list files.' }),
  msg(2, { role: 'assistant', content: null, reasoning: 'Need to look.', finish_reason: 'tool_calls', token_count: 42,
    tool_calls: '[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"ls\\"}"}}]' }),
  msg(3, { role: 'tool', content: '{"output": "a.py"}', tool_call_id: 'call_1', tool_name: null }),
  msg(4, { role: 'assistant', content: 'Found a.py.', finish_reason: 'stop' }),
];

const input = (fields: Partial<ProjectInput> = {}): ProjectInput => ({
  store: STORE, profile: 'default', hermesHome: HOME, session: sessionRow(), messages: TRANSCRIPT, modelUsage: [], parents: [],
  systemPrompt: 'You are Hermes.', redact: false, origin: 'backfill', ...fields,
});

const part = (fields: Record<string, unknown>) => ({
  store: STORE, session_id: 'S', role: 'user', content_text: null, tool_name: null, tool_call_id: null, tool_args: null,
  tool_result_for: null, status: null, model: null, attributes: null, program: null, ...fields,
});

test('golden projection of an open interactive session: parts in order, ids, usage and stop reason on the row\'s last part (§5.2 #17)', () => {
  const p = projectSession(input());
  assert.deepEqual(p.parts, [
    part({ part_id: 'hermes-S-1-0#0', message_id: 1, part_index: 0, part_type: 'text', content_text: 'Please list files.', created_at: T0 + 1 }),
    part({ part_id: 'hermes-S-2-0#0', message_id: 2, part_index: 0, role: 'assistant', part_type: 'reasoning', content_text: 'Need to look.', model: 'gpt-5', created_at: T0 + 2 }),
    part({ part_id: 'hermes-S-2-1#0', message_id: 2, part_index: 1, role: 'assistant', part_type: 'tool_call', tool_name: 'terminal', tool_call_id: 'call_1',
      tool_args: '{"command":"ls"}', model: 'gpt-5', created_at: T0 + 2, status: '{"finish_reason":"tool_calls"}', attributes: '{"usage":{"total_tokens":42}}', program: 'ls' }),
    part({ part_id: 'hermes-S-3-0#0', message_id: 3, part_index: 0, role: 'tool', part_type: 'tool_result', content_text: '{"output": "a.py"}',
      tool_name: 'terminal', tool_call_id: 'call_1', tool_result_for: 'call_1', created_at: T0 + 3 }),
    part({ part_id: 'hermes-S-4-0#0', message_id: 4, part_index: 0, role: 'assistant', part_type: 'text', content_text: 'Found a.py.', model: 'gpt-5',
      created_at: T0 + 4, status: '{"finish_reason":"stop"}' }),
  ]);
  assert.deepEqual(p.messages.map((m) => [m.message_id, m.logical_id, m.seq, m.role, m.kind, m.tool_name, m.model, m.created_at]), [
    [1, 1, 0, 'user', 'message', null, null, T0 + 1], [2, 2, 1, 'assistant', 'message', null, 'gpt-5', T0 + 2],
    [3, 3, 2, 'tool', 'message', 'terminal', null, T0 + 3], [4, 4, 3, 'assistant', 'message', null, 'gpt-5', T0 + 4],
  ]);
  assert.deepEqual(p.messages[1], {
    store: STORE, session_id: 'S', message_id: 2, logical_id: 2, seq: 1, role: 'assistant', kind: 'message', content: null,
    content_format: null, tool_calls: '[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\\"command\\": \\"ls\\"}"}}]',
    tool_name: null, tool_call_id: null, reasoning: 'Need to look.', model: 'gpt-5', finish_reason: 'tool_calls', created_at: T0 + 2, compacted: 0,
    attributes: null,
  });
  assert.deepEqual(p.session, {
    store: STORE, session_id: 'S', profile: 'default', source: 'cli', model: 'gpt-5', provider: 'openai', billing_host: 'api.openai.com',
    billing_mode: 'official_docs_snapshot', scope: '/home/dev/proj', policy: 'full', parent_session_id: null, lineage_kind: null,
    lineage_root: 'S', is_sidechain: 0, title: 'list files', cwd: '/home/dev/proj', git_branch: 'main', git_repo_root: '/home/dev/proj',
    system_prompt: 'You are Hermes.', started_at: T0, ended_at: null, end_reason: null, last_activity_at: T0 + 4, message_count: 4,
    tool_call_count: 1, api_call_count: 2, input_tokens: 1200, output_tokens: 300, cache_read_tokens: 5000, cache_write_tokens: 40,
    reasoning_tokens: 25, estimated_cost_usd: 0.0125, actual_cost_usd: null, cost_status: 'estimated', cost_source: 'provider_models_api',
    rewind_count: 0, live_messages: 4, archived_messages: 0, inactive_messages: 0, removed_from_store: 0, origin: 'backfill',
    attributes: '{"model_config":{"provider":"openai"}}',
  });
  assert.deepEqual(p.scopes, ['/home/dev/proj']);
  assert.deepEqual(p.issues, []);
  assert.equal(p.maxMessageId, 4);
});

test('an open session has no session-end part (§5.2 #18)', () => {
  assert.deepEqual(projectSession(input()).parts.filter((x) => x.part_type === 'status'), []);
});

test('an ended session has exactly one session-end part: role system, status block, totals, costs, calls, end reason (§5.2 #19, §5.9 #65)', () => {
  const ended = T0 + 3600.5;
  const p = projectSession(input({ session: sessionRow({ ended_at: ended, end_reason: 'user_exit', actual_cost_usd: 0.011 }) }));
  const ends = p.parts.filter((x) => x.part_type === 'status');
  assert.deepEqual(ends, [{
    store: STORE, session_id: 'S', part_id: `hermes-S-session_end-${Math.round(ended * 1e6)}#0`, message_id: null, part_index: 0,
    role: 'system', part_type: 'status', content_text: null, tool_name: null, tool_call_id: null, tool_args: null, tool_result_for: null,
    status: '{"status":"session_end","end_reason":"user_exit"}', model: null, created_at: ended,
    attributes: '{"hermes":{"session_end":true,"api_call_count":2,"estimated_cost_usd":0.0125,"actual_cost_usd":0.011},"usage":{"input_tokens":1200,"output_tokens":300,"cache_read_tokens":5000,"cache_write_tokens":40,"reasoning_tokens":25}}',
    program: null,
  }]);
  assert.equal(ends[0]!.part_id, 'hermes-S-session_end-1784003600750000#0');
  assert.equal(p.parts[p.parts.length - 1], ends[0]);
  assert.equal(p.session.ended_at, ended);
  assert.equal(p.session.last_activity_at, ended);
});

test('projecting the same session twice is byte-identical; ids follow hermes-<session>-<message>-<k>#0 (§5.2 #20, #26, §5.9 #66)', () => {
  const a = projectSession(input({ session: sessionRow({ ended_at: T0 + 99, end_reason: 'done' }) }));
  const b = projectSession(input({ session: sessionRow({ ended_at: T0 + 99, end_reason: 'done' }) }));
  assert.equal(JSON.stringify(b), JSON.stringify(a));
  for (const x of a.parts) {
    assert.match(String(x.part_id), x.message_id === null ? /^hermes-S-session_end-\d+#0$/ : new RegExp(`^hermes-S-${String(x.message_id)}-${String(x.part_index)}#0$`));
  }
});

test('stored epoch seconds become the records\' times, never the wall clock (§5.9 #65)', () => {
  const p = projectSession(input());
  assert.deepEqual(p.parts.map((x) => x.created_at), [T0 + 1, T0 + 2, T0 + 2, T0 + 3, T0 + 4]);
  assert.equal(p.session.started_at, T0);
});

test('a session with no messages and no end gives its session row (usage stays visible) and nothing else (§5.2 #25)', () => {
  const p = projectSession(input({ messages: [], session: sessionRow({ message_count: 0, tool_call_count: 0 }) }));
  assert.deepEqual([p.messages, p.parts, p.issues], [[], [], []]);
  assert.equal(p.session.live_messages, 0);
  assert.equal(p.session.last_activity_at, T0);
  assert.equal(p.session.input_tokens, 1200);
});

test('the model is stamped on assistant rows only and follows the main-loop route in use at their time (§6.2 item 15)', () => {
  const routes = [
    { session_id: 'S', model: 'gpt-5', task: '', first_seen: T0, billing_provider: 'openai', billing_base_url: '', billing_mode: '' },
    { session_id: 'S', model: 'claude-opus-4-1', task: '', first_seen: T0 + 3.5, billing_provider: 'anthropic', billing_base_url: '', billing_mode: '' },
    { session_id: 'S', model: 'google/gemini-2.5-flash', task: 'title_generation', first_seen: T0 + 0.5, billing_provider: 'openrouter', billing_base_url: '', billing_mode: '' },
  ];
  const p = projectSession(input({ modelUsage: routes }));
  assert.deepEqual(p.messages.map((m) => [m.role, m.model]), [['user', null], ['assistant', 'gpt-5'], ['tool', null], ['assistant', 'claude-opus-4-1']]);
  assert.deepEqual(p.parts.map((x) => x.model), [null, 'gpt-5', 'gpt-5', null, 'claude-opus-4-1']);
});

test('without per-route usage, a session_meta {"model": …} row switches the model of later assistant rows', () => {
  const rows = [
    msg(1, { role: 'assistant', content: 'one' }),
    msg(2, { role: 'session_meta', content: '{"model": "opus"}' }),
    msg(3, { role: 'assistant', content: 'two' }),
    msg(4, { role: 'session_meta', content: 'not json' }),
    msg(5, { role: 'assistant', content: 'three' }),
  ];
  assert.deepEqual(projectSession(input({ messages: rows })).messages.map((m) => m.model), ['gpt-5', null, 'opus', null, 'opus']);
});

test('a garbage started_at takes the first good message time; a garbage ended_at leaves the session open; both reported', () => {
  const p = projectSession(input({ session: sessionRow({ started_at: 5e246, ended_at: 5e246, end_reason: 'user_exit' }) }));
  assert.equal(p.session.started_at, T0 + 1);
  assert.equal(p.session.ended_at, null);
  assert.deepEqual(p.parts.filter((x) => x.part_type === 'status'), []);
  assert.deepEqual(p.issues, [
    { store: STORE, session_id: 'S', message_id: 0, field: 'started_at', problem: "started_at 5e+246 is not a plausible time; the first message's time is used" },
    { store: STORE, session_id: 'S', message_id: 0, field: 'ended_at', problem: 'ended_at 5e+246 is not a plausible time; the session is treated as open' },
  ]);
});

test('a poison-pill message time keeps the row, repairs its time and reports it (§6.3 item 21)', () => {
  const rows = [msg(1, { content: 'ok' }), msg(2, { role: 'assistant', content: 'salvaged', timestamp: 5e246 })];
  const p = projectSession(input({ messages: rows }));
  assert.deepEqual(p.messages.map((m) => [m.content, m.created_at]), [['ok', T0 + 1], ['salvaged', T0 + 1]]);
  assert.deepEqual(p.issues, [{ store: STORE, session_id: 'S', message_id: 2, field: 'timestamp', problem: "timestamp 5e+246 is not a plausible time; the previous message's time (or the session's start) is used" }]);
  assert.equal(p.session.last_activity_at, T0 + 1);
});

test('counters missing from an old store are 0, costs NULL; the provider comes from model_config when billing has none', () => {
  const old = sessionRow({ cache_read_tokens: null, cache_write_tokens: null, reasoning_tokens: null, api_call_count: null, estimated_cost_usd: null,
    billing_provider: null, billing_base_url: null, billing_mode: null, cost_status: null, cost_source: null, model_config: '{"provider": "nous"}' });
  const s = projectSession(input({ session: old })).session;
  assert.deepEqual([s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens, s.api_call_count, s.estimated_cost_usd, s.provider, s.billing_host],
    [0, 0, 0, 0, null, 'nous', null]);
});

test('lineage: the parent, the kind and the root of the chain; a delegate inherits its parent\'s scope', () => {
  const parent = sessionRow({ id: 'P', parent_session_id: 'R', end_reason: 'done', cwd: '/home/dev/secret' });
  const root = sessionRow({ id: 'R', parent_session_id: null, cwd: '/home/dev/root' });
  const p = projectSession(input({
    session: sessionRow({ source: 'subagent', parent_session_id: 'P', model_config: '{"_delegate_from": "P"}', cwd: '/tmp/x' }), parents: [parent, root],
  }));
  assert.deepEqual([p.session.parent_session_id, p.session.lineage_kind, p.session.lineage_root, p.session.scope], ['P', 'delegate', 'R', '/home/dev/secret']);
  assert.deepEqual(p.scopes, ['/home/dev/secret', '/home/dev/root']);
});

test('with redact on, secrets in content, reasoning, tool arguments, title and prompt are masked as Hermes masks them', () => {
  const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
  const rows = [
    msg(1, { role: 'user', content: `my key is ${key} ok` }),
    msg(2, { role: 'assistant', content: null, reasoning: `the key ${key}`, tool_calls: JSON.stringify([{ id: 'c', type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command: `export K=${key}` }) } }]) }),
  ];
  const p = projectSession(input({ messages: rows, redact: true, systemPrompt: `use ${key}`, session: sessionRow({ title: `key ${key}` }) }));
  assert.equal(p.messages[0]!.content, 'my key is sk-ant...6789 ok');
  assert.equal(p.messages[1]!.reasoning, 'the key sk-ant...6789');
  assert.equal(p.messages[1]!.tool_calls, '[{"id":"c","type":"function","function":{"name":"terminal","arguments":"{\\"command\\":\\"export K=sk-ant...6789\\"}"}}]');
  assert.deepEqual(p.parts.map((x) => x.content_text ?? x.tool_args), ['my key is sk-ant...6789 ok', 'the key sk-ant...6789', '{"command":"export K=sk-ant...6789"}']);
  assert.equal(p.session.title, 'key sk-ant...6789');
  assert.equal(p.session.system_prompt, 'use sk-ant...6789');
  assert.ok(!JSON.stringify(p).includes(key));
});

test('without redact the text is stored as Hermes stored it', () => {
  const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
  const p = projectSession(input({ messages: [msg(1, { content: key })] }));
  assert.equal(p.messages[0]!.content, key);
});

test('per-route usage rows: the main loop is inside the session totals, auxiliary tasks are not', () => {
  const usage = [
    { session_id: 'S', model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1', billing_mode: 'official_docs_snapshot', task: '',
      api_call_count: 2, input_tokens: 1200, output_tokens: 300, cache_read_tokens: 5000, cache_write_tokens: 40, reasoning_tokens: 25,
      estimated_cost_usd: 0.0125, actual_cost_usd: 0, cost_status: 'estimated', cost_source: 'provider_models_api', first_seen: T0, last_seen: T0 + 4 },
    { session_id: 'S', model: 'google/gemini-2.5-flash', billing_provider: 'auto', billing_base_url: '', billing_mode: '', task: 'title_generation',
      api_call_count: 1, input_tokens: 300, output_tokens: 9, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
      estimated_cost_usd: 0.000126, actual_cost_usd: 0, cost_status: null, cost_source: null, first_seen: T0 + 1, last_seen: T0 + 1 },
  ];
  const rows = projectSession(input({ modelUsage: usage })).modelUsage;
  assert.deepEqual(rows.map((u) => [u.model, u.provider, u.task, u.in_session_totals, u.api_call_count, u.input_tokens, u.estimated_cost_usd]), [
    ['gpt-5', 'openai', '', 1, 2, 1200, 0.0125], ['google/gemini-2.5-flash', 'unknown', 'title_generation', 0, 1, 300, 0.000126],
  ]);
  assert.equal(rows[1]!.provider_key, 'auto||');
});

test('a voice_chat row (update_token_counts with a task) is inside the session totals; an auxiliary task is not', () => {
  const row = (task: string, model: string) => ({ session_id: 'S', model, billing_provider: 'p', billing_base_url: '', billing_mode: '', task,
    api_call_count: 1, input_tokens: 20, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
    estimated_cost_usd: 0.01, actual_cost_usd: 0, cost_status: null, cost_source: null, first_seen: T0, last_seen: T0 });
  const rows = projectSession(input({ modelUsage: [row('voice_chat', 'voice-model'), row('vision', 'aux-model')] })).modelUsage;
  assert.deepEqual(rows.map((u) => [u.task, u.in_session_totals]), [['voice_chat', 1], ['vision', 0]]);
});

test('routes whose base URLs differ only in spelling (a trailing slash, the host case, a default port) stay apart', () => {
  const route = (url: string, calls: number) => ({
    session_id: 'S', model: 'gpt-5', billing_provider: 'openrouter', billing_base_url: url, billing_mode: 'm', task: '',
    api_call_count: calls, input_tokens: 10 * calls, output_tokens: calls, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
    estimated_cost_usd: 0.001 * calls, actual_cost_usd: 0, cost_status: 'estimated', cost_source: null, first_seen: T0, last_seen: T0 + calls,
  });
  const usage = [route('https://openrouter.ai/api/v1', 1), route('https://openrouter.ai/api/v1/', 2), route('https://OPENROUTER.ai:443/api/v1', 3), route('https://example.com/v1', 4)];
  const rows = projectSession(input({ modelUsage: usage })).modelUsage;
  const keys = rows.map((u) => u.provider_key as string);
  assert.equal(new Set(keys).size, 4, keys.join(' '));
  assert.deepEqual(rows.map((u) => u.api_call_count), [1, 2, 3, 4]);
  // A route that collides with nothing keeps its plain key; the colliding ones show host and path, never more.
  assert.equal(keys[3], 'openrouter|example.com/v1|m');
  for (const k of keys.slice(0, 3)) assert.match(k, /^openrouter\|openrouter\.ai\/api\/v1\|m#[0-9a-f]{8}$/);
});

test('values the usage ledger cannot count as stored are recorded: a fraction of a token, counters and costs beyond its range, a day that is no date, a garbage usage time', () => {
  const route = { session_id: 'S', model: 'gpt-5', billing_provider: 'openai', billing_base_url: '', billing_mode: '', task: 'vision', api_call_count: 1,
    input_tokens: 10, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 1e300, actual_cost_usd: 0,
    cost_status: null, cost_source: null, first_seen: 5e246, last_seen: T0 + 2 };
  const p = projectSession(input({
    session: sessionRow({ cache_read_tokens: 37120.5, output_tokens: 2 ** 62 }),
    modelUsage: [route],
    dailyUsage: [{ session_id: 'S', day: '2026-13-45', input_tokens: 1 }, { session_id: 'S', day: '2026-07-14', input_tokens: 2 }],
  }));
  const byField = Object.fromEntries(p.issues.map((i) => [i.field as string, i.problem as string]));
  assert.equal(byField.cache_read_tokens, 'cache_read_tokens is 37120.5, not a whole number; the usage ledger counts 37121');
  assert.equal(byField.output_tokens, `output_tokens is ${2 ** 62}, more than is counted exactly; the usage ledger counts ${Number.MAX_SAFE_INTEGER}`);
  assert.equal(byField['session_model_usage.estimated_cost_usd'], `model gpt-5, task vision: estimated_cost_usd is 1e+300, more than the usage ledger holds; it counts ${Number.MAX_SAFE_INTEGER / 1e10}`);
  assert.equal(byField['session_daily_usage.day'], 'day "2026-13-45" is not a date; its usage is spread over the session\'s activity as usage without a day is');
  assert.equal(byField['session_model_usage.first_seen'], 'model gpt-5, task vision: first_seen 5e+246 is not a plausible time; the route is placed by its other time, else at the session\'s last activity');
  // What is written is what the issues say is counted: INTEGER columns hold whole numbers a Parquet INT64 and a
  // PostgreSQL bigint take, and the usage event is finite.
  assert.deepEqual([p.session.cache_read_tokens, p.session.output_tokens], [37121, Number.MAX_SAFE_INTEGER]);
  assert.equal(p.usageEvent!.output_tokens, Number.MAX_SAFE_INTEGER);
  const big = projectSession(input({ session: sessionRow({ input_tokens: 9.9e300, estimated_cost_usd: 1e308 }) }));
  assert.equal(big.session.input_tokens, Number.MAX_SAFE_INTEGER);
  assert.deepEqual([big.usageEvent!.input_tokens, big.usageEvent!.estimated_cost_usd], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER / 1e10]);
  // Values it counts as stored are not issues.
  assert.equal(projectSession(input()).issues.length, 0);
});

test('attributes keep Hermes\'s other fields by name: texts redacted with the dataset, model_config without credentials, never who the user or chat is', () => {
  const session = sessionRow({
    title_source: 'llm', chat_type: 'dm', pinned: 1, archived: 0, last_read_at: T0 + 9, tool_names: '["terminal","web_search"]',
    handoff_error: `token ${KEY} expired`, compression_failure_error: null, user_id: 'u-4471', chat_id: 'chat-991', display_name: 'Alice',
    session_key: 'agent:main:telegram:dm:4471', thread_id: 'topic-7', origin_json: '{"user":"u-4471"}',
    model_config: '{"provider":"custom","base_url":"http://localhost:8080/v1?api_key=sk-local-test","api_key":"sk-local-test","headers":{"Authorization":"Bearer x"},"_delegate_from":"P"}',
  });
  const attrs = (redact: boolean) => JSON.parse(projectSession(input({ session, redact })).session.attributes as string) as Record<string, unknown>;
  const plain = attrs(false);
  assert.deepEqual(plain, {
    chat_type: 'dm', title_source: 'llm',
    model_config: { provider: 'custom', base_url: 'localhost', api_key: '***', headers: { Authorization: '***' }, _delegate_from: 'P' },
    tool_names: ['terminal', 'web_search'], last_read_at: T0 + 9, pinned: 1, handoff_error: `token ${KEY} expired`,
  });
  assert.equal(attrs(true).handoff_error, redactSensitiveText(`token ${KEY} expired`));
  assert.notEqual(attrs(true).handoff_error, plain.handoff_error);
  const row = JSON.stringify(projectSession(input({ session })).session);
  for (const who of ['u-4471', 'chat-991', 'Alice', 'topic-7', 'sk-local-test']) assert.ok(!row.includes(who), who);
  // None set: no attributes at all.
  assert.equal(projectSession(input({ session: sessionRow({ model_config: null }) })).session.attributes, null);
});

test('an attribute stored as a BLOB is decoded and said; an infinite number is kept by its name', () => {
  const session = sessionRow({ model_config: null, title_source: Buffer.from('llm'), pinned: Buffer.from('1'), last_read_at: Infinity });
  const p = projectSession(input({ session }));
  assert.deepEqual(JSON.parse(p.session.attributes as string), { title_source: 'llm', pinned: '1', last_read_at: 'Infinity' });
  assert.deepEqual(p.issues.map((i) => [i.field, i.problem]), [
    ['title_source', 'stored as a 3-byte BLOB, not text; decoded as UTF-8'],
    ['pinned', 'stored as a 1-byte BLOB, not text; decoded as UTF-8'],
  ]);
});

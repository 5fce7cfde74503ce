// The two halves test each other: the runs the emulator plays, recorded into a Hermes-shaped state.db (--state-db),
// are read back by the forwarder, and the dataset and its report say what the emulator's own session routes say.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { openHarness } from '../support/harness.js';
import { runMain } from '../support/process.js';
import { submit } from '../support/runs.js';

interface Counters {
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  api_call_count: number;
  estimated_cost_usd: number | null;
}

const COUNTERS = ['message_count', 'tool_call_count', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'api_call_count', 'estimated_cost_usd'] as const;
const pick = (row: Record<string, unknown>) => Object.fromEntries(COUNTERS.map((k) => [k, row[k] ?? null])) as unknown as Counters;

it('runs the emulator recorded are forwarded whole: each session\'s counters, lineage, messages, tool calls and spend', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-halves-'));
  const store = join(dir, 'state.db');
  const h = await openHarness('fetch', { stateDb: store });

  // A session of two runs: a tool call, then a plain answer.
  const first = await submit(h, '{"input":"list the files","session_id":"conv-a","model":"gpt-5"}');
  await h.admin.event(first, { event: 'tool.started', tool: 'terminal', preview: 'ls', arguments: { command: 'ls' } });
  await h.admin.event(first, { event: 'tool.completed', tool: 'terminal', duration: 0.2, result: 'README.md' });
  await h.admin.complete(first, { output: 'One file.', usage: { input_tokens: 120, output_tokens: 30 } });
  await h.admin.clock({ advance: 60 });
  const second = await submit(h, '{"input":"thanks","session_id":"conv-a","model":"gpt-5"}');
  await h.admin.complete(second, { output: 'You are welcome.', usage: { input_tokens: 200, output_tokens: 8 } });

  // A run that delegates to a subagent, which reports its own spend.
  const parent = await submit(h, '{"input":"research it","session_id":"conv-b","model":"gpt-5"}');
  await h.admin.event(parent, { event: 'tool.started', tool: 'delegate_task', arguments: { goal: 'find papers' } });
  await h.admin.event(parent, { event: 'subagent.start', goal: 'find papers', child_session_id: 'conv-b-child', model: 'gpt-5-mini' });
  await h.admin.event(parent, {
    event: 'subagent.complete', child_session_id: 'conv-b-child', status: 'completed', summary: 'Found 3.',
    input_tokens: 900, output_tokens: 100, reasoning_tokens: 40, api_calls: 3, cost_usd: 0.02,
  });
  await h.admin.event(parent, { event: 'tool.completed', tool: 'delegate_task', result: '{"results": []}' });
  await h.admin.complete(parent, { output: 'Three papers.', usage: { input_tokens: 50, output_tokens: 10 } });

  // A failed run.
  const failed = await submit(h, '{"input":"break","session_id":"conv-c"}');
  await h.admin.event(failed, { event: 'tool.started', tool: 'vision' });
  await h.admin.fail(failed, { error: 'boom' });

  // What the emulator's own routes say of each session.
  const ids = ['conv-a', 'conv-b', 'conv-b-child', 'conv-c'];
  const told = new Map<string, Counters>();
  for (const id of ids) told.set(id, pick((await h.request('GET', `/api/sessions/${id}`)).json().session));
  await h.close();

  // The recorded file says the same.
  const db = new Database(store, { readonly: true });
  try {
    for (const id of ids) assert.deepEqual(pick(db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>), told.get(id), id);
  } finally {
    db.close();
  }

  const home = join(dir, 'home');
  const backfill = await runMain(['backfill', '--state-db', store, '--home', home, '--json']);
  assert.equal(backfill.status, 0, backfill.stderr);
  const query = async (sql: string) => {
    const r = await runMain(['query', '--home', home, '--json', sql]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  };

  // The forwarded sessions: Hermes's counters as recorded, and the lineage of the subagent.
  const sessions = await query(`SELECT session_id, source, parent_session_id, is_sidechain, end_reason, ${COUNTERS.join(', ')} FROM sessions ORDER BY session_id`);
  assert.deepEqual(sessions.map((s) => s.session_id), ids);
  for (const s of sessions) assert.deepEqual(pick(s), told.get(s.session_id as string), s.session_id as string);
  assert.deepEqual(sessions.map((s) => [s.session_id, s.source, s.parent_session_id, s.is_sidechain, s.end_reason]), [
    ['conv-a', 'api_server', null, 0, 'done'],
    ['conv-b', 'api_server', null, 0, 'done'],
    ['conv-b-child', 'subagent', 'conv-b', 1, 'done'],
    ['conv-c', 'api_server', null, 0, 'failed'],
  ]);

  // Every message, and every tool call with the result that answered it.
  const messages = await query('SELECT session_id, COUNT(*) AS n FROM messages GROUP BY session_id ORDER BY session_id');
  assert.deepEqual(messages.map((m) => [m.session_id, m.n]), ids.map((id) => [id, told.get(id)!.message_count]));
  const tools = await query("SELECT session_id, tool_name, calls FROM tool_usage ORDER BY session_id, tool_name");
  assert.deepEqual(tools.map((t) => [t.session_id, t.tool_name, t.calls]), [
    ['conv-a', 'terminal', 1],
    ['conv-b', 'delegate_task', 1],
    ['conv-c', 'vision', 1],
  ]);

  // The report's sessions add up to what the emulator said, the subagent's spend included once.
  const report = await runMain(['report', '--home', home, '--period', 'all', '--by', 'session', '--json']);
  assert.equal(report.status, 0, report.stderr);
  const { totals, rows } = JSON.parse(report.stdout) as { totals: Record<string, number>; rows: Array<Record<string, number | string>> };
  const sum = (k: keyof Counters) => ids.reduce((n, id) => n + (told.get(id)![k] ?? 0), 0);
  assert.deepEqual(
    [totals.input_tokens, totals.output_tokens, totals.reasoning_tokens, totals.api_calls, totals.sessions],
    [sum('input_tokens'), sum('output_tokens'), sum('reasoning_tokens'), sum('api_call_count'), ids.length],
  );
  assert.equal(Math.round(totals.estimated_cost_usd! * 1e6), Math.round(sum('estimated_cost_usd') * 1e6));
  const child = rows.find((r) => r.session_id === 'conv-b-child')!;
  assert.deepEqual([child.input_tokens, child.api_calls, child.estimated_cost_usd], [900, 3, 0.02]);
});

it('the transcripts the emulator recorded are forwarded message for message: text, tool calls and results, reasoning, finish reasons, times (decision 0079)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-halves-'));
  const store = join(dir, 'state.db');
  const h = await openHarness('fetch', { stateDb: store });

  // Part lists, unicode beyond the BMP, lone surrogates, a tool error, reasoning, a very long answer, a cancelled run.
  const long = 'λ😀'.repeat(60_000) + ' end';
  const a = await submit(h, '{"input":[{"role":"user","content":[{"type":"text","text":"café \\ud800"},{"type":"image_url","image_url":{"url":"data:x"}}]}],"session_id":"t-a","model":"gpt-5"}');
  // An inline <think> block: the row's reasoning (and reasoning_content), as build_assistant_message keeps it (0153).
  await h.admin.event(a, { event: 'reasoning.available', text: '<think>plan: read it</think>read it first' });
  await h.admin.event(a, { event: 'tool.started', tool: 'read_file', arguments: { path: 'ünï.txt' } });
  await h.admin.event(a, { event: 'tool.completed', tool: 'read_file', error: true });
  await h.admin.event(a, { event: 'tool.started', tool: 'terminal', arguments: { command: 'cat x' } });
  await h.admin.event(a, { event: 'tool.completed', tool: 'terminal', result: '日本語\udc00' });
  await h.admin.complete(a, { output: long, usage: { input_tokens: 10, output_tokens: 20 } });
  const b = await submit(h, '{"input":"stop soon","session_id":"t-b"}');
  await h.admin.event(b, { event: 'tool.started', tool: 'terminal', arguments: { command: 'sleep 60' } });
  await h.request('POST', `/v1/runs/${b}/stop`);
  await new Promise((r) => setImmediate(r));

  type Row = { role: string; content: string | null; tool_calls: string | null; tool_call_id: string | null; tool_name: string | null; reasoning: string | null; finish_reason: string | null; timestamp: number };
  const told = new Map<string, Array<Record<string, unknown>>>();
  for (const id of ['t-a', 't-b']) told.set(id, (await h.request('GET', `/api/sessions/${id}/messages`)).json().data);
  await h.close();

  const db = new Database(store, { readonly: true });
  const stored = new Map<string, Row[]>();
  try {
    for (const id of ['t-a', 't-b']) stored.set(id, db.prepare('SELECT role, content, tool_calls, tool_call_id, tool_name, reasoning, finish_reason, timestamp FROM messages WHERE session_id = ? ORDER BY id').all(id) as Row[]);
  } finally {
    db.close();
  }
  assert.equal(stored.get('t-a')![0]!.content, 'café \ufffd\n[screenshot]');
  assert.equal(stored.get('t-a')!.at(-1)!.content, long);
  assert.deepEqual([stored.get('t-a')![1]!.content, stored.get('t-a')![1]!.reasoning], ['read it first', 'plan: read it']);
  assert.deepEqual(stored.get('t-b')!.map((r) => r.role), ['user', 'assistant'], 'a cancelled run keeps its user message and the call it made');
  // The emulator's own routes say the same as the file.
  for (const [id, rows] of stored) {
    assert.deepEqual(told.get(id)!.map((m) => [m.role, m.content, m.tool_call_id, m.tool_name, m.finish_reason]),
      rows.map((r) => [r.role, r.content, r.tool_call_id, r.tool_name, r.finish_reason]), id);
  }

  const home = join(dir, 'home');
  const backfill = await runMain(['backfill', '--state-db', store, '--home', home, '--json']);
  assert.equal(backfill.status, 0, backfill.stderr);
  const r = await runMain(['query', '--home', home, '--json',
    "SELECT session_id, role, content, content_format, tool_calls, tool_call_id, tool_name, reasoning, finish_reason, created_at FROM messages WHERE session_id IN ('t-a', 't-b') ORDER BY session_id, seq"]);
  assert.equal(r.status, 0, r.stderr);
  const forwarded = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  const expected = [...stored].flatMap(([id, rows]) => rows.map((m) => ({
    session_id: id, role: m.role, content: m.content, content_format: m.content === null ? null : 'text',
    tool_calls: m.tool_calls === null ? null : JSON.parse(m.tool_calls), tool_call_id: m.tool_call_id,
    tool_name: m.tool_name, reasoning: m.reasoning, finish_reason: m.finish_reason, created_at: m.timestamp,
  })));
  const asForwarded = forwarded.map((m) => ({ ...m, tool_calls: typeof m.tool_calls === 'string' ? JSON.parse(m.tool_calls) : m.tool_calls }));
  assert.deepEqual(asForwarded, expected);
});

it('a forwarder tailing the file while a run plays sees its turn grow, and ends where a backfill of the finished file does (decision 0133)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-halves-'));
  const store = join(dir, 'state.db');
  const tailing = join(dir, 'tailing');
  const h = await openHarness('fetch', { stateDb: store });
  const tick = async () => {
    const r = await runMain(['forward', '--once', '--state-db', store, '--home', tailing]);
    assert.equal(r.status, 0, r.stderr);
  };
  const rows = async (home: string) => {
    const r = await runMain(['query', '--home', home, '--json',
      "SELECT m.seq, m.role, m.content, m.tool_calls, m.tool_call_id, m.created_at FROM messages m WHERE m.session_id = 'conv-tail' ORDER BY m.seq"]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
  };
  const calls = (v: unknown) => (v === null ? 0 : (JSON.parse(v as string) as unknown[]).length);
  const shape = (list: Array<Record<string, unknown>>) => list.map((m) => [m.role, m.content, calls(m.tool_calls)]);

  const run = await submit(h, '{"input":"read both","session_id":"conv-tail","model":"gpt-5"}');
  await tick();
  assert.deepEqual(shape(await rows(tailing)), [['user', 'read both', 0]], 'the user message before the first model call');
  await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'a' } });
  await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'b' } });
  await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'A' });
  await tick();
  assert.deepEqual(shape(await rows(tailing)), [['user', 'read both', 0], ['assistant', '', 2], ['tool', 'A', 0]], 'the response\'s two calls in one row, the first result');
  await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'B' });
  await h.admin.complete(run, { output: 'Both read.', usage: { input_tokens: 30, output_tokens: 6 } });
  await tick();
  await h.close();

  const whole = join(dir, 'whole');
  const backfill = await runMain(['backfill', '--state-db', store, '--home', whole, '--json']);
  assert.equal(backfill.status, 0, backfill.stderr);
  assert.deepEqual(await rows(tailing), await rows(whole));
  assert.equal((await rows(whole)).length, 5);
  const counters = async (home: string) => {
    const r = await runMain(['query', '--home', home, '--json', "SELECT message_count, tool_call_count, api_call_count, input_tokens FROM sessions WHERE session_id = 'conv-tail'"]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as unknown;
  };
  assert.deepEqual(await counters(tailing), await counters(whole));
  assert.deepEqual(await counters(whole), [{ message_count: 5, tool_call_count: 2, api_call_count: 2, input_tokens: 30 }]);
});

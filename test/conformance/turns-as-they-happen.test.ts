// A run's turn reaches both sinks as Hermes's agent persists it (decision 0133): the user message before the first
// model call, a model response's tool calls as one row, each tool result as its tool returns, the activity heartbeat
// mid-turn; and the session row's accounting columns as Hermes fills them. Over both transports, both sinks.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { toolErrorSql } from '../../src/forwarder/sinks/sqlite/activity.js';
import { describeTransports, T0, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';

type Row = Record<string, unknown>;

const CODER_KEY = 'coder-key-0123456789abcdef';

const statePath = () => join(mkdtempSync(join(tmpdir(), 'hermetic-turns-')), 'state.db');

/** What another process tailing the --state-db file sees now (a read-only connection, as a forwarder opens it). */
function fileSays<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const fileMessages = (path: string, session: string) =>
  fileSays(path, (db) => db.prepare('SELECT role, content, tool_calls, tool_call_id, timestamp FROM messages WHERE session_id = ? ORDER BY id').all(session) as Row[]);

async function apiMessages(h: Harness, session: string): Promise<Row[]> {
  const reply = await h.request('GET', `/api/sessions/${session}/messages`);
  assert.equal(reply.status, 200, reply.text);
  return reply.json().data as Row[];
}

/** Role, content and the names of the calls a row carries: what a polling client draws. */
const shape = (rows: Row[]) =>
  rows.map((r) => {
    const calls = typeof r.tool_calls === 'string' ? JSON.parse(r.tool_calls) : r.tool_calls;
    return [r.role, r.content, Array.isArray(calls) ? calls.map((c: { function: { name: string } }) => c.function.name) : null];
  });

describeTransports('turns as they happen (decision 0133)', (open) => {
  it('a client polling a run sees the user message at once, then the tool call and its result, then the answer; the state.db file grows alike', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"list the files","session_id":"conv-live"}');

    // Before the first model call: the session with its user message (message_count 1, the preview is the input).
    const expected: unknown[][] = [['user', 'list the files', null]];
    assert.deepEqual(shape(await apiMessages(h, 'conv-live')), expected);
    assert.deepEqual(shape(fileMessages(path, 'conv-live')), expected);
    const listed = (await h.request('GET', '/api/sessions')).json().data as Row[];
    assert.deepEqual(listed.map((s) => [s.id, s.message_count, s.preview, s.last_active]), [['conv-live', 1, 'list the files', T0]]);

    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', preview: 'ls', arguments: { command: 'ls' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', duration: 0.2, result: 'README.md\nsrc' });
    expected.push(['assistant', '', ['terminal']], ['tool', 'README.md\nsrc', null]);
    assert.deepEqual(shape(await apiMessages(h, 'conv-live')), expected, 'the call and its result, while the run goes on');
    assert.deepEqual(shape(fileMessages(path, 'conv-live')), expected, 'the file, while the run goes on');
    const session = (await h.request('GET', '/api/sessions/conv-live')).json().session as Row;
    assert.deepEqual([session.message_count, session.tool_call_count, session.ended_at], [3, 1, null]);

    await h.admin.complete(run, { output: 'Two entries.', usage: { input_tokens: 50, output_tokens: 20 } });
    expected.push(['assistant', 'Two entries.', null]);
    assert.deepEqual(shape(await apiMessages(h, 'conv-live')), expected);
    assert.deepEqual(shape(fileMessages(path, 'conv-live')), expected);
    // The same rows in both sinks: ids of the calls and times.
    const api = await apiMessages(h, 'conv-live');
    const file = fileMessages(path, 'conv-live');
    assert.deepEqual(api.map((m) => [m.tool_call_id, m.timestamp]), file.map((m) => [m.tool_call_id, m.timestamp]));
    await h.close();
  });

  it('runs on one session back to back keep their order: each user message after the answer before it', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    for (const text of ['one', 'two']) {
      await h.admin.complete(await submit(h, `{"input":"${text}","session_id":"conv-seq"}`), { output: `re: ${text}` });
    }
    // A third run starts: its user message waits to be committed beside the answer before it, and a route commits both.
    await submit(h, '{"input":"three","session_id":"conv-seq"}');
    const expected = ['one', 're: one', 'two', 're: two', 'three'];
    const rows = await apiMessages(h, 'conv-seq');
    assert.deepEqual(rows.map((m) => m.content), expected);
    const ids = rows.map((m) => m.id as number);
    assert.deepEqual([...ids].sort((a, b) => a - b), ids, 'ids in the order written');
    await h.close();
    assert.deepEqual(fileMessages(path, 'conv-seq').map((m) => m.content), expected);
  });

  it('tool calls started back to back are one model response: one assistant row holding both, then the results, one API call for it', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"read both","session_id":"conv-par"}');
    await h.admin.event(run, { event: 'reasoning.available', text: 'both at once' });
    await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'a' } });
    await h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'b' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'A' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'read_file', result: 'B' });
    // A later response: its own row.
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', result: 'ok' });
    await h.admin.complete(run, { output: 'Done.', usage: { input_tokens: 9, output_tokens: 3 } });

    const rows = await apiMessages(h, 'conv-par');
    const expected = [
      ['user', 'read both', null], ['assistant', 'both at once', ['read_file', 'read_file']], ['tool', 'A', null], ['tool', 'B', null],
      ['assistant', '', ['terminal']], ['tool', 'ok', null], ['assistant', 'Done.', null],
    ];
    assert.deepEqual(shape(rows), expected);
    const calls = rows[1]!.tool_calls as Array<{ id: string; function: { arguments: string } }>;
    assert.deepEqual(calls.map((c) => c.function.arguments), ['{"path":"a"}', '{"path":"b"}']);
    assert.deepEqual([rows[2]!.tool_call_id, rows[3]!.tool_call_id], calls.map((c) => c.id), 'each result answers its call, in order');
    assert.equal(rows[1]!.reasoning, null, 'the event told the response\'s text, no reasoning (decision 0151)');
    const session = (await h.request('GET', '/api/sessions/conv-par')).json().session as Row;
    // Three model responses: the two reads, the terminal call, the answer.
    assert.deepEqual([session.message_count, session.tool_call_count, session.api_call_count], [7, 3, 3]);
    await h.close();
    assert.deepEqual(shape(fileMessages(path, 'conv-par')), expected);
    assert.deepEqual(fileSays(path, (db) => db.prepare("SELECT message_count, tool_call_count, api_call_count FROM sessions WHERE id = 'conv-par'").raw().get()), [7, 3, 3]);
  });

  it('a failed tool with no result is stored as Hermes stores a tool that raised, which the forwarder counts as a failure', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"try","session_id":"conv-fail"}');
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', error: true });
    // A failed tool whose result the control plane gives keeps that result.
    await h.admin.event(run, { event: 'tool.started', tool: 'web_search' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'web_search', error: true, result: '{"error": "rate limited", "success": false}' });
    await h.admin.complete(run, { output: 'It failed.' });
    const failed = '{"error": "[TOOL_ERROR] Error executing terminal: "}';
    const results = (await apiMessages(h, 'conv-fail')).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.deepEqual(results, [failed, '{"error": "rate limited", "success": false}']);
    await h.close();
    const file = fileMessages(path, 'conv-fail').filter((m) => m.role === 'tool').map((m) => m.content as string);
    assert.deepEqual(file, results);
    const db = new Database(':memory:');
    try {
      assert.deepEqual(file.map((text) => db.prepare(`SELECT ${toolErrorSql('t')} FROM (SELECT ? AS t)`).pluck().get(text)), [1, 1], 'counted as failures');
    } finally {
      db.close();
    }
  });

  it('on a running clock the session starts no later than its first message, in the state.db and the API server\'s sessions', async () => {
    const path = statePath();
    const h = await open({ stateDb: path, frozen: false });
    for (const session of ['conv-a', 'conv-b']) {
      const run = await submit(h, `{"input":"go","session_id":"${session}"}`);
      await h.admin.complete(run, { output: 'Done.' });
    }
    const sessions = (await h.request('GET', '/api/sessions')).json().data as Row[];
    for (const s of sessions) {
      const first = (await apiMessages(h, s.id as string))[0]!;
      assert.ok((s.started_at as number) <= (first.timestamp as number), `${s.id}: started ${s.started_at}, first message ${first.timestamp}`);
    }
    await h.close();
    const rows = fileSays(path, (db) => db.prepare('SELECT s.id, s.started_at, MIN(m.timestamp) AS first FROM sessions s JOIN messages m ON m.session_id = s.id GROUP BY s.id').all() as Row[]);
    assert.equal(rows.length, 2);
    for (const r of rows) assert.ok((r.started_at as number) <= (r.first as number), `${r.id}: started ${r.started_at}, first message ${r.first}`);
  });

  it('the activity heartbeat moves last_active mid-turn before any new message lands, and the turn\'s end clears its label', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"build it","session_id":"conv-beat"}');
    const activity = () => fileSays(path, (db) => db.prepare("SELECT last_activity_at, last_activity_description, last_activity_provenance FROM sessions WHERE id = 'conv-beat'").raw().get());
    assert.deepEqual(activity(), [T0, 'starting API call #1', 'unknown']);
    await h.admin.clock({ advance: 90 });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'make' } });
    // Hermes's agent writes the heartbeat at most once a minute: 90 s later, the response that asks for the tool lands,
    // and its "API call #1 completed" is the first touch of that instant (decision 0151).
    assert.deepEqual(activity(), [T0 + 90, 'API call #1 completed', 'unknown']);
    const listed = (await h.request('GET', '/api/sessions')).json().data as Row[];
    assert.deepEqual(listed.map((s) => [s.id, s.last_active]), [['conv-beat', T0 + 90]]);
    await h.admin.clock({ advance: 10 });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', duration: 10, result: 'built' });
    assert.deepEqual(activity(), [T0 + 90, 'API call #1 completed', 'unknown'], 'not again within the minute');
    await h.admin.complete(run, { output: 'Built.' });
    assert.deepEqual(activity(), [T0 + 90, '', 'unknown'], 'the label cleared, the time kept');
    await h.close();
  });

  it('the heartbeat says what Hermes\'s agent touches first at each moment: stream chunks, a landed call, a concurrent batch, an approval wait (decision 0151)', async () => {
    const path = statePath();
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"read both","session_id":"conv-beats"}');
    const activity = () => fileSays(path, (db) => db.prepare("SELECT last_activity_at, last_activity_description FROM sessions WHERE id = 'conv-beats'").raw().get());
    const lastActive = async () => ((await h.request('GET', '/api/sessions')).json().data as Row[]).find((s) => s.id === 'conv-beats')!.last_active;
    const at = async (seconds: number, act: () => Promise<unknown>) => {
      await h.admin.clock({ advance: seconds });
      await act();
    };
    assert.deepEqual(activity(), [T0, 'starting API call #1']);
    // A stream chunk (message.delta) touches "receiving stream response"; the first one within the minute is not written.
    await at(30, () => h.admin.event(run, { event: 'message.delta', delta: 'Let me ' }));
    assert.deepEqual(activity(), [T0, 'starting API call #1']);
    await at(40, () => h.admin.event(run, { event: 'message.delta', delta: 'read them.' }));
    assert.deepEqual(activity(), [T0 + 70, 'receiving stream response']);
    assert.equal(await lastActive(), T0 + 70, 'the API server\'s session moved with it, no message newer');
    // The response lands with its text (its "API call #1 completed" within the minute); 60 s later its two calls start:
    // a concurrent batch, told once it closes, at its first call's time.
    await at(5, () => h.admin.event(run, { event: 'reasoning.available', text: 'Let me read them.' }));
    await at(60, () => h.admin.event(run, { event: 'tool.started', tool: 'read_file', arguments: { path: 'a' } }));
    await at(1, () => h.admin.event(run, { event: 'tool.started', tool: 'search_files', arguments: { pattern: 'b' } }));
    assert.deepEqual(activity(), [T0 + 70, 'receiving stream response'], 'the batch is still open');
    await at(1, () => h.admin.event(run, { event: 'tool.completed', tool: 'read_file', duration: 2, result: 'A' }));
    assert.deepEqual(activity(), [T0 + 135, 'executing 2 tools concurrently: read_file, search_files']);
    await h.admin.event(run, { event: 'tool.completed', tool: 'search_files', duration: 1, result: 'B' });
    // The next model call's response lands 70 s later: its number is the turn's second.
    await at(70, () => h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'rm -rf build' } }));
    assert.deepEqual(activity(), [T0 + 207, 'API call #2 completed']);
    // An approval waited 95 s: the wait's touches every 10 s meet the minute at its 60th second.
    await at(3, () => h.admin.approvalRequest(run, { command: 'rm -rf build', request_id: 'R1' }));
    await h.admin.clock({ advance: 95 });
    assert.equal((await h.request('POST', `/v1/runs/${run}/approval`, { body: '{"choice":"once"}' })).status, 200);
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', duration: 98, result: 'ok' });
    assert.deepEqual(activity(), [T0 + 270, 'waiting for user approval (60s elapsed)']);
    // The final response lands 61 s later: written, then the turn's end clears the label and keeps the time.
    await at(61, () => h.admin.complete(run, { output: 'Done.', usage: { input_tokens: 5, output_tokens: 2 } }));
    assert.deepEqual(activity(), [T0 + 366, '']);
    const session = (await h.request('GET', '/api/sessions/conv-beats')).json().session as Row;
    assert.equal(session.api_call_count, 3, 'three model calls, as the heartbeat numbered them');
    await h.close();
  });

  it('the state.db row says what Hermes says of a run it cannot price, its profile and its session key', async () => {
    const path = statePath();
    const h = await open({ stateDb: path, profiles: { coder: { apiKey: CODER_KEY } } });
    const keyed = await submit(h, '{"input":"one","session_id":"conv-key"}', { 'X-Hermes-Session-Key': 'agent:main:webui:dm:user-42' });
    await h.admin.complete(keyed, { output: 'One.', usage: { input_tokens: 4, output_tokens: 2 } });
    const reply = await h.request('POST', '/p/coder/v1/runs', {
      body: '{"input":"two","session_id":"conv-coder"}', headers: { Authorization: `Bearer ${CODER_KEY}` },
    });
    assert.equal(reply.status, 202, reply.text);
    const coder = reply.json().run_id as string;
    await h.admin.event(coder, { event: 'subagent.start', goal: 'look', child_session_id: 'child-paid' });
    await h.admin.event(coder, { event: 'subagent.complete', child_session_id: 'child-paid', status: 'completed', summary: 'Seen.', input_tokens: 10, cost_usd: 0.25 });
    await h.admin.fail(coder, { error: 'boom' });
    await h.close();
    const rows = fileSays(path, (db) => db.prepare('SELECT id, profile_name, session_key, cost_status, cost_source, estimated_cost_usd FROM sessions ORDER BY id').all());
    assert.deepEqual(rows, [
      { id: 'child-paid', profile_name: 'coder', session_key: null, cost_status: 'estimated', cost_source: null, estimated_cost_usd: 0.25 },
      // A failed run's result reports no usage: nothing is accounted, as before.
      { id: 'conv-coder', profile_name: 'coder', session_key: null, cost_status: null, cost_source: null, estimated_cost_usd: null },
      { id: 'conv-key', profile_name: 'default', session_key: 'agent:main:webui:dm:user-42', cost_status: 'unknown', cost_source: 'none', estimated_cost_usd: 0 },
    ]);
    const usage = fileSays(path, (db) => db.prepare("SELECT cost_status, cost_source FROM session_model_usage WHERE session_id = 'conv-key'").raw().all());
    assert.deepEqual(usage, [['unknown', 'none']]);
  });
});

describeTransports('the model a run records (api_server.py _request_agent_overrides)', (open) => {
  it('a run naming no model, an empty one, one not text or the advertised one runs the agent model; another runs as named, stripped', async () => {
    const path = statePath();
    const h = await open({ stateDb: path, agentModel: 'anthropic/claude-sonnet-4.6' });
    const cases: [string, string][] = [
      ['{"input":"a","session_id":"m-none"}', 'anthropic/claude-sonnet-4.6'],
      ['{"input":"a","session_id":"m-empty","model":"  "}', 'anthropic/claude-sonnet-4.6'],
      ['{"input":"a","session_id":"m-number","model":7}', 'anthropic/claude-sonnet-4.6'],
      ['{"input":"a","session_id":"m-alias","model":"hermes-agent"}', 'anthropic/claude-sonnet-4.6'],
      ['{"input":"a","session_id":"m-own","model":" gpt-5 "}', 'gpt-5'],
    ];
    for (const [body, model] of cases) {
      const run = await submit(h, body);
      await h.admin.complete(run, { output: 'ok', usage: { input_tokens: 3, output_tokens: 1 } });
      const id = JSON.parse(body).session_id as string;
      const session = (await h.request('GET', `/api/sessions/${id}`)).json().session as Row;
      assert.equal(session.model, model, `${body}: the session`);
      assert.equal(fileSays(path, (db) => db.prepare('SELECT model FROM sessions WHERE id = ?').pluck().get(id)), model, `${body}: the state.db file`);
    }
    // Without --agent-model, the advertised name (as before).
    const plain = await open({});
    const run = await submit(plain, '{"input":"a","session_id":"m-default"}');
    await plain.admin.complete(run, { output: 'ok' });
    assert.equal((await plain.request('GET', '/api/sessions/m-default')).json().session.model, 'hermes-agent');
  });
});

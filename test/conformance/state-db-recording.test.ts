// Issue 3 item 5: the runs the emulator plays are recorded into a Hermes-shaped state.db.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { describeTransports, T0 } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { waitFor } from '../support/wait.js';

interface SessionRow {
  id: string;
  source: string;
  model: string;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  end_reason: string | null;
  ended_at: number | null;
  started_at: number;
}

describeTransports('state.db recording', (open) => {
  it('three runs (events, an approval, a completion, a failure) leave the sessions, messages and token counts Hermes would', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });

    const a = await submit(h, '{"input":"list the files"}');
    await h.admin.event(a, { event: 'reasoning.available', text: 'I will run ls' });
    await h.admin.event(a, { event: 'tool.started', tool: 'terminal', preview: 'ls', arguments: { command: 'ls' } });
    await h.admin.event(a, { event: 'tool.completed', tool: 'terminal', duration: 0.2, result: 'README.md\nsrc' });
    await h.admin.complete(a, { output: 'Two entries.', usage: { input_tokens: 50, output_tokens: 200 } });

    const b = await submit(h, '{"input":"clean up","session_id":"conv-1","model":"gpt-5"}');
    await h.admin.approvalRequest(b, { command: 'rm -rf build', request_id: 'R1' });
    await h.request('POST', `/v1/runs/${b}/approval`, { body: '{"choice":"once"}' });
    await h.admin.event(b, { event: 'tool.started', tool: 'terminal', preview: 'rm -rf build' });
    await h.admin.event(b, { event: 'tool.completed', tool: 'terminal', error: false });
    await h.admin.complete(b, { output: 'Cleaned.', usage: { input_tokens: 10, output_tokens: 5 } });

    const c = await submit(h, '{"input":[{"role":"user","content":[{"type":"text","text":"describe"},{"type":"image_url","image_url":{"url":"data:x"}}]}]}');
    await h.admin.event(c, { event: 'tool.started', tool: 'vision', preview: null });
    await h.admin.fail(c, { error: 'boom' });
    await h.close();

    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const sessions = db.prepare('SELECT * FROM sessions ORDER BY started_at, id').all() as SessionRow[];
      const pick = (s: SessionRow) => [s.id, s.source, s.model, s.message_count, s.tool_call_count, s.input_tokens, s.output_tokens, s.end_reason];
      assert.deepEqual(sessions.map(pick).sort(), [
        [a, 'api_server', 'hermes-agent', 4, 1, 50, 200, 'done'],
        ['conv-1', 'api_server', 'gpt-5', 4, 1, 10, 5, 'done'],
        [c, 'api_server', 'hermes-agent', 2, 1, 0, 0, 'failed'],
      ].sort());
      for (const s of sessions) {
        assert.equal(s.started_at, T0);
        assert.equal(s.ended_at, T0);
      }
      const rows = db.prepare('SELECT role, content, tool_calls, tool_call_id, tool_name, finish_reason, reasoning FROM messages WHERE session_id = ? ORDER BY id').all(a) as Array<Record<string, string | null>>;
      assert.deepEqual(rows.map((r) => r.role), ['user', 'assistant', 'tool', 'assistant']);
      assert.equal(rows[0]!.content, 'list the files');
      const calls = JSON.parse(rows[1]!.tool_calls!) as Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
      assert.equal(calls[0]!.function.name, 'terminal');
      assert.equal(calls[0]!.function.arguments, '{"command":"ls"}');
      assert.match(calls[0]!.id, /^call_[0-9a-f]{24}$/);
      // reasoning.available carries the response's visible text: the call row's content, no reasoning (decision 0151).
      assert.deepEqual([rows[1]!.content, rows[1]!.reasoning], ['I will run ls', null]);
      assert.equal(rows[1]!.finish_reason, 'tool_calls');
      assert.deepEqual([rows[2]!.tool_call_id, rows[2]!.tool_name, rows[2]!.content], [calls[0]!.id, 'terminal', 'README.md\nsrc']);
      assert.deepEqual([rows[3]!.content, rows[3]!.finish_reason], ['Two entries.', 'stop']);
      // The agent's flush stores a part list as its text projection (agent/session_persistence.py `_durable_content`).
      const multimodal = db.prepare("SELECT content FROM messages WHERE session_id = ? AND role = 'user'").pluck().get(c) as string;
      assert.equal(multimodal, 'describe\n[screenshot]');
    } finally {
      db.close();
    }
  });

  it('on a frozen clock, a new emulator on the same store appends a session\'s messages after the ones an earlier one wrote', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    for (const text of ['one', 'two']) {
      // Each process starts its clock at the same frozen time, as `hermetic serve --db` run twice does.
      const h = await open({ stateDb: path });
      await h.admin.complete(await submit(h, `{"input":"${text}","session_id":"conv-4"}`), { output: `re: ${text}` });
      await h.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const times = db.prepare("SELECT timestamp FROM messages WHERE session_id = 'conv-4' ORDER BY id").pluck().all() as number[];
      assert.equal(times.length, 4);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, `message ${i} comes after ${i - 1}: ${times.join(', ')}`);
    } finally {
      db.close();
    }
  });

  it('a second run on the same session_id appends to that session; a restart keeps what the agent had persisted (decision 0133)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    for (const text of ['one', 'two']) {
      const runId = await submit(h, `{"input":"${text}","session_id":"conv-2"}`);
      await h.admin.complete(runId, { output: `re: ${text}` });
    }
    const lost = await submit(h, '{"input":"three","session_id":"conv-3"}');
    await h.admin.event(lost, { event: 'tool.started', tool: 'terminal' });
    await h.admin.restart();
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      const count = (id: string) => db.prepare('SELECT message_count FROM sessions WHERE id = ?').pluck().get(id);
      assert.equal(count('conv-2'), 4);
      // The user message (written before the first model call) and the tool call (written before its tool ran); the
      // answer never came.
      assert.equal(count('conv-3'), 2);
      assert.deepEqual(db.prepare("SELECT role, tool_calls IS NOT NULL FROM messages WHERE session_id = 'conv-3' ORDER BY id").raw().all(), [['user', 0], ['assistant', 1]]);
      assert.equal(db.prepare("SELECT ended_at FROM sessions WHERE id = 'conv-3'").pluck().get(), null, 'a run the process lost has no end');
    } finally {
      db.close();
    }
  });

  it('a session\'s runs add their tokens and API calls as the agent\'s per-call updates do, and a later run reopens the session the last one ended', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const read = <T>(sql: string): T => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(sql).get() as T;
      } finally {
        db.close();
      }
    };
    const first = await submit(h, '{"input":"look","session_id":"conv-5","model":"gpt-5"}');
    await h.admin.event(first, { event: 'tool.started', tool: 'terminal' });
    await h.admin.event(first, { event: 'tool.completed', tool: 'terminal', result: 'ok' });
    await h.admin.complete(first, { output: 'Seen.', usage: { input_tokens: 100, output_tokens: 10 } });
    const ended = read<SessionRow>("SELECT * FROM sessions WHERE id = 'conv-5'");
    assert.deepEqual([ended.end_reason, ended.ended_at], ['done', T0]);
    await h.admin.clock({ advance: 60 });
    const second = await submit(h, '{"input":"again","session_id":"conv-5","model":"gpt-5"}');
    const open2 = read<SessionRow>("SELECT * FROM sessions WHERE id = 'conv-5'");
    assert.deepEqual([open2.end_reason, open2.ended_at], [null, null], 'resumed: the end is cleared while the run plays');
    await h.admin.complete(second, { output: 'Again.', usage: { input_tokens: 5, output_tokens: 2 } });
    await h.close();
    // Two API calls in the first run (the tool call, the answer), one in the second: added, never overwritten.
    const row = read<SessionRow & { api_call_count: number }>("SELECT * FROM sessions WHERE id = 'conv-5'");
    assert.deepEqual([row.input_tokens, row.output_tokens, row.api_call_count, row.end_reason, row.ended_at], [105, 12, 3, 'done', T0 + 60]);
    const usage = read<{ n: number; model: string; task: string; api_call_count: number; input_tokens: number; output_tokens: number }>(
      "SELECT COUNT(*) OVER () AS n, model, task, api_call_count, input_tokens, output_tokens FROM session_model_usage WHERE session_id = 'conv-5'");
    assert.deepEqual(usage, { n: 1, model: 'gpt-5', task: '', api_call_count: 3, input_tokens: 105, output_tokens: 12 });
  });

  it('a state.db another process holds locked: runs are answered at once, the writes wait in order and land when the lock is free', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    await h.admin.complete(await submit(h, '{"input":"before","session_id":"conv-6"}'), { output: 'first' });
    const other = new Database(path);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    other.prepare("UPDATE sessions SET title = 'held' WHERE id = 'conv-6'").run();
    try {
      // Started, played and ended while the file is locked: every answer comes, nothing is thrown.
      const runId = await submit(h, '{"input":"while locked","session_id":"conv-6"}');
      await h.admin.event(runId, { event: 'tool.started', tool: 'terminal' });
      await h.admin.complete(runId, { output: 'second', usage: { input_tokens: 7, output_tokens: 3 } });
      assert.equal((await h.admin.run(runId)).status, 'completed');
      assert.equal((await h.request('GET', '/health')).status, 200);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    const count = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare("SELECT message_count, input_tokens, api_call_count, title FROM sessions WHERE id = 'conv-6'").get() as Record<string, unknown>;
      } finally {
        db.close();
      }
    };
    await waitFor(() => count().message_count === 5, 'the held turn to land once the lock is free');
    await h.close();
    assert.deepEqual(count(), { message_count: 5, input_tokens: 7, api_call_count: 3, title: 'held' });
    const db = new Database(path, { readonly: true });
    try {
      const times = db.prepare("SELECT timestamp FROM messages WHERE session_id = 'conv-6' ORDER BY id").pluck().all() as number[];
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, `in order: ${times.join(', ')}`);
    } finally {
      db.close();
    }
  });

  it('a subagent the run delegates to gets its own child session, in the state.db and the API server\'s sessions alike', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"research it","session_id":"parent-1","model":"gpt-5"}');
    await h.admin.event(run, { event: 'tool.started', tool: 'delegate_task', arguments: { goal: 'find papers' } });
    await h.admin.event(run, { event: 'subagent.start', preview: 'find papers', goal: 'find papers', subagent_id: 'sa-1', child_session_id: 'child-1', model: 'gpt-5-mini' });
    // Without a child_session_id there is no session to record (nothing is invented).
    await h.admin.event(run, { event: 'subagent.start', goal: 'unnamed', subagent_id: 'sa-2' });
    await h.admin.clock({ advance: 30 });
    await h.admin.event(run, {
      event: 'subagent.complete', subagent_id: 'sa-1', child_session_id: 'child-1', status: 'completed', summary: 'Found 3 papers.',
      input_tokens: 1200, output_tokens: 300, reasoning_tokens: 50, api_calls: 4, cost_usd: 0.0125,
    });
    // A child Hermes ended runs no more: events repeated for it write nothing again (no second goal, no spend twice).
    await h.admin.event(run, { event: 'subagent.complete', child_session_id: 'child-1', status: 'completed', summary: 'Again.', input_tokens: 99, api_calls: 1 });
    await h.admin.event(run, { event: 'subagent.start', goal: 'find papers again', child_session_id: 'child-1' });
    // A second subagent that failed, reporting no spend: its session ends failed with no answer.
    await h.admin.event(run, { event: 'subagent.start', goal: 'check the lab site', child_session_id: 'child-2' });
    await h.admin.event(run, { event: 'subagent.complete', child_session_id: 'child-2', status: 'timeout', summary: '' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'delegate_task', result: '{"results": []}' });
    await h.admin.complete(run, { output: 'Three papers.', usage: { input_tokens: 10, output_tokens: 5 } });

    // The API server's view: the child is no root of the list, and shows its lineage and spend.
    const list = (await h.request('GET', '/api/sessions')).json().data as Array<{ id: string }>;
    assert.deepEqual(list.map((s) => s.id), ['parent-1']);
    const child = (await h.request('GET', '/api/sessions/child-1')).json().session as Record<string, unknown>;
    assert.deepEqual(
      [child.source, child.parent_session_id, child.model, child.message_count, child.input_tokens, child.output_tokens, child.reasoning_tokens, child.api_call_count, child.estimated_cost_usd],
      ['subagent', 'parent-1', 'gpt-5-mini', 2, 1200, 300, 50, 4, 0.0125],
    );
    const said = (await h.request('GET', '/api/sessions/child-1/messages')).json().data as Array<{ role: string; content: string }>;
    assert.deepEqual(said.map((m) => [m.role, m.content]), [['user', 'find papers'], ['assistant', 'Found 3 papers.']]);
    await h.close();

    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare("SELECT * FROM sessions WHERE source = 'subagent' ORDER BY id").all() as Array<SessionRow & Record<string, unknown>>;
      const pick = (s: SessionRow & Record<string, unknown>) =>
        [s.id, s.parent_session_id, s.model, JSON.parse(s.model_config as string), s.message_count, s.input_tokens, s.output_tokens, s.reasoning_tokens, s.api_call_count, s.estimated_cost_usd, s.end_reason, s.started_at, s.ended_at];
      assert.deepEqual(rows.map(pick), [
        ['child-1', 'parent-1', 'gpt-5-mini', { _delegate_from: 'parent-1' }, 2, 1200, 300, 50, 4, 0.0125, 'done', T0, T0 + 30],
        ['child-2', 'parent-1', 'gpt-5', { _delegate_from: 'parent-1' }, 1, 0, 0, 0, 0, null, 'failed', T0 + 30, T0 + 30],
      ]);
      const messages = db.prepare("SELECT role, content, finish_reason, timestamp FROM messages WHERE session_id = 'child-1' ORDER BY id").all();
      assert.deepEqual(messages, [
        // The goal when the child started it, the answer when it completed (decision 0079: creation times).
        { role: 'user', content: 'find papers', finish_reason: null, timestamp: T0 },
        { role: 'assistant', content: 'Found 3 papers.', finish_reason: 'stop', timestamp: T0 + 30 },
      ]);
      // The parent's own counters hold its own calls only: the child's spend is the child's row.
      const parent = db.prepare("SELECT input_tokens, output_tokens, estimated_cost_usd FROM sessions WHERE id = 'parent-1'").get();
      assert.deepEqual(parent, { input_tokens: 10, output_tokens: 5, estimated_cost_usd: 0 });
      // The child's usage is attributed to its model.
      const usage = db.prepare("SELECT model, task, api_call_count, input_tokens FROM session_model_usage WHERE session_id = 'child-1'").all();
      assert.deepEqual(usage, [{ model: 'gpt-5-mini', task: '', api_call_count: 4, input_tokens: 1200 }]);
    } finally {
      db.close();
    }
  });

  it('tool arguments are recorded as compact JSON in the order sent, with Python\'s words for the floats JSON lacks and big ints exact', async () => {
    const h = await open();
    const run = await submit(h, '{"input":"go","session_id":"conv-args"}');
    await h.request('POST', `/__admin/runs/${run}/event`, { body: '{"event": "tool.started", "tool": "calc", "arguments": {"2": "b", "1": "a", "x": 1e400, "y": -1e400, "n": 12345678901234567890, "f": 0.5, "s": "é"}}' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'calc', result: 'ok' });
    await h.admin.complete(run, { output: 'Done.' });
    const messages = (await h.request('GET', '/api/sessions/conv-args/messages')).json().data as Array<{ tool_calls: Array<{ function: { arguments: string } }> | null }>;
    assert.equal(messages[1]!.tool_calls![0]!.function.arguments, '{"2":"b","1":"a","x":Infinity,"y":-Infinity,"n":12345678901234567890,"f":0.5,"s":"é"}');
    await h.close();
  });

  it('a tool result no tool.started announced answers a call recorded before it: every tool row has its call', async () => {
    const h = await open();
    const run = await submit(h, '{"input":"go","session_id":"conv-unannounced"}');
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', duration: 0.1, result: 'done' });
    await h.admin.complete(run, { output: 'Done.' });
    const messages = (await h.request('GET', '/api/sessions/conv-unannounced/messages')).json().data as Array<{ role: string; content: string | null; tool_calls: unknown; tool_call_id: string | null }>;
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    const calls = messages[1]!.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>;
    assert.deepEqual([calls[0]!.function, messages[2]!.tool_call_id, messages[2]!.content], [{ name: 'terminal', arguments: '{}' }, calls[0]!.id, 'done']);
    assert.equal((await h.request('GET', '/api/sessions/conv-unannounced')).json().session.tool_call_count, 1);
    await h.close();
  });

  it('a subagent event naming the run\'s own session as its child records no child session: the parent keeps its own messages, spend and end', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"research it","session_id":"parent-1"}');
    await h.admin.event(run, { event: 'subagent.start', goal: 'not a child', child_session_id: 'parent-1' });
    await h.admin.event(run, { event: 'subagent.complete', child_session_id: 'parent-1', status: 'completed', summary: 'Nothing.', input_tokens: 900, api_calls: 7 });
    await h.admin.complete(run, { output: 'Done.', usage: { input_tokens: 10, output_tokens: 5 } });
    const session = (await h.request('GET', '/api/sessions/parent-1')).json().session as Record<string, unknown>;
    assert.deepEqual([session.source, session.parent_session_id, session.message_count, session.input_tokens, session.api_call_count], ['api_server', null, 2, 10, 1]);
    const said = (await h.request('GET', '/api/sessions/parent-1/messages')).json().data as Array<{ role: string; content: string }>;
    assert.deepEqual(said.map((m) => [m.role, m.content]), [['user', 'research it'], ['assistant', 'Done.']]);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT id, source, parent_session_id, message_count, input_tokens, api_call_count, end_reason FROM sessions').all(), [
        { id: 'parent-1', source: 'api_server', parent_session_id: null, message_count: 2, input_tokens: 10, api_call_count: 1, end_reason: 'done' },
      ]);
      assert.deepEqual(db.prepare('SELECT role, content FROM messages ORDER BY id').raw().all(), [['user', 'research it'], ['assistant', 'Done.']]);
    } finally {
      db.close();
    }
  });

  it('a subagent\'s reported counts are whole numbers: a fraction, or one past what a counter holds, is no count (its cost is kept)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"research it","session_id":"parent-1"}');
    await h.admin.event(run, { event: 'subagent.start', goal: 'count', child_session_id: 'child-1' });
    // As raw JSON: 9223372036854775807 and 10**30 are ints to Python, past a double's exact integers.
    const body = '{"event": "subagent.complete", "child_session_id": "child-1", "status": "completed", "summary": "ok", "input_tokens": 1.5, '
      + '"output_tokens": 1000000000000000000000000000000, "reasoning_tokens": 9223372036854775807, "api_calls": 2.0, "cost_usd": 0.5}';
    assert.equal((await h.request('POST', `/__admin/runs/${run}/event`, { body })).status, 200);
    await h.admin.complete(run, { output: 'Done.' });
    const child = (await h.request('GET', '/api/sessions/child-1')).json().session as Record<string, unknown>;
    assert.deepEqual([child.input_tokens, child.output_tokens, child.reasoning_tokens, child.api_call_count, child.estimated_cost_usd], [0, 0, 0, 2, 0.5]);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(
        db.prepare("SELECT typeof(input_tokens), input_tokens, typeof(output_tokens), output_tokens, reasoning_tokens, api_call_count, estimated_cost_usd FROM sessions WHERE id = 'child-1'").raw().get(),
        ['integer', 0, 'integer', 0, 0, 2, 0.5],
      );
    } finally {
      db.close();
    }
  });

  it('a part list is stored as the agent flushes it (text, images as [screenshot]) and lone surrogates as U+FFFD, in the state.db and the API server\'s sessions alike (decision 0079)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const parts = await submit(h, '{"input":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"input_image","image_url":"data:x"},{"type":"file","file":{}},{"type":"text","text":"here"}]}],"session_id":"conv-parts"}');
    await h.admin.complete(parts, { output: 'Seen.' });
    const images = await submit(h, '{"input":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:y"}}]}],"session_id":"conv-image"}');
    await h.admin.complete(images, { output: 'A picture.' });
    const lone = await submit(h, '{"input":"a\\ud800b \\ud83d\\ude00","session_id":"conv-lone"}');
    await h.admin.event(lone, { event: 'reasoning.available', text: 'think\udc00' });
    await h.admin.event(lone, { event: 'tool.started', tool: 'terminal', arguments: { q: '\ud800' } });
    await h.admin.event(lone, { event: 'tool.completed', tool: 'terminal', result: 'out\udbff' });
    await h.admin.complete(lone, { output: 'done\udfff' });
    const told = async (id: string) => ((await h.request('GET', `/api/sessions/${id}/messages`)).json().data as Array<Record<string, unknown>>)
      .map((m) => [m.role, m.content]);
    const api = { parts: await told('conv-parts'), image: await told('conv-image'), lone: await told('conv-lone') };
    await h.close();

    const expected = {
      parts: [['user', 'look\n[screenshot]\nhere'], ['assistant', 'Seen.']],
      image: [['user', '[screenshot]'], ['assistant', 'A picture.']],
      lone: [['user', 'a\ufffdb \ud83d\ude00'], ['assistant', 'think\ufffd'], ['tool', 'out\ufffd'], ['assistant', 'done\ufffd']],
    };
    assert.deepEqual(api, expected, 'the API server\'s sessions');
    const db = new Database(path, { readonly: true });
    try {
      const rows = (id: string) => (db.prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id').all(id) as Array<{ role: string; content: string | null }>)
        .map((r) => [r.role, r.content]);
      assert.deepEqual({ parts: rows('conv-parts'), image: rows('conv-image'), lone: rows('conv-lone') }, expected, 'the state.db');
      const bad = db.prepare("SELECT count(*) FROM messages WHERE instr(CAST(content AS BLOB), x'ED') > 0 OR instr(CAST(reasoning AS BLOB), x'ED') > 0").pluck().get();
      assert.equal(bad, 0, 'no surrogate bytes (invalid UTF-8) in the file');
      assert.equal(db.prepare("SELECT reasoning FROM messages WHERE session_id = 'conv-lone' AND tool_calls IS NOT NULL").pluck().get(), null);
      const calls = db.prepare("SELECT tool_calls FROM messages WHERE session_id = 'conv-lone' AND tool_calls IS NOT NULL").pluck().get() as string;
      assert.ok(calls.includes('\\\\ud800'), 'tool_calls keep json.dumps\'s ensure_ascii escape');
    } finally {
      db.close();
    }
  });

  it('session_daily_usage names the day in local time, as SessionDB\'s date(?, \'unixepoch\', \'localtime\') does (decision 0079)', async () => {
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati'; // UTC+14: T0 is 2026-09-11 in UTC, 2026-09-12 here
    try {
      const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
      const h = await open({ stateDb: path });
      await h.admin.complete(await submit(h, '{"input":"one","session_id":"conv-day"}'), { output: 'One.', usage: { input_tokens: 4, output_tokens: 2 } });
      await h.close();
      const db = new Database(path, { readonly: true });
      try {
        assert.deepEqual(db.prepare('SELECT day, input_tokens, output_tokens, api_call_count FROM session_daily_usage WHERE session_id = ?').all('conv-day'),
          [{ day: '2026-09-12', input_tokens: 4, output_tokens: 2, api_call_count: 1 }]);
      } finally {
        db.close();
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('steer text the agent delivered is in the tool result it rode on, with Hermes\'s marker, in the state.db and the API server\'s sessions (decision 0079)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"fix it","session_id":"conv-steer"}');
    await h.request('POST', `/v1/runs/${run}/steer`, { body: '{"input":"only the tests"}' });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'ls' } });
    await h.request('POST', `/v1/runs/${run}/steer`, { body: '{"input":"and be quick"}' });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', result: 'a\nb' });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'pwd' } });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', result: '/w' });
    await h.admin.complete(run, { output: 'Done.' });
    const api = ((await h.request('GET', '/api/sessions/conv-steer/messages')).json().data as Array<Record<string, unknown>>)
      .filter((m) => m.role === 'tool').map((m) => m.content);
    await h.close();
    const expected = ['a\nb\n\n[USER STEER (injected mid-run, not tool output): only the tests\nand be quick]', '/w'];
    assert.deepEqual(api, expected, 'the API server\'s sessions');
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare("SELECT content FROM messages WHERE session_id = 'conv-steer' AND role = 'tool' ORDER BY id").pluck().all(), expected, 'the state.db');
    } finally {
      db.close();
    }
  });

  it('each message carries the time it was created in the turn, as the agent stamps its live messages, not the flush time (decision 0079)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-statedb-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input":"go","session_id":"conv-times"}');
    await h.admin.clock({ advance: 5 });
    await h.admin.event(run, { event: 'tool.started', tool: 'terminal', arguments: { command: 'ls' } });
    await h.admin.clock({ advance: 2 });
    await h.admin.event(run, { event: 'tool.completed', tool: 'terminal', result: 'x' });
    await h.admin.clock({ advance: 3 });
    await h.admin.complete(run, { output: 'Done.' });
    const api = ((await h.request('GET', '/api/sessions/conv-times/messages')).json().data as Array<{ timestamp: number }>).map((m) => m.timestamp);
    await h.close();
    const expected = [T0, T0 + 5, T0 + 7, T0 + 10];
    assert.deepEqual(api, expected, 'the API server\'s sessions');
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare("SELECT timestamp FROM messages WHERE session_id = 'conv-times' ORDER BY id").pluck().all(), expected, 'the state.db');
    } finally {
      db.close();
    }
  });

  it('the API server\'s sessions add a session\'s runs\' tokens and API calls, as the state.db does', async () => {
    const h = await open();
    const first = await submit(h, '{"input":"one","session_id":"conv-add"}');
    await h.admin.complete(first, { output: 'One.', usage: { input_tokens: 100, output_tokens: 10 } });
    const second = await submit(h, '{"input":"two","session_id":"conv-add"}');
    await h.admin.complete(second, { output: 'Two.', usage: { input_tokens: 7, output_tokens: 3 } });
    const s = (await h.request('GET', '/api/sessions/conv-add')).json().session as Record<string, unknown>;
    assert.deepEqual([s.input_tokens, s.output_tokens, s.api_call_count, s.message_count], [107, 13, 2, 4]);
    await h.close();
  });

  it('a checkpoint restored mid-turn records that turn once, as it was at the checkpoint, then as the run plays on', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"ls it","session_id":"cp-sess"}');
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal' });
    const cp = await h.admin.checkpoint({});
    // After the checkpoint: the call answered and the run completed (a turn recorded), then undone.
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', result: 'one' });
    await h.admin.complete(runId, { output: 'first timeline' });
    await h.admin.restoreCheckpoint(cp.id, {});
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', result: 'two' });
    await h.admin.complete(runId, { output: 'second timeline' });
    const messages = (await h.request('GET', '/api/sessions/cp-sess/messages')).json().data as Array<{ role: string; content: string | null }>;
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [['user', 'ls it'], ['assistant', ''], ['tool', 'two'], ['assistant', 'second timeline']]);
    assert.equal((await h.request('GET', '/api/sessions/cp-sess')).json().session.tool_call_count, 1);
    await h.close();
  });
});

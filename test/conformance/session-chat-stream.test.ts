// POST /api/sessions/{id}/chat/stream as Hermes's _handle_session_chat_stream does it (decision 0145), over both
// transports: a turn's frames byte for byte, a tool call, failures (`error` then `done`), the checks it shares with the
// sync chat, the turn's run under /v1/runs, profiles, the session's messages after it, a client that goes away, and the
// --state-db rows.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { frames, openChatStream as open } from '../support/chat-stream.js';
import { describeTransports } from '../support/harness.js';
import { createSession } from '../support/sessions.js';
import { waitFor } from '../support/wait.js';

const ALICE = { Authorization: 'Bearer alice-key-0123456789' };
const TS = '1789169800.0';

/** `_sse_frame(payload, event=name, ensure_ascii=False)`, the common keys after the event's own. */
const frame = (name: string, own: string, session: string, runId: string, seq: number): string =>
  `event: ${name}\ndata: {${own}${own ? ', ' : ''}"session_id": "${session}", "run_id": "${runId}", "seq": ${seq}, "ts": ${TS}}\n\n`;

describeTransports('session chat stream (decision 0145)', (openHarness) => {
  it('a turn streamed: the headers, then every frame byte for byte; the run under /v1/runs; the session after it', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId, messageId } = await open(h, 's', '{"message": "héllo ✓"}', { 'X-Hermes-Session-Key': 'peer-1' });
    assert.equal(stream.headers['content-type'], 'text/event-stream');
    assert.equal(stream.headers['cache-control'], 'no-cache');
    assert.equal(stream.headers['x-accel-buffering'], 'no');
    assert.equal(stream.headers['x-hermes-session-id'], 's');
    assert.equal(stream.headers['x-hermes-session-key'], 'peer-1');
    assert.match(runId, /^run_[0-9a-f]{32}$/);
    assert.match(messageId, /^msg_[0-9a-f]{32}$/);
    // While it runs, its run is the client's: queued, then running with last_event run.started.
    const running = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(
      running.text,
      `{"object": "hermes.run", "run_id": "${runId}", "status": "running", "updated_at": ${TS}, "created_at": ${TS}, "session_id": "s", "model": "hermes-agent", "last_event": "run.started"}`,
    );
    await h.admin.event(runId, { event: 'message.delta', delta: 'Hé' });
    await h.admin.event(runId, { event: 'message.delta', delta: '' });
    await h.admin.event(runId, { event: 'reasoning.available', text: 'thinking…' });
    await h.admin.event(runId, { event: 'message.delta', delta: 'llo' });
    await h.admin.complete(runId, { output: 'Héllo', usage: { input_tokens: 3, output_tokens: 5 } });
    const text = await stream.ended;
    assert.equal(stream.cut(), false);
    const msg = `"message_id": "${messageId}"`;
    const runtime = '{"provider": "", "model": "hermes-agent", "route_source": "global", "requested": {"provider": "", "model": ""}}';
    const usage = `{"input_tokens": 3, "output_tokens": 5, "total_tokens": 8, "runtime": ${runtime}}`;
    assert.equal(
      text,
      frame('run.started', '"user_message": {"role": "user", "content": "héllo ✓"}, "runtime": {"provider": "", "model": "", "route_source": "global", "requested": {"provider": "", "model": ""}}', 's', runId, 1) +
        frame('message.started', `"message": {"id": "${messageId}", "role": "assistant"}`, 's', runId, 2) +
        frame('assistant.delta', `${msg}, "delta": "Hé"`, 's', runId, 3) +
        frame('tool.progress', `${msg}, "tool_name": "_thinking", "delta": "thinking…"`, 's', runId, 4) +
        frame('assistant.delta', `${msg}, "delta": "llo"`, 's', runId, 5) +
        `event: assistant.completed\ndata: {"session_id": "s", ${msg}, "content": "Héllo", "completed": true, "partial": false, "interrupted": false, "runtime": ${runtime}, "run_id": "${runId}", "seq": 6, "ts": ${TS}}\n\n` +
        `event: run.completed\ndata: {"session_id": "s", ${msg}, "completed": true, "messages": [{"role": "assistant", "content": "Héllo", "finish_reason": "stop", "reasoning": null}], "usage": ${usage}, "runtime": ${runtime}, "run_id": "${runId}", "seq": 7, "ts": ${TS}}\n\n` +
        frame('done', '', 's', runId, 8),
    );
    const done = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(
      done.text,
      `{"object": "hermes.run", "run_id": "${runId}", "status": "completed", "updated_at": ${TS}, "created_at": ${TS}, "session_id": "s", "model": "hermes-agent", "last_event": "run.completed", "usage": ${usage}}`,
    );
    // The run has no event buffer of its own: /v1/runs/{id}/events does not find it.
    assert.equal((await h.request('GET', `/v1/runs/${runId}/events`)).status, 404);
    // The session holds the turn, as after the sync chat.
    const messages = (await h.request('GET', '/api/sessions/s/messages')).json().data;
    assert.deepEqual(messages.map((m: any) => [m.role, m.content]), [['user', 'héllo ✓'], ['assistant', 'Héllo']]);
  });

  it('a tool call: tool.started and tool.completed frames; run.completed carries the call, its result and the reply', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId, messageId } = await open(h, 's', '{"message": "list files", "model": "gpt-x"}');
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal', preview: 'ls -la', arguments: { command: 'ls -la' } });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', duration: 0.5, error: false, result: 'a.txt' });
    await h.admin.complete(runId, { output: 'One file.' });
    const all = frames(await stream.ended);
    assert.deepEqual(all.map((f) => f.event), ['run.started', 'message.started', 'tool.started', 'tool.completed', 'assistant.completed', 'run.completed', 'done']);
    assert.deepEqual(all.map((f) => f.data.seq), [1, 2, 3, 4, 5, 6, 7]);
    const text = stream.text();
    assert.ok(text.includes(`event: tool.started\ndata: {"message_id": "${messageId}", "tool_name": "terminal", "preview": "ls -la", "args": {"command": "ls -la"}, "session_id": "s"`), text);
    assert.ok(text.includes(`event: tool.completed\ndata: {"message_id": "${messageId}", "tool_name": "terminal", "preview": null, "args": null, "session_id": "s"`), text);
    const completed = all[5]!.data;
    assert.equal(completed.messages.length, 3);
    // The agent's dicts as _message_response projects them (decision 0146): a response of calls alone has the empty
    // content, each call its call_id and Responses item id; the tool message its call id and tool name; no timestamp.
    const id = completed.messages[0].tool_calls[0].id;
    assert.match(id, /^call_[0-9a-f]{24}$/);
    const messages = text.slice(text.indexOf('"messages": ') + '"messages": '.length, text.indexOf(', "usage": ', text.indexOf('event: run.completed')));
    assert.equal(
      messages,
      `[{"role": "assistant", "content": "", "tool_calls": [{"id": "${id}", "call_id": "${id}", "response_item_id": "fc_${id.slice(5)}", ` +
        '"type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\":\\"ls -la\\"}"}}], "finish_reason": "tool_calls", "reasoning": null}, ' +
        `{"role": "tool", "content": "a.txt", "tool_call_id": "${id}", "tool_name": "terminal"}, ` +
        '{"role": "assistant", "content": "One file.", "finish_reason": "stop", "reasoning": null}]',
    );
    // The rows the session keeps are the same dicts.
    const stored = (await h.request('GET', '/api/sessions/s/messages')).json().data;
    assert.deepEqual(stored[1].tool_calls, completed.messages[0].tool_calls);
    assert.equal(stored[1].content, '');
    // The requested model is the run's status model (the body's), and the one the agent ran.
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).json().model, 'gpt-x');
    assert.equal(completed.runtime.model, 'gpt-x');
    const roles = (await h.request('GET', '/api/sessions/s/messages')).json().data.map((m: any) => m.role);
    assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant']);
  });

  it('the agent raises: `error` (redacted) then `done`, and the run failed; a failed result is a completed turn', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const raised = await open(h, 's', '{"message": "go"}');
    await h.admin.raise(raised.runId, { message: 'boom' });
    const text = await raised.stream.ended;
    const tail = frames(text).slice(2);
    assert.deepEqual(tail.map((f) => f.event), ['error', 'done']);
    assert.ok(text.endsWith(frame('error', '"message": "boom"', 's', raised.runId, 3) + frame('done', '', 's', raised.runId, 4)), text);
    const status = (await h.request('GET', `/v1/runs/${raised.runId}`)).json();
    assert.deepEqual([status.status, status.error, status.last_event], ['failed', 'boom', 'run.failed']);
    // A loop that returns failed is read as any result: no reply, zero usage, completed.
    const failed = await open(h, 's', '{"message": "again"}');
    await h.admin.fail(failed.runId, { error: 'nope' });
    const after = frames(await failed.stream.ended).slice(2);
    assert.deepEqual(after.map((f) => f.event), ['assistant.completed', 'run.completed', 'done']);
    assert.equal(after[0]!.data.content, null);
    assert.deepEqual(after[1]!.data.usage, { input_tokens: 0, output_tokens: 0, total_tokens: 0, runtime: after[1]!.data.runtime });
    assert.equal((await h.request('GET', `/v1/runs/${failed.runId}`)).json().status, 'completed');
    // The provider-credential failure is a reply, as in the sync chat.
    const auth = await open(h, 's', '{"message": "once more"}');
    await h.admin.raise(auth.runId, { kind: 'provider_auth', message: 'no key' });
    const told = frames(await auth.stream.ended).slice(2);
    assert.equal(told[0]!.data.content, '\u26a0\ufe0f Provider authentication failed: no key');
    assert.deepEqual(told[1]!.data.usage, { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });

  it('the checks are the sync chat\'s: the same answers, byte for byte, before any stream', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const cases: Array<[string, string, Record<string, string>?]> = [
      ['x', '{"message": "hi"}'],
      ['s', 'not json'],
      ['s', '[]'],
      ['s', '{}'],
      ['s', '{"message": "   "}'],
      ['s', '{"message": "hi", "system_message": 5}'],
      ['s', '{"message": [{"type": "audio"}]}'],
      ['s', '{"message": "hi", "require_model_lock": true}'],
      ['s', '{"message": "hi", "provider": "openrouter", "require_model_lock": true}'],
      ['s', '{"message": "hi"}', { 'X-Hermes-Session-Key': 'x'.repeat(300) }],
    ];
    for (const [id, body, headers] of cases) {
      const sync = await h.request('POST', `/api/sessions/${id}/chat`, { body, headers: headers ?? {} });
      const streamed = await h.request('POST', `/api/sessions/${id}/chat/stream`, { body, headers: headers ?? {} });
      assert.notEqual(sync.status, 200, body);
      assert.equal(streamed.status, sync.status, body);
      assert.equal(streamed.text, sync.text, body);
      assert.equal(streamed.headers['content-type'], sync.headers['content-type'], body);
    }
    assert.equal((await h.request('POST', '/api/sessions/s/chat/stream', { auth: false, body: '{"message": "hi"}' })).status, 401);
    // Nothing was played: no run was admitted.
    assert.deepEqual((await h.admin.runs()).runs, []);
    const ops = (await h.admin.requests({ operation: 'session_chat_stream' })).requests.map((r) => r.status);
    assert.equal(ops.length, cases.length + 1);
  });

  it('profiles: the session is the profile\'s, and so is the run (another scope gets 404)', async () => {
    const h = await openHarness({ profiles: { alice: { apiKey: ALICE.Authorization.slice(7) } } });
    await createSession(h, '{"id": "s"}');
    assert.equal((await h.request('POST', '/p/alice/api/sessions/s/chat/stream', { body: '{"message": "hi"}', headers: ALICE })).status, 404);
    await createSession(h, '{"id": "s"}', '/p/alice/api/sessions', ALICE);
    const { stream, runId } = await open(h, 's', '{"message": "hers"}', ALICE, '/p/alice');
    assert.equal((await h.request('GET', `/p/alice/v1/runs/${runId}`, { headers: ALICE })).json().status, 'running');
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).status, 404);
    await h.admin.complete(runId, { output: 'ok' });
    await stream.ended;
    const hers = (await h.request('GET', '/p/alice/api/sessions/s/messages', { headers: ALICE })).json().data;
    assert.deepEqual(hers.map((m: any) => m.content), ['hers', 'ok']);
    assert.deepEqual((await h.request('GET', '/api/sessions/s/messages')).json().data, []);
  });

  it('a client that goes away: the next frame fails, the agent is interrupted and the turn ends completed', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await open(h, 's', '{"message": "hi"}');
    stream.close();
    // Hermes learns of it only when a write fails: the next event's.
    await waitFor(async () => {
      await h.admin.event(runId, { event: 'message.delta', delta: 'x' }).catch(() => undefined);
      return (await h.request('GET', `/v1/runs/${runId}`)).json().status === 'completed';
    }, 'the run completed after its client left');
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).json().last_event, 'run.completed');
  });

  it('--state-db: the streamed turn is recorded as the sync chat\'s (the user message, the reply, the tokens)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-stream-')), 'state.db');
    const h = await openHarness({ stateDb: path });
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await open(h, 's', '{"message": "hello"}');
    await h.admin.complete(runId, { output: 'hi there', usage: { input_tokens: 7, output_tokens: 2 } });
    await stream.ended;
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id').all('s'), [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi there' },
      ]);
      assert.deepEqual(db.prepare('SELECT input_tokens, output_tokens, model FROM sessions WHERE id = ?').get('s'), { input_tokens: 7, output_tokens: 2, model: 'hermes-agent' });
    } finally {
      db.close();
    }
  });
});

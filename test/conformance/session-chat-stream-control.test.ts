// A session chat stream's turn under the emulator's control and under /v1/runs (decision 0146), over both transports:
// the sse_drop and sse_stall fault rules on the stream; stop, steer and approval on its run; the args its tool.started
// frames carry; a checkpoint restored mid-turn.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { frames, openChatStream } from '../support/chat-stream.js';
import { describeTransports, std } from '../support/harness.js';
import { createSession } from '../support/sessions.js';

const TS = '1789169800.0';

describeTransports('session chat stream under control (decision 0146)', (openHarness) => {
  it('sse_drop on session_chat_stream: two frames, then the connection drops; the departed client interrupts the agent', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    await h.admin.addFault({ operation: 'session_chat_stream', action: 'sse_drop', after_events: 2 });
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    const text = await stream.ended;
    assert.equal(stream.cut(), true);
    assert.deepEqual(frames(text).map((f) => f.event), ['run.started', 'message.started']);
    // Hermes learns of it at its next write, this delta's: the agent is interrupted and the turn ends completed.
    await h.admin.event(runId, { event: 'message.delta', delta: 'x' });
    const status = (await h.request('GET', `/v1/runs/${runId}`)).json();
    assert.deepEqual([status.status, status.last_event], ['completed', 'run.completed']);
    const rule = await h.admin.fault('fault_1');
    assert.deepEqual([rule.fired, rule.remaining], [1, null]);
    const entry = (await h.admin.requests({ operation: 'session_chat_stream' })).requests.at(-1)!;
    assert.equal(entry.fault_id, 'fault_1');
  });

  it('sse_stall on session_chat_stream: two frames, then nothing while the turn plays on unseen; a reset drops it', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    await h.admin.addFault({ operation: 'session_chat_stream', action: 'sse_stall', after_events: 2 });
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    await h.admin.event(runId, { event: 'message.delta', delta: 'unseen' });
    await h.admin.clock({ advance: 60 });
    await h.admin.complete(runId, { output: 'done' });
    // The turn ended as usual: its run completed, its messages in the session.
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).json().status, 'completed');
    const messages = (await h.request('GET', '/api/sessions/s/messages')).json().data;
    assert.deepEqual(messages.map((m: any) => m.content), ['hi', 'done']);
    await h.admin.reset();
    const text = await stream.ended;
    assert.equal(stream.cut(), true);
    assert.deepEqual(frames(text).map((f) => f.event), ['run.started', 'message.started'], 'no delta, keep-alive or done got through');
  });

  it('the run events\' presets leave the chat stream alone; a rule for the stream leaves /v1/runs/{id}/events alone', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    await h.admin.addFault({ preset: 'hermes_events_drop' });
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    await h.admin.complete(runId, { output: 'ok' });
    const text = await stream.ended;
    assert.equal(stream.cut(), false);
    assert.equal(frames(text).at(-1)!.event, 'done');
    assert.equal((await h.admin.fault('fault_1')).fired, 0);
    await h.admin.clearFaults();
    await h.admin.addFault({ id: 'chat', operation: 'session_chat_stream', action: 'sse_drop' });
    const submitted = (await h.request('POST', '/v1/runs', { body: '{"input": "hi"}' })).json().run_id;
    const events = await h.events(`/v1/runs/${submitted}/events`);
    await h.admin.complete(submitted, { output: 'ok' });
    assert.match(await events.ended, /: stream closed\n\n$/);
    assert.equal(events.cut(), false);
    assert.equal((await h.admin.fault('chat')).fired, 0);
  });

  it('stop: before its agent exists, 409 run_not_active; while it runs, stopping, and the interrupted turn completes', async () => {
    const h = await openHarness({ agent: { startDelay: 5 } });
    await createSession(h, '{"id": "s"}');
    const stream = await h.events('/api/sessions/s/chat/stream', { method: 'POST', body: '{"message": "hi"}' });
    const runId = (await h.admin.runs()).runs.find((r) => r.live)!.run_id;
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).json().status, 'queued');
    // No task is registered for a stream turn, and its agent not yet: nothing to stop.
    const early = await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.deepEqual([early.status, early.text], [409, std(`Run is not active in this gateway process: ${runId}`, 'run_not_active')]);
    await h.admin.clock({ advance: 5 });
    await stream.until((t) => t.includes('event: message.started'));
    const stop = await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.deepEqual([stop.status, stop.text], [200, `{"run_id": "${runId}", "status": "stopping"}`]);
    // Whatever the loop returns is a completed turn: the stream's handler does not classify it.
    const tail = frames(await stream.ended).slice(2);
    assert.deepEqual(tail.map((f) => f.event), ['assistant.completed', 'run.completed', 'done']);
    assert.deepEqual([tail[0]!.data.completed, tail[0]!.data.interrupted], [true, false]);
    const status = (await h.request('GET', `/v1/runs/${runId}`)).json();
    assert.deepEqual([status.status, status.last_event, 'output' in status], ['completed', 'run.completed', false]);
  });

  it('the control plane cannot park a stream turn on an approval (409 HERMETIC_RUN_NO_APPROVAL); a scenario\'s approval step passes', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    const parked = await h.request('POST', `/__admin/runs/${runId}/approval-request`, { body: '{"preset": "shell", "command": "rm -rf build", "description": "recursive delete"}' });
    assert.equal(parked.status, 409);
    assert.equal(parked.json().error.code, 'HERMETIC_RUN_NO_APPROVAL');
    const running = (await h.request('GET', `/v1/runs/${runId}`)).json();
    assert.deepEqual([running.status, running.last_event, 'approval' in running], ['running', 'run.started', false]);
    await h.admin.complete(runId, { output: 'ok' });
    assert.deepEqual(frames(await stream.ended).map((f) => f.event), ['run.started', 'message.started', 'assistant.completed', 'run.completed', 'done']);

    // In Hermes the tool is answered at once and the agent goes on: the script's next step plays at its own time.
    await h.admin.scenarios({ scenarios: [{ name: 'ask', match: { input: 'delete' }, steps: [
      { at: 1, approval: { preset: 'shell', command: 'rm -rf build', description: 'recursive delete' }, on_deny: [{ at: 1, fail: { error: 'denied' } }] },
      { at: 2, complete: { output: 'deleted' } },
    ] }] });
    const turn = await openChatStream(h, 's', '{"message": "delete"}');
    await h.admin.clock({ advance: 1 });
    const at1 = (await h.request('GET', `/v1/runs/${turn.runId}`)).json();
    assert.deepEqual([at1.status, 'approval' in at1], ['running', false]);
    await h.admin.clock({ advance: 1 });
    const events = frames(await turn.stream.ended);
    assert.deepEqual(events.map((f) => f.event), ['run.started', 'message.started', 'assistant.completed', 'run.completed', 'done']);
    assert.equal(events[2]!.data.content, 'deleted');
  });

  it('steer is accepted and sends no frame; undelivered, it rides on run.completed; approval: 409 approval_not_active', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    const steer = await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input": "also this"}' });
    assert.deepEqual([steer.status, steer.text], [200, `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`]);
    const running = (await h.request('GET', `/v1/runs/${runId}`)).json();
    assert.deepEqual([running.status, running.last_event], ['running', 'run.steered']);
    // The body's checks come first; then Hermes finds no approval session: POST /v1/runs alone registers one.
    const bad = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice": "maybe"}' });
    assert.equal(bad.status, 400);
    const approval = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice": "once"}' });
    assert.deepEqual([approval.status, approval.text], [409, std(`Run has no active approval session: ${runId}`, 'approval_not_active')]);
    await h.admin.complete(runId, { output: 'ok' });
    const all = frames(await stream.ended);
    assert.deepEqual(all.map((f) => f.event), ['run.started', 'message.started', 'assistant.completed', 'run.completed', 'done']);
    assert.equal(all[3]!.data.pending_steer, 'also this');
    const status = (await h.request('GET', `/v1/runs/${runId}`)).json();
    assert.deepEqual([status.status, status.pending_steer], ['completed', 'also this']);
  });

  it('tool.started args: the call\'s arguments as a dict ({} for none, JSON text parsed), browser_type\'s text redacted', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId, messageId } = await openChatStream(h, 's', '{"message": "hi"}');
    await h.admin.event(runId, { event: 'tool.started', tool: 'todo', preview: null });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'todo' });
    await h.admin.event(runId, { event: 'tool.started', tool: 'read_file', preview: 'a.txt', arguments: '{"path": "a.txt", "limit": 5}' });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'read_file', error: true });
    await h.admin.event(runId, { event: 'tool.started', tool: 'browser_type', preview: 'e1', arguments: { ref: 'e1', text: 'my key sk-proj-abcdefghijklmnop1234' } });
    await h.admin.complete(runId, { output: 'ok' });
    const text = await stream.ended;
    const started = (tool: string, preview: string, args: string, seq: number): string =>
      `event: tool.started\ndata: {"message_id": "${messageId}", "tool_name": "${tool}", "preview": ${preview}, "args": ${args}, "session_id": "s", "run_id": "${runId}", "seq": ${seq}, "ts": ${TS}}\n\n`;
    assert.ok(text.includes(started('todo', 'null', '{}', 3)), text);
    assert.ok(text.includes(started('read_file', '"a.txt"', '{"path": "a.txt", "limit": 5}', 5)), text);
    assert.ok(text.includes(started('browser_type', '"e1"', '{"ref": "e1", "text": "my key sk-pro...1234"}', 7)), text);
    // A failed tool is a tool.completed like any other: the agent never calls back tool.failed.
    assert.deepEqual(frames(text).map((f) => f.event).filter((e) => e.startsWith('tool.')), ['tool.started', 'tool.completed', 'tool.started', 'tool.completed', 'tool.started']);
    // The recorded call keeps the arguments the model sent, unredacted (only the progress display is masked).
    const calls = (await h.request('GET', '/api/sessions/s/messages')).json().data.flatMap((m: any) => m.tool_calls ?? []);
    assert.equal(calls.at(-1).function.arguments, '{"ref":"e1","text":"my key sk-proj-abcdefghijklmnop1234"}');
  });

  it('a checkpoint restored mid-turn cuts the stream; the restored run keeps the stream\'s rules (no frames go anywhere)', async () => {
    const h = await openHarness();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    await h.admin.event(runId, { event: 'message.delta', delta: 'a' });
    const checkpoint = await h.admin.checkpoint();
    await h.admin.event(runId, { event: 'message.delta', delta: 'b' });
    await stream.until((t) => t.includes('"delta": "b"'));
    await h.admin.restoreCheckpoint(checkpoint.id);
    // Cut as a crashed gateway's connection: no `done`, and no way back in (Hermes has no route to re-attach).
    const text = await stream.ended;
    assert.equal(stream.cut(), true);
    assert.deepEqual(frames(text).map((f) => f.event), ['run.started', 'message.started', 'assistant.delta', 'assistant.delta']);
    assert.equal((await h.request('GET', `/v1/runs/${runId}/events`)).status, 404);
    // The run is as it was at the checkpoint, still a stream turn's: no approval session, its statuses the stream's.
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).json().status, 'running');
    const approval = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice": "once"}' });
    assert.equal(approval.json().error.code, 'approval_not_active');
    await h.admin.complete(runId, { output: 'restored', usage: { input_tokens: 1, output_tokens: 2 } });
    const runtime = '{"provider": "", "model": "hermes-agent", "route_source": "global", "requested": {"provider": "", "model": ""}}';
    assert.equal(
      (await h.request('GET', `/v1/runs/${runId}`)).text,
      `{"object": "hermes.run", "run_id": "${runId}", "status": "completed", "updated_at": ${TS}, "created_at": ${TS}, "session_id": "s", "model": "hermes-agent", "last_event": "run.completed", "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3, "runtime": ${runtime}}}`,
    );
    const messages = (await h.request('GET', '/api/sessions/s/messages')).json().data;
    assert.deepEqual(messages.map((m: any) => m.content), ['hi', 'restored']);
  });
});

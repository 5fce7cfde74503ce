// A session chat stream's turn under the emulator's control and under /v1/runs (decision 0146), over both transports:
// the sse_drop and sse_stall fault rules on the stream.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { frames, openChatStream } from '../support/chat-stream.js';
import { describeTransports } from '../support/harness.js';
import { createSession } from '../support/sessions.js';

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
});

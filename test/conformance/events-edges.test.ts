// The adversarial pass over the event stream (decision 0083): GET /v1/runs/{id}/events and what feeds it, read against
// Hermes's _handle_run_events (api_server_runs.py) and aiohttp's response writer, over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { waitFor } from '../support/wait.js';

/** A tool output of megabytes: more than a socket's buffers (and aiohttp's) hold for a client that does not read. */
const BIG = 'x'.repeat(8 * 1024 * 1024);

describeTransports('events: a subscriber whose client stops reading (decision 0083)', (open) => {
  it('stops competing once its writes back up: every later event goes to the subscriber that reads', async () => {
    const h = await open();
    const runId = await submit(h);
    // First in line, so the big delta is the stalled client's. Hermes's handler is then parked in
    // `await response.write()` (aiohttp's drain), not in `q.get()`: it takes nothing more from the queue.
    const stalled = await h.events(`/v1/runs/${runId}/events`, { stalled: true });
    const reader = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.event(runId, { event: 'message.delta', delta: BIG });
    for (let i = 0; i < 20; i++) await h.admin.event(runId, { event: 'tool.started', tool: `t${i}`, preview: null });
    await h.admin.complete(runId, { output: 'Done.' });
    const text = await reader.until((t) => t.endsWith(': stream closed\n\n'), 10_000);
    for (let i = 0; i < 20; i++) assert.ok(text.includes(`"tool": "t${i}"`), `t${i} reached the reading subscriber`);
    assert.ok(text.endsWith('"total_tokens": 0}}\n\n: stream closed\n\n'), text.slice(-200));
    assert.ok(!text.includes(BIG), 'the big delta went to the stalled subscriber');
    // Parked in the write, it sends no keep-alive either: once it reads, it has the one frame it took, nothing else.
    await h.admin.clock({ advance: 95 });
    stalled.resume();
    const frame = `data: {"event": "message.delta", "run_id": "${runId}", "timestamp": 1789169800.0, "delta": "${BIG}"}\n\n`;
    const got = await stalled.until((t) => t.length >= frame.length);
    assert.equal(got.length, frame.length, got.slice(frame.length, frame.length + 200));
    assert.ok(got === frame);
    stalled.close();
  });

  it('parked in a drain, it notices a departure at once (the drain fails): the buffer goes with no further write', async () => {
    const h = await open();
    const runId = await submit(h);
    const stalled = await h.events(`/v1/runs/${runId}/events`, { stalled: true });
    await h.admin.event(runId, { event: 'message.delta', delta: BIG });
    await h.admin.event(runId, { event: 'tool.started', tool: 'queued', preview: null });
    // The event after the big one waits in the queue: the handler is in the write, not in q.get().
    assert.equal((await h.admin.run(runId)).buffered_events, 1);
    stalled.close();
    await waitFor(async () => (await h.admin.run(runId)).buffered_events === null, 'the buffer to go with the client', { deadlineMs: 10_000 });
    assert.equal((await h.request('GET', `/v1/runs/${runId}/events`)).status, 404);
  });
});

describeTransports('events: a client that leaves before the answer\'s head (decision 0083)', (open) => {
  it('its subscriber takes the next event, fails to write it, and deletes the buffer: later subscribers get 404', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.abandon(`/v1/runs/${runId}/events`);
    // Hermes's handler reaches prepare() before it sees the hang-up; its first write (here the first event) raises and
    // its finally deletes the buffer. Nothing of the departed request may pin the buffer (it would never be swept).
    let i = 0;
    await waitFor(async () => {
      await h.admin.event(runId, { event: 'reasoning.available', text: `after ${i++}` });
      return (await h.admin.run(runId)).buffered_events === null;
    }, 'the departed subscriber to delete the buffer', { deadlineMs: 10_000 });
    const again = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(again.status, 404);
  });
});

describeTransports('events: a gateway crash under an attached stream (decision 0083)', (open) => {
  it('an emulated restart cuts the connection: the body ends without its end, as a crashed gateway\'s does', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.event(runId, { event: 'tool.started', tool: 'before', preview: null });
    await stream.until((t) => t.includes('"before"'));
    await h.admin.restart();
    const text = await stream.ended;
    assert.ok(stream.cut(), 'the stream ended cleanly, as if the server had finished it');
    assert.ok(!text.includes(': stream closed'), text);
  });

  it('restoring a checkpoint cuts attached streams the same way', async () => {
    const h = await open();
    const cp = await h.admin.checkpoint();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.restoreCheckpoint(cp.id);
    await stream.ended;
    assert.ok(stream.cut(), 'the stream ended cleanly, as if the server had finished it');
  });
});

// Spec runs-api §18 vectors 77–85: the SSE stream (framing, backlog, buffer lifetime, competing subscribers) and
// capabilities.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { assertNoSecurityHeaders, status, submit, USAGE_250 } from '../support/runs.js';
import { waitFor } from '../support/wait.js';

const frame = (runId: string, rest: string) => `data: {"event": ${rest.replace('{RUN}', runId)}}\n\n`;

async function oneToolRun(h: Harness, runId: string): Promise<void> {
  await h.admin.event(runId, { event: 'tool.started', tool: 'terminal', preview: 'ls -la' });
  await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', duration: 0.7714, error: false });
  await h.admin.event(runId, { event: 'message.delta', delta: 'Do' });
  await h.admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200 } });
}

const TRANSCRIPT = (runId: string) =>
  frame(runId, `"tool.started", "run_id": "{RUN}", "timestamp": 1789169800.0, "tool": "terminal", "preview": "ls -la"`) +
  frame(runId, `"tool.completed", "run_id": "{RUN}", "timestamp": 1789169800.0, "tool": "terminal", "duration": 0.771, "error": false`) +
  frame(runId, `"message.delta", "run_id": "{RUN}", "timestamp": 1789169800.0, "delta": "Do"`) +
  frame(runId, `"run.completed", "run_id": "{RUN}", "timestamp": 1789169800.0, "output": "Done.", "usage": ${USAGE_250}`) +
  ': stream closed\n\n';

describeTransports('vectors 77–85: events', (open) => {
  it('77: an unknown run is 404 at once', async () => {
    const h = await open();
    const stream = await h.events('/v1/runs/run_doesnotexist/events');
    assert.equal(stream.status, 404);
    assert.equal(stream.body, std('Run not found: run_doesnotexist', 'run_not_found'));
  });

  it('78: a live subscriber gets each frame, then ": stream closed", and the response ends', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'text/event-stream');
    assert.equal(stream.headers['cache-control'], 'no-cache');
    assert.equal(stream.headers['x-accel-buffering'], 'no');
    assertNoSecurityHeaders(stream);
    await oneToolRun(h, runId);
    assert.equal(await stream.ended, TRANSCRIPT(runId));
  });

  it('79: a first subscriber 10 s after completion gets the whole backlog then the close', async () => {
    const h = await open();
    const runId = await submit(h);
    await oneToolRun(h, runId);
    await h.admin.clock({ advance: 10 });
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(await stream.ended, TRANSCRIPT(runId));
  });

  it('80: after a subscriber has left, a new one is 404 while GET still answers', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, {});
    await (await h.events(`/v1/runs/${runId}/events`)).ended;
    const again = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(again.status, 404);
    assert.equal(again.body, std(`Run not found: ${runId}`, 'run_not_found'));
    assert.equal((await status(h, runId)).status, 200);
  });

  it('81: 30 s of silence on the clock sends ": keepalive"', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.clock({ advance: 29 });
    await h.admin.event(runId, { event: 'reasoning.available', text: 'thinking' });
    await stream.until((t) => t.includes('reasoning.available'));
    await h.admin.clock({ advance: 29 });
    assert.ok(!stream.text().includes('keepalive'), 'the timer restarts after each event');
    await h.admin.clock({ advance: 1 });
    await stream.until((t) => t.endsWith(': keepalive\n\n'));
    await h.admin.clock({ advance: 30 });
    await stream.until((t) => t.split(': keepalive\n\n').length === 3);
  });

  it('82: a buffer nobody subscribed to is swept after 300 s (the run keeps going)', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.clock({ advance: 360 });
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(stream.status, 404);
    assert.equal((await status(h, runId)).json().status, 'running');
  });

  it('83: concurrent subscribers compete: each event reaches one; only one sees the close', async () => {
    const h = await open();
    const runId = await submit(h);
    const a = await h.events(`/v1/runs/${runId}/events`);
    const b = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.event(runId, { event: 'tool.started', tool: 'one', preview: null });
    await h.admin.event(runId, { event: 'tool.started', tool: 'two', preview: null });
    await h.admin.complete(runId, {});
    const all = () => a.text() + b.text();
    await waitFor(() => ['"one"', '"two"', 'run.completed', ': stream closed'].every((x) => all().includes(x)), 'every frame on one of the streams');
    for (const tool of ['"one"', '"two"', 'run.completed']) {
      assert.equal(all().split(tool).length - 1, 1, `${tool} delivered exactly once`);
    }
    assert.equal(all().split(': stream closed').length - 1, 1);
    const [closed, open_] = a.text().includes(': stream closed') ? [a, b] : [b, a];
    await closed.ended;
    await h.admin.clock({ advance: 30 });
    await open_.until((t) => t.endsWith(': keepalive\n\n'));
    open_.close();
  });

  it('84: a subscriber that leaves mid-run deletes the buffer; reconnecting is 404, the status still polls', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    stream.close();
    // The server notices the departure on its next write, as aiohttp does.
    let i = 0;
    await waitFor(async () => {
      await h.admin.event(runId, { event: 'reasoning.available', text: `after ${i++}` });
      return (await h.admin.run(runId)).buffered_events === null;
    }, 'the server to notice the departure');
    const again = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(again.status, 404);
    await h.admin.complete(runId, { output: 'Done.' });
    assert.equal((await status(h, runId)).json().status, 'completed');
  });

  it('85: capabilities advertise durable idempotency when the store is on disk', async () => {
    const h = await open({ db: join(mkdtempSync(join(tmpdir(), 'hermetic-test-')), 'store.db') });
    const reply = await h.request('GET', '/v1/capabilities');
    assert.equal(reply.status, 200);
    assert.ok(reply.text.includes('"runs_idempotency": {"supported": true, "durable": true, "retention_seconds": 86400}'));
    assert.equal(reply.json().object, 'hermes.api_server.capabilities');
    const memory = await open({ db: ':memory:' });
    assert.equal((await memory.request('GET', '/v1/capabilities')).json().features.runs_idempotency.durable, false);
    const health = await memory.request('GET', '/health', { auth: false });
    assert.equal(health.text, '{"status": "ok", "platform": "hermes-agent", "version": "0.21.0"}');
  });
});

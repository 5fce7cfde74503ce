// Spec runs-api §18 vectors 55–61: stop, idempotent on terminal runs, racing completion.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { createEmulator } from '../../src/emulator/index.js';
import { DEFAULTS, describeTransports, K, std } from '../support/harness.js';
import { assertJson, status, submit } from '../support/runs.js';

describeTransports('vectors 55–61: stop', (open) => {
  it('55: stop answers {"run_id", "status": "stopping"}; the run reads stopping, then cancelled once the agent yields', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`, { body: '{}' }), 200, `{"run_id": "${runId}", "status": "stopping"}`);
    const stopping = (await status(h, runId)).json();
    assert.equal(stopping.status, 'stopping');
    assert.equal(stopping.last_event, 'run.stopping');
    await h.admin.cancel(runId);
    const done = (await status(h, runId)).json();
    assert.equal(done.status, 'cancelled');
    assert.equal(done.last_event, 'run.cancelled');
    assert.equal(await stream.ended, `data: {"event": "run.cancelled", "run_id": "${runId}", "timestamp": 1789169800.0}\n\n: stream closed\n\n`);
  });

  it('55b: a cooperative agent acknowledges the interrupt by itself', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.request('POST', `/v1/runs/${runId}/stop`);
    await new Promise((r) => setImmediate(r));
    assert.equal((await status(h, runId)).json().status, 'cancelled');
  });

  it('56: stopping a completed run answers the full status object, byte-identical to GET', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.' });
    const get = await status(h, runId);
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`), 200, get.text);
  });

  it('57: stopping an interrupted run (after a restart) answers its full status', async () => {
    const h = await open({ db: join(mkdtempSync(join(tmpdir(), 'hermetic-test-')), 'store.db') });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    const reply = await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.equal(reply.status, 200);
    assert.equal(reply.json().status, 'interrupted');
    assert.equal(reply.text, (await status(h, runId)).text);
  });

  it('58: a keyed run still owned by another live gateway on the same store is 409 run_not_active', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'hermetic-test-')), 'store.db');
    const h = await open({ db });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    const other = createEmulator({ ...DEFAULTS, db });
    try {
      const req = (path: string, method = 'GET') =>
        other.fetch(new Request(`http://other.test${path}`, { method, headers: { Authorization: `Bearer ${K}` } }));
      const seen = await req(`/v1/runs/${runId}`);
      assert.equal(seen.status, 200);
      assert.equal(((await seen.json()) as { status: string }).status, 'running');
      const stop = await req(`/v1/runs/${runId}/stop`, 'POST');
      assert.equal(stop.status, 409);
      assert.equal(await stop.text(), std(`Run is not active in this gateway process: ${runId}`, 'run_not_active'));
    } finally {
      await other.close();
    }
  });

  it('59: stopping an unknown run is 404 whatever the body', async () => {
    const h = await open();
    assertJson(await h.request('POST', '/v1/runs/run_doesnotexist/stop', { body: 'not json' }), 404, std('Run not found: run_doesnotexist', 'run_not_found'));
  });

  it('60: completion wins over a stop the agent has not honoured yet', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    await h.request('POST', `/v1/runs/${runId}/stop`);
    await h.admin.complete(runId, { output: 'Finished anyway.' });
    const body = (await status(h, runId)).json();
    assert.equal(body.status, 'completed');
    assert.equal(body.output, 'Finished anyway.');
  });

  it('61: stopping twice while still active answers stopping both times', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    const expected = `{"run_id": "${runId}", "status": "stopping"}`;
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`), 200, expected);
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`), 200, expected);
  });

  it('a stop while queued makes the task set running, then cancelled (spec §7.2)', async () => {
    const h = await open({ agent: { startDelay: 5 } });
    const runId = await submit(h);
    assert.equal((await status(h, runId)).json().status, 'queued');
    await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.equal((await status(h, runId)).json().status, 'stopping');
    await h.admin.clock({ advance: 5 });
    const body = (await status(h, runId)).json();
    assert.equal(body.status, 'cancelled');
    assert.equal(body.last_event, 'run.cancelled');
  });
});

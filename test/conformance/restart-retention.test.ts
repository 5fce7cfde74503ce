// Spec runs-api §18 vectors 47–54: an emulated gateway restart on the same store, and the retention rules.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { assertJson, status, submit, USAGE_250 } from '../support/runs.js';

const storePath = () => join(mkdtempSync(join(tmpdir(), 'hermetic-test-')), 'runs_idempotency.db');
const INTERRUPTED = '"error": "The gateway restarted before this run settled.", "last_event": "run.interrupted"';

describeTransports('vectors 47–54: restart and retention', (open) => {
  it('47: a keyed run in flight reads back alphabetical and interrupted after a restart', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    const body = `{"created_at": 1789169800.0, "model": "hermes-agent", "object": "hermes.run", "run_id": "${runId}", "session_id": "${runId}", "status": "interrupted", "updated_at": 1789169800.0, ${INTERRUPTED}}`;
    assertJson(await status(h, runId), 200, body);
    // Cached: the next read is byte-identical.
    assertJson(await status(h, runId), 200, body);
  });

  it('48: replaying its key after the restart reports interrupted', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assertJson(reply, 202, `{"run_id": "${runId}", "status": "interrupted", "replayed": true}`);
  });

  it('49: a keyless run is gone after a restart (GET, events and stop are 404)', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h);
    await h.admin.restart();
    const notFound = std(`Run not found: ${runId}`, 'run_not_found');
    assertJson(await status(h, runId), 404, notFound);
    const events = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(events.status, 404);
    assert.equal(events.body, notFound);
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`), 404, notFound);
  });

  it('50: a keyed completed run survives a restart with output and usage, keys alphabetical', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200 } });
    await h.admin.restart();
    const body = `{"created_at": 1789169800.0, "last_event": "run.completed", "model": "hermes-agent", "object": "hermes.run", "output": "Done.", "run_id": "${runId}", "session_id": "${runId}", "status": "completed", "updated_at": 1789169800.0, "usage": ${USAGE_250}}`;
    assertJson(await status(h, runId), 200, body);
  });

  it('51: a run persisted while waiting for approval keeps its approval object (first key) when interrupted', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.approvalRequest(runId, { preset: 'shell', command: 'rm -rf build', description: 'recursive delete', request_id: 'REQ' });
    await h.admin.restart();
    const reply = await status(h, runId);
    const approval = `{"allow_permanent": true, "allow_session": true, "choices": ["once", "session", "always", "deny"], "command": "rm -rf build", "description": "recursive delete", "event": "approval.request", "pattern_key": "recursive delete", "pattern_keys": ["recursive delete"], "request_id": "REQ", "run_id": "${runId}", "timestamp": 1789169800.0}`;
    const body = `{"approval": ${approval}, "created_at": 1789169800.0, "last_event": "run.interrupted", "model": "hermes-agent", "object": "hermes.run", "run_id": "${runId}", "session_id": "${runId}", "status": "interrupted", "updated_at": 1789169800.0, "error": "The gateway restarted before this run settled."}`;
    assertJson(reply, 200, body);
  });

  it('52: a terminal row exactly 24 h old is kept; a millisecond older it is pruned and the key admits a new run', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.complete(runId, { output: 'Done.' });
    await h.admin.clock({ set: 1789169800 + 86400 });
    const kept = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assertJson(kept, 202, `{"run_id": "${runId}", "status": "completed", "replayed": true}`);
    await h.admin.clock({ set: 1789169800 + 86400.001 });
    const fresh = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assert.equal(fresh.json().replayed, false);
    assert.notEqual(fresh.json().run_id, runId);
  });

  it('53: GET never prunes: after 25 h without a keyed POST the durable row still answers', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.complete(runId, { output: 'Done.' });
    await h.admin.clock({ advance: 25 * 3600 });
    const reply = await status(h, runId);
    assert.equal(reply.status, 200);
    assert.equal(reply.json().status, 'completed');
    assert.ok(reply.text.startsWith('{"created_at": '), 'hydrated from the store: alphabetical');
  });

  it('54: a keyless completed run is swept 3,601 s after completion (one sweep tick later), not at 3,600 s', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.' });
    await h.admin.clock({ advance: 3600 });
    await h.admin.sweep();
    assert.equal((await status(h, runId)).status, 200);
    await h.admin.clock({ advance: 1 });
    await h.admin.sweep();
    assertJson(await status(h, runId), 404, std(`Run not found: ${runId}`, 'run_not_found'));
  });
});

describeTransports('restart with a non-durable store', (open) => {
  it('with :memory: (Hermes\'s fallback store), nothing replays after a restart', async () => {
    const h = await open({ db: ':memory:' });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    assertJson(await status(h, runId), 404, std(`Run not found: ${runId}`, 'run_not_found'));
    const again = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assert.equal(again.json().replayed, false);
  });
});

describeTransports('the default store: private to the emulator, durable across its emulated restarts', (open) => {
  it('without db, a keyed run replays after an emulated restart, and capabilities say durable', async () => {
    const h = await open();
    const reply = await h.request('GET', '/v1/capabilities');
    assert.equal(reply.json().features.runs_idempotency.durable, true);
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    const again = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assert.equal(again.text, `{"run_id": "${runId}", "status": "interrupted", "replayed": true}`);
  });

  it('two emulators without db never see each other\'s keys', async () => {
    const a = await open();
    const b = await open();
    await submit(a, '{"input":"hello"}', { 'Idempotency-Key': 'shared' });
    const second = await b.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'shared' } });
    assert.equal(second.status, 202);
    assert.equal(second.json().replayed, false);
  });
});

// A namespace reset against a store another connection has locked: the reset fails as one 503, changes nothing, and
// goes through once the lock is gone (a busy database fails one request, never the process).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createEmulator } from '../index.js';

test('a reset on a locked store is one 503 that changes nothing; the next one goes through', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-ns-'));
  const db = join(dir, 'runs.db');
  const hermes = createEmulator({ db, time: 1_800_000_000, frozen: true, lockTimeout: 0.05 });
  try {
    const submit = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{"input":"x"}' }));
    assert.equal(submit.status, 202);
    await hermes.admin.clock({ advance: 5 });
    // Listing the runs commits their held status writes (the answer shows them); the clock's answer does not.
    assert.equal((await hermes.admin.runs()).runs.length, 1);
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    const refused = await hermes.fetch(new Request('http://h/__admin/reset', { method: 'POST', body: '{}' }));
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'HERMETIC_STORE_BUSY');
    assert.equal((await hermes.admin.runs()).runs.length, 1, 'the runs are still there');
    assert.equal((await hermes.admin.getClock()).now, 1_800_000_005, 'the clock did not move');
    other.exec('ROLLBACK');
    other.close();
    assert.deepEqual(await hermes.admin.reset(), { reset: ['default'] });
    assert.equal((await hermes.admin.runs()).runs.length, 0);
    const again = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{"input":"x"}' }));
    assert.equal(((await again.json()) as { replayed: boolean }).replayed, false, 'the durable row went with the reset');
  } finally {
    await hermes.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an automatic checkpoint the locked store cannot take is skipped and counted; the answer goes as Hermes made it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-ns-'));
  const db = join(dir, 'runs.db');
  const hermes = createEmulator({ db, time: 1_800_000_000, frozen: true, lockTimeout: 0.05, autoCheckpoints: true });
  try {
    const submit = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', body: '{"input":"x"}' }));
    assert.equal(submit.headers.get('x-hermetic-checkpoint'), 'cp_1');
    const { run_id: runId } = (await submit.json()) as { run_id: string };
    const steer = () => hermes.fetch(new Request(`http://h/v1/runs/${runId}/steer`, { method: 'POST', body: '{"input":"focus"}' }));
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    // A keyless run's steer writes nothing Hermes keeps: Hermes answers; the checkpoint, which saves the sessions, waits for the lock in vain.
    const held = await steer();
    assert.equal(held.status, 200);
    assert.equal(held.headers.get('x-hermetic-checkpoint'), null);
    other.exec('ROLLBACK');
    other.close();
    const timeline = await hermes.admin.timeline();
    assert.deepEqual([timeline.skipped, timeline.checkpoints.map((c) => c.id)], [1, ['cp_1']]);
    assert.deepEqual((await hermes.admin.requests()).requests.map((e) => e.checkpoint), ['cp_1', null]);
    assert.equal((await steer()).headers.get('x-hermetic-checkpoint'), 'cp_2');
  } finally {
    await hermes.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

// One session whose rows cannot be written never stops the others: the batch is split, the failing session is
// quarantined with backoff and retried after it, and the cursor of the store still moves for everything else.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import type { Batch, Sink } from '../sinks/sink.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { FAILING_SESSION, failingSessionRig, forwarderRig } from '../testing/index.js';

test('a session whose rows fail to write is quarantined with backoff; the rest of the batch lands', () => {
  const rig = failingSessionRig();
  try {
    const [r] = rig.forwarder.backfill();
    assert.equal(r!.error, null);
    assert.equal(r!.sessionsWritten, 2);
    assert.equal(r!.sessionsQuarantined, 1);
    assert.deepEqual(rig.query('SELECT session_id FROM sessions ORDER BY session_id').map((x) => x.session_id), ['20260528_203640_3697a7', '20260528_235851_29303a']);
    const [q] = rig.query<{ session_id: string; failures: number; retry_at: number; last_error: string }>('SELECT * FROM quarantine');
    assert.deepEqual(q, { store: rig.path, session_id: FAILING_SESSION, failures: 1, retry_at: 1_800_000_030, last_error: 'writing its rows failed: Cannot write to the dataset: disk says no to this one.' });

    // Before the backoff ends it waits; after, it is retried and lands, and the quarantine entry goes.
    rig.failing = false;
    rig.now += 10_000;
    const [wait] = rig.forwarder.forwardOnce();
    assert.deepEqual([wait!.sessionsWaiting, wait!.sessionsWritten], [1, 0]);
    rig.now += 30_000;
    const [retry] = rig.forwarder.forwardOnce();
    assert.deepEqual([retry!.sessionsWritten, retry!.sessionsUnchanged], [1, 2]);
    assert.equal(rig.query('SELECT COUNT(*) AS n FROM quarantine')[0]!.n, 0);
    assert.equal(rig.query('SELECT COUNT(*) AS n FROM sessions')[0]!.n, 3);
  } finally {
    rig.cleanup();
  }
});

/**
 * A pass (a forward's, or `pass` given: a backfill's) over the `usage` fixture whose sink refuses every write with
 * SQLite's `code` and `message` (each counted) until the second pass: the first fails with `said` and writes nothing,
 * the second writes every session.
 */
function refusedThenWritten(code: string, message: string, said: string, pass: 'forwardOnce' | 'backfill' = 'forwardOnce'): void {
  const { dir, cleanup } = tempDir();
  const path = copyFixture('usage', dir);
  const home = join(dir, 'home');
  const real = SqliteSink.open(home);
  let refusing = true;
  let attempts = 0;
  const sink: Sink = {
    write(batch: Batch) {
      if (!refusing) return real.write(batch);
      attempts++;
      throw Object.assign(new Error(message), { code });
    },
    cursors: (s) => real.cursors(s),
    dataVersion: () => real.dataVersion(),
    close: () => real.close(),
  };
  const rig = forwarderRig([path], { dir, home, sink });
  try {
    const [r] = rig.forwarder[pass]();
    assert.deepEqual(r!.error, { code: 'HERMETIC_DATASET_WRITE', message: said });
    // Not split session by session: each write would fail the same way (a lock would be waited out again).
    assert.equal(attempts, 1);
    assert.deepEqual([r!.sessionsWritten, r!.sessionsQuarantined], [0, 0]);
    refusing = false;
    const [next] = rig.forwarder[pass]();
    assert.deepEqual([next!.error, next!.sessionsWritten], [null, 3]);
    assert.equal(rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM quarantine')[0]!.n, 0);
  } finally {
    rig.cleanup();
    cleanup();
  }
}

test('a dataset that cannot be written (a full disk) fails the pass with HERMETIC_DATASET_WRITE; nothing is half-written and the next pass does it all', () => {
  refusedThenWritten('SQLITE_FULL', 'database or disk is full', 'Cannot write to the dataset: database or disk is full.');
});

test('a dataset another process keeps locked past the wait (a forget --store) fails the pass as that, quarantines nothing, and the next pass writes it all', () => {
  refusedThenWritten('SQLITE_BUSY', 'database is locked',
    'Another process kept the dataset locked longer than this one waits (a forget, a backfill or another forward writing to it): nothing of this batch was written, and the next pass reads it again.');
});

test('a backfill that meets the dataset locked says so as a backfill: no next pass will come, the user runs it again', () => {
  refusedThenWritten('SQLITE_BUSY', 'database is locked',
    'Another process kept the dataset locked longer than this one waits (a forget, a forward or another backfill writing to it): nothing of this batch was written (what was written before it stays): run hermetic backfill again, and it goes on from there.',
    'backfill');
});

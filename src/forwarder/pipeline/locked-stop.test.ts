// A stop while a rollback-journal store stays locked by a writer: the pass waits for the lock in short slices with a
// turn of the event loop between them, so `keepGoing` (a signal's handler sets what it answers) ends the wait there:
// before a store's first batch with nothing of it written and no result for it, between two batches with what was
// committed kept (decision 0104). A WAL store's readers never wait.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../state-db/generate/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { createForwarder } from './forwarder.js';

/** A delete-journal store of three sessions, and a connection of another "writer" holding it exclusively. */
function lockedStore(prefix: string) {
  const { dir, cleanup } = tempDir(prefix);
  const path = join(dir, 'state.db');
  generate({ out: path, sessions: 3, messages: 12, seed: prefix, journal: 'delete' });
  const writer = new Database(path);
  writer.exec('BEGIN EXCLUSIVE');
  return { dir, path, writer, done: () => { if (writer.inTransaction) writer.exec('ROLLBACK'); writer.close(); cleanup(); } };
}

for (const kind of ['forward', 'backfill'] as const) {
  test(`a ${kind} pass stopped while a writer holds a rollback-journal store: the wait ends at the next slice, nothing written`, async () => {
    const { dir, path, writer, done } = lockedStore(`hermetic-locked-stop-${kind}-`);
    const home = join(dir, 'home');
    const forwarder = createForwarder({ stateDbs: [path], home, readWorker: 'off' });
    try {
      let stopped = false;
      let asked = 0;
      // Set from a timer, as a signal's handler sets it: it can only be seen if the pass lets the event loop run.
      setImmediate(() => { stopped = true; });
      const keepGoing = () => (asked++, !stopped);
      const results = await (kind === 'forward' ? forwarder.forwardOnceAsync({ keepGoing }) : forwarder.backfillAsync({ keepGoing }));
      // The old reader waited its three busy timeouts through, then said HERMETIC_READER_BUSY for the store.
      assert.deepEqual(results, [], 'the pass ended in the wait, with no result for the store');
      assert.ok(asked > 0);
      assert.ok(writer.inTransaction, 'the lock was held throughout');
      assert.equal(existsSync(join(home, 'hermetic.db')), false, 'nothing written');
      // The lock let go: the next pass reads the store whole.
      writer.exec('ROLLBACK');
      const [r] = await forwarder.forwardOnceAsync();
      assert.deepEqual([r!.error, r!.sessionsWritten], [null, 3]);
    } finally {
      forwarder.close();
      done();
    }
  });
}

test('a pass stopped while a writer locks the store between two batches: what was committed stays, the wait ends, the next pass goes on', async () => {
  const { dir, cleanup } = tempDir('hermetic-locked-mid-pass-');
  const path = join(dir, 'state.db');
  generate({ out: path, sessions: 45, messages: 90, seed: 'locked-mid-pass', journal: 'delete' });
  const writer = new Database(path);
  const home = join(dir, 'home');
  const forwarder = createForwarder({ stateDbs: [path], home, readWorker: 'off' });
  try {
    let locked = false;
    let scheduled = false;
    let stopped = false;
    // The first batch written, the writer takes the store; the stop comes while the pass waits for it (the timer fires
    // at the first turn of the event loop after the check that follows the batch).
    const beforeWrite = () => {
      if (locked) return;
      writer.exec('BEGIN EXCLUSIVE');
      locked = true;
    };
    const keepGoing = () => {
      if (locked && !scheduled) {
        scheduled = true;
        setImmediate(() => { stopped = true; });
      }
      return !stopped;
    };
    const results = await forwarder.forwardOnceAsync({ keepGoing, beforeWrite });
    // The old reader waited its three busy timeouts through and failed the store with HERMETIC_READER_BUSY.
    assert.deepEqual(results.map((r) => [r.store, r.sessionsWritten, r.error]), [[path, 20, null]]);
    assert.ok(writer.inTransaction, 'the lock was held throughout');
    writer.exec('ROLLBACK');
    const [r] = await forwarder.forwardOnceAsync();
    assert.deepEqual([r!.error, r!.sessionsWritten], [null, 25]);
    const ro = new Database(join(home, 'hermetic.db'), { readonly: true });
    assert.equal(ro.prepare('SELECT COUNT(*) FROM sessions').pluck().get(), 45);
    ro.close();
  } finally {
    if (writer.inTransaction) writer.exec('ROLLBACK');
    writer.close();
    forwarder.close();
    cleanup();
  }
});

test('a WAL store whose writer holds its write lock is read at once: its readers never wait', async () => {
  const { dir, cleanup } = tempDir('hermetic-locked-wal-');
  const wal = join(dir, 'wal.db');
  generate({ out: wal, sessions: 2, messages: 6, seed: 'locked-wal', journal: 'wal' });
  const writer = new Database(wal);
  writer.exec('BEGIN EXCLUSIVE');
  const forwarder = createForwarder({ stateDbs: [wal], home: join(dir, 'home'), readWorker: 'off' });
  try {
    // Left alone, a rollback-journal store locked through the patience is said HERMETIC_READER_BUSY:
    // test/cli/forwarder-cli.test.ts ("a store a writer keeps locked").
    const results = await forwarder.forwardOnceAsync({ keepGoing: () => true });
    assert.deepEqual(results.map((r) => [r.store, r.sessionsWritten, r.error]), [[wal, 2, null]]);
  } finally {
    writer.exec('ROLLBACK');
    writer.close();
    forwarder.close();
    cleanup();
  }
});

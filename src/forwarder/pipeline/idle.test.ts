// The forward loop on a store nobody writes: a tick opens nothing (the commit stamp is unchanged), says it is alive
// in the stores table once a minute, and notices the next commit at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import type { LazySqliteSink } from '../sinks/sqlite/lazy.js';
import { forwarderRig } from '../testing/index.js';

for (const journal of ['wal', 'delete'] as const) {
  test(`${journal} store: an idle tick opens nothing, a heartbeat a minute, and the next commit is read at once`, () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'state.db');
    const db = createStore({ path, level: LATEST_LEVEL, journal });
    const w = new StateDbWriter(db, { now: () => 1784024103, ids: createIdSource('idle') });
    let now = 1_800_000_000_000;
    const rig = forwarderRig([path], { dir, now: () => now });
    try {
      const id = w.createSession({ source: 'cli' });
      w.appendMessage(id, { role: 'user', content: 'hi' });
      const [first] = rig.forwarder.forwardOnce();
      assert.deepEqual([first!.read, first!.sessionsWritten], ['in-place', 1]);
      const row = () => rig.query<{ last_tick_at: number; schema_version: number; journal_mode: string }>('SELECT last_tick_at, schema_version, journal_mode FROM stores')[0]!;
      assert.deepEqual(row(), { last_tick_at: 1_800_000_000, schema_version: 30, journal_mode: journal });

      now += 10_000;
      const [idle] = rig.forwarder.forwardOnce();
      assert.deepEqual([idle!.read, idle!.sessionsSeen, idle!.sessionsUnchanged, idle!.sessionsWritten], [null, 1, 1, 0]);
      assert.equal(row().last_tick_at, 1_800_000_000);
      now += 60_000;
      rig.forwarder.forwardOnce();
      assert.deepEqual(row(), { last_tick_at: 1_800_000_070, schema_version: 30, journal_mode: journal });

      w.appendMessage(id, { role: 'assistant', content: 'hello' });
      const [next] = rig.forwarder.forwardOnce();
      // What was new: one message appended, nothing removed.
      assert.deepEqual([next!.read, next!.sessionsWritten, next!.sessionsAppended, next!.messages, next!.messagesRemoved], ['in-place', 1, 1, 1, 0]);
    } finally {
      db.close();
      rig.cleanup();
      cleanup();
    }
  });
}

test('a loop gone quiet copies the dataset\'s WAL into the file: the file alone is current, and a WAL that starts over is cut to 4 MiB', () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'state.db');
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
  const w = new StateDbWriter(db, { now: () => 1784024103, ids: createIdSource('quiet') });
  let now = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => now });
  const shm = join(rig.home, 'hermetic.db-shm');
  /** Frames of the dataset's WAL not yet in its file (the wal-index header: mxFrame − nBackfill). */
  const pending = () => { const b = readFileSync(shm); return b.readUInt32LE(16) - b.readUInt32LE(96); };
  try {
    const id = w.createSession({ source: 'cli' });
    w.appendMessage(id, { role: 'user', content: 'hi' });
    rig.forwarder.forwardOnce();
    w.appendMessage(id, { role: 'assistant', content: 'hello' });
    now += 10_000;
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 1);
    assert.ok(pending() > 0, 'the tick that wrote left its frames in the WAL');
    now += 10_000;
    assert.equal(rig.forwarder.forwardOnce()[0]!.read, null, 'an idle tick');
    assert.equal(pending(), 0);
    assert.equal((rig.forwarder.sink as LazySqliteSink).existing()!.db.pragma('journal_size_limit', { simple: true }), 4 * 1024 * 1024);
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
});

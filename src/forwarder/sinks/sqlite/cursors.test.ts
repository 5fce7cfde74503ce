// The committed cursors as a pass and `status` read them back (sink.ts readCursors): the same values the columns
// hold, each ledger and tail parsed only when asked for; for `status`, no ledger and only the tail at the newest id.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, tempDir } from '../../../state-db/testing/fixtures.js';
import { forwarderRig } from '../../testing/index.js';
import { readCursors } from './sink.js';

test('readCursors gives back every committed cursor; with bodies off, asking for a ledger, or a tail but the one at the newest id read, is refused', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = copyFixture('basic', dir);
    const rig = forwarderRig([path], { dir });
    rig.forwarder.backfill();
    rig.forwarder.close();
    const db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
    const stored = db.prepare('SELECT session_id, fingerprint, max_message_id, usage_mark, ledger, tail FROM session_cursors WHERE store = ?').raw().all(path) as [string, string, number, string, string | null, string | null][];
    assert.ok(stored.length > 0 && stored.some((r) => r[4] !== null) && stored.some((r) => r[5] !== null), 'the fixture has sessions with a ledger and a tail');
    const whole = readCursors(db, path);
    const bare = readCursors(db, path, false);
    assert.equal(whole.sessions.size, stored.length);
    assert.equal(bare.sessions.size, stored.length);
    for (const [id, fingerprint, maxMessageId, usageMark, ledger, tail] of stored) {
      const c = whole.sessions.get(id)!;
      assert.deepEqual([c.fingerprint, c.maxMessageId, c.usageMark], [fingerprint, maxMessageId, usageMark]);
      assert.deepEqual(c.ledger, ledger === null ? null : JSON.parse(ledger));
      assert.deepEqual(c.tail, tail === null ? null : JSON.parse(tail));
      assert.equal(c.tail, c.tail, 'parsed once, then the same object');
      const b = bare.sessions.get(id)!;
      assert.deepEqual([b.fingerprint, b.maxMessageId, b.usageMark], [fingerprint, maxMessageId, usageMark]);
      assert.throws(() => b.ledger, /without its ledger/);
      // The time check of a file gone back (plan.ts wentBack) reads the tail of the session holding the newest id.
      if (maxMessageId === bare.maxMessageId) assert.deepEqual(b.tail, tail === null ? null : JSON.parse(tail));
      else assert.throws(() => b.tail, /without its tail/);
    }
    assert.equal(stored.filter((r) => r[2] === bare.maxMessageId && r[5] !== null).length, 1, 'one session holds the newest id, with its tail');
    assert.ok(stored.filter((r) => r[2] !== bare.maxMessageId).length > 0, 'and others hold none of it');
    assert.deepEqual([bare.maxMessageId, bare.identity, bare.usageStamp], [whole.maxMessageId, whole.identity, whole.usageStamp]);
    db.close();
    // A damaged page that leaves that tail no JSON: `status` takes it as none (it tells nothing) rather than failing.
    const rw = new Database(join(rig.home, 'hermetic.db'));
    rw.prepare('UPDATE session_cursors SET tail = substr(tail, 1, 20) WHERE store = ? AND max_message_id = ?').run(path, bare.maxMessageId);
    const damaged = [...readCursors(rw, path, false).sessions.values()].find((c) => c.maxMessageId === bare.maxMessageId)!;
    assert.equal(damaged.tail, null);
    rw.close();
    rig.cleanup();
  } finally {
    cleanup();
  }
});

// The rows per table the writer keeps (row_counts, decision 0069) are the tables' own counts after whatever the
// forwarder did: a backfill, a batch that failed halfway (rolled back, then split), sessions rewritten, removed and
// forgotten, a ledger rebuilt in another zone; and `tableRows` counts a dataset that predates them.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, FIXTURES, tempDir } from '../../../state-db/testing/fixtures.js';
import { forwarderRig, keptDifferences } from '../../testing/index.js';
import { openDataset } from './dataset.js';
import { COUNTED_TABLES, tableRows } from './row-counts.js';
import { SqliteSink } from './sink.js';

test('a batch that fails halfway leaves no count behind: the rows it had inserted and their tally go together', () => {
  const sessions = ['20260528_203640_3697a7', '20260528_214744_414d27', '20260528_235851_29303a'];
  for (const bad of sessions) {
    const { dir, cleanup } = tempDir();
    const home = join(dir, 'home');
    // The dataset made first, with a trigger that refuses the parts of one session: whichever of the batch's
    // sessions went in before it are rolled back with it, then written again when the batch is split.
    openDataset(home).close();
    const db = new Database(join(home, 'hermetic.db'));
    db.exec(`CREATE TRIGGER poison BEFORE INSERT ON parts WHEN NEW.session_id = '${bad}' BEGIN SELECT RAISE(ABORT, 'no parts for this one'); END`);
    db.close();
    const path = copyFixture('basic', dir);
    const rig = forwarderRig([path], { dir, home, readWorker: 'off' });
    try {
      const [r] = rig.forwarder.backfill();
      assert.deepEqual([r!.error, r!.sessionsWritten, r!.sessionsQuarantined], [null, 2, 1], bad);
      assert.deepEqual(keptDifferences(rig), [], bad);
      rig.forwarder.close();
      const fix = new Database(join(home, 'hermetic.db'));
      fix.exec('DROP TRIGGER poison');
      fix.close();
      const again = forwarderRig([path], { dir, home, now: () => 1_900_000_000_000, readWorker: 'off' });
      try {
        assert.equal(again.forwarder.forwardOnce()[0]!.sessionsWritten, 1);
        assert.deepEqual(keptDifferences(again), [], `${bad}, retried`);
      } finally {
        again.cleanup();
      }
    } finally {
      rig.cleanup();
      cleanup();
    }
  }
});

test('sessions written again, removed from the store, forgotten, and a ledger rebuilt: the counts stay the tables\'', () => {
  const { dir, cleanup } = tempDir();
  const paths = FIXTURES.map((f) => copyFixture(f, dir));
  const home = join(dir, 'home');
  const rig = forwarderRig(paths, { dir, home, timeZone: 'UTC' });
  try {
    rig.forwarder.backfill();
    assert.deepEqual(keptDifferences(rig), []);
    // A session written again whole (its cursor forgotten), one Hermes deleted, the rows of another removed.
    const db = new Database(join(home, 'hermetic.db'));
    db.exec("UPDATE session_cursors SET fingerprint = '', tail = NULL WHERE session_id IN (SELECT session_id FROM session_cursors ORDER BY session_id LIMIT 3)");
    db.close();
    const store = new Database(paths[0]!);
    const victim = store.prepare('SELECT id FROM sessions LIMIT 1').pluck().get() as string;
    store.prepare('DELETE FROM messages WHERE session_id = ?').run(victim);
    store.prepare('DELETE FROM sessions WHERE id = ?').run(victim);
    store.close();
    rig.forwarder.forwardOnce();
    assert.deepEqual(keptDifferences(rig), []);
    rig.forwarder.close();
    // Another zone rebuilds every session's ledger (its rows deleted and inserted again).
    const sink = SqliteSink.open(home, { timeZone: 'Asia/Kathmandu' });
    sink.close();
    assert.deepEqual(keptDifferences(rig), []);
    // By hand: rows deleted by another program are taken off too.
    const hand = new Database(join(home, 'hermetic.db'));
    hand.exec('DELETE FROM parts WHERE part_id IN (SELECT part_id FROM parts ORDER BY part_id LIMIT 5)');
    hand.exec('DELETE FROM usage_ledger WHERE at IN (SELECT at FROM usage_ledger ORDER BY at LIMIT 2)');
    hand.close();
    assert.deepEqual(keptDifferences(rig), []);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('tableRows reads the kept counts, and counts the tables of a dataset that predates them', () => {
  const { dir, cleanup } = tempDir();
  const home = join(dir, 'home');
  const rig = forwarderRig([copyFixture('usage', dir)], { dir, home });
  try {
    rig.forwarder.backfill();
    rig.forwarder.close();
    const db = new Database(join(home, 'hermetic.db'));
    try {
      const counted = Object.fromEntries(COUNTED_TABLES.map((t) => [t, db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get()]));
      assert.deepEqual(tableRows(db), counted);
      // Kept counts are what is read: a dataset whose counts were lost (version 10 had none) is counted.
      db.exec("UPDATE row_counts SET rows = -1 WHERE tbl = 'sessions'");
      assert.equal(tableRows(db).sessions, -1);
      db.exec('DROP TABLE row_counts');
      assert.deepEqual(tableRows(db), counted);
    } finally {
      db.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

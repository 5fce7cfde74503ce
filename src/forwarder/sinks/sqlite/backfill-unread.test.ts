// backfill_unread (decision 0102): the one row remote sinks receive of what windowed backfills left unread. Kept from
// stores.unread with the numbers only (no path, no text a hand edit put there), logged only when it changes, and on an
// upgrade from version 12 filled and copied by each sink whose first copy was done.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Db } from '../../../shared/sqlite.js';
import { DATASET_VERSION } from '../../dataset/columns.js';
import { logHead, registerSink, sinkRow } from '../remote/changelog.js';
import { keepBackfillUnread } from './backfill-unread.js';
import { openDataset } from './dataset.js';

const withHome = (fn: (home: string) => void) => {
  const home = mkdtempSync(join(tmpdir(), 'hermetic-backfill-unread-'));
  try {
    fn(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
};

const setUnread = (db: Db, store: string, unread: string | null) =>
  db.prepare("INSERT INTO stores (store, profile, max_message_id, unread) VALUES (?, 'default', 0, ?) ON CONFLICT (store) DO UPDATE SET unread = excluded.unread").run(store, unread);
const kept = (db: Db) => db.prepare('SELECT scope, stores FROM backfill_unread').all() as { scope: string; stores: string }[];

test('one row, the numbers of each store\'s spans in store order: no path, nothing a hand edit put there', () => withHome((home) => {
  const db = openDataset(home);
  try {
    assert.deepEqual(kept(db), [{ scope: 'stores', stores: '[]' }], 'a new dataset knows: nothing left unread');
    setUnread(db, '/home/me/.hermes/profiles/work/state.db', JSON.stringify([{ sessions: 4, from: 1752000000.25, to: 1752100000 }, { sessions: 2, from: 1753000000, to: 1753000500 }]));
    setUnread(db, '/a/state.db', JSON.stringify([{ sessions: 1, from: 1751000000, to: 1751000100 }]));
    setUnread(db, '/b/state.db', 'not json');
    setUnread(db, '/c/state.db', JSON.stringify([{ sessions: 'OPENAI_API_KEY=sk-abc', from: 1, to: 2 }, { sessions: 3, from: 5, to: 6, note: 'a secret' }, 7]));
    setUnread(db, '/d/state.db', null);
    keepBackfillUnread(db);
    const [row] = kept(db);
    assert.deepEqual(JSON.parse(row!.stores), [
      [{ sessions: 1, from: 1751000000, to: 1751000100 }],
      [{ sessions: 3, from: 5, to: 6 }],
      [{ sessions: 4, from: 1752000000.25, to: 1752100000 }, { sessions: 2, from: 1753000000, to: 1753000500 }],
    ]);
    assert.doesNotMatch(row!.stores, /state\.db|secret|sk-abc|note/);
  } finally {
    db.close();
  }
}));

test('with a sink: a change is logged once, the same value again logs nothing', () => withHome((home) => {
  const db = openDataset(home);
  try {
    registerSink(db, { id: 'sqlite:///a', display: 'sqlite:///a' }, 1);
    const head = logHead(db);
    setUnread(db, '/a/state.db', JSON.stringify([{ sessions: 1, from: 10, to: 20 }]));
    keepBackfillUnread(db);
    keepBackfillUnread(db);
    assert.deepEqual(db.prepare('SELECT tbl, key FROM change_log WHERE seq > ?').all(head), [
      { tbl: 'backfill_unread', key: JSON.stringify(['stores']) }, { tbl: 'backfill_unread', key: JSON.stringify(['stores']) },
    ], 'one update: its old key and its new one');
    setUnread(db, '/a/state.db', null);
    keepBackfillUnread(db);
    assert.equal(kept(db)[0]!.stores, '[]', 'a pass without a window clears it: known, none');
  } finally {
    db.close();
  }
}));

test('a version-12 dataset feeding sinks: the row is filled and a sink whose copy was done copies it', () => withHome((home) => {
  let db = openDataset(home);
  registerSink(db, { id: 'sqlite:///done', display: 'sqlite:///done' }, 1);
  setUnread(db, '/a/state.db', JSON.stringify([{ sessions: 5, from: 10, to: 20 }]));
  // As version 12 left it: no table, one sink's first copy done.
  for (const op of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER change_log_backfill_unread_${op}`);
  db.exec('DROP TABLE backfill_unread');
  db.prepare('UPDATE remote_sinks SET snapshot = NULL, acked_seq = ?').run(logHead(db));
  db.pragma('user_version = 12');
  db.close();
  db = openDataset(home);
  try {
    assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
    assert.deepEqual(kept(db), [{ scope: 'stores', stores: JSON.stringify([[{ sessions: 5, from: 10, to: 20 }]]) }]);
    assert.equal(sinkRow(db, 'sqlite:///done')!.snapshot, JSON.stringify({ table: 'backfill_unread', after: null }));
    assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'change_log_backfill_unread_%'").pluck().get(), 3);
  } finally {
    db.close();
  }
}));

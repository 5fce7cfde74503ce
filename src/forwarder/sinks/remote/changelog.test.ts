// The change log in the dataset: version 4 migrates an older dataset without triggers, the sequence starts at the
// dataset's creation time and never goes back (AUTOINCREMENT, even when every entry is pruned), registration is
// idempotent, and every kind of write (insert, INSERT OR REPLACE, update, delete) is logged with its key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DATASET_VERSION } from '../../dataset/columns.js';
import { openDataset } from '../sqlite/dataset.js';
import { logHead, prune, registerSink, removeSink, sinkRow, triggersOn } from './changelog.js';

const withHome = (fn: (home: string) => void) => {
  const home = mkdtempSync(join(tmpdir(), 'hermetic-changelog-'));
  try {
    fn(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
};

test('a version-3 dataset migrates to 4: the tables, a seeded sequence, no triggers', () => withHome((home) => {
  let db = openDataset(home);
  db.exec('DROP TABLE change_log; DROP TABLE remote_sinks; DELETE FROM sqlite_sequence');
  db.pragma('user_version = 3');
  db.close();
  const before = Date.now();
  db = openDataset(home);
  try {
    assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
    assert.ok(logHead(db) >= before * 1000 && logHead(db) <= Date.now() * 1000, 'the sequence starts at the creation time in µs');
    assert.equal(triggersOn(db), false);
    assert.match(String(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'change_log'").pluck().get()), /"seq" INTEGER PRIMARY KEY AUTOINCREMENT/);
  } finally {
    db.close();
  }
}));

test('every write of a shipped table is logged with its key; pruned entries never give their numbers again', () => withHome((home) => {
  const db = openDataset(home);
  try {
    assert.equal(registerSink(db, { id: 'sqlite:///a', display: 'sqlite:///a' }, 1), true);
    assert.equal(registerSink(db, { id: 'sqlite:///a', display: 'sqlite:///a' }, 2), false, 'registering again changes nothing');
    assert.equal(sinkRow(db, 'sqlite:///a')!.registered_at, 1);
    const start = logHead(db);
    db.prepare("INSERT INTO daily_usage (store, session_id, day, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens) VALUES ('/s', 'x', '2026-01-01', 1, 1, 1, 0, 0, 0)").run();
    db.prepare("INSERT OR REPLACE INTO daily_usage (store, session_id, day, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens) VALUES ('/s', 'x', '2026-01-01', 2, 1, 1, 0, 0, 0)").run();
    db.prepare("UPDATE daily_usage SET day = '2026-01-02'").run();
    db.prepare('DELETE FROM daily_usage').run();
    db.prepare("INSERT INTO row_issues (store, session_id, message_id, field, problem) VALUES ('/s', 'x', 1, 'f', 'p')").run();
    const entries = db.prepare('SELECT seq, tbl, key FROM change_log ORDER BY seq').all() as { seq: number; tbl: string; key: string }[];
    const day = (d: string) => JSON.stringify(['/s', 'x', d]);
    assert.deepEqual(entries.map((e) => [e.tbl, e.key]), [
      ['daily_usage', day('2026-01-01')], // insert
      ['daily_usage', day('2026-01-01')], ['daily_usage', day('2026-01-01')], // replace: the old row deleted, the new inserted
      ['daily_usage', day('2026-01-01')], ['daily_usage', day('2026-01-02')], // update: old key and new key
      ['daily_usage', day('2026-01-02')], // delete
    ], 'row_issues is not shipped: not logged');
    assert.deepEqual(entries.map((e) => e.seq), [1, 2, 3, 4, 5, 6].map((i) => start + i));
    db.prepare('UPDATE remote_sinks SET acked_seq = ?').run(start + 6);
    assert.equal(prune(db), 6);
    db.prepare("INSERT INTO daily_usage (store, session_id, day, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens) VALUES ('/s', 'y', '2026-01-01', 1, 1, 1, 0, 0, 0)").run();
    assert.equal(db.prepare('SELECT seq FROM change_log').pluck().get(), start + 7, 'after the log was emptied, numbering goes on');
    removeSink(db, 'sqlite:///a');
    assert.equal(triggersOn(db), false);
  } finally {
    db.close();
  }
}));

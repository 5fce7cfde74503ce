// The change log in the dataset: version 4 migrates an older dataset without triggers, the sequence starts at the
// dataset's creation time and never goes back (AUTOINCREMENT, even when every entry is pruned), registration is
// idempotent, and every kind of write (insert, INSERT OR REPLACE, update, delete) is logged with its key. Version 12
// ships row_issues: its triggers, and a copy of its rows for sinks whose first copy was done (decision 0092).
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

test('a version-3 dataset migrates to 4 and on: the tables, a seeded sequence, no triggers', () => withHome((home) => {
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
      ['row_issues', JSON.stringify(['/s', 'x', 1, 'f'])], // shipped too (decision 0092)
    ]);
    assert.deepEqual(entries.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7].map((i) => start + i));
    db.prepare('UPDATE remote_sinks SET acked_seq = ?').run(start + 7);
    assert.equal(prune(db), 7);
    db.prepare("INSERT INTO daily_usage (store, session_id, day, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens) VALUES ('/s', 'y', '2026-01-01', 1, 1, 1, 0, 0, 0)").run();
    assert.equal(db.prepare('SELECT seq FROM change_log').pluck().get(), start + 8, 'after the log was emptied, numbering goes on');
    removeSink(db, 'sqlite:///a');
    assert.equal(triggersOn(db), false);
  } finally {
    db.close();
  }
}));

test('a version-11 dataset feeding sinks: row_issues is logged from the upgrade on, and a sink whose copy was done copies that table (decision 0092)', () => withHome((home) => {
  let db = openDataset(home);
  registerSink(db, { id: 'sqlite:///done', display: 'sqlite:///done' }, 1);
  registerSink(db, { id: 'sqlite:///copying', display: 'sqlite:///copying' }, 1);
  db.prepare("INSERT INTO row_issues (store, session_id, message_id, field, problem) VALUES ('/s', 'x', 1, 'f', 'p')").run();
  // As version 11 left it: no triggers on row_issues, one sink's first copy done, the other's at parts.
  for (const op of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER change_log_row_issues_${op}`);
  const head = logHead(db);
  db.prepare('UPDATE remote_sinks SET snapshot = NULL, acked_seq = ? WHERE sink_id = ?').run(head, 'sqlite:///done');
  const copying = JSON.stringify({ table: 'parts', after: ['/s', 'x', 'p1'] });
  db.prepare('UPDATE remote_sinks SET snapshot = ? WHERE sink_id = ?').run(copying, 'sqlite:///copying');
  db.pragma('user_version = 11');
  db.close();
  db = openDataset(home);
  try {
    assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
    assert.deepEqual(sinkRow(db, 'sqlite:///done')!.snapshot, JSON.stringify({ table: 'row_issues', after: null }), 'the rows already there are copied');
    assert.equal(sinkRow(db, 'sqlite:///done')!.acked_seq, head, 'its cursor kept: the log after it follows the copy');
    assert.equal(sinkRow(db, 'sqlite:///copying')!.snapshot, copying, 'a copy under way reaches the table: it is last');
    db.prepare("DELETE FROM row_issues WHERE session_id = 'x'").run();
    assert.deepEqual(db.prepare('SELECT tbl, key FROM change_log WHERE seq > ?').all(head), [{ tbl: 'row_issues', key: JSON.stringify(['/s', 'x', 1, 'f']) }]);
  } finally {
    db.close();
  }
}));

test('a version-11 dataset without sinks gains no triggers', () => withHome((home) => {
  let db = openDataset(home);
  db.pragma('user_version = 11');
  db.close();
  db = openDataset(home);
  try {
    assert.equal(triggersOn(db), false);
    assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'change_log_%'").pluck().get(), 0);
  } finally {
    db.close();
  }
}));

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { inspectStore, formatReport } from './inspect.js';
import { generate } from './generate/index.js';
import { copyFixture, FIXTURES, tempDir } from './testing/fixtures.js';

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

test('inspect reads the real fixtures as current v30 stores in DELETE mode and leaves the file untouched', () => {
  const { dir, cleanup } = tempDir();
  try {
    for (const name of FIXTURES) {
      const path = copyFixture(name, dir);
      const before = sha(path);
      const r = inspectStore(path);
      assert.deepEqual([r.schemaVersion, r.level, r.journalMode, r.createdAt, r.differences], [30, 31, 'delete', 31, []]);
      assert.ok(r.counts.messages! > 0 && r.fts);
      assert.equal(sha(path), before);
    }
  } finally {
    cleanup();
  }
});

test('inspect recognises a migrated layout, reports unknown columns and a PostgreSQL profile', () => {
  const { dir, cleanup } = tempDir();
  try {
    const m = generate({ out: join(dir, 'm', 'state.db'), profile: 'mid', sessions: 12, seed: 'i' });
    const rm = inspectStore(m.path);
    assert.equal(rm.createdAt, 11);
    assert.deepEqual(rm.differences, ['layout of a store created at v11 and migrated (columns appended)']);
    const p = generate({ out: join(dir, 'p', 'state.db'), profile: 'postgres-stale', sessions: 3, seed: 'i' });
    const db = new Database(p.path);
    db.exec('ALTER TABLE sessions ADD COLUMN future_column TEXT');
    db.close();
    const rp = inspectStore(p.path);
    assert.equal(rp.createdAt, null);
    assert.deepEqual(rp.differences, ['sessions.future_column: not in the known schema']);
    assert.match(formatReport(rp), /note: config\.yaml selects the PostgreSQL backend/);
  } finally {
    cleanup();
  }
});

test('inspect of a missing file fails with HERMETIC_STATEDB_OPEN', () => {
  assert.throws(() => inspectStore('/nonexistent/state.db'), (e: { code: string; message: string }) => {
    assert.equal(e.code, 'HERMETIC_STATEDB_OPEN');
    assert.match(e.message, /^Cannot open \/nonexistent\/state\.db read-only: /);
    return true;
  });
});

/** Every file in `dir` with its bytes' hash; a -shm (shared memory readers may touch) by name only. */
const listing = (dir: string) => readdirSync(dir).sort().map((f) => (f.endsWith('-shm') ? f : `${f} ${sha(join(dir, f))}`));

/** Inspects `path` and checks its folder is exactly as before; returns the report. */
function inspectUntouched(path: string, label: string) {
  const before = listing(dirname(path));
  const report = inspectStore(path);
  assert.deepEqual(listing(dirname(path)), before, label);
  return report;
}

test('inspect leaves the folder as it found it for WAL and DELETE stores, with and without a -wal, and sees -wal rows', () => {
  const { dir, cleanup } = tempDir();
  try {
    const at = (name: string) => (mkdirSync(join(dir, name)), join(dir, name, 'state.db'));
    const count = (r: { counts: Record<string, number> }) => r.counts.sessions;
    // WAL store closed cleanly: no -wal, no -shm (a read-only open would create both).
    const wal = generate({ out: at('wal'), sessions: 6, seed: 'w' });
    const rw = inspectUntouched(wal.path, 'wal');
    assert.deepEqual([rw.journalMode, count(rw), readdirSync(join(dir, 'wal'))], ['wal', wal.sessions, ['state.db']]);
    // WAL store whose newest sessions live only in a -wal without a -shm.
    const tail = generate({ out: at('tail'), profile: 'wal-tail', sessions: 20, seed: 't' });
    const rt = inspectUntouched(tail.path, 'wal-tail');
    assert.deepEqual([rt.journalMode, count(rt), readdirSync(join(dir, 'tail')).sort()], ['wal', tail.sessions, ['state.db', 'state.db-wal']]);
    // WAL store with a live writer: -wal and -shm exist, the newest rows are only in the -wal.
    const live = generate({ out: at('live'), sessions: 4, seed: 'l' });
    const writer = new Database(live.path);
    writer.pragma('wal_autocheckpoint = 0');
    writer.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)').run('only-in-wal', 'cli', 1);
    try {
      const rl = inspectUntouched(live.path, 'live writer');
      assert.deepEqual([rl.journalMode, count(rl)], ['wal', live.sessions + 1]);
      assert.deepEqual(readdirSync(join(dir, 'live')).sort(), ['state.db', 'state.db-shm', 'state.db-wal']);
    } finally {
      writer.close();
    }
    // DELETE store, alone and with a stray empty -wal beside it (SQLite would apply it and create a -shm).
    const del = generate({ out: at('delete'), sessions: 5, seed: 'd', journal: 'delete' });
    const rd = inspectUntouched(del.path, 'delete');
    assert.deepEqual([rd.journalMode, count(rd)], ['delete', del.sessions]);
    writeFileSync(`${del.path}-wal`, '');
    const rs = inspectUntouched(del.path, 'delete + stray -wal');
    assert.equal(count(rs), del.sessions);
    assert.deepEqual(readdirSync(join(dir, 'delete')).sort(), ['state.db', 'state.db-wal']);
  } finally {
    cleanup();
  }
});

test('a hot journal left by a crashed writer is rolled back on a private copy; the store and its journal stay', () => {
  const { dir, cleanup } = tempDir();
  try {
    const src = generate({ out: join(dir, 'src.db'), sessions: 3, seed: 'h', journal: 'delete' });
    const writer = new Database(src.path);
    writer.pragma('cache_size = 1');
    writer.exec('BEGIN');
    const insert = writer.prepare('INSERT INTO sessions (id, source, started_at) VALUES (?, ?, ?)');
    for (let i = 0; i < 500; i++) insert.run(`crash-${i}`, 'cli', i);
    mkdirSync(join(dir, 'crashed'));
    const path = join(dir, 'crashed', 'state.db');
    // The files as a crash mid-transaction leaves them: changed pages in the store, their old copies in -journal.
    copyFileSync(src.path, path);
    copyFileSync(`${src.path}-journal`, `${path}-journal`);
    writer.exec('ROLLBACK');
    writer.close();
    const r = inspectUntouched(path, 'hot journal');
    assert.equal(r.counts.sessions, src.sessions);
    assert.ok(existsSync(`${path}-journal`));
  } finally {
    cleanup();
  }
});

test('an empty file, a text file and a folder are refused with a code and a sentence', () => {
  const { dir, cleanup } = tempDir();
  try {
    const refuse = (path: string, code: string, message: string) =>
      assert.throws(() => inspectStore(path), (e: { code: string; message: string }) => (assert.deepEqual([e.code, e.message], [code, message]), true));
    writeFileSync(join(dir, 'empty.db'), '');
    refuse(join(dir, 'empty.db'), 'HERMETIC_STATEDB_NOT_SQLITE', `${join(dir, 'empty.db')} is empty, so it is not a SQLite database.`);
    writeFileSync(join(dir, 'notes.txt'), 'remember the milk\n');
    refuse(join(dir, 'notes.txt'), 'HERMETIC_STATEDB_NOT_SQLITE', `${join(dir, 'notes.txt')} is not a SQLite database (it does not start with SQLite's header).`);
    refuse(dir, 'HERMETIC_STATEDB_OPEN', `Cannot open ${dir} read-only: it is a folder, not a file.`);
    assert.deepEqual(readdirSync(dir).sort(), ['empty.db', 'notes.txt']);
  } finally {
    cleanup();
  }
});

test('a SQLite database that is not a Hermes store is reported with a note', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'other.db');
    const db = new Database(path);
    db.exec('CREATE TABLE t (x)');
    db.close();
    const r = inspectStore(path);
    assert.deepEqual([r.schemaVersion, r.counts, r.notes], [null, { t: 0 }, ['no schema_version table: this SQLite database is not a Hermes state.db.']]);
    // Nothing to compare its columns with: the report does not say they match.
    assert.match(formatReport(r), /columns: +not compared \(no schema version\)/);
    assert.doesNotMatch(formatReport(r), /match the known schema/);
  } finally {
    cleanup();
  }
});

test('a table whose name holds a double quote is counted like any other (its name quoted, the " doubled)', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const db = new Database(join(dir, 'quoted.db'));
  db.exec('CREATE TABLE "say ""hi""" (x); INSERT INTO "say ""hi""" VALUES (1), (2)');
  db.close();
  assert.deepEqual(inspectStore(join(dir, 'quoted.db')).counts, { 'say "hi"': 2 });
});

// One short-lived read per tick (spec forwarding §6.3 items 19–20; checklist §5.1 #3–#4, #7–#12): read-only in place
// or on a private copy, never a trace beside the store, lock and I/O errors classified by their primary code and
// retried with backoff, a writer's lock waited out.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { HermeticError } from '../../shared/errors.js';
import { copyProblem } from '../../shared/sqlite.js';
import { mountable, smallDisk } from '../../shared/testing/small-disks.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { primaryCode, readStore } from './connection.js';

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** Every file in the folder with a hash of its bytes. */
const folder = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, createHash('sha256').update(readFileSync(join(dir, n))).digest('hex')]));

function withStore(journal: 'wal' | 'delete', fn: (path: string, dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const { dir, cleanup } = tempDir('hermetic-reader-');
    const path = join(dir, 'state.db');
    const db = createStore({ path, level: 31, journal, fts: false });
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1784000000)").run();
    db.close();
    try {
      await fn(path, dir);
    } finally {
      cleanup();
    }
  };
}

test('the primary result code is the low byte of an extended one, by name; other errors have none (§5.1 #7)', () => {
  assert.equal(primaryCode(sqliteError('SQLITE_BUSY', 'x')), 'SQLITE_BUSY');
  assert.equal(primaryCode(sqliteError('SQLITE_BUSY_SNAPSHOT', 'x')), 'SQLITE_BUSY');
  assert.equal(primaryCode(sqliteError('SQLITE_BUSY_RECOVERY', 'x')), 'SQLITE_BUSY');
  assert.equal(primaryCode(sqliteError('SQLITE_LOCKED_SHAREDCACHE', 'x')), 'SQLITE_LOCKED');
  assert.equal(primaryCode(sqliteError('SQLITE_IOERR_SHORT_READ', 'x')), 'SQLITE_IOERR');
  assert.equal(primaryCode(sqliteError('SQLITE_READONLY_ROLLBACK', 'x')), 'SQLITE_READONLY');
  assert.equal(primaryCode(sqliteError('ENOENT', 'x')), null);
  assert.equal(primaryCode(Object.assign(new Error('x'), { code: 5 })), null);
  assert.equal(primaryCode(new Error('x')), null);
  assert.equal(primaryCode(null), null);
});

test('a lock error is retried within the bound, sleeping the backoff between attempts, then succeeds (§5.1 #8)', withStore('delete', (path) => {
  const sleeps: number[] = [];
  let calls = 0;
  const got = readStore(path, (db) => {
    if (++calls < 3) throw sqliteError(calls === 1 ? 'SQLITE_BUSY' : 'SQLITE_LOCKED', 'database is locked');
    return db.prepare('SELECT id FROM sessions').pluck().get();
  }, { attempts: 5, backoffMs: 20, sleep: (ms) => sleeps.push(ms) });
  assert.equal(got, 's1');
  assert.equal(calls, 3);
  assert.deepEqual(sleeps, [20, 40]);
}));

test('a lock that outlasts every attempt fails typed HERMETIC_READER_BUSY naming the store (§5.1 #9)', withStore('delete', (path) => {
  const sleeps: number[] = [];
  let calls = 0;
  assert.throws(() => readStore(path, () => { calls++; throw sqliteError('SQLITE_BUSY_SNAPSHOT', 'database is locked'); }, { attempts: 4, sleep: (ms) => sleeps.push(ms) }), (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_READER_BUSY');
    assert.equal(e.message, `${path} stayed locked by a Hermes writer: database is locked.`);
    return true;
  });
  assert.equal(calls, 4);
  assert.deepEqual(sleeps, [50, 100, 150]);
}));

test('a transient I/O error (a WAL checkpoint seen read-only) is retried, then reported as HERMETIC_READER_OPEN', withStore('delete', (path) => {
  let calls = 0;
  assert.throws(() => readStore(path, () => { calls++; throw sqliteError('SQLITE_IOERR_SHORT_READ', 'disk I/O error'); }, { sleep: () => {} }), (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_READER_OPEN');
    assert.equal(e.message, `Cannot read ${path}: disk I/O error.`);
    return true;
  });
  assert.equal(calls, 3);
}));

test('a damaged store fails at once as HERMETIC_READER_OPEN with its message, without a retry or a sleep (§5.1 #10)', withStore('delete', (path) => {
  const sleeps: number[] = [];
  let calls = 0;
  const boom = sqliteError('SQLITE_CORRUPT', 'database disk image is malformed');
  assert.throws(() => readStore(path, () => { calls++; throw boom; }, { sleep: (ms) => sleeps.push(ms) }), (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_READER_OPEN');
    assert.equal(e.message, `Cannot read ${path}: database disk image is malformed.`);
    return true;
  });
  assert.equal(calls, 1);
  assert.deepEqual(sleeps, []);
}));

test('an error that is not the store\'s state (a constraint, SQL that cannot run, a TypeError) is a bug: thrown as it is, stack included, at once', withStore('delete', (path) => {
  for (const boom of [sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed'), sqliteError('SQLITE_ERROR', 'no such column: nope'), new TypeError('x is undefined')]) {
    const sleeps: number[] = [];
    let calls = 0;
    assert.throws(() => readStore(path, () => { calls++; throw boom; }, { sleep: (ms) => sleeps.push(ms) }), (e: unknown) => e === boom);
    assert.deepEqual([calls, sleeps], [1, []]);
  }
}));

test('without options the reader makes 3 attempts with 50 ms, 100 ms backoff (§5.1 #11)', withStore('delete', (path) => {
  let calls = 0;
  const started = performance.now();
  assert.throws(() => readStore(path, () => { calls++; throw sqliteError('SQLITE_BUSY', 'database is locked'); }), { code: 'HERMETIC_READER_BUSY' });
  assert.equal(calls, 3);
  // A lower bound on a monotonic clock: a slow machine only sleeps longer.
  assert.ok(performance.now() - started >= 140, 'slept 50 + 100 ms');
}));

test('a missing state.db fails typed HERMETIC_READER_OPEN with a message naming the file; nothing is created (§5.1 #4)', () => {
  const { dir, cleanup } = tempDir('hermetic-reader-');
  try {
    const path = join(dir, 'state.db');
    let called = false;
    assert.throws(() => readStore(path, () => { called = true; }), (e: unknown) => {
      assert.ok(e instanceof HermeticError);
      assert.equal(e.code, 'HERMETIC_READER_OPEN');
      assert.equal(e.message, `Cannot open ${path} read-only: the file does not exist.`);
      return true;
    });
    assert.equal(called, false);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    cleanup();
  }
});

test('a file that is not SQLite, or is empty, fails typed HERMETIC_READER_OPEN', () => {
  const { dir, cleanup } = tempDir('hermetic-reader-');
  try {
    const text = join(dir, 'notes.db');
    const empty = join(dir, 'empty.db');
    writeFileSync(text, 'this is not a database, just some text that is long enough to fill a header of one hundred bytes......');
    writeFileSync(empty, '');
    assert.throws(() => readStore(text, () => 1), { code: 'HERMETIC_READER_OPEN', message: `${text} is not a SQLite database (it does not start with SQLite's header).` });
    assert.throws(() => readStore(empty, () => 1), { code: 'HERMETIC_READER_OPEN', message: `${empty} is empty, so it is not a SQLite database.` });
  } finally {
    cleanup();
  }
});

test('in place, the connection is read-only: a write is refused (attempt to write a readonly database) and the store is unchanged (§5.1 #3)', withStore('delete', (path, dir) => {
  const before = folder(dir);
  assert.throws(() => readStore(path, (db, how) => {
    assert.equal(how, 'in-place');
    db.exec("INSERT INTO sessions (id, source, started_at) VALUES ('s2', 'cli', 1784000001)");
  }), { code: 'HERMETIC_READER_OPEN', message: `Cannot read ${path}: attempt to write a readonly database.` });
  assert.deepEqual(folder(dir), before);
}));

test('a WAL store with no -wal is read on a private copy: a write there never reaches the store, no file appears (§5.1 #3)', withStore('wal', (path, dir) => {
  const before = folder(dir);
  assert.deepEqual(Object.keys(before), ['state.db']);
  const n = readStore(path, (db, how) => {
    assert.equal(how, 'copy');
    db.exec("INSERT INTO sessions (id, source, started_at) VALUES ('s2', 'cli', 1784000001)");
    return db.prepare('SELECT COUNT(*) FROM sessions').pluck().get();
  });
  assert.equal(n, 2);
  assert.deepEqual(folder(dir), before);
  assert.deepEqual(readStore(path, (db) => db.prepare('SELECT id FROM sessions').pluck().all()), ['s1']);
}));

test('a private copy with no room says so: the room it needs, where, and TMPDIR; other failures keep their reason', withStore('wal', (path) => {
  writeFileSync(`${path}-wal`, Buffer.alloc(1500));
  const size = readFileSync(path).length + 1500;
  const full = copyProblem(path, Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }), '/tmp/small');
  assert.equal(full.startsWith(`Cannot copy ${path} (${(size / 1e3).toFixed(1)} kB) into /tmp/small to read it: no space left there. `), true, full);
  assert.match(full, /read through a private copy: make room there, or set TMPDIR to a folder with room\.$/);
  assert.match(copyProblem(path, Object.assign(new Error('EDQUOT: disk quota exceeded'), { code: 'EDQUOT' })), /no space left there/);
  // Looked at before copying: what was free.
  assert.match(copyProblem(path, Object.assign(new Error('no space'), { code: 'ENOSPC' }), '/tmp/small', 2048), /into \/tmp\/small to read it: only 2\.0 kB free there\. /);
  assert.equal(copyProblem(path, Object.assign(new Error('EACCES'), { code: 'EACCES' })), `Cannot copy ${path} to read it: permission denied.`);
}));

// A real full folder: a 1 MB tmpfs as TMPDIR, where the system lets this process mount one (root on Linux).
test('a store whose private copy does not fit in TMPDIR is refused before any of it is written, says what to do, and leaves nothing', { skip: mountable }, (t) => withStore('wal', (path, dir) => {
  const db = new (createRequire(import.meta.url)('better-sqlite3'))(path);
  db.exec('CREATE TABLE pad (x); INSERT INTO pad VALUES (zeroblob(3000000))');
  db.close();
  const before = folder(dir);
  const disk = smallDisk(join(dir, '..', `${dir.split('/').pop()}-tmpfs`), '1m');
  if (!disk) return t.skip('this system refused a tmpfs');
  const small = disk.path;
  const bytes = readFileSync(path).length;
  const saved = process.env.TMPDIR;
  try {
    // Synchronous from here to the restore: no other test of a shared process runs with this TMPDIR.
    process.env.TMPDIR = small;
    assert.throws(() => readStore(path, () => 1), (e: HermeticError) => e.code === 'HERMETIC_READER_OPEN'
      && e.message.startsWith(`Cannot copy ${path} (${(bytes / 1e6).toFixed(1)} MB) into ${small} to read it: only 1.0 MB free there.`) && /set TMPDIR to a folder with room/.test(e.message));
    assert.deepEqual(readdirSync(small), [], 'the partial copy is removed');
    assert.deepEqual(folder(dir), before);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    disk.release();
    rmdirSync(small);
  }
})());

test('a live WAL store (its -wal and -shm present) is read in place and its uncheckpointed rows are seen', () => {
  const { dir, cleanup } = tempDir('hermetic-reader-');
  const path = join(dir, 'state.db');
  const db = createStore({ path, level: 31, journal: 'wal', fts: false });
  try {
    db.pragma('wal_autocheckpoint = 0');
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('live', 'telegram', 1784000000)").run();
    assert.deepEqual(readdirSync(dir).sort(), ['state.db', 'state.db-shm', 'state.db-wal']);
    const got = readStore(path, (r, how) => [how, r.prepare('SELECT id FROM sessions').pluck().all()]);
    assert.deepEqual(got, ['in-place', ['live']]);
    assert.deepEqual(readdirSync(dir).sort(), ['state.db', 'state.db-shm', 'state.db-wal']);
  } finally {
    db.close();
    cleanup();
  }
});

test('in DELETE journal mode a read waits out a writer holding the lock (5 s busy timeout) and then succeeds (§5.1 #12)', withStore('delete', async (path) => {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const Database = require(workerData.sqlite);
    const db = new Database(workerData.path);
    db.exec('BEGIN EXCLUSIVE');
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('s2', 'cli', 1784000001)").run();
    parentPort.postMessage('locked');
    setTimeout(() => { db.exec('COMMIT'); db.close(); parentPort.postMessage('released'); }, 400);
  `, { eval: true, workerData: { sqlite, path } });
  try {
    await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
    // One attempt, so no retry: the read saw s2, which the writer committed only when it let go of its lock, so the
    // read waited for it (how long depends on the machine, and is not asserted).
    const ids = readStore(path, (db, how) => { assert.equal(how, 'in-place'); return db.prepare('SELECT id FROM sessions ORDER BY id').pluck().all(); }, { attempts: 1 });
    assert.deepEqual(ids, ['s1', 's2']);
  } finally {
    await worker.terminate();
  }
}));

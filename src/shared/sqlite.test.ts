// Stores we write, in a folder this user cannot write in: refused before SQLite is asked, in words (a new file), and
// in the same words when SQLite cannot open an existing one there (it makes a WAL file's -wal and -shm beside it).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../state-db/testing/fixtures.js';
import { folderNotWritable, openReadWrite, storePathProblem } from './sqlite.js';
import { readOnlyFolder } from './testing/small-disks.js';

test('a store in a folder this user cannot write: storePathProblem and openReadWrite say the folder\'s problem', (t) => {
  const { dir, cleanup } = tempDir('hermetic-sqlite-readonly-');
  const store = join(dir, 'runs.db');
  const db = new Database(store);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x)');
  db.close();
  const folder = join(dir, 'ro');
  const ro = readOnlyFolder(folder, (p) => copyFileSync(store, join(p, 'runs.db')));
  try {
    if (!ro) return t.skip('this system refused a tmpfs');
    assert.equal(folderNotWritable(folder), ro.why);
    assert.equal(folderNotWritable(dir), null);
    assert.equal(storePathProblem(join(folder, 'new.db')), ro.why, 'a new file: refused before SQLite is asked');
    assert.equal(storePathProblem(join(dir, 'new.db')), null);
    // An existing one: SQLite is asked, and its "unable to open database file" is said as the folder's.
    assert.throws(() => openReadWrite(join(folder, 'runs.db')), (e: Error & { code?: string }) => e.code === 'HERMETIC_STORE_OPEN'
      && e.message === `Cannot open the store at ${join(folder, 'runs.db')}: ${ro.why}.`);
  } finally {
    ro?.release();
    cleanup();
  }
});

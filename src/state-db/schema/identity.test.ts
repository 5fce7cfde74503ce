// Decision 0134: a store's identity as Hermes stamps it (_ensure_db_file_generation) and its files owner-only
// (_secure_state_db_files). Expected application ids are what CPython gave for `(int(token[:8], 16) & 0x7FFFFFFF) or 1`.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createIdSource } from '../../shared/ids.js';
import { applicationIdFor, createStore, LATEST_LEVEL, securePrivateFiles, stampIdentity } from './index.js';
import { tempDir } from '../testing/fixtures.js';

const meta = (db: Database.Database) => ({
  generation: db.prepare("SELECT value FROM state_meta WHERE key = 'db_file_generation'").pluck().get(),
  applicationId: db.pragma('application_id', { simple: true }),
});
const mode = (path: string) => statSync(path).mode & 0o777;

test('applicationIdFor is (int(token[:8], 16) & 0x7FFFFFFF) or 1, as CPython computes it', () => {
  const vectors: Array<[string, number | null]> = [
    ['5eed0000000000000000000000000001', 1592590336], // the Hermes fixtures' token and header
    ['ffffffffffffffffffffffffffffffff', 2147483647], ['80000000000000000000000000000000', 1],
    ['00000000000000000000000000000000', 1], ['0000000a', 10], ['ABCDEF12', 734916370], ['abc', 2748],
    [' +0x1f_a', 506], ['-1', 2147483647], ['-0000001', 2147483647], ['0x_ff', 255], [' 12 ', 18], ['\u0661\u0662', 18],
    ['12345678901234567890', 305419896], ['1_2_3_4_', null], ['gen-a', null], ['gen-0001', null], ['', null],
  ];
  for (const [token, id] of vectors) assert.equal(applicationIdFor(token), id, JSON.stringify(token));
});

test('a new store gets a minted uuid4 token and the application_id Hermes derives from it; a seed gives the same', () => {
  const a = createStore({ path: ':memory:', level: LATEST_LEVEL, ids: createIdSource('one') });
  const b = createStore({ path: ':memory:', level: LATEST_LEVEL, ids: createIdSource('one') });
  const c = createStore({ path: ':memory:', level: LATEST_LEVEL, ids: createIdSource('two') });
  const random = createStore({ path: ':memory:', level: LATEST_LEVEL });
  const [ma, mb, mc, mr] = [meta(a), meta(b), meta(c), meta(random)];
  assert.match(String(ma.generation), /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  assert.equal(ma.generation, createIdSource('one').uuid4Hex());
  assert.equal(ma.applicationId, applicationIdFor(String(ma.generation)));
  assert.deepEqual(mb, ma);
  assert.notEqual(mc.generation, ma.generation);
  assert.notEqual(mr.generation, ma.generation);
  assert.equal(mr.applicationId, applicationIdFor(String(mr.generation)));
  // A store migrated through v28 is stamped then; one that never reaches it has neither.
  const migrated = createStore({ path: ':memory:', level: LATEST_LEVEL, createdAt: 12, ids: createIdSource('one') });
  assert.deepEqual(meta(migrated), ma);
  const old = createStore({ path: ':memory:', level: 27, ids: createIdSource('one') });
  assert.deepEqual(meta(old), { generation: undefined, applicationId: 0 });
  for (const db of [a, b, c, random, migrated, old]) db.close();
});

test('stampIdentity: the first token wins, and the header is written only while it is 0', () => {
  const db = createStore({ path: ':memory:', level: LATEST_LEVEL, generation: '5eed0000000000000000000000000001' });
  assert.equal(stampIdentity(db, '7fffffff000000000000000000000000'), '5eed0000000000000000000000000001');
  assert.deepEqual(meta(db), { generation: '5eed0000000000000000000000000001', applicationId: 0x5eed0000 });
  db.pragma('application_id = 0');
  stampIdentity(db, 'ffffffff000000000000000000000000');
  assert.equal(meta(db).applicationId, 0x5eed0000, 'derived from the token the file keeps');
  // A test's hand-made name is kept; Hermes's int() could not read it, so the header stays 0.
  const named = createStore({ path: ':memory:', level: LATEST_LEVEL, generation: 'gen-a' });
  assert.deepEqual(meta(named), { generation: 'gen-a', applicationId: 0 });
  db.close();
  named.close();
});

test('a created store and its -wal and -shm are 0600 whatever the umask; a WAL store keeps them so', () => {
  const { dir, cleanup } = tempDir();
  const umask = process.umask(0o022);
  try {
    for (const journal of ['wal', 'delete'] as const) {
      const path = join(dir, `${journal}.db`);
      const db = createStore({ path, level: LATEST_LEVEL, journal });
      db.prepare("INSERT INTO state_meta (key, value) VALUES ('k', 'v')").run();
      const files = journal === 'wal' ? [path, `${path}-wal`, `${path}-shm`] : [path];
      for (const file of files) assert.equal(mode(file), 0o600, file);
      db.close();
      assert.equal(mode(path), 0o600);
    }
  } finally {
    process.umask(umask);
    cleanup();
  }
});

test('securePrivateFiles tightens loose files in place, makes a missing main file 0600, leaves links alone', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'state.db');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      writeFileSync(file, '');
      chmodSync(file, 0o644);
    }
    securePrivateFiles(path);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file), 0o600, file);
    const fresh = join(dir, 'fresh.db');
    securePrivateFiles(fresh);
    assert.equal(existsSync(fresh), false, 'made only when asked');
    securePrivateFiles(fresh, { createMain: true });
    assert.equal(mode(fresh), 0o600);
    const target = join(dir, 'target');
    writeFileSync(target, '');
    chmodSync(target, 0o644);
    const link = join(dir, 'link.db');
    symlinkSync(target, link);
    securePrivateFiles(link, { createMain: true });
    assert.equal(mode(target), 0o644, 'a planted link is not followed');
  } finally {
    cleanup();
  }
});

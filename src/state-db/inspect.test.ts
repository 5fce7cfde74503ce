import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

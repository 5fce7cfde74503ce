import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { openEmulatorStore } from './db.js';
import { MIGRATIONS } from './migrations/index.js';
import { IdempotencyStore, type IdempotencyRow } from './idempotency.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
const freshFile = () => join(mkdtempSync(join(tmpdir(), 'hermetic-store-')), 'runs_idempotency.db');

const reservation = (scope: string, key: string, runId: string, now: number, status = 'queued'): IdempotencyRow => ({
  scope,
  idempotency_key: key,
  fingerprint: 'f'.repeat(64),
  run_id: runId,
  status_json: JSON.stringify({ run_id: runId, status }),
  owner_pid: 1,
  owner_started: 1,
  retention_until: 0,
  acknowledged_at: null,
  created_at: now,
  updated_at: now,
});

/** A plain INSERT of every column, as Hermes writes a row. */
function insertRow(db: Database.Database, row: IdempotencyRow): void {
  db.prepare(
    `INSERT INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid, owner_started,
       retention_until, acknowledged_at, created_at, updated_at)
     VALUES (@scope, @idempotency_key, @fingerprint, @run_id, @status_json, @owner_pid, @owner_started,
       @retention_until, @acknowledged_at, @created_at, @updated_at)`,
  ).run(row);
}

/** Another process on the same file: a plain connection writing rows as Hermes would. */
function foreign(file: string) {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return {
    insert(row: IdempotencyRow) {
      insertRow(db, row);
    },
    deleteTop() {
      db.prepare('DELETE FROM run_idempotency WHERE rowid = (SELECT max(rowid) FROM run_idempotency)').run();
    },
    deleteRun(runId: string) {
      db.prepare('DELETE FROM run_idempotency WHERE run_id = ?').run(runId);
    },
    status(runId: string): string | undefined {
      return db.prepare('SELECT status_json FROM run_idempotency WHERE run_id = ?').pluck().get(runId) as string | undefined;
    },
    rows() {
      return db
        .prepare('SELECT scope, idempotency_key, run_id, status_json, updated_at FROM run_idempotency ORDER BY scope, idempotency_key')
        .all();
    },
    close: () => db.close(),
  };
}

test('a reservation is found by key and by run id in its own scope only; a replayed key is not reserved twice', async () => {
  const store = new IdempotencyStore(openEmulatorStore(freshFile()));
  const first = await store.admit('s', 'k', 100, () => reservation('s', 'k', 'run_a', 100));
  assert.deepEqual(first, { kind: 'reserved' });
  const again = await store.admit('s', 'k', 101, () => assert.fail('the key is taken'));
  assert.equal(again.kind, 'existing');
  assert.equal(store.findRun('s', 'run_a')?.idempotency_key, 'k');
  assert.equal(store.findRun('other', 'run_a'), undefined);
  assert.equal(store.hasRun('run_a'), true);
  assert.equal(store.hasRun('run_b'), false);
  store.close();
});

test('status writes reach the row, and rows another process adds or deletes are seen at once', async () => {
  const file = freshFile();
  const store = new IdempotencyStore(openEmulatorStore(file));
  const other = foreign(file);
  await store.admit('s', 'mine', 100, () => reservation('s', 'mine', 'run_mine', 100));
  store.writeStatus('run_mine', '{"status": "running"}', 101);
  store.flush();
  assert.equal(other.status('run_mine'), '{"status": "running"}');

  other.insert(reservation('s', 'theirs', 'run_theirs', 102, 'running'));
  assert.equal(store.findRun('s', 'run_theirs')?.idempotency_key, 'theirs');
  assert.equal(store.hasRun('run_theirs'), true);

  // The other process deletes our newest row and inserts rows that reuse its rowid: the map must not be fooled.
  other.deleteTop();
  other.deleteTop();
  other.insert(reservation('s', 'reuse-1', 'run_reuse_1', 103));
  other.insert(reservation('s', 'reuse-2', 'run_reuse_2', 103));
  assert.equal(store.findRun('s', 'run_mine'), undefined);
  assert.equal(store.findRun('s', 'run_theirs'), undefined);
  assert.equal(store.findRun('s', 'run_reuse_1')?.idempotency_key, 'reuse-1');
  assert.equal(store.findRun('s', 'run_reuse_2')?.idempotency_key, 'reuse-2');
  // A status write for a row that is gone writes nothing, as Hermes's UPDATE … WHERE run_id would.
  store.writeStatus('run_mine', '{"status": "completed"}', 104);
  store.flush();
  assert.equal(other.status('run_reuse_1'), JSON.stringify({ run_id: 'run_reuse_1', status: 'queued' }));
  assert.equal(other.status('run_reuse_2'), JSON.stringify({ run_id: 'run_reuse_2', status: 'queued' }));

  // A second gateway in this process on the same file (a sibling store) sees the first one's unflushed writes.
  const sibling = new IdempotencyStore(openEmulatorStore(file));
  await store.admit('s', 'late', 105, () => reservation('s', 'late', 'run_late', 105));
  store.writeStatus('run_late', '{"status": "running"}', 106);
  assert.equal(sibling.findRun('s', 'run_late')?.status_json, '{"status": "running"}');
  sibling.close();
  other.close();
  store.close();
});

test('a reopened store finds every row by run id', async () => {
  const file = freshFile();
  const store = new IdempotencyStore(openEmulatorStore(file));
  for (let i = 0; i < 50; i++) await store.admit('s', `k${i}`, 100, () => reservation('s', `k${i}`, `run_${i}`, 100));
  store.close();
  const reopened = new IdempotencyStore(openEmulatorStore(file));
  for (let i = 0; i < 50; i++) assert.equal(reopened.findRun('s', `run_${i}`)?.idempotency_key, `k${i}`);
  reopened.close();
});

/**
 * Hermes's own algorithm, done naively on a second file: prune on every lookup, then select, then insert. The
 * store's skipped prunes, group commit and run index must leave exactly the same rows after every step.
 */
function reference(file: string) {
  const db = openEmulatorStore(file);
  const terminal = `json_extract(status_json, '$.status') IN ('completed', 'failed', 'cancelled', 'interrupted')`;
  const prune = (now: number) => {
    db.prepare(`DELETE FROM run_idempotency WHERE updated_at < ? AND retention_until <= 0 AND ${terminal}`).run(now - 86_400);
    db.prepare(`DELETE FROM run_idempotency WHERE retention_until > 0 AND retention_until <= ? AND ${terminal}`).run(now);
    db.prepare(`DELETE FROM run_idempotency WHERE acknowledged_at IS NOT NULL AND acknowledged_at <= ? AND ${terminal}`).run(now - 86_400);
  };
  return {
    admit(scope: string, key: string, now: number, row: IdempotencyRow): 'existing' | 'reserved' {
      prune(now);
      if (db.prepare('SELECT 1 FROM run_idempotency WHERE scope = ? AND idempotency_key = ?').get(scope, key)) return 'existing';
      insertRow(db, row);
      return 'reserved';
    },
    write(runId: string, json: string, now: number) {
      db.prepare('UPDATE run_idempotency SET status_json = ?, updated_at = ? WHERE run_id = ?').run(json, now, runId);
    },
    close: () => db.close(),
  };
}

type Op =
  | { op: 'admit'; scope: number; key: number; advance: number; speculative: boolean }
  | { op: 'finish'; pick: number; status: string }
  | { op: 'foreign'; key: number; status: string; age: number; retention: number; acknowledged: number | null }
  | { op: 'foreignDeleteTop' };

const ops: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('admit' as const), scope: fc.nat(1), key: fc.nat(12), advance: fc.constantFrom(0, 0.5, 3_600, 86_399, 86_400, 86_401, 200_000, -90_000), speculative: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('finish' as const), pick: fc.nat(), status: fc.constantFrom('running', ...TERMINAL) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('foreign' as const),
      key: fc.nat(12),
      status: fc.constantFrom('queued', 'running', ...TERMINAL),
      age: fc.constantFrom(0, 86_400, 90_000),
      retention: fc.constantFrom(0, -10, 10),
      acknowledged: fc.constantFrom(null, -90_000, 0),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'foreignDeleteTop' as const }) },
);

test('skipped prunes, group commit, insert-first admission and the run index leave the rows Hermes\'s naive algorithm leaves', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(ops, { minLength: 1, maxLength: 40 }), async (steps) => {
      const file = freshFile();
      const refFile = freshFile();
      const store = new IdempotencyStore(openEmulatorStore(file));
      const ref = reference(refFile);
      const other = foreign(file);
      const otherRef = foreign(refFile);
      let now = 1_000_000;
      let n = 0;
      const runs: string[] = [];
      try {
        for (const step of steps) {
          if (step.op === 'admit') {
            now += step.advance;
            const scope = `s${step.scope}`;
            const key = `k${step.key}`;
            const row = reservation(scope, key, `run_${n++}`, now);
            const expected = ref.admit(scope, key, now, row);
            const got = await store.admit(scope, key, now, () => row, step.speculative);
            assert.equal(got.kind, expected);
            if (expected === 'reserved') runs.push(row.run_id);
          } else if (step.op === 'finish' && runs.length > 0) {
            const runId = runs[step.pick % runs.length]!;
            const json = JSON.stringify({ run_id: runId, status: step.status });
            ref.write(runId, json, now);
            store.writeStatus(runId, json, now);
          } else if (step.op === 'foreign') {
            store.flush();
            const row = reservation('s0', `f${step.key}-${n}`, `run_${n++}`, now - step.age, step.status);
            row.retention_until = step.retention === 0 ? 0 : now + step.retention;
            row.acknowledged_at = step.acknowledged === null ? null : now + step.acknowledged;
            other.insert(row);
            otherRef.insert(row);
          } else if (step.op === 'foreignDeleteTop') {
            store.flush();
            other.deleteTop();
            otherRef.deleteTop();
          }
          store.flush();
          assert.deepEqual(other.rows(), otherRef.rows());
        }
        for (const runId of runs) {
          const want = otherRef.status(runId);
          assert.equal(store.findRun('s0', runId)?.status_json ?? store.findRun('s1', runId)?.status_json, want);
        }
      } finally {
        other.close();
        otherRef.close();
        store.close();
        ref.close();
      }
    }),
    { numRuns: 80 },
  );
});

test('a store written by an older Hermetic (migrations 001–003) upgrades in place and keeps its rows', async () => {
  const file = freshFile();
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
  old.pragma('user_version = 3');
  insertRow(old, { ...reservation('s', 'k', 'run_old', 5), status_json: '{}' });
  old.close();
  const db = openEmulatorStore(file);
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all();
  assert.deepEqual(indexes, ['idx_run_idempotency_acknowledged', 'idx_run_idempotency_retention', 'idx_run_idempotency_updated_at']);
  const store = new IdempotencyStore(db);
  assert.equal(store.findRun('s', 'run_old')?.idempotency_key, 'k');
  store.close();
});

test('insert-first admission answers a taken key as the lookup would, even when capacity refuses', async () => {
  const store = new IdempotencyStore(openEmulatorStore(freshFile()));
  assert.deepEqual(await store.admit('s', 'k', 100, () => reservation('s', 'k', 'run_a', 100), true), { kind: 'reserved' });
  const replay = await store.admit('s', 'k', 101, () => reservation('s', 'k', 'run_b', 101), true);
  assert.equal(replay.kind === 'existing' && replay.row.run_id, 'run_a');
  const full = await store.admit('s', 'k', 102, () => null, true);
  assert.equal(full.kind === 'existing' && full.row.run_id, 'run_a');
  assert.deepEqual(await store.admit('s', 'other', 103, () => null, true), { kind: 'refused' });
  assert.equal(store.hasRun('run_b'), false);
  store.close();
});

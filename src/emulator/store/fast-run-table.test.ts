// The fast run table against the run-table contract, and step by step against its plain twin under a random walk
// of admissions, status writes, clock jumps and another process's inserts and deletes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import {
  foreign, freshFile, insertRow, reservation, runTableConformance, testLock,
} from '../../../test/support/run-table-conformance.js';
import type { Admission } from '../runs/run-table.js';
import { openEmulatorStore } from './db.js';
import { FastRunTable } from './fast-run-table.js';
import { MIGRATIONS } from './migrations/index.js';
import { PlainRunTable } from './plain-run-table.js';

const fast = (db: Database.Database, lock = testLock(5_000)) => new FastRunTable(db, { lock, onBackgroundError: () => {} });

runTableConformance('fast run table', (db, lock) => fast(db, lock));

const TERMINAL = ['completed', 'failed', 'cancelled', 'interrupted'];

type Op =
  | { op: 'admit'; scope: number; key: number; advance: number; speculative: boolean; together: boolean }
  | { op: 'finish'; pick: number; status: string }
  | { op: 'foreign'; key: number; status: string; age: number; retention: number; acknowledged: number | null }
  | { op: 'foreignDeleteTop' };

const ops: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('admit' as const), scope: fc.nat(1), key: fc.nat(12),
      advance: fc.constantFrom(0, 0.5, 3_600, 86_399, 86_400, 86_401, 200_000, -90_000),
      speculative: fc.boolean(), together: fc.boolean(),
    }),
  },
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

test('skipped prunes, group commit, insert-first admission and the run index leave the rows the plain table leaves', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(ops, { minLength: 1, maxLength: 40 }), async (steps) => {
      const file = freshFile();
      const refFile = freshFile();
      const table = fast(openEmulatorStore(file));
      const ref = new PlainRunTable(openEmulatorStore(refFile), testLock(5_000));
      const other = foreign(file);
      const otherRef = foreign(refFile);
      let now = 1_000_000;
      let n = 0;
      const runs: string[] = [];
      try {
        /** Admissions of one step group share one commit in the fast table; the plain one admits them in order. */
        let pending: Array<{ scope: string; key: string; row: ReturnType<typeof reservation>; speculative: boolean }> = [];
        const drain = async () => {
          if (pending.length === 0) return;
          const batch = pending;
          pending = [];
          const expected: Admission[] = [];
          for (const a of batch) expected.push(await ref.admit({ scope: a.scope, key: a.key, now, candidate: () => ({ ...a.row }), speculative: a.speculative, reserved: () => {} }));
          const got = await Promise.all(batch.map((a) => table.admit({ scope: a.scope, key: a.key, now, candidate: () => ({ ...a.row }), speculative: a.speculative, reserved: () => {} })));
          got.forEach((g, i) => {
            assert.equal(g.kind, expected[i]!.kind);
            if (g.kind === 'reserved') runs.push(batch[i]!.row.run_id);
          });
        };
        for (const step of steps) {
          if (step.op === 'admit') {
            if (!step.together || step.advance !== 0) await drain();
            now += step.advance;
            const scope = `s${step.scope}`;
            const key = `k${step.key}`;
            pending.push({ scope, key, row: reservation(scope, key, `run_${n++}`, now), speculative: step.speculative });
            continue;
          }
          await drain();
          if (step.op === 'finish' && runs.length > 0) {
            const runId = runs[step.pick % runs.length]!;
            const json = JSON.stringify({ run_id: runId, status: step.status });
            ref.writeStatus(runId, json, now);
            table.writeStatus(runId, json, now);
          } else if (step.op === 'foreign') {
            table.commit();
            const row = reservation('s0', `f${step.key}-${n}`, `run_${n++}`, now - step.age, step.status);
            row.retention_until = step.retention === 0 ? 0 : now + step.retention;
            row.acknowledged_at = step.acknowledged === null ? null : now + step.acknowledged;
            other.insert(row);
            otherRef.insert(row);
          } else if (step.op === 'foreignDeleteTop') {
            table.commit();
            other.deleteTop();
            otherRef.deleteTop();
          }
          table.commit();
          assert.deepEqual(other.rows(), otherRef.rows());
        }
        await drain();
        table.commit();
        assert.deepEqual(other.rows(), otherRef.rows());
        for (const runId of runs) {
          assert.equal(table.findRun('s0', runId)?.status_json ?? table.findRun('s1', runId)?.status_json, otherRef.status(runId));
        }
      } finally {
        other.close();
        otherRef.close();
        table.close();
        ref.close();
      }
    }),
    { numRuns: 80 },
  );
});

test('a store written by an older Hermetic (migrations 001–003) upgrades in place and keeps its rows', () => {
  const file = freshFile();
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
  old.pragma('user_version = 3');
  insertRow(old, { ...reservation('s', 'k', 'run_old', 5), status_json: '{}' });
  old.close();
  const db = openEmulatorStore(file);
  assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = 'run_idempotency' ORDER BY name").pluck().all();
  assert.deepEqual(indexes, ['idx_run_idempotency_acknowledged', 'idx_run_idempotency_retention', 'idx_run_idempotency_updated_at']);
  // Migration 006 adds the API server's sessions (decision 0026); 007 numbers their messages per profile (decision 0051).
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'api_session%' ORDER BY name").pluck().all();
  assert.deepEqual(tables, ['api_session_message_ids', 'api_session_messages', 'api_sessions']);
  const table = fast(db);
  assert.equal(table.findRun('s', 'run_old')?.idempotency_key, 'k');
  table.close();
});

test('insert-first admission answers a taken key as the lookup would, even when capacity refuses', async () => {
  const table = fast(openEmulatorStore(freshFile()));
  const admit = (key: string, now: number, row: ReturnType<typeof reservation> | null) =>
    table.admit({ scope: 's', key, now, candidate: () => row, speculative: true, reserved: () => {} });
  assert.deepEqual(await admit('k', 100, reservation('s', 'k', 'run_a', 100)), { kind: 'reserved' });
  const replay = await admit('k', 101, reservation('s', 'k', 'run_b', 101));
  assert.equal(replay.kind === 'existing' && replay.row.run_id, 'run_a');
  const full = await admit('k', 102, null);
  assert.equal(full.kind === 'existing' && full.row.run_id, 'run_a');
  assert.deepEqual(await admit('other', 103, null), { kind: 'refused' });
  assert.equal(table.hasRun('run_b'), false);
  table.close();
});

test('admissions sharing a commit count the ones reserved before them against capacity', async () => {
  const table = fast(openEmulatorStore(freshFile()));
  const seen: number[] = [];
  const results = await Promise.all(
    [0, 1, 2].map((i) =>
      table.admit({
        scope: 's', key: `k${i}`, now: 100, speculative: false, reserved: () => {},
        candidate: (before) => (seen.push(before), before < 2 ? reservation('s', `k${i}`, `run_${i}`, 100) : null),
      }),
    ),
  );
  assert.deepEqual(seen, [0, 1, 2]);
  assert.deepEqual(results.map((r) => r.kind), ['reserved', 'reserved', 'refused']);
  table.close();
});

test('two gateways of one process on one file: a reader commits what the other holds first', async () => {
  const file = freshFile();
  const a = fast(openEmulatorStore(file));
  const b = fast(openEmulatorStore(file));
  await a.admit({ scope: 's', key: 'k', now: 100, candidate: () => reservation('s', 'k', 'run_a', 100), speculative: false, reserved: () => {} });
  a.writeStatus('run_a', '{"status":"running"}', 101);
  assert.equal(b.findRun('s', 'run_a')?.status_json, '{"status":"running"}');
  a.close();
  b.close();
});

// The run table's contract (src/emulator/runs/run-table.ts) as one suite, run against every implementation
// (DESIGN habit 13/16): admissions, held writes, other processes on the same file, a statement that fails at any
// step, another connection holding the write lock. Crashes (SIGKILL) are tested on real servers: test/cli/crash.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { StoreUnavailable, type Admission, type IdempotencyRow, type LockWait, type RunTable } from '../../src/emulator/runs/run-table.js';
import { openEmulatorStore } from '../../src/emulator/store/db.js';
import { faultyDb, type Faults, type FaultMode } from './faulty-db.js';

export type MakeTable = (db: Database.Database, lock: LockWait) => RunTable;

const made: string[] = [];
// Every store folder made here goes when the test process ends (each test may still hold its connection open).
process.once('exit', () => { for (const dir of made) rmSync(dir, { recursive: true, force: true }); });
export const freshFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-store-'));
  made.push(dir);
  return join(dir, 'runs_idempotency.db');
};

export function testLock(timeoutMs: number): LockWait {
  return { timeoutMs, now: () => performance.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
}

export const reservation = (scope: string, key: string, runId: string, now: number, status = 'queued'): IdempotencyRow => ({
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
export function insertRow(db: Database.Database, row: IdempotencyRow): void {
  db.prepare(
    `INSERT INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid, owner_started,
       retention_until, acknowledged_at, created_at, updated_at)
     VALUES (@scope, @idempotency_key, @fingerprint, @run_id, @status_json, @owner_pid, @owner_started,
       @retention_until, @acknowledged_at, @created_at, @updated_at)`,
  ).run(row);
}

export interface Foreign {
  db: Database.Database;
  insert(row: IdempotencyRow): void;
  deleteTop(): void;
  status(runId: string): string | undefined;
  runIds(): string[];
  rows(): unknown[];
  /** Takes the write lock until the returned function is called. */
  holdLock(): () => void;
  close(): void;
}

/** Another process on the same file: a plain connection reading and writing rows as Hermes would. */
export function foreign(file: string): Foreign {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return {
    db,
    insert: (row: IdempotencyRow) => insertRow(db, row),
    deleteTop: () => void db.prepare('DELETE FROM run_idempotency WHERE rowid = (SELECT max(rowid) FROM run_idempotency)').run(),
    status: (runId: string) => db.prepare('SELECT status_json FROM run_idempotency WHERE run_id = ?').pluck().get(runId) as string | undefined,
    runIds: () => db.prepare('SELECT run_id FROM run_idempotency ORDER BY run_id').pluck().all() as string[],
    rows: () => db.prepare('SELECT scope, idempotency_key, run_id, status_json, updated_at FROM run_idempotency ORDER BY scope, idempotency_key').all(),
    holdLock() {
      db.exec('BEGIN IMMEDIATE');
      return () => db.exec('COMMIT');
    },
    close: () => db.close(),
  };
}

const simple = (scope: string, key: string, now: number, row: IdempotencyRow | null, speculative = false) => ({
  scope,
  key,
  now,
  candidate: () => row,
  reserved: () => {},
  speculative,
});

/** Settles a promise into a value or the StoreUnavailable it rejected with (anything else fails the test). */
async function outcome<T>(p: Promise<T>): Promise<T | StoreUnavailable> {
  try {
    return await p;
  } catch (e) {
    assert.ok(e instanceof StoreUnavailable, `expected StoreUnavailable, got ${(e as Error)?.stack ?? e}`);
    return e;
  }
}

function attempt<T>(fn: () => T): T | StoreUnavailable {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof StoreUnavailable, `expected StoreUnavailable, got ${(e as Error)?.stack ?? e}`);
    return e;
  }
}

export function runTableConformance(name: string, make: MakeTable): void {
  const open = (file: string, lock = testLock(5_000)) => make(openEmulatorStore(file), lock);
  const openFaulty = (file: string, lock = testLock(5_000)): { table: RunTable; faults: Faults } => {
    const { db, faults } = faultyDb(openEmulatorStore(file));
    return { table: make(db, lock), faults };
  };

  test(`${name}: a reservation is found by key and by run id in its own scope; a replayed key is not reserved twice`, async () => {
    const table = open(freshFile());
    assert.deepEqual(await table.admit(simple('s', 'k', 100, reservation('s', 'k', 'run_a', 100))), { kind: 'reserved' });
    const again = await table.admit({ scope: 's', key: 'k', now: 101, candidate: () => assert.fail('the key is taken'), reserved: () => assert.fail('not reserved'), speculative: false });
    assert.equal(again.kind === 'existing' && again.row.run_id, 'run_a');
    assert.equal(table.lookup('s', 'k', 102)?.run_id, 'run_a');
    assert.equal(table.findRun('s', 'run_a')?.idempotency_key, 'k');
    assert.equal(table.findRun('other', 'run_a'), undefined);
    assert.equal(table.hasRun('run_a'), true);
    assert.equal(table.hasRun('run_b'), false);
    assert.deepEqual(await table.admit(simple('s', 'full', 103, null)), { kind: 'refused' });
    table.close();
  });

  test(`${name}: reserved() runs once per reservation, after its commit and before any admission promise settles`, async () => {
    const file = freshFile();
    const table = open(file);
    const other = foreign(file);
    const log: string[] = [];
    const admit = (key: string, row: IdempotencyRow | null) =>
      table
        .admit({
          scope: 's', key, now: 100, speculative: false, candidate: () => row,
          reserved: () => log.push(`reserved ${key} (in file: ${other.runIds().includes(row!.run_id)})`),
        })
        .then((r) => void log.push(`settled ${key} ${r.kind}`));
    await Promise.all([admit('a', reservation('s', 'a', 'run_a', 100)), admit('a', reservation('s', 'a', 'run_a2', 100)), admit('b', null)]);
    assert.deepEqual(log.filter((l) => l.startsWith('reserved')), ['reserved a (in file: true)']);
    assert.ok(log.indexOf('reserved a (in file: true)') < log.findIndex((l) => l.startsWith('settled')));
    other.close();
    table.close();
  });

  test(`${name}: a committed status write is in the file for another connection; nothing stays held`, async () => {
    const file = freshFile();
    const table = open(file);
    const other = foreign(file);
    await table.admit(simple('s', 'k', 100, reservation('s', 'k', 'run_a', 100)));
    table.writeStatus('run_a', '{"status":"running"}', 101);
    table.writeStatus('run_a', '{"status":"completed"}', 102);
    table.commit();
    assert.equal(table.hasPending(), false);
    assert.equal(table.hasPending('run_a'), false);
    assert.equal(other.status('run_a'), '{"status":"completed"}');
    assert.equal(table.findRun('s', 'run_a')?.updated_at, 102);
    other.close();
    table.close();
  });

  test(`${name}: rows another process adds, deletes or renumbers are seen at once`, async () => {
    const file = freshFile();
    const table = open(file);
    const other = foreign(file);
    await table.admit(simple('s', 'mine', 100, reservation('s', 'mine', 'run_mine', 100)));
    other.insert(reservation('s', 'theirs', 'run_theirs', 102, 'running'));
    assert.equal(table.findRun('s', 'run_theirs')?.idempotency_key, 'theirs');
    // The other process deletes our newest rows and inserts rows that reuse their rowids.
    other.deleteTop();
    other.deleteTop();
    other.insert(reservation('s', 'reuse-1', 'run_reuse_1', 103));
    other.insert(reservation('s', 'reuse-2', 'run_reuse_2', 103));
    assert.equal(table.findRun('s', 'run_mine'), undefined);
    assert.equal(table.findRun('s', 'run_theirs'), undefined);
    assert.equal(table.findRun('s', 'run_reuse_2')?.idempotency_key, 'reuse-2');
    // A status write for a row that is gone writes nothing, as Hermes's UPDATE … WHERE run_id would.
    table.writeStatus('run_mine', '{"status":"completed"}', 104);
    table.commit();
    assert.equal(other.status('run_reuse_1'), JSON.stringify({ run_id: 'run_reuse_1', status: 'queued' }));
    other.db.exec('VACUUM');
    assert.equal(table.findRun('s', 'run_reuse_1')?.idempotency_key, 'reuse-1');
    other.close();
    table.close();
  });

  test(`${name}: a reopened table finds every row by run id`, async () => {
    const file = freshFile();
    const table = open(file);
    await Promise.all(Array.from({ length: 30 }, (_, i) => table.admit(simple('s', `k${i}`, 100, reservation('s', `k${i}`, `run_${i}`, 100)))));
    table.close();
    const reopened = open(file);
    for (let i = 0; i < 30; i++) assert.equal(reopened.findRun('s', `run_${i}`)?.idempotency_key, `k${i}`);
    reopened.close();
  });

  test(`${name}: an insert that fails (and takes the transaction with it) refuses only its own admission`, async () => {
    for (const mode of ['statement', 'rollback'] as FaultMode[]) {
      const file = freshFile();
      const { table, faults } = openFaulty(file);
      const other = foreign(file);
      faults.arm(2, mode, /^\s*INSERT/);
      const [a, b, c] = await Promise.all([
        outcome(table.admit(simple('s', 'a', 100, reservation('s', 'a', 'run_a', 100)))),
        outcome(table.admit(simple('s', 'b', 100, reservation('s', 'b', 'run_b', 100)))),
        outcome(table.admit(simple('s', 'c', 100, reservation('s', 'c', 'run_c', 100)))),
      ]);
      assert.ok(faults.fired, mode);
      assert.deepEqual([a, c], [{ kind: 'reserved' }, { kind: 'reserved' }], mode);
      assert.ok(b instanceof StoreUnavailable, mode);
      // What was acknowledged is durable and found; what failed left no trace.
      assert.deepEqual(other.runIds(), ['run_a', 'run_c'], mode);
      assert.equal(table.findRun('s', 'run_a')?.run_id, 'run_a', mode);
      assert.equal(table.findRun('s', 'run_c')?.run_id, 'run_c', mode);
      assert.equal(table.hasRun('run_b'), false, mode);
      // The failed key is free: the client's retry admits it.
      assert.deepEqual(await table.admit(simple('s', 'b', 101, reservation('s', 'b', 'run_b2', 101))), { kind: 'reserved' }, mode);
      other.close();
      table.close();
    }
  });

  test(`${name}: a rolled-back prune is pruned again: an expired row is never replayed`, async () => {
    const file = freshFile();
    const { table, faults } = openFaulty(file);
    const other = foreign(file);
    const day = 86_400;
    // The expired row is the table's own (no other connection's commit tells it to look again).
    await table.admit(simple('s', 'old', 1_000, reservation('s', 'old', 'run_old', 1_000)));
    table.writeStatus('run_old', '{"status":"completed"}', 1_000);
    table.commit();
    const later = 1_000 + day + 5;
    faults.arm(1, 'rollback', /^\s*INSERT/);
    const failed = await outcome(table.admit(simple('s', 'new', later, reservation('s', 'new', 'run_new', later))));
    assert.ok(failed instanceof StoreUnavailable);
    // Whether the failed admission's prune was rolled back with it (one transaction) or not (two), the next lookup
    // must not replay the expired row.
    assert.equal(table.findRun('s', 'run_old') !== undefined, other.runIds().includes('run_old'), 'the table reads what the file holds');
    assert.equal(table.lookup('s', 'old', later), undefined, 'the expired row is pruned, not replayed');
    assert.deepEqual(other.runIds(), []);
    other.close();
    table.close();
  });

  test(`${name}: a status write held while an admission rolls back is still written`, async () => {
    const file = freshFile();
    const { table, faults } = openFaulty(file);
    const other = foreign(file);
    await table.admit(simple('s', 'a', 100, reservation('s', 'a', 'run_a', 100)));
    table.writeStatus('run_a', '{"status":"completed"}', 101);
    faults.arm(1, 'rollback', /^\s*INSERT/);
    assert.ok((await outcome(table.admit(simple('s', 'b', 101, reservation('s', 'b', 'run_b', 101))))) instanceof StoreUnavailable);
    table.commit();
    assert.equal(other.status('run_a'), '{"status":"completed"}');
    assert.equal(table.hasPending(), false);
    other.close();
    table.close();
  });

  test(`${name}: a status write that keeps failing holds back neither the other writes nor admissions`, async () => {
    const file = freshFile();
    const { table, faults } = openFaulty(file);
    const other = foreign(file);
    await Promise.all(['a', 'b'].map((k) => table.admit(simple('s', k, 100, reservation('s', k, `run_${k}`, 100)))));
    faults.always((sql, args) => /^\s*UPDATE/.test(sql) && args.includes('run_a'));
    table.writeStatus('run_a', '{"status":"completed"}', 101);
    table.writeStatus('run_b', '{"status":"completed"}', 101);
    attempt(() => table.commit());
    const admitted = await outcome(table.admit(simple('s', 'c', 102, reservation('s', 'c', 'run_c', 102))));
    table.writeStatus('run_c', '{"status":"running"}', 103);
    attempt(() => table.commit());
    assert.deepEqual(admitted, { kind: 'reserved' });
    assert.equal(other.status('run_b'), '{"status":"completed"}');
    assert.equal(other.status('run_c'), '{"status":"running"}');
    assert.equal(table.hasPending('run_a'), true, 'the failing write stays held');
    faults.always(null);
    table.commit();
    assert.equal(other.status('run_a'), '{"status":"completed"}');
    assert.equal(table.hasPending(), false);
    other.close();
    table.close();
  });

  test(`${name}: a statement that fails at any step loses nothing acknowledged and leaves no trace`, async () => {
    // One script of admissions (some sharing a commit), replays, status writes, lookups and reads. Run once clean to
    // count its statements, then once per (step, mode) with that statement failing.
    const T = 100_000;
    const everyRun = ['run_0', 'run_1', 'run_2', 'run_3', 'run_1b', 'run_4', 'run_5', 'run_fresh'];
    const script = async (table: RunTable) => {
      const acknowledged: string[] = [];
      const refused: string[] = [];
      const written = new Map<string, string>();
      const admitted = async (key: string, now: number, runId: string) => {
        const r = await outcome(table.admit(simple('s', key, now, reservation('s', key, runId, now), key.endsWith('!'))));
        if (r instanceof StoreUnavailable) refused.push(runId);
        else if (r.kind === 'reserved') acknowledged.push(runId);
        return r;
      };
      const write = (runId: string, status: string, now: number) => {
        table.writeStatus(runId, `{"status":"${status}"}`, now);
        written.set(runId, `{"status":"${status}"}`);
      };
      // An old finished run the first admissions prune (24 h and more later).
      await admitted('k0', 1, 'run_0');
      if (acknowledged.includes('run_0')) write('run_0', 'completed', 1);
      attempt(() => table.commit());
      await Promise.all([admitted('k1', T, 'run_1'), admitted('k2!', T, 'run_2'), admitted('k3', T, 'run_3')]);
      for (const runId of acknowledged) write(runId, 'running', T + 1);
      await Promise.all([admitted('k1', T + 2, 'run_1b'), admitted('k4!', T + 2, 'run_4')]);
      attempt(() => table.commit());
      attempt(() => table.lookup('s', 'k2!', T + 3));
      for (const runId of acknowledged) write(runId, 'completed', T + 4);
      attempt(() => table.findRun('s', 'run_1'));
      await admitted('k5', T + 10_000, 'run_5');
      attempt(() => table.commit());
      return { acknowledged, refused, written };
    };
    const clean = openFaulty(freshFile());
    await script(clean.table);
    const steps = clean.faults.count;
    clean.table.close();
    assert.ok(steps > 10, `the script runs ${steps} statements`);
    let failures = 0;
    for (const mode of ['statement', 'rollback'] as FaultMode[]) {
      for (let k = 1; k <= steps; k++) {
        const file = freshFile();
        const { table, faults } = openFaulty(file);
        const other = foreign(file);
        faults.arm(k, mode);
        const { acknowledged, refused, written } = await script(table);
        if (faults.fired) failures++;
        faults.arm(null);
        // Whatever was held is written once the store works again.
        table.commit();
        const label = `${mode} fault at statement ${k}`;
        assert.equal(table.hasPending(), false, label);
        const inFile = new Set(other.runIds());
        for (const runId of acknowledged) {
          // run_0 finished a day before the others were admitted: their prune may delete it, as Hermes's would.
          if (runId === 'run_0' && !inFile.has(runId)) continue;
          assert.ok(inFile.has(runId), `${label}: acknowledged ${runId} is in the file`);
          assert.equal(table.findRun('s', runId)?.run_id, runId, `${label}: acknowledged ${runId} is found`);
        }
        for (const runId of refused) assert.ok(!inFile.has(runId), `${label}: refused ${runId} left no row`);
        for (const runId of everyRun) assert.equal(table.hasRun(runId), inFile.has(runId), `${label}: the table reads ${runId} as the file holds it`);
        for (const [runId, json] of written) {
          if (inFile.has(runId)) assert.equal(other.status(runId), json, `${label}: last status of ${runId}`);
        }
        // The caches agree with the file: every key replays its own row, and a new key is admitted.
        for (const row of other.rows() as Array<{ idempotency_key: string; run_id: string }>) {
          const again = await table.admit(simple('s', row.idempotency_key, T + 10_001, null));
          assert.equal(again.kind === 'existing' && again.row.run_id, row.run_id, `${label}: ${row.idempotency_key} replays`);
        }
        assert.equal((await table.admit(simple('s', 'fresh', T + 10_001, reservation('s', 'fresh', 'run_fresh', T + 10_001)))).kind, 'reserved', label);
        assert.ok(table.hasRun('run_fresh'), label);
        other.close();
        table.close();
      }
    }
    assert.ok(failures > steps, `faults fired in ${failures} of ${2 * steps} runs`);
  });

  test(`${name}: while another connection holds the write lock, requests wait off the event loop, then go through`, async () => {
    const file = freshFile();
    const table = open(file, testLock(60_000));
    const other = foreign(file);
    await table.admit(simple('s', 'a', 100, reservation('s', 'a', 'run_a', 100)));
    const release = other.holdLock();
    table.writeStatus('run_a', '{"status":"completed"}', 101);
    assert.ok(attempt(() => table.commit()) instanceof StoreUnavailable, 'a commit under the lock fails at once');
    assert.equal(table.hasPending('run_a'), true, 'the write stays held');
    let settled: Admission | null = null;
    const waiting = table.admit(simple('s', 'b', 102, reservation('s', 'b', 'run_b', 102))).then((r) => (settled = r));
    // The event loop keeps turning: timers fire while the admission waits.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(settled, null, 'the admission waits for the lock');
    release();
    assert.deepEqual(await waiting, { kind: 'reserved' });
    table.commit();
    assert.equal(other.status('run_a'), '{"status":"completed"}');
    assert.deepEqual(other.runIds(), ['run_a', 'run_b']);
    other.close();
    table.close();
  });

  test(`${name}: a lock held past the timeout fails the waiting admission and leaves no trace`, async () => {
    const file = freshFile();
    const table = open(file, testLock(100));
    const other = foreign(file);
    const release = other.holdLock();
    const failed = await outcome(table.admit(simple('s', 'b', 102, reservation('s', 'b', 'run_b', 102))));
    assert.ok(failed instanceof StoreUnavailable && failed.reason === 'busy', String(failed));
    release();
    assert.deepEqual(other.runIds(), []);
    assert.equal(table.hasRun('run_b'), false);
    assert.deepEqual(await table.admit(simple('s', 'b', 103, reservation('s', 'b', 'run_b2', 103))), { kind: 'reserved' });
    other.close();
    table.close();
  });

  test(`${name}: replaceAll swaps every row in one transaction (held writes dropped); rows() reads them back`, async () => {
    const file = freshFile();
    const table = open(file);
    const other = foreign(file);
    await table.admit(simple('s', 'a', 100, reservation('s', 'a', 'run_a', 100)));
    await table.admit(simple('s', 'b', 100, reservation('s', 'b', 'run_b', 100)));
    table.writeStatus('run_a', '{"status":"running"}', 101);
    const saved = table.rows();
    assert.deepEqual(saved.map((r) => [r.run_id, r.status_json]), [['run_a', '{"status":"running"}'], ['run_b', '{"run_id":"run_b","status":"queued"}']]);
    await table.admit(simple('s', 'c', 102, reservation('s', 'c', 'run_c', 102)));
    table.writeStatus('run_b', '{"status":"completed"}', 103);
    table.replaceAll(saved);
    assert.equal(table.hasPending(), false);
    assert.deepEqual(other.runIds().sort(), ['run_a', 'run_b']);
    assert.equal(table.hasRun('run_c'), false);
    assert.equal(table.findRun('s', 'run_b')?.status_json, '{"run_id":"run_b","status":"queued"}');
    assert.equal(table.lookup('s', 'c', 104), undefined);
    table.replaceAll([]);
    assert.deepEqual(other.runIds(), []);
    assert.equal(table.hasRun('run_a'), false);
    assert.deepEqual(await table.admit(simple('s', 'a', 105, reservation('s', 'a', 'run_a2', 105))), { kind: 'reserved' });
    // A replacement that cannot go in (two rows for one key) changes nothing.
    const failed = attempt(() => table.replaceAll([reservation('s', 'x', 'run_x', 106), reservation('s', 'x', 'run_y', 106)]));
    assert.ok(failed instanceof StoreUnavailable);
    assert.deepEqual(other.runIds(), ['run_a2']);
    assert.equal(table.hasRun('run_x'), false);
    other.close();
    table.close();
  });
}

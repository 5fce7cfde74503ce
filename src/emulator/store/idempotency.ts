// The durable idempotency rows (spec runs-api §12.3–§12.6): lookup with the lazy global prune, atomic reserve,
// status writes, and reads by run id. The SQL for runs lives here and in the two helpers it owns: prune.ts (the 24 h
// prune) and run-index.ts (rows by run id).
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import { Pruner } from './prune.js';
import { RunIndex } from './run-index.js';

export interface IdempotencyRow {
  scope: string;
  idempotency_key: string;
  fingerprint: string;
  run_id: string;
  status_json: string;
  owner_pid: number;
  owner_started: number;
  retention_until: number;
  acknowledged_at: number | null;
  created_at: number;
  updated_at: number;
}

const byFile = new Map<string, Set<IdempotencyStore>>();

/** The stores of this process open on the same database file (an in-memory store has none). */
function sameFile(db: Db): Set<IdempotencyStore> {
  if (db.memory) return new Set();
  const file = resolve(db.name);
  let set = byFile.get(file);
  if (!set) byFile.set(file, (set = new Set()));
  return set;
}

interface QueuedAdmission {
  scope: string;
  key: string;
  now: number;
  candidate: () => IdempotencyRow | null;
  speculative: boolean;
  resolve: (outcome: Admission) => void;
  reject: (error: unknown) => void;
}

export type Admission =
  | { kind: 'existing'; row: IdempotencyRow }
  | { kind: 'reserved' }
  | { kind: 'refused' }
  | { kind: 'taken' };

const RESERVED: Admission = { kind: 'reserved' };
const REFUSED: Admission = { kind: 'refused' };
const TAKEN: Admission = { kind: 'taken' };

export class IdempotencyStore {
  readonly #db: Db;
  readonly #lookup: (scope: string, key: string, now: number) => IdempotencyRow | undefined;
  readonly #admitBatch: (batch: QueuedAdmission[]) => Admission[];
  /** Keyed admissions waiting for this turn's group commit. */
  #queue: QueuedAdmission[] = [];
  readonly #flushTx: Database.Transaction<() => void>;
  /** Status writes not yet committed, latest per run (decision 0005). */
  readonly #pending = new Map<string, { json: string; now: number }>();
  #flushScheduled = false;
  readonly #writePending: () => void;
  readonly #runs: RunIndex;
  /** Stores of other emulated gateways in this process on the same file (they see our writes at once). */
  readonly #siblings: Set<IdempotencyStore>;

  constructor(db: Db) {
    this.#db = db;
    this.#siblings = sameFile(db);
    this.#siblings.add(this);
    const runs = (this.#runs = new RunIndex(db));
    const pruner = new Pruner(db);
    const select = db.prepare('SELECT * FROM run_idempotency WHERE scope = ? AND idempotency_key = ?');
    /** Hermes's global prune; the run index forgets the rows it deleted. */
    const prune = (now: number, version: number) => {
      const deleted = pruner.prune(now, version);
      if (deleted.length > 0) runs.deleted(deleted);
    };
    /** Hermes's lookup: the global prune, then the row for (scope, key). */
    const pruneAndSelect = (scope: string, key: string, now: number, version: number) => {
      prune(now, version);
      return select.get(scope, key) as IdempotencyRow | undefined;
    };
    const lookupTx = db.transaction((scope: string, key: string, now: number) =>
      pruneAndSelect(scope, key, now, runs.dataVersion()),
    );
    this.#lookup = (scope, key, now) => lookupTx.immediate(scope, key, now);
    const insert = db.prepare(
      `INSERT OR IGNORE INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid,
         owner_started, retention_until, acknowledged_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    /** Inserts the reservation unless (scope, key) is taken; positional binding is cheaper than eleven names. */
    const reserve = (r: IdempotencyRow, version: number): boolean => {
      const result = insert.run(r.scope, r.idempotency_key, r.fingerprint, r.run_id, r.status_json, r.owner_pid,
        r.owner_started, r.retention_until, r.acknowledged_at, r.created_at, r.updated_at);
      if (result.changes !== 1) return false;
      runs.inserted(r.run_id, Number(result.lastInsertRowid), version);
      pruner.written(r.updated_at);
      return true;
    };
    const update = db.prepare('UPDATE run_idempotency SET status_json = ?, updated_at = ? WHERE rowid = ? AND run_id = ?');
    /** Hermes's UPDATE … WHERE run_id = ?, through the run index; no row, no write (as in Hermes). */
    const writeRow = (runId: string, json: string, now: number): void => {
      const rowid = runs.rowid(runId);
      if (rowid !== undefined && update.run(json, now, rowid, runId).changes === 1) return;
      const row = runs.row(runId);
      if (row) update.run(json, now, runs.rowid(runId), runId);
    };
    this.#writePending = () => {
      for (const [runId, { json, now }] of this.#pending) {
        writeRow(runId, json, now);
        pruner.written(now);
      }
      this.#pending.clear();
    };
    const admitTx = db.transaction((batch: QueuedAdmission[]) => {
      this.#writePending();
      // No other connection can commit inside this IMMEDIATE transaction: one data_version serves the batch.
      const version = runs.dataVersion();
      return batch.map(({ scope, key, now, candidate, speculative }): Admission => {
        if (speculative) {
          // Insert first: a new key (the common case) costs no lookup. The outcome is Hermes's order's outcome.
          prune(now, version);
          const row = candidate();
          if (row && reserve(row, version)) return RESERVED;
          const existing = select.get(scope, key) as IdempotencyRow | undefined;
          return existing ? { kind: 'existing', row: existing } : row ? TAKEN : REFUSED;
        }
        const existing = pruneAndSelect(scope, key, now, version);
        if (existing) return { kind: 'existing', row: existing };
        const row = candidate();
        if (!row) return REFUSED;
        return reserve(row, version) ? RESERVED : TAKEN;
      });
    });
    this.#admitBatch = (batch) => {
      for (const store of this.#siblings) if (store !== this) store.flush();
      return admitTx.immediate(batch);
    };
    this.#flushTx = db.transaction(() => this.#writePending());
  }

  /** Prunes stale rows (every scope), then reads the row for (scope, key) — one IMMEDIATE transaction. */
  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined {
    this.#flushAll();
    return this.#lookup(scope, key, now);
  }

  /**
   * A keyed admission: the global prune, the lookup of (scope, key) and, when there is no row, the reservation
   * `candidate()` builds (null: refused for capacity). 'taken' means another writer won a race for the key.
   * `speculative`: candidate() has no effect anyone can observe, so it may be called before the lookup and its row
   * inserted first (the lookup then runs only when the insert finds the key taken or capacity refuses).
   *
   * Hermes runs lookup and reserve as two transactions with only in-memory checks between them. Here the admissions
   * of one event-loop turn share one IMMEDIATE transaction (group commit), each still pruned, looked up and reserved
   * in arrival order, so the outcomes are the same and a burst costs one commit (decision 0005).
   */
  admit(
    scope: string,
    key: string,
    now: number,
    candidate: () => IdempotencyRow | null,
    speculative = false,
  ): Promise<Admission> {
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(() => this.#commitQueue());
      this.#queue.push({ scope, key, now, candidate, speculative, resolve, reject });
    });
  }

  #commitQueue(): void {
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    let results: Admission[];
    try {
      results = this.#admitBatch(batch);
    } catch (e) {
      for (const item of batch) item.reject(e);
      return;
    }
    batch.forEach((item, i) => item.resolve(results[i]!));
  }

  /**
   * Writes a status snapshot; the row's own updated_at becomes `now`. Writes made in one event-loop turn are
   * committed together right after it (every read here commits them first), so an admission burst costs one commit.
   */
  writeStatus(runId: string, statusJson: string, now: number): void {
    this.#pending.set(runId, { json: statusJson, now });
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // An admission batch about to commit carries these writes in its own transaction.
      setImmediate(() => {
        this.#flushScheduled = false;
        if (this.#queue.length === 0) this.flush();
      });
    }
  }

  /** Before reading: commit what this store and its same-file siblings hold, as Hermes's writes are synchronous. */
  #flushAll(): void {
    for (const store of this.#siblings) store.flush();
  }

  /** Commits the pending status writes now. */
  flush(): void {
    if (this.#pending.size > 0 && this.#db.open) this.#flushTx.immediate();
  }

  findRun(scope: string, runId: string): IdempotencyRow | undefined {
    this.#flushAll();
    const row = this.#runs.row(runId);
    return row?.scope === scope ? row : undefined;
  }

  /** Whether any scope's row already uses this run id. */
  hasRun(runId: string): boolean {
    this.#flushAll();
    return this.#runs.row(runId) !== undefined;
  }

  close(): void {
    this.#commitQueue();
    this.flush();
    this.#siblings.delete(this);
    if (this.#db.open) this.#db.close();
  }
}

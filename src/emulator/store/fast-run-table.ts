// The run table as the emulator runs it (decisions 0005, 0016): keyed admissions of one event-loop turn share one
// IMMEDIATE transaction (one that fails rolls the group back and the others go again without it), status writes are
// held until the next commit, rows are found through an in-memory run index, and a prune that provably deletes
// nothing is skipped. Every cache moves only after COMMIT; a failure invalidates it. A held lock is waited for off the
// event loop. Its plain twin is plain-run-table.ts; test/support/run-table-conformance.ts holds both to one behaviour.
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import { StoreUnavailable, type Admission, type AdmitRequest, type IdempotencyRow, type RunTable } from '../runs/run-table.js';
import { backoff, isBusy, orUnavailable, unavailable, type LockWait } from './busy.js';
import { Pruner } from './prune.js';
import { RunIndex } from './run-index.js';

const byFile = new Map<string, Set<FastRunTable>>();

/** The tables of this process open on the same database file (an in-memory store has none). */
function sameFile(db: Db): Set<FastRunTable> {
  if (db.memory) return new Set();
  const file = resolve(db.name);
  let set = byFile.get(file);
  if (!set) byFile.set(file, (set = new Set()));
  return set;
}

interface Queued extends AdmitRequest {
  /** Wall time the request joined the queue (its lock-wait deadline runs from here). */
  since: number;
  resolve: (outcome: Admission) => void;
  reject: (error: StoreUnavailable) => void;
}

interface PendingWrite {
  json: string;
  now: number;
}

/** An admission's statement failed: the group's transaction is rolled back, and the others are tried again. */
class AdmissionFailed extends Error {
  constructor(readonly index: number, override readonly cause: unknown) {
    super('an admission failed');
  }
}

/** A held status write failed inside an admission group: the group is tried again with each write isolated. */
class WritesFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('a held status write failed');
  }
}

interface BatchOutcome {
  results: Admission[];
  written: Map<string, PendingWrite>;
}

const RESERVED: Admission = { kind: 'reserved' };
const REFUSED: Admission = { kind: 'refused' };
const TAKEN: Admission = { kind: 'taken' };

export interface FastRunTableOptions {
  lock: LockWait;
  /** Errors no request will see (a background commit that failed and will be retried). */
  onBackgroundError: (error: StoreUnavailable) => void;
}

export class FastRunTable implements RunTable {
  readonly #db: Db;
  readonly #options: FastRunTableOptions;
  readonly #runs: RunIndex;
  readonly #pruner: Pruner;
  /** Tables of other emulated gateways in this process on the same file (they see our writes at once). */
  readonly #siblings: Set<FastRunTable>;
  /** Keyed admissions waiting for the next group commit. */
  #queue: Queued[] = [];
  #drainScheduled = false;
  #drainAttempt = 0;
  /** Status writes not yet committed, latest per run. */
  readonly #pending = new Map<string, PendingWrite>();
  #flushScheduled = false;
  #flushAttempt = 0;
  /**
   * A held write has failed: write each in its own savepoint (a failing one stays held, the others commit) until
   * nothing is held. The common path writes without savepoints: two statements fewer per write.
   */
  #isolateWrites = false;
  #closed = false;
  readonly #lookupTx: (scope: string, key: string, now: number) => IdempotencyRow | undefined;
  readonly #batchTx: Database.Transaction<(batch: Queued[]) => BatchOutcome>;
  readonly #flushTx: Database.Transaction<(isolated: boolean) => Map<string, PendingWrite>>;
  readonly #all: () => IdempotencyRow[];
  readonly #replaceTx: Database.Transaction<(rows: readonly IdempotencyRow[]) => void>;

  constructor(db: Db, options: FastRunTableOptions) {
    this.#db = db;
    this.#options = options;
    this.#siblings = sameFile(db);
    this.#siblings.add(this);
    const runs = (this.#runs = new RunIndex(db));
    const pruner = (this.#pruner = new Pruner(db));
    const select = db.prepare('SELECT * FROM run_idempotency WHERE scope = ? AND idempotency_key = ?');
    /** Hermes's global prune; the run index forgets (when the transaction commits) the rows it deleted. */
    const prune = (now: number, version: number) => {
      const deleted = pruner.prune(now, version);
      if (deleted.length > 0) runs.deleted(deleted);
    };
    const pruneAndSelect = (scope: string, key: string, now: number, version: number) => {
      prune(now, version);
      return select.get(scope, key) as IdempotencyRow | undefined;
    };
    const lookupTx = db.transaction((scope: string, key: string, now: number) =>
      pruneAndSelect(scope, key, now, runs.dataVersion()),
    );
    this.#lookupTx = (scope, key, now) => this.#transact(() => lookupTx.immediate(scope, key, now));

    const insert = db.prepare(
      `INSERT OR IGNORE INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid,
         owner_started, retention_until, acknowledged_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    /** Inserts the reservation unless (scope, key) is taken; positional binding is cheaper than eleven names. */
    const reserve = (r: IdempotencyRow): boolean => {
      const result = insert.run(r.scope, r.idempotency_key, r.fingerprint, r.run_id, r.status_json, r.owner_pid,
        r.owner_started, r.retention_until, r.acknowledged_at, r.created_at, r.updated_at);
      if (result.changes !== 1) return false;
      runs.inserted(r.run_id, Number(result.lastInsertRowid));
      pruner.written(r.updated_at);
      return true;
    };
    /**
     * One admission in Hermes's order (or insert-first, when the candidate is invisible). No savepoint: if it fails,
     * the group's transaction is rolled back and the drain tries the other admissions again without it.
     */
    const admitOne = (item: Queued, version: number, reservedBefore: number): Admission => {
      const { scope, key, now } = item;
      if (item.speculative) {
        // Insert first: a new key (the common case) costs no lookup. The outcome is Hermes's order's outcome.
        prune(now, version);
        const row = item.candidate(reservedBefore);
        if (row && reserve(row)) return RESERVED;
        const existing = select.get(scope, key) as IdempotencyRow | undefined;
        return existing ? { kind: 'existing', row: existing } : row ? TAKEN : REFUSED;
      }
      const existing = pruneAndSelect(scope, key, now, version);
      if (existing) return { kind: 'existing', row: existing };
      const row = item.candidate(reservedBefore);
      if (!row) return REFUSED;
      return reserve(row) ? RESERVED : TAKEN;
    };

    const update = db.prepare('UPDATE run_idempotency SET status_json = ?, updated_at = ? WHERE rowid = ? AND run_id = ?');
    /** Hermes's UPDATE … WHERE run_id = ?, through the run index; no row, no write (as in Hermes). */
    const writeOne = (runId: string, json: string, now: number): void => {
      const rowid = runs.rowid(runId);
      if (rowid === undefined || update.run(json, now, rowid, runId).changes !== 1) {
        if (runs.row(runId)) update.run(json, now, runs.rowid(runId), runId);
      }
      pruner.written(now);
    };
    const writeIsolated = db.transaction(writeOne);
    /**
     * Writes every held status; returns those written. Isolated, each is in a savepoint and a failing one stays held
     * (reported) while the others commit; otherwise a failure fails the whole transaction.
     */
    const writePending = (isolated: boolean): Map<string, PendingWrite> => {
      const written = new Map<string, PendingWrite>();
      for (const [runId, write] of this.#pending) {
        if (!isolated) {
          writeOne(runId, write.json, write.now);
          written.set(runId, write);
          continue;
        }
        try {
          writeIsolated(runId, write.json, write.now);
          written.set(runId, write);
        } catch (e) {
          if (!db.inTransaction || isBusy(e)) throw e;
          runs.poison();
          pruner.poison();
          this.#options.onBackgroundError(unavailable(e, `writing the status of ${runId}`));
        }
      }
      return written;
    };
    this.#flushTx = db.transaction((isolated: boolean) => writePending(isolated));
    const all = db.prepare('SELECT * FROM run_idempotency ORDER BY rowid');
    this.#all = () => all.all() as IdempotencyRow[];
    const clear = db.prepare('DELETE FROM run_idempotency RETURNING run_id').pluck();
    this.#replaceTx = db.transaction((rows: readonly IdempotencyRow[]) => {
      runs.deleted(clear.all() as string[]);
      for (const row of rows) {
        if (!reserve(row)) throw new Error(`Two rows hold (${row.scope}, ${row.idempotency_key}).`);
      }
      // Bounds and completeness are recomputed from the table on the next prune and the next miss.
      runs.poison();
      pruner.poison();
    });

    this.#batchTx = db.transaction((batch: Queued[]) => {
      // Held status writes ride along; if one fails, the group is tried again with the writes isolated.
      let written: Map<string, PendingWrite>;
      try {
        written = writePending(this.#isolateWrites);
      } catch (e) {
        throw isBusy(e) ? e : new WritesFailed(e);
      }
      // No other connection can commit inside this IMMEDIATE transaction: one data_version serves the batch.
      const version = runs.dataVersion();
      const results: Admission[] = [];
      let reserved = 0;
      for (let i = 0; i < batch.length; i++) {
        let outcome: Admission;
        try {
          outcome = admitOne(batch[i]!, version, reserved);
        } catch (e) {
          throw isBusy(e) ? e : new AdmissionFailed(i, e);
        }
        if (outcome === RESERVED) reserved++;
        results.push(outcome);
      }
      return { results, written };
    });
  }

  /** Runs one write transaction; the caches take its changes only if it committed. */
  #transact<T>(fn: () => T): T {
    if (this.#closed) throw new StoreUnavailable('closed', 'The store is closed.');
    this.#runs.begin();
    this.#pruner.begin();
    try {
      const result = fn();
      this.#runs.commit();
      this.#pruner.commit();
      return result;
    } catch (e) {
      this.#runs.abort();
      this.#pruner.abort();
      throw e;
    }
  }

  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined {
    this.#commitSiblings();
    return orUnavailable('looking up an Idempotency-Key', () => this.#lookupTx(scope, key, now));
  }

  /**
   * Hermes runs lookup and reserve as two transactions with only in-memory checks between them. Here the admissions
   * of one event-loop turn share one IMMEDIATE transaction (group commit), each pruned, looked up and reserved in
   * arrival order: the outcomes are the same and a burst costs one commit. Each request is answered only after that
   * commit; one whose statement fails is refused and the others go again without it.
   */
  admit(request: AdmitRequest): Promise<Admission> {
    if (this.#closed) return Promise.reject(new StoreUnavailable('closed', 'The store is closed.'));
    return new Promise((resolve, reject) => {
      // Field by field, not a spread: one object shape keeps the group loop monomorphic (a spread cost ~7 µs here).
      const { scope, key, now, candidate, reserved, speculative } = request;
      this.#queue.push({ scope, key, now, candidate, reserved, speculative, since: this.#options.lock.now(), resolve, reject });
      this.#scheduleDrain(0);
    });
  }

  /** Runs `fn` after this event-loop turn (0) or after a backoff on wall time. */
  #later(delayMs: number, fn: () => void): void {
    if (delayMs === 0) setImmediate(fn);
    else void this.#options.lock.sleep(delayMs).then(fn);
  }

  #scheduleDrain(delayMs: number): void {
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    this.#later(delayMs, () => {
      this.#drainScheduled = false;
      this.#drain();
    });
  }

  /** Commits the queued admissions as one group; waits (off the loop) while another connection holds the lock. */
  #drain(): void {
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    for (const store of this.#siblings) if (store !== this) store.#tryCommit();
    let outcome: BatchOutcome;
    try {
      outcome = this.#transact(() => this.#batchTx.immediate(batch));
    } catch (e) {
      if (e instanceof AdmissionFailed) {
        // Only the admission that failed is refused; the others are tried again in a fresh transaction.
        batch[e.index]!.reject(unavailable(e.cause, 'admitting a keyed run'));
        this.#queue = [...batch.slice(0, e.index), ...batch.slice(e.index + 1), ...this.#queue];
        this.#scheduleDrain(0);
        return;
      }
      if (e instanceof WritesFailed) {
        // A held write failed: the admissions go ahead at once, with the writes each in a savepoint.
        this.#isolateWrites = true;
        this.#queue = [...batch, ...this.#queue];
        this.#scheduleDrain(0);
        return;
      }
      if (isBusy(e) && !this.#closed) {
        const now = this.#options.lock.now();
        const waiting = batch.filter((item) => {
          if (now - item.since < this.#options.lock.timeoutMs) return true;
          item.reject(unavailable(e, 'admitting a keyed run'));
          return false;
        });
        this.#queue = [...waiting, ...this.#queue];
        if (this.#queue.length > 0) this.#scheduleDrain(backoff(this.#drainAttempt++));
        return;
      }
      const error = unavailable(e, 'admitting a keyed run');
      for (const item of batch) item.reject(error);
      if (this.#pending.size > 0) this.#scheduleFlush(0);
      return;
    }
    this.#drainAttempt = 0;
    this.#settleWritten(outcome.written);
    // Every reserved run enters memory before any answer goes out or any other request runs.
    outcome.results.forEach((result, i) => {
      if (result === RESERVED) batch[i]!.reserved();
    });
    outcome.results.forEach((result, i) => batch[i]!.resolve(result));
    if (this.#pending.size > 0) this.#scheduleFlush(0);
  }

  writeStatus(runId: string, statusJson: string, now: number): void {
    this.#pending.set(runId, { json: statusJson, now });
    this.#scheduleFlush(0);
  }

  /** Held writes are committed right after the turn that made them (or inside the next admission group). */
  #scheduleFlush(delayMs: number): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    this.#later(delayMs, () => {
      this.#flushScheduled = false;
      if (this.#pending.size === 0 || this.#closed) return;
      // An admission group about to commit carries these writes in its own transaction (and schedules a flush
      // after itself if any are still held).
      if (this.#queue.length > 0 && this.#drainScheduled) return;
      try {
        this.commit();
        // A write that failed on its own stays held: try it again later.
        if (this.#pending.size > 0) this.#scheduleFlush(backoff(this.#flushAttempt++));
        else this.#flushAttempt = 0;
      } catch (e) {
        this.#options.onBackgroundError(unavailable(e, 'committing status writes'));
        this.#scheduleFlush(backoff(this.#flushAttempt++));
      }
    });
  }

  hasPending(runId?: string): boolean {
    return runId === undefined ? this.#pending.size > 0 : this.#pending.has(runId);
  }

  pendingCount(): number {
    return this.#pending.size;
  }

  commit(): void {
    if (this.#pending.size === 0) return;
    if (this.#closed) throw new StoreUnavailable('closed', 'The store is closed.');
    let written: Map<string, PendingWrite>;
    try {
      written = this.#transact(() => this.#flushTx.immediate(this.#isolateWrites));
    } catch (e) {
      if (isBusy(e) || this.#isolateWrites) throw unavailable(e, 'committing status writes');
      // A write failed: once more at once, each in its own savepoint, so the others commit.
      this.#isolateWrites = true;
      return this.commit();
    }
    this.#settleWritten(written);
  }

  /** Committed writes leave the held set, unless the run was written again since. */
  #settleWritten(written: Map<string, PendingWrite>): void {
    for (const [runId, write] of written) if (this.#pending.get(runId) === write) this.#pending.delete(runId);
    if (this.#pending.size === 0) this.#isolateWrites = false;
  }

  #tryCommit(): void {
    try {
      this.commit();
    } catch {
      // The sibling keeps its writes held and retries on its own; a reader sees what is committed.
    }
  }

  /** Before reading: what other gateways of this process hold is committed first, as Hermes's writes are synchronous. */
  #commitSiblings(): void {
    for (const store of this.#siblings) store.#tryCommit();
  }

  findRun(scope: string, runId: string): IdempotencyRow | undefined {
    this.#commitSiblings();
    const row = orUnavailable('reading a run', () => this.#runs.row(runId));
    return row?.scope === scope ? row : undefined;
  }

  hasRun(runId: string): boolean {
    return orUnavailable('reading a run', () => this.#runs.row(runId) !== undefined);
  }

  rows(): IdempotencyRow[] {
    this.#tryCommit();
    return orUnavailable('reading every row', () => this.#all());
  }

  replaceAll(rows: readonly IdempotencyRow[]): void {
    if (this.#queue.length > 0) this.#drain();
    orUnavailable('replacing every row', () => this.#transact(() => this.#replaceTx.immediate(rows)));
    this.#pending.clear();
    this.#isolateWrites = false;
  }

  close(): void {
    if (this.#closed) return;
    if (this.#queue.length > 0) this.#drain();
    this.#tryCommit();
    for (const item of this.#queue) item.reject(new StoreUnavailable('closed', 'The store closed before the run was admitted.'));
    this.#queue = [];
    this.#closed = true;
    this.#siblings.delete(this);
    if (this.#db.open) this.#db.close();
  }
}

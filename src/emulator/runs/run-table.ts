// The port between the runs domain and the durable idempotency rows (spec runs-api §12.3–§12.6): what the domain
// asks of the run table, whichever implementation answers (store/fast-run-table.ts, store/plain-run-table.ts).
// One contract, one conformance suite (store/run-table.conformance.ts) over both.

/** One row of Hermes's run_idempotency table, column for column. */
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

export type Admission =
  | { kind: 'existing'; row: IdempotencyRow }
  | { kind: 'reserved' }
  | { kind: 'refused' }
  | { kind: 'taken' };

/**
 * A keyed admission (spec §5.1 steps 11–14): the global prune, the lookup of (scope, key) and, when there is no row,
 * the reservation `candidate` builds — or null when capacity refuses the run.
 */
export interface AdmitRequest {
  scope: string;
  key: string;
  now: number;
  /**
   * Builds the reservation. `reservedBefore` counts the admissions of the same commit group reserved before this one
   * (they hold capacity although their runs have not been spawned yet).
   */
  candidate: (reservedBefore: number) => IdempotencyRow | null;
  /**
   * Called synchronously right after the commit that made the reservation, before any other request can run (the
   * caller puts the run in memory there, so the next admission's capacity check counts it, as in Hermes).
   */
  reserved: () => void;
  /** candidate() has no observable effect, so it may be built before the lookup (the insert then tests the key). */
  speculative: boolean;
}

/** How long and how a request waits for another connection's lock (wall time: a lock is held by a real process). */
export interface LockWait {
  /** How long a request may wait for the store before it fails (ms). Hermes: 30 s (sqlite3.connect(timeout=30)). */
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Backoff between attempts to get the lock (ms), then the last value repeats; one schedule for every waiter. */
const BACKOFF_MS = [1, 2, 5, 10, 20, 50, 100];
export const lockBackoff = (attempt: number): number => BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!;

/** Why the store could not do what was asked: another connection holds the lock past the timeout, or a statement failed. */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
  constructor(
    readonly reason: 'busy' | 'failed' | 'closed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The run table. Promise: whatever a caller has been answered from it is committed to the SQLite file, and a failed
 * or rolled-back statement leaves no trace in any cache. Status writes are held until `commit()`; the domain calls
 * `commit()` (through its durability barrier) before it answers anything that reveals them.
 */
export interface RunTable {
  /** Resolves once the outcome is committed; rejects with StoreUnavailable (the request fails, nothing is kept). */
  admit(request: AdmitRequest): Promise<Admission>;
  /** Hermes's lookup: the global prune, then the row for (scope, key), in one IMMEDIATE transaction. */
  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined;
  /** Records the run's status snapshot (its row's updated_at becomes `now`); durable after the next commit. */
  writeStatus(runId: string, statusJson: string, now: number): void;
  /** Whether a status write for `runId` (any run, when omitted) is waiting for a commit. */
  hasPending(runId?: string): boolean;
  /** How many runs have a status write waiting for a commit (health reports it). */
  pendingCount(): number;
  /** Commits every waiting status write now; throws StoreUnavailable and keeps them waiting when it cannot. */
  commit(): void;
  /** The row holding `runId` in `scope`, as committed (this process's waiting writes included). */
  findRun(scope: string, runId: string): IdempotencyRow | undefined;
  /** Whether any scope's row already uses this run id. */
  hasRun(runId: string): boolean;
  /** Every row as committed (held writes committed first when they can be), oldest first: what a checkpoint keeps. */
  rows(): IdempotencyRow[];
  /**
   * Replaces every row with `rows` in one transaction and drops the held writes (a namespace reset, a checkpoint
   * restore). Throws StoreUnavailable and changes nothing when it cannot.
   */
  replaceAll(rows: readonly IdempotencyRow[]): void;
  /** Commits what it can, then closes; never throws. */
  close(): void;
}

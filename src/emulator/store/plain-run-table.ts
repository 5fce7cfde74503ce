// The run table done the obvious way, as Hermes's own store does it (spec runs-api §12.3–§12.5): a lookup
// transaction (prune every stale terminal row, then select), the capacity check, a reserve transaction, a status
// write the moment it is made, rows found by scanning for their run id. No caches, no batching. It is the reference
// the fast table (fast-run-table.ts) is held to by store/run-table.conformance.ts, and `--run-table plain` serves it.
import type { Db } from '../../shared/sqlite.js';
import { StoreUnavailable, type Admission, type AdmitRequest, type IdempotencyRow, type RunTable } from '../runs/run-table.js';
import { orUnavailable, unavailable, whileBusy, type LockWait } from './busy.js';
import { RETENTION_SECONDS } from './prune.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

export class PlainRunTable implements RunTable {
  readonly #db: Db;
  readonly #lock: LockWait;
  /** Status writes that failed (a held lock) and wait for the next commit(). */
  readonly #pending = new Map<string, { json: string; now: number }>();
  readonly #lookup: (scope: string, key: string, now: number) => IdempotencyRow | undefined;
  readonly #reserve: (row: IdempotencyRow, now: number) => Admission;
  readonly #update: (runId: string, json: string, now: number) => void;
  readonly #byRunId: (runId: string) => IdempotencyRow | undefined;
  readonly #all: () => IdempotencyRow[];
  readonly #replace: (rows: readonly IdempotencyRow[]) => void;

  constructor(db: Db, lock: LockWait) {
    this.#db = db;
    this.#lock = lock;
    const stale = db.prepare(
      `SELECT scope, idempotency_key, status_json FROM run_idempotency
        WHERE acknowledged_at <= ? OR (retention_until > 0 AND retention_until <= ?) OR (retention_until <= 0 AND updated_at < ?)`,
    );
    const remove = db.prepare('DELETE FROM run_idempotency WHERE scope = ? AND idempotency_key = ?');
    /** Hermes's prune: every stale row whose stored status is terminal goes, whatever its scope. */
    const prune = (now: number) => {
      const rows = stale.all(now - RETENTION_SECONDS, now, now - RETENTION_SECONDS) as Array<{ scope: string; idempotency_key: string; status_json: string }>;
      for (const row of rows) {
        if (TERMINAL.has((JSON.parse(row.status_json) as { status?: unknown }).status as string)) remove.run(row.scope, row.idempotency_key);
      }
    };
    const select = db.prepare('SELECT * FROM run_idempotency WHERE scope = ? AND idempotency_key = ?');
    const lookup = db.transaction((scope: string, key: string, now: number) => {
      prune(now);
      return select.get(scope, key) as IdempotencyRow | undefined;
    });
    this.#lookup = (scope, key, now) => lookup.immediate(scope, key, now);
    const insert = db.prepare(
      `INSERT INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid, owner_started,
         retention_until, acknowledged_at, created_at, updated_at)
       VALUES (@scope, @idempotency_key, @fingerprint, @run_id, @status_json, @owner_pid, @owner_started,
         @retention_until, @acknowledged_at, @created_at, @updated_at)`,
    );
    const reserve = db.transaction((row: IdempotencyRow, now: number): Admission => {
      prune(now);
      const existing = select.get(row.scope, row.idempotency_key) as IdempotencyRow | undefined;
      if (existing) return { kind: 'existing', row: existing };
      insert.run(row);
      return { kind: 'reserved' };
    });
    this.#reserve = (row, now) => reserve.immediate(row, now);
    const update = db.prepare('UPDATE run_idempotency SET status_json = ?, updated_at = ? WHERE run_id = ?');
    this.#update = (runId, json, now) => void update.run(json, now, runId);
    const byRunId = db.prepare('SELECT * FROM run_idempotency WHERE run_id = ?');
    this.#byRunId = (runId) => byRunId.get(runId) as IdempotencyRow | undefined;
    const all = db.prepare('SELECT * FROM run_idempotency ORDER BY rowid');
    this.#all = () => all.all() as IdempotencyRow[];
    const clear = db.prepare('DELETE FROM run_idempotency');
    const replace = db.transaction((rows: readonly IdempotencyRow[]) => {
      clear.run();
      for (const row of rows) insert.run(row);
    });
    this.#replace = (rows) => replace.immediate(rows);
  }

  admit({ scope, key, now, candidate, reserved }: AdmitRequest): Promise<Admission> {
    if (!this.#db.open) return Promise.reject(new StoreUnavailable('closed', 'The store is closed.'));
    // Each attempt is synchronous (as in Hermes); only a held lock makes the request wait and try again.
    return whileBusy(this.#lock, 'admitting a keyed run', (): Admission => {
      this.#tryCommit();
      const existing = this.#lookup(scope, key, now);
      if (existing) return { kind: 'existing', row: existing };
      const row = candidate(0);
      if (!row) return { kind: 'refused' };
      const outcome = this.#reserve(row, now);
      if (outcome.kind === 'reserved') reserved();
      return outcome;
    });
  }

  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined {
    this.#tryCommit();
    return orUnavailable('looking up an Idempotency-Key', () => this.#lookup(scope, key, now));
  }

  /** Hermes writes at once; a write that fails (a held lock, a failed statement) waits for the next commit(). */
  writeStatus(runId: string, statusJson: string, now: number): void {
    this.#pending.set(runId, { json: statusJson, now });
    this.#tryCommit();
  }

  hasPending(runId?: string): boolean {
    return runId === undefined ? this.#pending.size > 0 : this.#pending.has(runId);
  }

  pendingCount(): number {
    return this.#pending.size;
  }

  /** Each held write on its own (Hermes's writes are independent): one that fails stays held, the others go in. */
  commit(): void {
    let failure: unknown = null;
    for (const [runId, { json, now }] of this.#pending) {
      try {
        this.#update(runId, json, now);
        this.#pending.delete(runId);
      } catch (e) {
        failure ??= unavailable(e, `writing the status of ${runId}`);
      }
    }
    if (failure) throw failure;
  }

  findRun(scope: string, runId: string): IdempotencyRow | undefined {
    const row = this.#read(runId);
    return row?.scope === scope ? row : undefined;
  }

  hasRun(runId: string): boolean {
    return this.#read(runId) !== undefined;
  }

  /** Reads the committed row (held writes are tried first; a reader sees what is committed). */
  #read(runId: string): IdempotencyRow | undefined {
    this.#tryCommit();
    return orUnavailable('reading a run', () => this.#byRunId(runId));
  }

  #tryCommit(): void {
    try {
      this.commit();
    } catch {
      // Still held; the next commit() tries again.
    }
  }

  rows(): IdempotencyRow[] {
    this.#tryCommit();
    return orUnavailable('reading every row', () => this.#all());
  }

  replaceAll(rows: readonly IdempotencyRow[]): void {
    orUnavailable('replacing every row', () => this.#replace(rows));
    this.#pending.clear();
  }

  close(): void {
    this.#tryCommit(); // what still cannot be written is lost with the process, as in a crash
    if (this.#db.open) this.#db.close();
  }
}

// The durable idempotency rows (spec runs-api §12.3–§12.6): lookup with the lazy global prune, atomic reserve,
// status writes, and reads by run id. The only SQL for runs lives here.
import type { Db } from '../../shared/sqlite.js';

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

const TERMINAL_SQL = `json_extract(status_json, '$.status') IN ('completed', 'failed', 'cancelled', 'interrupted')`;
const RETENTION_SECONDS = 86_400;

export class IdempotencyStore {
  readonly #db: Db;
  readonly #prune: () => void;
  readonly #select: (scope: string, key: string) => IdempotencyRow | undefined;
  readonly #lookup: (scope: string, key: string, now: number) => IdempotencyRow | undefined;
  readonly #insert: (row: IdempotencyRow) => boolean;
  readonly #update: (runId: string, statusJson: string, now: number) => void;
  readonly #byRun: (scope: string, runId: string) => IdempotencyRow | undefined;
  readonly #hasRun: (runId: string) => boolean;
  #now = 0;

  constructor(db: Db) {
    this.#db = db;
    // Strict inequalities as Hermes writes them: a row exactly 24 h old is kept (§12.5).
    const pruneOrdinary = db.prepare(
      `DELETE FROM run_idempotency WHERE updated_at < ? AND retention_until <= 0 AND ${TERMINAL_SQL}`,
    );
    const pruneRoom = db.prepare(
      `DELETE FROM run_idempotency WHERE ((retention_until > 0 AND retention_until <= ?)
         OR (acknowledged_at IS NOT NULL AND acknowledged_at <= ?)) AND ${TERMINAL_SQL}`,
    );
    this.#prune = () => {
      pruneOrdinary.run(this.#now - RETENTION_SECONDS);
      pruneRoom.run(this.#now, this.#now - RETENTION_SECONDS);
    };
    const select = db.prepare('SELECT * FROM run_idempotency WHERE scope = ? AND idempotency_key = ?');
    this.#select = (scope, key) => select.get(scope, key) as IdempotencyRow | undefined;
    const lookupTx = db.transaction((scope: string, key: string) => {
      this.#prune();
      return this.#select(scope, key);
    });
    this.#lookup = (scope, key, now) => {
      this.#now = now;
      return lookupTx.immediate(scope, key);
    };
    const insert = db.prepare(
      `INSERT OR IGNORE INTO run_idempotency (scope, idempotency_key, fingerprint, run_id, status_json, owner_pid,
         owner_started, retention_until, acknowledged_at, created_at, updated_at)
       VALUES (@scope, @idempotency_key, @fingerprint, @run_id, @status_json, @owner_pid, @owner_started,
         @retention_until, @acknowledged_at, @created_at, @updated_at)`,
    );
    const reserveTx = db.transaction((row: IdempotencyRow) => {
      this.#prune();
      return insert.run(row).changes === 1;
    });
    this.#insert = (row) => {
      this.#now = row.created_at;
      return reserveTx.immediate(row);
    };
    const update = db.prepare('UPDATE run_idempotency SET status_json = ?, updated_at = ? WHERE run_id = ?');
    this.#update = (runId, statusJson, now) => void update.run(statusJson, now, runId);
    const byRun = db.prepare('SELECT * FROM run_idempotency WHERE run_id = ? AND scope = ?');
    this.#byRun = (scope, runId) => byRun.get(runId, scope) as IdempotencyRow | undefined;
    const hasRun = db.prepare('SELECT 1 FROM run_idempotency WHERE run_id = ?').pluck();
    this.#hasRun = (runId) => hasRun.get(runId) !== undefined;
  }

  /** Prunes stale rows (every scope), then reads the row for (scope, key) — one IMMEDIATE transaction. */
  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined {
    return this.#lookup(scope, key, now);
  }

  /** Inserts the reservation; false when a concurrent request already holds (scope, key) or the run id. */
  reserve(row: IdempotencyRow): boolean {
    return this.#insert(row);
  }

  /** Writes a status snapshot; the row's own updated_at becomes `now`. */
  writeStatus(runId: string, statusJson: string, now: number): void {
    this.#update(runId, statusJson, now);
  }

  findRun(scope: string, runId: string): IdempotencyRow | undefined {
    return this.#byRun(scope, runId);
  }

  /** Whether any scope's row already uses this run id. */
  hasRun(runId: string): boolean {
    return this.#hasRun(runId);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

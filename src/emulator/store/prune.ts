// Hermes's lazy 24 h prune of the idempotency table (spec runs-api §12.5), run before every keyed lookup, and the
// bounds that let most of those runs be skipped without changing what any lookup sees (decision 0005).
import type { Db } from '../../shared/sqlite.js';

const TERMINAL_SQL = `json_extract(status_json, '$.status') IN ('completed', 'failed', 'cancelled', 'interrupted')`;
export const RETENTION_SECONDS = 86_400;

/**
 * The smallest values the prune's three clauses compare against `now`, over every row whatever its status (each an
 * index-only read). While `now` has reached none of them, the prune would delete nothing.
 */
interface Bounds {
  /** min(updated_at) of all rows (the ordinary 24 h clause). */
  updated: number;
  /** min(retention_until) of rows with a room retention. */
  retention: number;
  /** min(acknowledged_at) of acknowledged rows. */
  acknowledged: number;
}

export class Pruner {
  readonly #prune: (now: number) => string[];
  readonly #bounds: () => Bounds;
  /** Bounds as of the last committed transaction that pruned (null: unknown, prune for real next time). */
  #known: Bounds | null = null;
  /** data_version when #known was computed (it changes when another connection commits). */
  #version = -1;
  /** The open transaction's view: starts as #known, becomes #known only if the transaction commits. */
  #working: Bounds | null = null;
  #workingVersion = -1;

  constructor(db: Db) {
    // Strict inequalities as Hermes writes them: a row exactly 24 h old is kept (§12.5). One statement per clause
    // so SQLite can use the indexes of migrations 002 and 005. The deleted run ids go to the run index.
    const clause = (where: string) =>
      db.prepare(`DELETE FROM run_idempotency WHERE ${where} AND ${TERMINAL_SQL} RETURNING run_id`).pluck();
    const ordinary = clause('updated_at < ? AND retention_until <= 0');
    const retention = clause('retention_until > 0 AND retention_until <= ?');
    const acknowledged = clause('acknowledged_at IS NOT NULL AND acknowledged_at <= ?');
    this.#prune = (now) => [
      ...(ordinary.all(now - RETENTION_SECONDS) as string[]),
      ...(retention.all(now) as string[]),
      ...(acknowledged.all(now - RETENTION_SECONDS) as string[]),
    ];
    const min = (sql: string) => {
      const stmt = db.prepare(sql).pluck();
      return () => {
        const v = stmt.get();
        return typeof v === 'number' ? v : Infinity;
      };
    };
    const minUpdated = min('SELECT min(updated_at) FROM run_idempotency');
    const minRetention = min('SELECT min(retention_until) FROM run_idempotency WHERE retention_until > 0');
    const minAcknowledged = min('SELECT min(acknowledged_at) FROM run_idempotency WHERE acknowledged_at IS NOT NULL');
    this.#bounds = () => ({ updated: minUpdated(), retention: minRetention(), acknowledged: minAcknowledged() });
  }

  /** A write transaction opens: work on a copy of the committed bounds. */
  begin(): void {
    this.#working = this.#known && { ...this.#known };
    this.#workingVersion = this.#version;
  }

  /** The transaction committed: its view is now the truth. */
  commit(): void {
    this.#known = this.#working;
    this.#version = this.#workingVersion;
    this.#working = null;
  }

  /** The transaction rolled back (or its outcome is unknown): forget the bounds; the next prune runs for real. */
  abort(): void {
    this.#known = null;
    this.#working = null;
  }

  /** Part of the open transaction was rolled back to a savepoint: its view can no longer be trusted. */
  poison(): void {
    this.#working = null;
  }

  /**
   * Hermes's prune at `now`, inside the caller's write transaction that read data_version `version`; returns the
   * run ids it deleted. Skipped when the bounds show it would delete nothing: no other connection committed since
   * they were computed and `now` has reached none of them. The comparisons are the SQL's own, on the same doubles.
   */
  prune(now: number, version: number): string[] {
    const b = this.#working;
    if (
      b !== null &&
      version === this.#workingVersion &&
      !(b.updated < now - RETENTION_SECONDS) &&
      !(b.retention <= now) &&
      !(b.acknowledged <= now - RETENTION_SECONDS)
    ) {
      return [];
    }
    const deleted = this.#prune(now);
    this.#working = this.#bounds();
    this.#workingVersion = version;
    return deleted;
  }

  /** The open transaction inserted or updated a row stamped `updatedAt` (the clock may have been set back). */
  written(updatedAt: number): void {
    if (this.#working && updatedAt < this.#working.updated) this.#working.updated = updatedAt;
  }
}

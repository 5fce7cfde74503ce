// The rows of each forwarded table, kept exact in `row_counts` (decision 0069) so `hermetic status` reads ten numbers
// where it counted a million rows (~0.5 s at 1M messages). Inserts are counted by whoever inserts — every insert into a
// forwarded table goes through `rowInserter`, which adds what SQLite says each statement inserted (an INSERT OR IGNORE
// that skipped a row added nothing) to a `RowCounts` tally flushed in the same transaction; deletes are counted by
// triggers, whoever deletes (a rewrite, `forget`, a hand edit, the row an INSERT OR REPLACE replaces: the dataset runs
// with recursive_triggers). A per-row insert trigger would cost a backfill about what the activity triggers did
// (decision 0040). The plain twin, `recountRows`, counts the tables; tests hold the two equal.
import { hasTable, type Db } from '../../../shared/sqlite.js';
import { DATASET_TABLES, ROW_COUNTS } from '../../dataset/columns.js';
import { quoteName } from '../../../shared/sql-name.js';

/** The tables counted: the forwarded ones (`status` shows them), not the forwarder's own state. */
export const COUNTED_TABLES: readonly string[] = DATASET_TABLES.filter((t) => !t.internal).map((t) => t.name);
const COUNTED = new Set(COUNTED_TABLES);

/** The name of `table`'s delete trigger, which takes each deleted row off its count. */
export const rowCountTrigger = (table: string): string => `row_counts_${table}_delete`;

/** A delete trigger per counted table (created by the dataset's migration to version 11). */
export const ROW_COUNT_TRIGGERS: readonly string[] = COUNTED_TABLES.map((t) =>
  `CREATE TRIGGER IF NOT EXISTS ${quoteName(rowCountTrigger(t))} AFTER DELETE ON ${quoteName(t)} BEGIN UPDATE ${ROW_COUNTS.name} SET rows = rows - 1 WHERE tbl = '${t}'; END`);

/** Counts every counted table from scratch (the migration's fill, and the plain twin tests compare with). */
export function recountRows(db: Db): void {
  db.prepare(`DELETE FROM ${ROW_COUNTS.name}`).run();
  const put = db.prepare(`INSERT INTO ${ROW_COUNTS.name} (tbl, rows) VALUES (?, ?)`);
  for (const t of COUNTED_TABLES) put.run(t, db.prepare(`SELECT COUNT(*) FROM ${quoteName(t)}`).pluck().get());
}

/**
 * Rows inserted and not yet added to `row_counts`: `add` as rows go in, `flush` before the transaction that inserted
 * them ends, `clear` when one starts (what a failed attempt inserted was rolled back with it). A dataset without the
 * table (a migration running before version 11 made it) keeps no tally: that migration counts from scratch.
 */
export class RowCounts {
  readonly #tally = new Map<string, number>();
  readonly #update: { run(n: number, t: string): unknown } | null;

  constructor(db: Db) {
    this.#update = hasTable(db, ROW_COUNTS.name) ? db.prepare(`UPDATE ${ROW_COUNTS.name} SET rows = rows + ? WHERE tbl = ?`) : null;
  }

  /** `n` rows inserted into `table` (ignored for a table not counted). */
  add(table: string, n: number): void {
    if (n !== 0 && this.#update && COUNTED.has(table)) this.#tally.set(table, (this.#tally.get(table) ?? 0) + n);
  }

  flush(): void {
    for (const [t, n] of this.#tally) this.#update!.run(n, t);
    this.#tally.clear();
  }

  clear(): void {
    this.#tally.clear();
  }
}

/**
 * Rows per forwarded table, for `status`: read from `row_counts`, or counted where the dataset predates it (a
 * version-10 dataset read as it is, before a backfill or forward migrates it).
 */
export function tableRows(db: Db): Record<string, number> {
  const kept = hasTable(db, ROW_COUNTS.name)
    ? new Map(db.prepare(`SELECT tbl, rows FROM ${ROW_COUNTS.name}`).raw().all() as [string, number][])
    : new Map<string, number>();
  return Object.fromEntries(COUNTED_TABLES.map((t) => [t, kept.get(t) ?? (hasTable(db, t) ? db.prepare(`SELECT COUNT(*) FROM ${quoteName(t)}`).pluck().get() as number : 0)]));
}

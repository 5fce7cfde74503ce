// Where each run id's row is: an in-memory run_id → rowid map standing in for Hermes's unique index on run_id, whose
// random-ordered leaves cost most of the page writes of a keyed admission (decision 0005). It stays exact when other
// processes share the file: PRAGMA data_version says whether anyone else committed, and a miss then catches up on
// the rows they added before it answers. Changes made inside a write transaction are staged and reach the map only
// when the transaction commits (decision 0016); a rollback leaves the map as it was, or forces a full re-read.
import type { Db } from '../../shared/sqlite.js';
import type { IdempotencyRow } from '../runs/run-table.js';

/** What an open write transaction has done to the map so far. */
interface Staged {
  inserted: Map<string, number>;
  deleted: Set<string>;
  /** data_version read inside the transaction (-2 until read; no other connection can commit inside it). */
  version: number;
  /** Part of the transaction was rolled back to a savepoint: apply nothing, re-read everything instead. */
  poisoned: boolean;
}

export class RunIndex {
  readonly #rowids = new Map<string, number>();
  /**
   * The highest-rowid row when the map was last complete (rowid 0: none known). While it exists, every row added
   * since has a larger rowid.
   */
  #topRowid = 0;
  #topRunId = '';
  /** data_version when the map was last complete (-1: it is not; re-read every row on the next miss). */
  #version: number;
  #staged: Staged | null = null;
  readonly #dataVersion: () => number;
  readonly #byRowid: (rowid: number, runId: string) => IdempotencyRow | undefined;
  readonly #runIdAt: (rowid: number) => string | undefined;
  readonly #after: (rowid: number) => Array<{ rowid: number; run_id: string }>;
  /** #catchUp inside one read transaction: its checks and scan see one snapshot. */
  readonly #snapshot: (full: boolean) => boolean;

  constructor(db: Db) {
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.#dataVersion = () => dataVersion.get() as number;
    const byRowid = db.prepare('SELECT * FROM run_idempotency WHERE rowid = ? AND run_id = ?');
    this.#byRowid = (rowid, runId) => byRowid.get(rowid, runId) as IdempotencyRow | undefined;
    const runIdAt = db.prepare('SELECT run_id FROM run_idempotency WHERE rowid = ?').pluck();
    this.#runIdAt = (rowid) => runIdAt.get(rowid) as string | undefined;
    const after = db.prepare('SELECT rowid, run_id FROM run_idempotency WHERE rowid > ? ORDER BY rowid');
    this.#after = (rowid) => after.all(rowid) as Array<{ rowid: number; run_id: string }>;
    const snapshot = db.transaction((full: boolean) => this.#catchUp(full));
    this.#snapshot = (full) => snapshot.deferred(full);
    this.#version = this.#dataVersion();
    this.#scan(0);
  }

  /**
   * PRAGMA data_version of this connection. Read inside a write transaction, it is the version that transaction works
   * on (no other connection can commit inside it), which decides at COMMIT whether the map stays complete.
   */
  dataVersion(): number {
    const version = this.#dataVersion();
    if (this.#staged) this.#staged.version = version;
    return version;
  }

  /** The row holding `runId`, in any scope, or undefined. */
  row(runId: string): IdempotencyRow | undefined {
    const rowid = this.rowid(runId);
    const row = rowid === undefined ? undefined : this.#byRowid(rowid, runId);
    // A known rowid that no longer holds the run (another process deleted the row, or renumbered rows with VACUUM)
    // calls for a full re-read; an unknown run only for the rows added since. Inside a write transaction the scan
    // may also pick up rows the transaction itself inserted: every hit is verified against the table, and a rollback
    // invalidates the map, so such an entry can never answer for a row that is not there.
    if (row || !this.#snapshot(rowid !== undefined)) return row;
    const again = this.rowid(runId);
    return again === undefined ? undefined : this.#byRowid(again, runId);
  }

  /** The rowid of `runId`'s row as far as this connection knows (verify it: another process may have deleted it). */
  rowid(runId: string): number | undefined {
    const staged = this.#staged;
    if (staged) {
      const inserted = staged.inserted.get(runId);
      if (inserted !== undefined) return inserted;
      if (staged.deleted.has(runId)) return undefined;
    }
    return this.#rowids.get(runId);
  }

  /** A write transaction opens. */
  begin(): void {
    this.#staged = { inserted: new Map(), deleted: new Set(), version: -2, poisoned: false };
  }

  /** This connection inserted `runId` at `rowid` inside the open transaction. */
  inserted(runId: string, rowid: number): void {
    this.#staged?.deleted.delete(runId);
    this.#staged?.inserted.set(runId, rowid);
  }

  /** This connection deleted these rows inside the open transaction. */
  deleted(runIds: readonly string[]): void {
    for (const runId of runIds) {
      this.#staged?.inserted.delete(runId);
      this.#staged?.deleted.add(runId);
    }
  }

  /** Part of the open transaction was rolled back to a savepoint: what was staged can no longer be trusted. */
  poison(): void {
    if (this.#staged) this.#staged.poisoned = true;
  }

  /** The transaction committed: its changes join the map. */
  commit(): void {
    const staged = this.#staged;
    this.#staged = null;
    if (!staged) return;
    if (staged.poisoned) return this.invalidate();
    for (const runId of staged.deleted) {
      this.#rowids.delete(runId);
      if (runId === this.#topRunId) this.#topRowid = 0;
    }
    for (const [runId, rowid] of staged.inserted) {
      this.#rowids.set(runId, rowid);
      // With no foreign commit since the map was complete, a new row is the top one and the map stays complete.
      if (staged.version === this.#version && rowid > this.#topRowid) {
        this.#topRowid = rowid;
        this.#topRunId = runId;
      }
    }
  }

  /** The transaction rolled back, or failed in a way that leaves its outcome unknown: re-read on the next miss. */
  abort(): void {
    this.#staged = null;
    this.invalidate();
  }

  /** Forget completeness: the next lookup that misses re-reads every row. */
  invalidate(): void {
    this.#version = -1;
    this.#topRowid = 0;
  }

  /** Reads what other connections committed since the map was complete; false when there was nothing to read. */
  #catchUp(full: boolean): boolean {
    const version = this.#dataVersion();
    if (version === this.#version) return false;
    // The top row still there means no rowid at or below it was reused: every newer row sits above it.
    if (!full && this.#version !== -1 && this.#topRowid > 0 && this.#runIdAt(this.#topRowid) === this.#topRunId) {
      this.#scan(this.#topRowid);
    } else {
      this.#rowids.clear();
      this.#topRowid = 0;
      this.#scan(0);
    }
    this.#version = version;
    return true;
  }

  #scan(from: number): void {
    for (const { rowid, run_id } of this.#after(from)) {
      this.#rowids.set(run_id, rowid);
      this.#topRowid = rowid;
      this.#topRunId = run_id;
    }
  }
}

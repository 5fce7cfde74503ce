// Where each run id's row is: an in-memory run_id → rowid map standing in for Hermes's unique index on run_id, whose
// random-ordered leaves cost most of the page writes of a keyed admission (decision 0005). It stays exact when other
// processes share the file: PRAGMA data_version says whether anyone else committed, and a miss then catches up on
// the rows they added before it answers.
import type { Db } from '../../shared/sqlite.js';
import type { IdempotencyRow } from './idempotency.js';

export class RunIndex {
  readonly #rowids = new Map<string, number>();
  /**
   * The highest-rowid row when the map was last complete (rowid 0: none known). While it exists, every row added
   * since has a larger rowid.
   */
  #topRowid = 0;
  #topRunId = '';
  /** data_version when the map was last complete (it changes only when another connection commits). */
  #version: number;
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

  /** PRAGMA data_version of this connection (read once per transaction by the store). */
  dataVersion(): number {
    return this.#dataVersion();
  }

  /** The row holding `runId`, in any scope, or undefined. */
  row(runId: string): IdempotencyRow | undefined {
    const rowid = this.#rowids.get(runId);
    const row = rowid === undefined ? undefined : this.#byRowid(rowid, runId);
    // A known rowid that no longer holds the run (another process deleted the row, or renumbered rows with VACUUM)
    // calls for a full re-read; an unknown run only for the rows added since.
    if (row || !this.#snapshot(rowid !== undefined)) return row;
    const again = this.#rowids.get(runId);
    return again === undefined ? undefined : this.#byRowid(again, runId);
  }

  /** The rowid of `runId`'s row as far as this connection knows (verify it: another process may have deleted it). */
  rowid(runId: string): number | undefined {
    return this.#rowids.get(runId);
  }

  /** Reads what other connections committed since the map was complete; false when there was nothing to read. */
  #catchUp(full: boolean): boolean {
    const version = this.#dataVersion();
    if (version === this.#version) return false;
    // The top row still there means no rowid at or below it was reused: every newer row sits above it.
    if (!full && this.#topRowid > 0 && this.#runIdAt(this.#topRowid) === this.#topRunId) this.#scan(this.#topRowid);
    else {
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

  /**
   * This connection inserted `runId` at `rowid`, inside a write transaction that read `version`. With no foreign
   * commit since the map was complete, the new row is the top one and the map stays complete.
   */
  inserted(runId: string, rowid: number, version: number): void {
    this.#rowids.set(runId, rowid);
    if (version === this.#version) {
      this.#topRowid = rowid;
      this.#topRunId = runId;
    }
  }

  /** This connection deleted these rows. */
  deleted(runIds: readonly string[]): void {
    for (const runId of runIds) {
      this.#rowids.delete(runId);
      if (runId === this.#topRunId) this.#topRowid = 0;
    }
  }
}

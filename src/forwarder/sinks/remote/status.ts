// What `hermetic status` says of each remote sink (decision 0035): its display URL (never a password), its cursor,
// how far behind it is in change-log entries and in seconds, its last error and when it is tried again.
import { hasTable, type Db } from '../../../shared/sqlite.js';
import { REMOTE_SINKS } from '../../dataset/columns.js';
import { pendingEntries, SHIPPED, sinkRows } from './changelog.js';

export interface SinkStatus {
  sink_id: string;
  display: string;
  acked_seq: number;
  /** Its first copy of the dataset is not finished. */
  snapshot_pending: boolean;
  /**
   * While it is: the shipped table the copy is at, how many of the shipped tables it has sent whole, and whether it
   * has sent any row yet (a copy that never arrived is not "under way"). Null once the copy is done.
   */
  snapshot: { table: string; tables_done: number; tables: number; started: boolean } | null;
  /** Change-log entries after its cursor. */
  lag_rows: number;
  /** 0 when it holds everything; else seconds since it last did (since it was registered, when it never did). */
  lag_seconds: number;
  shipped_rows: number;
  acked_at: string | null;
  failures: number;
  last_error: string | null;
  retry_at: string | null;
}

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());

/** Each registered sink, oldest first (none on a dataset older than version 4). */
export function sinkStatus(db: Db, nowS: number): SinkStatus[] {
  if (!hasTable(db, REMOTE_SINKS.name)) return [];
  return sinkRows(db).map((r) => {
    const lag = pendingEntries(db, r.acked_seq);
    const behind = lag > 0 || r.snapshot !== null;
    return {
      sink_id: r.sink_id, display: r.display, acked_seq: r.acked_seq, snapshot_pending: r.snapshot !== null, snapshot: snapshotProgress(r.snapshot), lag_rows: lag,
      lag_seconds: !behind ? 0 : r.caught_up_at === null ? Math.max(0, nowS - r.registered_at) : Math.max(0, nowS - r.caught_up_at),
      shipped_rows: r.shipped_rows, acked_at: iso(r.acked_at), failures: r.failures, last_error: r.last_error, retry_at: iso(r.retry_at),
    };
  });
}

/** Where a first copy is (remote_sinks.snapshot: the table it is at and the last key sent there), or null. */
function snapshotProgress(position: string | null): SinkStatus['snapshot'] {
  if (position === null) return null;
  let at: { table?: unknown; after?: unknown } = {};
  try {
    at = JSON.parse(position) as typeof at;
  } catch {
    /* an unreadable position reads as a copy from the start, which is what the shipper would make of it */
  }
  const index = Math.max(0, SHIPPED.findIndex((t) => t.name === at.table));
  return { table: SHIPPED[index]!.name, tables_done: index, tables: SHIPPED.length, started: index > 0 || (at.after ?? null) !== null };
}

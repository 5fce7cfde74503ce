// The dataset's change log (decision 0035): the keys of rows written or removed in the shipped tables, in order,
// kept by triggers in the same transaction as the write — but only while at least one remote sink is registered
// (the triggers are created with the first and dropped with the last: a forwarder without sinks pays nothing).
// Each registered sink has its own cursor (remote_sinks.acked_seq); entries every sink acknowledged are pruned.
import { createHash } from 'node:crypto';
import type { Db } from '../../../shared/sqlite.js';
import { BACKFILL_UNREAD, CHANGE_LOG, DAILY_USAGE, DELEGATIONS, MESSAGES, MODEL_USAGE, PARTS, REMOTE_SINKS, ROW_ISSUES, SESSIONS, TOOL_USAGE, USAGE_EVENTS, USAGE_LEDGER, type DatasetTable } from '../../dataset/columns.js';
import type { ShippedTable } from './contract.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/**
 * The shipped tables, in the order a snapshot sends them (tables added later go last: a snapshot under way goes on;
 * delegations by decision 0054, row_issues by decision 0092, backfill_unread by decision 0102).
 */
export const SHIPPED: readonly (DatasetTable & { name: ShippedTable })[] = [SESSIONS, MESSAGES, PARTS, MODEL_USAGE, USAGE_EVENTS, DAILY_USAGE, USAGE_LEDGER, TOOL_USAGE, DELEGATIONS, ROW_ISSUES, BACKFILL_UNREAD] as (DatasetTable & { name: ShippedTable })[];

export const SHIPPED_BY_NAME: ReadonlyMap<string, DatasetTable & { name: ShippedTable }> = new Map(SHIPPED.map((t) => [t.name, t]));

/** The key of NEW or OLD as the JSON array the log holds. */
const keyOf = (t: DatasetTable, row: 'NEW' | 'OLD') => `json_array(${t.primaryKey.map((c) => `${row}.${q(c)}`).join(', ')})`;

function log(t: DatasetTable, row: 'NEW' | 'OLD'): string {
  const note = t.name === 'sessions' ? `${row}.policy` : 'NULL';
  return `INSERT INTO ${CHANGE_LOG.name} (tbl, key, note) VALUES ('${t.name}', ${keyOf(t, row)}, ${note});`;
}

/** The triggers: a row inserted, deleted (INSERT OR REPLACE fires both: the dataset runs with recursive_triggers) or updated. */
export function changeLogTriggers(): { name: string; sql: string }[] {
  return SHIPPED.flatMap((t) => [
    { name: `change_log_${t.name}_insert`, sql: `AFTER INSERT ON ${q(t.name)} BEGIN ${log(t, 'NEW')} END` },
    { name: `change_log_${t.name}_delete`, sql: `AFTER DELETE ON ${q(t.name)} BEGIN ${log(t, 'OLD')} END` },
    { name: `change_log_${t.name}_update`, sql: `AFTER UPDATE ON ${q(t.name)} BEGIN ${log(t, 'OLD')} ${log(t, 'NEW')} END` },
  ]);
}

/**
 * Starts the log's sequence at the dataset's creation time in microseconds (milliseconds × 1000): a dataset deleted
 * and made again numbers its changes above the old one's, so a destination's applied sequence number from the old
 * one never hides new changes (decision 0035).
 */
export function seedChangeLog(db: Db, nowMs = Date.now()): void {
  const has = db.prepare("SELECT 1 FROM sqlite_sequence WHERE name = ?").get(CHANGE_LOG.name);
  if (!has) db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(CHANGE_LOG.name, Math.floor(nowMs) * 1000);
}

/**
 * What the log's entries in (from, to] are, as one digest (their numbers, tables and keys): a destination records the
 * digest of the last log batch it applied, so a dataset can tell that batch for its own (a replay after a crash)
 * from changes another copy of the dataset sent under the same numbers (a home restored from a backup, or copied).
 * Entries above a sink's cursor are never pruned, so a range starting at it is whole.
 */
export function logDigest(db: Db, from: number, to: number): string {
  return entriesDigest(db.prepare(`SELECT seq, tbl, key FROM ${CHANGE_LOG.name} WHERE seq > ? AND seq <= ? ORDER BY seq`).iterate(from, to) as Iterable<LogEntry>);
}

/** The digest of log entries already read, in order (logDigest of their range). */
export function entriesDigest(entries: Iterable<LogEntry>): string {
  const hash = createHash('sha256');
  for (const e of entries) hash.update(`${e.seq}\t${e.tbl}\t${e.key}\n`);
  return hash.digest('hex').slice(0, 32);
}

/** One change-log entry as the shipper reads it. */
export interface LogEntry {
  seq: number;
  tbl: string;
  key: string;
}

/** The highest sequence number given so far (entries may since have been pruned). */
export function logHead(db: Db): number {
  return (db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(CHANGE_LOG.name) as number | undefined) ?? 0;
}

export function triggersOn(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(changeLogTriggers()[0]!.name) !== undefined;
}

function createTriggers(db: Db): void {
  for (const t of changeLogTriggers()) db.exec(`CREATE TRIGGER IF NOT EXISTS ${q(t.name)} ${t.sql}`);
}

/** While sinks are registered, the triggers of tables shipped since they were created are added (a dataset upgrade). */
export function updateTriggers(db: Db): void {
  if (triggersOn(db)) createTriggers(db);
}

/**
 * A table already holding rows that becomes shipped (a dataset upgrade; row_issues, decision 0092): its triggers are
 * added, and every sink whose first copy is done copies that table now (its snapshot resumes at it, the cursor kept,
 * so the log after it follows as before). A sink whose copy is under way reaches the table anyway: it is last.
 */
export function shipExistingTable(db: Db, table: ShippedTable): void {
  updateTriggers(db);
  db.prepare(`UPDATE ${REMOTE_SINKS.name} SET snapshot = ? WHERE snapshot IS NULL`).run(JSON.stringify({ table, after: null }));
}

function dropTriggers(db: Db): void {
  for (const t of changeLogTriggers()) db.exec(`DROP TRIGGER IF EXISTS ${q(t.name)}`);
}

export interface SinkRow {
  sink_id: string;
  display: string;
  acked_seq: number;
  snapshot: string | null;
  registered_at: number;
  acked_at: number | null;
  caught_up_at: number | null;
  shipped_rows: number;
  failures: number;
  last_error: string | null;
  retry_at: number | null;
}

export function sinkRow(db: Db, sinkId: string): SinkRow | null {
  return (db.prepare(`SELECT * FROM ${REMOTE_SINKS.name} WHERE sink_id = ?`).get(sinkId) as SinkRow | undefined) ?? null;
}

export function sinkRows(db: Db): SinkRow[] {
  return db.prepare(`SELECT * FROM ${REMOTE_SINKS.name} ORDER BY registered_at, sink_id`).all() as SinkRow[];
}

/**
 * Registers a sink (idempotent): a new one starts with a snapshot of the dataset, its cursor at the log's head, and
 * the triggers exist from now on. Returns whether it was new. The display URL is refreshed on every call.
 */
export function registerSink(db: Db, sink: { id: string; display: string }, nowS: number): boolean {
  return db.transaction(() => {
    const had = sinkRow(db, sink.id);
    if (had) {
      if (had.display !== sink.display) db.prepare(`UPDATE ${REMOTE_SINKS.name} SET display = ? WHERE sink_id = ?`).run(sink.display, sink.id);
      createTriggers(db);
      return false;
    }
    createTriggers(db);
    db.prepare(`INSERT INTO ${REMOTE_SINKS.name} (sink_id, display, acked_seq, snapshot, registered_at, shipped_rows, failures) VALUES (?, ?, ?, ?, ?, 0, 0)`)
      .run(sink.id, sink.display, logHead(db), JSON.stringify({ table: SHIPPED[0]!.name, after: null }), nowS);
    return true;
  }).immediate();
}

/** Removes a sink and its cursor; the last one gone takes the triggers and the log with it. Returns whether it was there. */
export function removeSink(db: Db, sinkId: string): boolean {
  return db.transaction(() => {
    const gone = db.prepare(`DELETE FROM ${REMOTE_SINKS.name} WHERE sink_id = ?`).run(sinkId).changes > 0;
    if ((db.prepare(`SELECT COUNT(*) FROM ${REMOTE_SINKS.name}`).pluck().get() as number) === 0) {
      dropTriggers(db);
      db.exec(`DELETE FROM ${CHANGE_LOG.name}`);
    } else {
      prune(db);
    }
    return gone;
  }).immediate();
}

/** Deletes the entries every registered sink has acknowledged. */
export function prune(db: Db): number {
  return db.prepare(`DELETE FROM ${CHANGE_LOG.name} WHERE seq <= (SELECT MIN(acked_seq) FROM ${REMOTE_SINKS.name})`).run().changes;
}

/** Entries after a cursor: what a sink has yet to receive (besides its snapshot, while one is under way). */
export function pendingEntries(db: Db, ackedSeq: number): number {
  return db.prepare(`SELECT COUNT(*) FROM ${CHANGE_LOG.name} WHERE seq > ?`).pluck().get(ackedSeq) as number;
}

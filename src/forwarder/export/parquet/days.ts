// The tables kept by day (messages, parts: `<table>/day=YYYY-MM-DD/data.parquet`, the UTC day of created_at) and
// which days an export rewrites: every day its window touches, and every other day that has a file whose rows no
// longer match the dataset (a /retry, a rewind or compaction that moved a row to another day, a forget) — found by a
// fingerprint of each day's rows kept in its file's footer. So no row is ever in two files (decision 0037).
import { join } from 'node:path';
import type { Db } from '../../../shared/sqlite.js';
import type { DatasetTable } from '../../dataset/columns.js';
import { utcDay } from '../../ledger/zone.js';
import { dayFile, listDays, outError, removeDay } from './layout.js';
import { fileMetadata, META } from './manifest.js';
import type { WrittenFile } from './write-file.js';
import { createDirs } from '../../../shared/dirs.js';
import { quoteName } from '../../../shared/sql-name.js';

/** Tables with one folder per UTC day of `created_at`; each row's day never depends on when it is exported. */
export const PARTITIONED: ReadonlySet<string> = new Set(['messages', 'parts']);
/** Within a day: a session's rows together, in transcript order. */
const DAY_ORDER: Record<string, string> = { messages: 'store, session_id, seq', parts: 'store, session_id, created_at, part_id' };
const DAY = 86400;
/** Sums are kept modulo a prime so they never overflow, in SQLite or in a JavaScript number. */
const MOD = 1_000_000_007;

export interface TableSummary {
  table: string;
  rows: number;
  files: number;
  bytes: number;
  /** Partitioned tables: the days written; among them those outside the window (repaired); the days removed. */
  days?: string[];
  repairedDays?: string[];
  removedDays?: string[];
}

export interface DayWindow {
  first: string | null;
  last: string | null;
}

/** The UTC days [first, last] a window covers (null: open); until is exclusive. */
export function windowDays(since: number | null, until: number | null): DayWindow {
  return {
    first: since === null ? null : utcDay(since),
    last: until === null ? null : utcDay(Math.ceil(until / DAY) * DAY - DAY),
  };
}

const inWindow = (day: string, w: DayWindow) => (w.first === null || day >= w.first) && (w.last === null || day <= w.last);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/**
 * A day's rows summed up: how many, their times (whole milliseconds) and Hermes row ids, modulo a prime. A row that
 * left the day or came into it changes it; so does any row removed. SQLite and `Fingerprint` compute the same string.
 */
const FINGERPRINT_SQL = `count(*) || ':' || (sum(CAST(created_at * 1000 AS INTEGER) % ${MOD}) % ${MOD}) || ':' || (sum(coalesce(message_id, 0) % ${MOD}) % ${MOD})`;

class Fingerprint {
  private rows = 0;
  private ms = 0;
  private ids = 0;
  add(createdAt: number, messageId: number | null): void {
    this.rows++;
    this.ms = (this.ms + (Math.trunc(createdAt * 1000) % MOD)) % MOD;
    this.ids = (this.ids + ((messageId ?? 0) % MOD)) % MOD;
  }
  toString(): string {
    return `${this.rows}:${this.ms}:${this.ids}`;
  }
}

/** The days outside the window whose file no longer matches the dataset's rows of that day. */
function staleDays(db: Db, out: string, table: DatasetTable, window: DayWindow, scope: string): string[] {
  const outside = listDays(out, table.name).filter((day) => !inWindow(day, window));
  if (outside.length === 0) return [];
  const now = new Map((db.prepare(`SELECT floor(created_at / ${DAY}) AS d, ${FINGERPRINT_SQL} AS f FROM ${quoteName(table.name)}${scope ? ` WHERE ${scope}` : ''} GROUP BY d`).raw().all() as [number, string][])
    .map(([d, f]) => [utcDay(d * DAY), f]));
  return outside.filter((day) => fileMetadata(dayFile(out, table.name, day)).get(META.fingerprint) !== now.get(day));
}

type WriteFile = (path: string, rows: Iterable<unknown[]>, metadata: () => Record<string, string>) => WrittenFile;

/**
 * Rewrites the table's days in the window and its stale days; removes the files of those days that have no rows now.
 * `scope` is an SQL condition on the rows exported (the local-only sessions left out), or ''.
 */
export function exportDays(db: Db, out: string, table: DatasetTable, window: DayWindow, scope: string, metadata: Record<string, string>, write: WriteFile): TableSummary {
  const windowed = window.first !== null || window.last !== null;
  const repair = windowed ? staleDays(db, out, table, window, scope) : [];
  const where: string[] = [];
  const params: number[] = [];
  if (window.first !== null) where.push('created_at >= ?'), params.push(dayStart(window.first));
  if (window.last !== null) where.push('created_at < ?'), params.push(dayStart(window.last) + DAY);
  let condition = where.length ? `(${where.join(' AND ')})` : '';
  if (repair.length) condition = `${condition} OR floor(created_at / ${DAY}) IN (${repair.map((d) => dayStart(d) / DAY).join(', ')})`;
  const names = table.columns.map((c) => quoteName(c.name)).join(', ');
  if (scope) condition = condition ? `(${condition}) AND ${scope}` : scope;
  const sql = `SELECT ${names}, floor(created_at / ${DAY}) AS day_number FROM ${quoteName(table.name)}${condition ? ` WHERE ${condition}` : ''} ORDER BY day_number, ${DAY_ORDER[table.name]}`;
  const dayAt = table.columns.length;
  const createdAt = table.columns.findIndex((c) => c.name === 'created_at');
  const messageId = table.columns.findIndex((c) => c.name === 'message_id');
  const rows = (db.prepare(sql).raw().iterate(...params) as IterableIterator<unknown[]>)[Symbol.iterator]();
  const summary: TableSummary = { table: table.name, rows: 0, files: 0, bytes: 0, days: [], repairedDays: [], removedDays: [] };
  try {
    let next = rows.next();
    while (!next.done) {
      const number = next.value[dayAt] as number;
      const day = utcDay(number * DAY);
      if (summary.days!.includes(day)) throw new Error(`${table.name}: the rows of ${day} did not come together`); // a bug
      const fingerprint = new Fingerprint();
      const oneDay = function* (): Generator<unknown[]> {
        while (!next.done && next.value[dayAt] === number) {
          fingerprint.add(next.value[createdAt] as number, next.value[messageId] as number | null);
          yield next.value;
          next = rows.next();
        }
      };
      try {
        createDirs(join(out, table.name, `day=${day}`));
      } catch (e) {
        throw outError(out, e);
      }
      const file = write(dayFile(out, table.name, day), oneDay(), () => ({ ...metadata, [META.day]: day, [META.fingerprint]: fingerprint.toString() }));
      summary.rows += file.rows;
      summary.files++;
      summary.bytes += file.bytes;
      summary.days!.push(day);
      if (!inWindow(day, window)) summary.repairedDays!.push(day);
    }
  } finally {
    rows.return?.();
  }
  // Days rewritten or in the window that have a file but no rows now (the dataset lost them: a /retry, a forget).
  const written = new Set(summary.days);
  const looked = new Set(repair);
  for (const day of listDays(out, table.name)) {
    if (!written.has(day) && (inWindow(day, window) || looked.has(day))) {
      removeDay(out, table.name, day);
      summary.removedDays!.push(day);
    }
  }
  return summary;
}

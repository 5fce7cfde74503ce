// `exportParquet`: the dataset's forwarded tables and its usage ledger as Parquet files (decision 0037). Reads the
// dataset in one read transaction (a consistent moment, even while a forwarder writes) and streams each table into
// its files: the whole-table files rewritten, and, for messages and parts, the UTC days the window touches rewritten
// whole (a day left with no rows loses its file). Then the manifest, from the files themselves.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import type { Db } from '../../../shared/sqlite.js';
import { DATASET_TABLES, type DatasetTable } from '../../dataset/columns.js';
import { utcDay } from '../../ledger/zone.js';
import { ledgerZone } from '../../report/query.js';
import { dayFile, listDays, lockOut, MANIFEST_FILE, outError, removeDay, removeLeftovers, tableFile } from './layout.js';
import { describeTables, MANIFEST_FORMAT, MANIFEST_FORMAT_VERSION, META, readManifest, writeManifest, type Manifest } from './manifest.js';
import { exportColumns } from './schema.js';
import { DEFAULT_BUDGET, RowProblem, writeParquetFile, type RowGroupBudget } from './write-file.js';

/** The forwarded data (the forwarder's own bookkeeping tables are not exported). */
export const EXPORTED_TABLES: readonly DatasetTable[] = DATASET_TABLES.filter((t) => !t.internal);
/** Tables with one folder per UTC day of `created_at`; each row's day never depends on when it is exported. */
export const PARTITIONED: ReadonlySet<string> = new Set(['messages', 'parts']);
/** Within a day: a session's rows together, in transcript order. */
const DAY_ORDER: Record<string, string> = { messages: 'store, session_id, seq', parts: 'store, session_id, created_at, part_id' };

const DAY = 86400;

export interface ExportRequest {
  out: string;
  /** Epoch seconds; null for an open end. The partitioned tables' window is widened to whole UTC days. */
  since: number | null;
  until: number | null;
  /** Epoch milliseconds of this export (written into each file and the manifest). */
  now: number;
  budget?: RowGroupBudget;
}

export interface TableSummary {
  table: string;
  rows: number;
  files: number;
  bytes: number;
  /** Partitioned tables: the days written, and the days whose file was removed (no rows there any more). */
  days?: string[];
  removedDays?: string[];
}

export interface ExportSummary {
  out: string;
  manifest: string;
  /** The window as given (ISO; null: open) and the UTC days it covers for messages and parts. */
  window: { since: string | null; until: string | null; firstDay: string | null; lastDay: string | null };
  datasetVersion: number;
  tables: TableSummary[];
  totals: { rows: number; files: number; bytes: number };
}

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());

/** The UTC days [first, last] a window covers (null: open); until is exclusive. */
export function windowDays(since: number | null, until: number | null): { first: string | null; last: string | null } {
  return {
    first: since === null ? null : utcDay(since),
    last: until === null ? null : utcDay(Math.ceil(until / DAY) * DAY - DAY),
  };
}

const inDays = (day: string, first: string | null, last: string | null) => (first === null || day >= first) && (last === null || day <= last);

/**
 * Exports the dataset `db` (open read-only) into `request.out`.
 * @example exportParquet(openDatasetReadOnly(home), { out: '/tmp/out', since: null, until: null, now: Date.now() })
 */
export function exportParquet(db: Db, request: ExportRequest): ExportSummary {
  const { out } = request;
  const budget = request.budget ?? DEFAULT_BUDGET;
  if (request.since !== null && request.until !== null && request.since > request.until) {
    throw new HermeticError('HERMETIC_EXPORT_INVALID', `The window starts (${iso(request.since)}) after it ends (${iso(request.until)}); swap --since and --until.`);
  }
  const windowed = request.since !== null || request.until !== null;
  const datasetVersion = db.pragma('user_version', { simple: true }) as number;
  const release = lockOut(out);
  try {
    const previous = readManifest(out);
    if (windowed && previous && previous.dataset_version !== datasetVersion) {
      throw new HermeticError('HERMETIC_EXPORT_INVALID', `${out} was exported from dataset version ${previous.dataset_version} and this dataset is at version ${datasetVersion}, so its tables differ; export without --since/--until once to rewrite it whole.`);
    }
    removeLeftovers(out, EXPORTED_TABLES.map((t) => t.name));
    const { first, last } = windowDays(request.since, request.until);
    const metadata = {
      [META.datasetVersion]: String(datasetVersion),
      [META.writtenAt]: new Date(request.now).toISOString(),
      [META.since]: iso(request.since) ?? '',
      [META.until]: iso(request.until) ?? '',
    };
    const summaries: TableSummary[] = [];
    db.exec('BEGIN'); // one snapshot of the dataset for every table
    try {
      for (const table of EXPORTED_TABLES) {
        summaries.push(PARTITIONED.has(table.name)
          ? exportDays(db, out, table, { first, last }, metadata, budget)
          : exportWhole(db, out, table, metadata, budget));
      }
    } finally {
      db.exec('COMMIT');
    }
    const zone = ledgerZone(db).name; // the zone of usage_ledger.day (its day_utc and the day= folders are UTC)
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      format_version: MANIFEST_FORMAT_VERSION,
      dataset_version: datasetVersion,
      written_at: new Date(request.now).toISOString(),
      partitioning: { tables: [...PARTITIONED], key: 'day', rule: 'day=YYYY-MM-DD is the UTC day of created_at; an export rewrites every day its window touches, whole' },
      last_export: {
        since: iso(request.since),
        until: iso(request.until),
        days: Object.fromEntries(summaries.filter((s) => s.days).map((s) => [s.table, s.days!])),
        removed_days: Object.fromEntries(summaries.filter((s) => s.removedDays).map((s) => [s.table, s.removedDays!])),
      },
      ledger_time_zone: zone,
      tables: describeTables(out, EXPORTED_TABLES, PARTITIONED),
    };
    try {
      writeManifest(out, manifest);
    } catch (e) {
      throw outError(out, e);
    }
    return {
      out,
      manifest: join(out, MANIFEST_FILE),
      window: { since: iso(request.since), until: iso(request.until), firstDay: first, lastDay: last },
      datasetVersion,
      tables: summaries,
      totals: summaries.reduce((t, s) => ({ rows: t.rows + s.rows, files: t.files + s.files, bytes: t.bytes + s.bytes }), { rows: 0, files: 0, bytes: 0 }),
    };
  } finally {
    release();
  }
}

const columnList = (table: DatasetTable) => table.columns.map((c) => `"${c.name}"`).join(', ');

/** Names a row in an error by its primary key. */
function keyNamer(table: DatasetTable): (row: unknown[]) => string {
  const at = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  return (row) => `(${table.primaryKey.map((k, i) => `${k}=${JSON.stringify(row[at[i]!]) ?? 'null'}`).join(', ')})`;
}

/** One file, with the table's rows in a run of its writes: a problem value stops it with its file unchanged. */
function write(out: string, table: DatasetTable, path: string, rows: Iterable<unknown[]>, metadata: Record<string, string>, budget: RowGroupBudget) {
  try {
    return writeParquetFile(path, exportColumns(table), rows, { [META.table]: table.name, ...metadata }, keyNamer(table), budget);
  } catch (e) {
    if (e instanceof RowProblem) {
      throw new HermeticError('HERMETIC_EXPORT_VALUE', `Cannot export ${table.name}.${e.column} of the row ${e.key}: ${e.why}. ${path} was left as it was; check the row with "hermetic query" (a bug in the dataset or in Hermetic).`);
    }
    if (e instanceof HermeticError) throw e;
    if (typeof (e as NodeJS.ErrnoException)?.code === 'string') throw outError(out, e);
    throw e;
  }
}

function exportWhole(db: Db, out: string, table: DatasetTable, metadata: Record<string, string>, budget: RowGroupBudget): TableSummary {
  try {
    mkdirSync(join(out, table.name), { recursive: true });
  } catch (e) {
    throw outError(out, e);
  }
  const rows = db.prepare(`SELECT ${columnList(table)} FROM "${table.name}" ORDER BY ${table.primaryKey.map((k) => `"${k}"`).join(', ')}`).raw().iterate() as IterableIterator<unknown[]>;
  try {
    const file = write(out, table, tableFile(out, table.name), rows, metadata, budget);
    return { table: table.name, rows: file.rows, files: 1, bytes: file.bytes };
  } finally {
    rows.return?.();
  }
}

function exportDays(db: Db, out: string, table: DatasetTable, window: { first: string | null; last: string | null }, metadata: Record<string, string>, budget: RowGroupBudget): TableSummary {
  const where: string[] = [];
  const params: number[] = [];
  if (window.first !== null) where.push('created_at >= ?'), params.push(Date.parse(`${window.first}T00:00:00Z`) / 1000);
  if (window.last !== null) where.push('created_at < ?'), params.push(Date.parse(`${window.last}T00:00:00Z`) / 1000 + DAY);
  const sql = `SELECT ${columnList(table)}, floor(created_at / ${DAY}) AS day_number FROM "${table.name}"${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY day_number, ${DAY_ORDER[table.name]}`;
  const dayAt = table.columns.length;
  const rows = (db.prepare(sql).raw().iterate(...params) as IterableIterator<unknown[]>)[Symbol.iterator]();
  const summary: TableSummary = { table: table.name, rows: 0, files: 0, bytes: 0, days: [], removedDays: [] };
  try {
    let next = rows.next();
    while (!next.done) {
      const number = next.value[dayAt] as number;
      const day = utcDay(number * DAY);
      if (summary.days!.includes(day)) throw new Error(`${table.name}: the rows of ${day} did not come together`); // a bug
      const oneDay = function* (): Generator<unknown[]> {
        while (!next.done && next.value[dayAt] === number) {
          yield next.value;
          next = rows.next();
        }
      };
      try {
        mkdirSync(join(out, table.name, `day=${day}`), { recursive: true });
      } catch (e) {
        throw outError(out, e);
      }
      const file = write(out, table, dayFile(out, table.name, day), oneDay(), { ...metadata, [META.day]: day }, budget);
      summary.rows += file.rows;
      summary.files++;
      summary.bytes += file.bytes;
      summary.days!.push(day);
    }
  } finally {
    rows.return?.();
  }
  // Days in the window that have a file but no rows now (the dataset lost them: a /retry, a forget).
  const written = new Set(summary.days);
  for (const day of listDays(out, table.name)) {
    if (!written.has(day) && inDays(day, window.first, window.last)) {
      removeDay(out, table.name, day);
      summary.removedDays!.push(day);
    }
  }
  return summary;
}

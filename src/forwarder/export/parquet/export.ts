// `exportParquet`: the dataset's forwarded tables and its usage ledger as Parquet files (decision 0037). Reads the
// dataset in one read transaction (a consistent moment, even while a forwarder writes) and streams each table into
// its files: the whole-table files rewritten, and, for messages and parts, the UTC days the window touches (and any
// day whose file no longer matches the dataset) rewritten whole (days.ts). Then the manifest, from the files.
import { dirname, join, parse } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import type { Db } from '../../../shared/sqlite.js';
import { columnsVersion, DATASET_TABLES, type DatasetTable } from '../../dataset/columns.js';
import { ledgerZone } from '../../report/query.js';
import { exportDays, PARTITIONED, windowDays } from './days.js';
import { isFileSystemError, lockOut, MANIFEST_FILE, outError, removeLeftovers, tableFile } from './layout.js';
import { describeTables, MANIFEST_FORMAT, MANIFEST_FORMAT_VERSION, META, readManifest, writeManifest, type Manifest } from './manifest.js';
import { exportColumns } from './schema.js';
import { DEFAULT_BUDGET, RowProblem, writeParquetFile, type RowGroupBudget } from './write-file.js';
import type { TableSummary } from './days.js';
import { createDirs } from '../../../shared/dirs.js';
import { realPathOf } from '../../../shared/real-path.js';
import { quoteName } from '../../../shared/sql-name.js';

/** The forwarded data (the forwarder's own bookkeeping tables are not exported). */
export const EXPORTED_TABLES: readonly DatasetTable[] = DATASET_TABLES.filter((t) => !t.internal);

export interface ExportRequest {
  out: string;
  /** Epoch seconds; null for an open end. The partitioned tables' window is widened to whole UTC days. */
  since: number | null;
  until: number | null;
  /** Epoch milliseconds of this export (written into each file and the manifest). */
  now: number;
  /**
   * Export the sessions whose usage policy is `local-only` too (default false: their rows, in every table, are left
   * out, since an export is made to be copied elsewhere and local-only data never leaves the machine).
   */
  includeLocalOnly?: boolean;
  budget?: RowGroupBudget;
}

export type { TableSummary } from './days.js';

export interface ExportSummary {
  out: string;
  manifest: string;
  /** The window as given (ISO; null: open) and the UTC days it covers for messages and parts. */
  window: { since: string | null; until: string | null; firstDay: string | null; lastDay: string | null };
  datasetVersion: number;
  /** Local-only sessions in the dataset, and whether their rows were exported (--include-local-only). */
  localOnly: { sessions: number; exported: boolean };
  tables: TableSummary[];
  totals: { rows: number; files: number; bytes: number };
}

/**
 * Folders an export must not write into: the root of the file system, and the dataset's own home (its tables would sit
 * beside hermetic.db). Anything else is the user's choice; an export only ever touches its own names there.
 */
function refuseOut(out: string, dataset: string): void {
  const target = realPathOf(out);
  if (target === parse(target).root) throw new HermeticError('HERMETIC_EXPORT_INVALID', `--out ${out} is the root of the file system; give the export a folder of its own (for example --out ./hermetic-export).`);
  if (target === dirname(dataset)) throw new HermeticError('HERMETIC_EXPORT_INVALID', `--out ${out} is the dataset's own home; give the export a folder of its own (for example --out ./hermetic-export).`);
}

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());

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
  const dataset = realPathOf(db.name);
  refuseOut(out, dataset);
  const release = lockOut(out);
  try {
    const previous = readManifest(out);
    if (previous?.dataset !== undefined && previous.dataset !== dataset) {
      throw new HermeticError('HERMETIC_EXPORT_INVALID', `${out} holds an export of another dataset (${previous.dataset}); choose another --out, or remove ${join(out, MANIFEST_FILE)} to replace that export with this one.`);
    }
    // A version that changed only how tables are stored (decision 0172) left the exported tables as they were.
    if (windowed && previous && columnsVersion(previous.dataset_version) !== columnsVersion(datasetVersion)) {
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
    const includeLocalOnly = request.includeLocalOnly === true;
    let localOnly = 0;
    db.exec('BEGIN'); // one snapshot of the dataset for every table
    try {
      localOnly = db.prepare("SELECT count(*) FROM sessions WHERE policy = 'local-only'").pluck().get() as number;
      for (const table of EXPORTED_TABLES) {
        // A row with a policy of its own is judged by it (a delegation can be local-only under a full session).
        const own = table.columns.some((c) => c.name === 'policy');
        const scope = (localOnly > 0 || own) && !includeLocalOnly ? withoutLocalOnly(table) : '';
        summaries.push(PARTITIONED.has(table.name)
          ? exportDays(db, out, table, { first, last }, scope, metadata, (path, rows, meta) => write(out, table, path, rows, meta, budget))
          : exportWhole(db, out, table, scope, metadata, budget));
      }
    } finally {
      db.exec('COMMIT');
    }
    const zone = ledgerZone(db).name; // the zone of usage_ledger.day (its day_utc and the day= folders are UTC)
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      format_version: MANIFEST_FORMAT_VERSION,
      dataset_version: datasetVersion,
      dataset,
      written_at: new Date(request.now).toISOString(),
      partitioning: { tables: [...PARTITIONED], key: 'day', rule: 'day=YYYY-MM-DD is the UTC day of created_at; an export rewrites, whole, every day its window touches and every day whose file no longer matches the dataset' },
      last_export: {
        since: iso(request.since),
        until: iso(request.until),
        days: Object.fromEntries(summaries.filter((s) => s.days).map((s) => [s.table, s.days!])),
        repaired_days: Object.fromEntries(summaries.filter((s) => s.repairedDays).map((s) => [s.table, s.repairedDays!])),
        removed_days: Object.fromEntries(summaries.filter((s) => s.removedDays).map((s) => [s.table, s.removedDays!])),
      },
      ledger_time_zone: zone,
      local_only_sessions: includeLocalOnly ? 'exported' : 'left out',
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
      localOnly: { sessions: localOnly, exported: includeLocalOnly },
      tables: summaries,
      totals: summaries.reduce((t, s) => ({ rows: t.rows + s.rows, files: t.files + s.files, bytes: t.bytes + s.bytes }), { rows: 0, files: 0, bytes: 0 }),
    };
  } catch (e) {
    // Whatever in --out is in the way (a file where a table's folder goes, a folder named like a file), wherever it
    // is met: said in words, never as a stack.
    if (!(e instanceof HermeticError) && isFileSystemError(e)) throw outError(out, e);
    throw e;
  } finally {
    release();
  }
}

/**
 * A condition leaving out the rows of local-only sessions: by the row's own policy where it has one (sessions,
 * delegations), else by its session's (the other exported tables have `store` and `session_id`).
 */
function withoutLocalOnly(table: DatasetTable): string {
  if (table.columns.some((c) => c.name === 'policy')) return "policy <> 'local-only'";
  return `NOT EXISTS (SELECT 1 FROM sessions AS s WHERE s.store = ${quoteName(table.name)}.store AND s.session_id = ${quoteName(table.name)}.session_id AND s.policy = 'local-only')`;
}

const columnList = (table: DatasetTable) => table.columns.map((c) => quoteName(c.name)).join(', ');

/** Names a row in an error by its primary key. */
function keyNamer(table: DatasetTable): (row: unknown[]) => string {
  const at = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  return (row) => `(${table.primaryKey.map((k, i) => `${k}=${JSON.stringify(row[at[i]!]) ?? 'null'}`).join(', ')})`;
}

/** One file, with the table's rows in a run of its writes: a problem value stops it with its file unchanged. */
function write(out: string, table: DatasetTable, path: string, rows: Iterable<unknown[]>, metadata: Record<string, string> | (() => Record<string, string>), budget: RowGroupBudget) {
  const withTable = () => ({ [META.table]: table.name, ...(typeof metadata === 'function' ? metadata() : metadata) });
  try {
    return writeParquetFile(path, exportColumns(table), rows, withTable, keyNamer(table), budget);
  } catch (e) {
    if (e instanceof RowProblem) {
      throw new HermeticError('HERMETIC_EXPORT_VALUE', `Cannot export ${table.name}.${e.column} of the row ${e.key}: ${e.why}. ${path} was left as it was; check the row with "hermetic query" (a bug in the dataset or in Hermetic).`);
    }
    if (e instanceof HermeticError) throw e;
    if (typeof (e as NodeJS.ErrnoException)?.code === 'string') throw outError(out, e);
    throw e;
  }
}

function exportWhole(db: Db, out: string, table: DatasetTable, scope: string, metadata: Record<string, string>, budget: RowGroupBudget): TableSummary {
  try {
    createDirs(join(out, table.name));
  } catch (e) {
    throw outError(out, e);
  }
  const rows = db.prepare(`SELECT ${columnList(table)} FROM ${quoteName(table.name)}${scope ? ` WHERE ${scope}` : ''} ORDER BY ${table.primaryKey.map(quoteName).join(', ')}`).raw().iterate() as IterableIterator<unknown[]>;
  try {
    const file = write(out, table, tableFile(out, table.name), rows, metadata, budget);
    return { table: table.name, rows: file.rows, files: 1, bytes: file.bytes };
  } finally {
    rows.return?.();
  }
}

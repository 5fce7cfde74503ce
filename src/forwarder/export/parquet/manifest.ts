// The export's manifest.json: every table, its files with their rows, sizes and the window that wrote each, the
// dataset version and each table's schema. Built from the files themselves (their footers), not from memory, so it
// tells what is in the folder even after an interrupted export or a lost manifest.
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parquetMetadata } from 'hyparquet';
import type { DatasetTable } from '../../dataset/columns.js';
import { listDays, MANIFEST_FILE, tableFile, dayFile } from './layout.js';
import { manifestSchema, type ManifestColumn } from './schema.js';
import { durableRename, temporaryName } from './write-file.js';

export const MANIFEST_FORMAT = 'hermetic-parquet-export';
export const MANIFEST_FORMAT_VERSION = 1;

/** Key-value metadata every file carries (read back into the manifest). */
export const META = {
  table: 'hermetic.table',
  day: 'hermetic.day',
  datasetVersion: 'hermetic.dataset_version',
  writtenAt: 'hermetic.written_at',
  since: 'hermetic.window_since',
  until: 'hermetic.window_until',
  /** A day file's rows summed up (day.ts): what tells a day the dataset has changed since. */
  fingerprint: 'hermetic.fingerprint',
} as const;

export interface ManifestFile {
  path: string;
  day?: string;
  rows: number;
  row_groups: number;
  bytes: number;
  written_at: string | null;
  /** The export window that wrote the file (null: an open end). */
  window: { since: string | null; until: string | null };
  dataset_version: number | null;
}

export interface ManifestTable {
  rows: number;
  /** `day` for the tables with one folder per UTC day of `created_at`, else null (one file, the whole table). */
  partitioned_by: 'day' | null;
  files: ManifestFile[];
  schema: ManifestColumn[];
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  format_version: number;
  dataset_version: number;
  /** The dataset file exported (its real path): another dataset's export is not replaced silently (export.ts). */
  dataset?: string;
  written_at: string;
  /** Days are UTC days of created_at (the `day=` folders). */
  partitioning: { tables: string[]; key: 'day'; rule: string };
  /** The zone of the ledger's local `day` column (`day_utc` and the day= folders are UTC). */
  ledger_time_zone: string;
  /** Whether the rows of local-only sessions are in the files (`hermetic export --include-local-only`). */
  local_only_sessions: 'exported' | 'left out';
  last_export: {
    since: string | null;
    until: string | null;
    /** Per partitioned table: the days written, those outside the window rewritten because the dataset changed there, those removed. */
    days: Record<string, string[]>;
    repaired_days: Record<string, string[]>;
    removed_days: Record<string, string[]>;
  };
  tables: Record<string, ManifestTable>;
}

/** The footer of a Parquet file (its last bytes only). */
function footer(path: string): ReturnType<typeof parquetMetadata> {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const read = (n: number) => {
      const buf = Buffer.alloc(Math.min(n, size));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return buf;
    };
    let tail = read(64 * 1024);
    const need = tail.readUInt32LE(tail.length - 8) + 8;
    if (need > tail.length) tail = read(need);
    return parquetMetadata(new Uint8Array(tail.buffer, tail.byteOffset, tail.length));
  } finally {
    closeSync(fd);
  }
}

/** A file's key-value metadata (empty when it cannot be read: a damaged file is then rewritten, never trusted). */
export function fileMetadata(path: string): Map<string, string> {
  try {
    return new Map((footer(path).key_value_metadata ?? []).map((e) => [e.key, e.value ?? '']));
  } catch {
    return new Map();
  }
}

function describeFile(out: string, path: string, day?: string): ManifestFile {
  const meta = footer(path);
  const kv = new Map((meta.key_value_metadata ?? []).map((e) => [e.key, e.value ?? null]));
  const version = kv.get(META.datasetVersion);
  return {
    path: relative(out, path).split('\\').join('/'),
    ...(day === undefined ? {} : { day }),
    rows: Number(meta.num_rows),
    row_groups: meta.row_groups.length,
    bytes: statSync(path).size,
    written_at: kv.get(META.writtenAt) ?? null,
    window: { since: kv.get(META.since) || null, until: kv.get(META.until) || null },
    dataset_version: version ? Number(version) : null,
  };
}

/** Every exported table as the folder holds it now. */
export function describeTables(out: string, tables: readonly DatasetTable[], partitioned: ReadonlySet<string>): Record<string, ManifestTable> {
  const result: Record<string, ManifestTable> = {};
  for (const table of tables) {
    const byDay = partitioned.has(table.name);
    const files = byDay
      ? listDays(out, table.name).map((day) => describeFile(out, dayFile(out, table.name, day), day))
      : existsSync(tableFile(out, table.name)) ? [describeFile(out, tableFile(out, table.name))] : [];
    result[table.name] = {
      rows: files.reduce((n, f) => n + f.rows, 0),
      partitioned_by: byDay ? 'day' : null,
      files,
      schema: manifestSchema(table),
    };
  }
  return result;
}

/** The manifest a folder holds, or null (none, or not one of ours). */
export function readManifest(out: string): Manifest | null {
  const path = join(out, MANIFEST_FILE);
  if (!existsSync(path)) return null;
  try {
    const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
    return m?.format === MANIFEST_FORMAT ? m : null;
  } catch {
    return null;
  }
}

/** Writes manifest.json whole (a temporary file renamed into place). */
export function writeManifest(out: string, manifest: Manifest): void {
  const path = join(out, MANIFEST_FILE);
  const tmp = temporaryName(path);
  try {
    writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
    durableRename(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

// One Parquet file from a stream of rows, in row groups of at most `rowGroupRows` rows or about `rowGroupBytes` of
// values (whichever comes first: memory stays bounded however large the table). Written under a hidden temporary
// name beside its place and renamed over it only when complete, so a reader sees the old file or the new one.
import { renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import { ValueProblem, type ExportColumn } from './schema.js';
import { syncPath } from '../../../shared/sync-path.js';

export interface RowGroupBudget {
  /** Rows per row group (default 131,072: DuckDB's and Spark's readers parallelize by row group). */
  rows: number;
  /** About this many bytes of values per row group (default 64 MiB), for tables of long texts. */
  bytes: number;
}

export const DEFAULT_BUDGET: RowGroupBudget = { rows: 131_072, bytes: 64 * 1024 * 1024 };

export interface WrittenFile {
  path: string;
  rows: number;
  rowGroups: number;
  bytes: number;
}

/** A value that could not be written, told by table, column and row key (the caller turns it into a HermeticError). */
export class RowProblem extends Error {
  constructor(readonly column: string, readonly key: string, readonly why: string) {
    super(`${column} of ${key}: ${why}`);
  }
}

let serial = 0;

/**
 * Puts a complete temporary file in its place so that it stays there, whole, through a power loss too: its bytes are
 * flushed before the rename (else the new name can point at an empty file after a crash of the machine), and the
 * folder after it (the rename itself). A folder that cannot be flushed (some file systems refuse) is left to the OS.
 */
export function durableRename(tmp: string, path: string): void {
  syncPath(tmp);
  renameSync(tmp, path);
  try {
    syncPath(dirname(path));
  } catch {
    // EISDIR/EINVAL/EPERM where folders cannot be opened or flushed: the rename is as durable as the OS makes it
  }
}

/** The hidden name a file is written under before it is renamed into place (`.data.parquet.<pid>-<n>.tmp`). */
export function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${++serial}.tmp`);
}

/**
 * Writes `rows` (arrays in `columns` order, as SQLite returns them with `.raw()`) to `path`; `keyOf` names a row in
 * an error. Nothing is left at `path` but a complete file: on any failure the temporary file is removed.
 * @example writeParquetFile('/out/sessions/data.parquet', exportColumns(SESSIONS), stmt.raw().iterate(), { 'hermetic.table': 'sessions' })
 */
export function writeParquetFile(
  path: string,
  columns: readonly ExportColumn[],
  rows: Iterable<unknown[]>,
  metadata: Record<string, string> | (() => Record<string, string>),
  keyOf: (row: unknown[]) => string,
  budget: RowGroupBudget = DEFAULT_BUDGET,
): WrittenFile {
  const tmp = temporaryName(path);
  try {
    const writer = new ParquetWriter({
      writer: fileWriter(tmp),
      schema: [{ name: 'root', num_children: columns.length }, ...columns.map((c) => c.element)],
      createdBy: 'hermetic (hyparquet-writer)',
    });
    const n = columns.length;
    let buffers: unknown[][] = columns.map(() => []);
    let count = 0;
    let bytes = 0;
    let total = 0;
    let groups = 0;
    const flush = () => {
      if (count === 0) return;
      writer.write({ columnData: columns.map((c, i) => ({ name: c.name, data: buffers[i]! })), rowGroupSize: count });
      total += count;
      groups++;
      buffers = columns.map(() => []);
      count = 0;
      bytes = 0;
    };
    for (const row of rows) {
      for (let i = 0; i < n; i++) {
        const raw = row[i];
        let value: unknown;
        try {
          value = columns[i]!.convert(raw);
        } catch (e) {
          if (e instanceof ValueProblem) throw new RowProblem(columns[i]!.name, keyOf(row), e.message);
          throw e;
        }
        buffers[i]!.push(value);
        bytes += typeof raw === 'string' ? raw.length : 8;
      }
      count++;
      if (count >= budget.rows || bytes >= budget.bytes) flush();
    }
    flush();
    // Key-value metadata is written with the footer: a function may sum up the rows it has seen.
    writer.kvMetadata = Object.entries(typeof metadata === 'function' ? metadata() : metadata).map(([key, value]) => ({ key, value }));
    writer.finish();
    durableRename(tmp, path);
    return { path, rows: total, rowGroups: groups, bytes: statSync(path).size };
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

// How each column of the dataset is typed in Parquet (decision 0037): times as TIMESTAMP (UTC, microseconds), local
// and UTC days as DATE, integers as INT64, costs as DOUBLE, text and JSON as UTF-8 strings; NULL allowed where the
// dataset allows it. Each column gets a converter from the value SQLite hands back to the value the writer takes.
import type { SchemaElement } from 'hyparquet';
import type { DatasetColumn, DatasetTable } from '../../dataset/columns.js';

export type ParquetKind = 'timestamp' | 'date' | 'int64' | 'double' | 'string';

/**
 * Columns that hold a point in time as epoch seconds (REAL, or INTEGER for the ledger's `at`). A test holds this list
 * to columns.ts: every exported column whose meaning says "epoch seconds" is here, and nothing else is.
 */
export const TIME_COLUMNS: ReadonlySet<string> = new Set([
  'started_at', 'ended_at', 'last_activity_at', 'created_at', 'first_seen', 'last_seen', 'observed_at', 'at',
  'dispatched_at', 'completed_at', 'updated_at', 'delivered_at',
]);

/** Columns that hold a day as `YYYY-MM-DD` text (the ledger's local and UTC days, `session_daily_usage.day`). */
export const DATE_COLUMNS: ReadonlySet<string> = new Set(['day', 'day_utc']);

/** A value the column cannot hold; the export stops (the caller says which table and row). */
export class ValueProblem extends Error {}

export interface ExportColumn {
  name: string;
  kind: ParquetKind;
  nullable: boolean;
  element: SchemaElement;
  /** SQLite's value → the writer's (bigint for INT64 and TIMESTAMP, days since the epoch for DATE). */
  convert(value: unknown): unknown;
}

export function kindOf(column: DatasetColumn): ParquetKind {
  if (TIME_COLUMNS.has(column.name)) return 'timestamp';
  if (DATE_COLUMNS.has(column.name)) return 'date';
  if (column.type === 'INTEGER') return 'int64';
  if (column.type === 'REAL') return 'double';
  return 'string'; // TEXT, and JSON kept as its text (parsed by the reader when wanted: json(col) in DuckDB)
}

const MICROS = 1_000_000;

/**
 * Epoch seconds (as SQLite holds them: a double, or an integer) → microseconds, to the nearest one. The whole
 * seconds and the fraction are taken apart first so no rounding of `x * 1e6` can move a value by a microsecond.
 * @example epochMicros(1700000000.1234564) // 1700000000123456n
 */
export function epochMicros(seconds: number): bigint {
  const whole = Math.floor(seconds);
  const micros = Math.round((seconds - whole) * MICROS); // seconds - whole is exact for any double
  return BigInt(whole) * 1_000_000n + BigInt(micros);
}

/** `YYYY-MM-DD` → days since 1970-01-01 (Parquet's DATE). */
export function epochDays(day: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) throw new ValueProblem(`"${day}" is not a YYYY-MM-DD day`);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999.
  const ms = new Date(0).setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const back = new Date(ms).toISOString().slice(0, 10);
  if (back !== day) throw new ValueProblem(`"${day}" is not a calendar day`);
  return ms / 86_400_000;
}

const describe = (v: unknown) => (typeof v === 'string' ? `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}` : typeof v === 'bigint' ? `${v}` : Buffer.isBuffer(v) ? 'a BLOB' : String(v));

function converter(kind: ParquetKind): (v: unknown) => unknown {
  switch (kind) {
    case 'timestamp':
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 9.2e12) return epochMicros(v);
        if (typeof v === 'bigint') return v * 1_000_000n;
        throw new ValueProblem(`${describe(v)} is not a time in epoch seconds`);
      };
    case 'date':
      return (v) => {
        if (typeof v === 'string') return epochDays(v);
        throw new ValueProblem(`${describe(v)} is not a YYYY-MM-DD day`);
      };
    case 'int64':
      return (v) => {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
        if (typeof v === 'bigint') return v;
        throw new ValueProblem(`${describe(v)} is not a whole number`);
      };
    case 'double':
      return (v) => {
        if (typeof v === 'number') return v;
        if (typeof v === 'bigint') return Number(v);
        throw new ValueProblem(`${describe(v)} is not a number`);
      };
    case 'string':
      return (v) => {
        if (typeof v === 'string') return v;
        // SQLite may hand back a number from a TEXT column only if one was stored there; it is kept as its text.
        if (typeof v === 'number' || typeof v === 'bigint') return String(v);
        throw new ValueProblem(`${describe(v)} is not text`);
      };
  }
}

function element(name: string, kind: ParquetKind, nullable: boolean): SchemaElement {
  const repetition_type = nullable ? 'OPTIONAL' : 'REQUIRED';
  switch (kind) {
    case 'timestamp':
      return { name, repetition_type, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
    case 'date':
      return { name, repetition_type, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'int64':
      return { name, repetition_type, type: 'INT64' };
    case 'double':
      return { name, repetition_type, type: 'DOUBLE' };
    case 'string':
      return { name, repetition_type, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
  }
}

/** The Parquet columns of a dataset table, in its column order. */
export function exportColumns(table: DatasetTable): ExportColumn[] {
  return table.columns.map((col) => {
    const kind = kindOf(col);
    const nullable = col.notNull !== true;
    const convert = converter(kind);
    return {
      name: col.name,
      kind,
      nullable,
      element: element(col.name, kind, nullable),
      convert: nullable ? (v: unknown) => (v === null || v === undefined ? null : convert(v)) : (v: unknown) => {
        if (v === null || v === undefined) throw new ValueProblem('NULL where the dataset allows none');
        return convert(v);
      },
    };
  });
}

/** What the manifest says of a column: its Parquet type and what DuckDB reads it as. */
export interface ManifestColumn {
  name: string;
  parquet: string;
  duckdb: string;
  nullable: boolean;
  dataset: string;
}

const NAMES: Record<ParquetKind, { parquet: string; duckdb: string }> = {
  timestamp: { parquet: 'INT64 TIMESTAMP(MICROS, UTC)', duckdb: 'TIMESTAMP WITH TIME ZONE' },
  date: { parquet: 'INT32 DATE', duckdb: 'DATE' },
  int64: { parquet: 'INT64', duckdb: 'BIGINT' },
  double: { parquet: 'DOUBLE', duckdb: 'DOUBLE' },
  string: { parquet: 'BYTE_ARRAY STRING (UTF-8)', duckdb: 'VARCHAR' },
};

export function manifestSchema(table: DatasetTable): ManifestColumn[] {
  return table.columns.map((col) => {
    const kind = kindOf(col);
    return { name: col.name, ...NAMES[kind], nullable: col.notNull !== true, dataset: col.type };
  });
}

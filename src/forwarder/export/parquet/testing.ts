// Test helpers for the Parquet export: the files read back by an independent reader (DuckDB), and the dataset's
// rows compared with them column by column, each compared as DuckDB types it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { DatasetTable } from '../../dataset/columns.js';
import { PARTITIONED } from './days.js';
import { kindOf, manifestSchema } from './schema.js';

export interface Duck {
  all(sql: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

export async function openDuck(): Promise<Duck> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection: DuckDBConnection = await instance.connect();
  return {
    all: async (sql) => (await connection.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[],
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** The table's files as one DuckDB relation (the day= folders as a `day` column). */
export function source(out: string, table: string): string {
  return PARTITIONED.has(table)
    ? `read_parquet(${quote(join(out, table, '**', '*.parquet'))}, hive_partitioning = true)`
    : `read_parquet(${quote(join(out, table, 'data.parquet'))})`;
}

/** The columns DuckDB sees, with their types, the table's own columns first (a partition's `day` after them). */
export async function duckTypes(duck: Duck, out: string, table: string): Promise<Array<[string, string]>> {
  const rows = await duck.all(`DESCRIBE SELECT * FROM ${source(out, table)}`);
  return rows.map((r) => [r.column_name as string, r.column_type as string]);
}

/** The types a table should have in DuckDB (from the manifest's schema). */
export function expectedTypes(table: DatasetTable): Array<[string, string]> {
  const own = manifestSchema(table).map((c): [string, string] => [c.name, c.duckdb]);
  return PARTITIONED.has(table.name) ? [...own, ['day', 'DATE']] : own;
}

/**
 * Each column as a plain value to compare: a time as epoch microseconds (BIGINT), a day as its text; the rest as
 * DuckDB returns it (BIGINT → bigint, DOUBLE → number, VARCHAR → string, NULL → null).
 */
export function plainColumns(table: DatasetTable): string {
  return table.columns
    .map((c) => {
      const kind = kindOf(c);
      if (kind === 'timestamp') return `epoch_us("${c.name}") AS "${c.name}"`;
      if (kind === 'date') return `strftime("${c.name}", '%Y-%m-%d') AS "${c.name}"`;
      return `"${c.name}"`;
    })
    .join(', ');
}

/**
 * Asserts a dataset row and the row DuckDB read are the same, column by column: integers equal, doubles identical,
 * text identical, NULL where NULL, a time within half a microsecond of the epoch seconds (the nearest microsecond).
 */
export function assertSameRow(table: DatasetTable, fromDataset: Record<string, unknown>, fromParquet: Record<string, unknown>, where: string): void {
  for (const c of table.columns) {
    const want = fromDataset[c.name];
    const got = fromParquet[c.name];
    const at = `${table.name}.${c.name} of ${where}`;
    if (want === null || want === undefined) {
      assert.equal(got, null, `${at}: NULL in the dataset`);
      continue;
    }
    switch (kindOf(c)) {
      case 'timestamp': {
        assert.equal(typeof got, 'bigint', at);
        const micros = Number(got);
        // |micros - x·1e6| ≤ 0.5 µs, with x·1e6's own rounding (≤ 0.25 at today's epoch) allowed for.
        assert.ok(Math.abs(micros - (want as number) * 1e6) <= 0.75, `${at}: ${micros} µs for ${want} s`);
        break;
      }
      case 'int64':
        assert.equal(got, BigInt(want as number), at);
        break;
      case 'double':
        assert.ok(Object.is(got, want), `${at}: ${String(got)} for ${String(want)}`);
        break;
      default:
        assert.equal(got, want, at);
    }
  }
}

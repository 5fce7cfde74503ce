// Test and bench helpers for the fleet store: a dataset's shipped tables as one DeltaBatch (what a first shipment of
// a backfill carries), and a table's rows read back from the dataset and from PostgreSQL in one comparable form.
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { DatasetTable, RecordOf } from '../../../dataset/columns.js';
import type { DeltaBatch, Origin, ShippedTable } from '../../remote/contract.js';
import { SHIPPED_TABLES } from '../schema.js';
import { groupedToolCallsSql } from '../tool-calls.js';
import { pgValue } from '../write.js';
import { FAILED_COLUMN, TOOL_ERROR_FUNCTION } from '../../../dataset/tool-error.js';
import { TERMINAL_TOOL } from '../../../dataset/program.js';
import { quoteName as q } from '../../../../shared/sql-name.js';

/** Every row of the dataset's shipped tables as upserts of one batch (fromSeq, toSeq]. */
export function datasetBatch(datasetPath: string, origin: Origin, toSeq = 1, fromSeq = 0): DeltaBatch {
  const db = new Database(datasetPath, { readonly: true });
  try {
    const upserts = SHIPPED_TABLES.map((t) => ({ table: t.name as ShippedTable, rows: db.prepare(`SELECT * FROM ${q(t.name)}`).all() as RecordOf[] }));
    return { origin, fromSeq, toSeq, upserts, deletes: [] };
  } finally {
    db.close();
  }
}

const keyText = (t: DatasetTable, r: RecordOf) => JSON.stringify(t.primaryKey.map((k) => r[k]));
const byKey = (t: DatasetTable) => (a: RecordOf, b: RecordOf) => { const [x, y] = [keyText(t, a), keyText(t, b)]; return x < y ? -1 : x > y ? 1 : 0; };

/** A table's rows in the dataset, as PostgreSQL should hold them (U+0000 as U+FFFD), in key order. */
export function datasetRows(db: Database.Database, t: DatasetTable): RecordOf[] {
  const rows = db.prepare(`SELECT * FROM ${q(t.name)}`).all() as RecordOf[];
  return rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, pgValue(r[c.name])]))).sort(byKey(t));
}

/** A machine's rows of a table in PostgreSQL, the dataset's columns only, in key order. */
export async function fleetRows(pool: pg.Pool | pg.PoolClient, schema: string, t: DatasetTable, machineId: string): Promise<RecordOf[]> {
  const r = await pool.query(`SELECT ${t.columns.map((c) => q(c.name)).join(', ')} FROM ${q(schema)}.${q(t.name)} WHERE machine_id = $1`, [machineId]);
  return (r.rows as RecordOf[]).sort(byKey(t));
}

/**
 * What the fleet's kept `tool_calls` (decision 0099) holds that the grouping of its `parts` does not (`extra`), and
 * the other way round (`missing`): both empty when the triggers kept it; null where the schema has no such table.
 */
export async function toolCallsDrift(pool: pg.Pool | pg.PoolClient, schema: string): Promise<{ extra: RecordOf[]; missing: RecordOf[] } | null> {
  if ((await pool.query('SELECT to_regclass($1) AS t', [`${q(schema)}.tool_calls`])).rows[0].t === null) return null;
  const cols = 'machine_id, store, session_id, encode(call_key, \'hex\') AS call_key, call_id, tool, called, answered';
  const kept = `SELECT ${cols} FROM ${q(schema)}.tool_calls`;
  const grouped = `SELECT ${cols} FROM (${groupedToolCallsSql(`${q(schema)}.parts p`)}) g`;
  const [extra, missing] = await Promise.all([`${kept} EXCEPT ALL ${grouped}`, `${grouped} EXCEPT ALL ${kept}`].map(async (sql) => (await pool.query(sql)).rows as RecordOf[]));
  return { extra: extra!, missing: missing! };
}

/**
 * The parts whose stored verdict (`parts.failed`, fleet schema version 12, decision 0167) is not what the fleet's rule
 * says of them now: none when PostgreSQL kept it through every write; null where the schema has no such column.
 */
export async function verdictDrift(pool: pg.Pool | pg.PoolClient, schema: string): Promise<RecordOf[] | null> {
  const has = await pool.query('SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped', [`${q(schema)}.parts`, FAILED_COLUMN]);
  if (has.rows.length === 0) return null;
  const rule = `CASE WHEN part_type = 'tool_result' AND tool_name = '${TERMINAL_TOOL}' THEN ${q(schema)}.${TOOL_ERROR_FUNCTION}(content_text) END`;
  return (await pool.query(`SELECT machine_id, store, session_id, part_id, ${FAILED_COLUMN} AS stored, ${rule} AS judged FROM ${q(schema)}.parts WHERE ${FAILED_COLUMN} IS DISTINCT FROM ${rule}`)).rows as RecordOf[];
}

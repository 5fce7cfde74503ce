// Test and bench helpers for the fleet store: a dataset's shipped tables as one DeltaBatch (what a first shipment of
// a backfill carries), and a table's rows read back from the dataset and from PostgreSQL in one comparable form.
import Database from 'better-sqlite3';
import type pg from 'pg';
import type { DatasetTable, RecordOf } from '../../../dataset/columns.js';
import type { DeltaBatch, Origin, ShippedTable } from '../../remote/contract.js';
import { SHIPPED_TABLES, q } from '../schema.js';
import { pgValue } from '../write.js';

/** Every row of the dataset's shipped tables as upserts of one batch (fromSeq, toSeq]. */
export function datasetBatch(datasetPath: string, origin: Origin, toSeq = 1, fromSeq = 0): DeltaBatch {
  const db = new Database(datasetPath, { readonly: true });
  try {
    const upserts = SHIPPED_TABLES.map((t) => ({ table: t.name as ShippedTable, rows: db.prepare(`SELECT * FROM "${t.name}"`).all() as RecordOf[] }));
    return { origin, fromSeq, toSeq, upserts, deletes: [] };
  } finally {
    db.close();
  }
}

const keyText = (t: DatasetTable, r: RecordOf) => JSON.stringify(t.primaryKey.map((k) => r[k]));
const byKey = (t: DatasetTable) => (a: RecordOf, b: RecordOf) => { const [x, y] = [keyText(t, a), keyText(t, b)]; return x < y ? -1 : x > y ? 1 : 0; };

/** A table's rows in the dataset, as PostgreSQL should hold them (U+0000 as U+FFFD), in key order. */
export function datasetRows(db: Database.Database, t: DatasetTable): RecordOf[] {
  const rows = db.prepare(`SELECT * FROM "${t.name}"`).all() as RecordOf[];
  return rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, pgValue(r[c.name])]))).sort(byKey(t));
}

/** A machine's rows of a table in PostgreSQL, the dataset's columns only, in key order. */
export async function fleetRows(pool: pg.Pool | pg.PoolClient, schema: string, t: DatasetTable, machineId: string): Promise<RecordOf[]> {
  const r = await pool.query(`SELECT ${t.columns.map((c) => q(c.name)).join(', ')} FROM ${q(schema)}.${q(t.name)} WHERE machine_id = $1`, [machineId]);
  return (r.rows as RecordOf[]).sort(byKey(t));
}

// Creates and migrates the fleet schema in one transaction under a transaction-scoped advisory lock, so forwarders
// starting at once take turns: the first migrates, the others find it done. A schema a newer Hermetic migrated
// further is refused (fatal), never changed.
import type { PoolClient } from 'pg';
import { SinkError } from '../remote/contract.js';
import { MIGRATIONS, SCHEMA_VERSION, missingColumns, q } from './schema.js';

/** The advisory lock's first key: "HRMT"; the second is the schema name's hash, so schemas migrate independently. */
export const LOCK_KEY = 0x48524d54;

/**
 * Brings `schema` to SCHEMA_VERSION; resolves with the version it found (0: it was new).
 * @example await migrate(client, 'hermetic')
 */
export async function migrate(client: PoolClient, schema: string): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_KEY, schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${q(schema)}.schema_version (version integer PRIMARY KEY, doc text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const found = Number((await client.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${q(schema)}.schema_version`)).rows[0].v);
    if (found > SCHEMA_VERSION) {
      throw new SinkError('HERMETIC_SINK_SCHEMA', `The schema "${schema}" was migrated to version ${found} by a newer Hermetic (this one knows ${SCHEMA_VERSION}); upgrade this forwarder, or give it another schema (?schema=NAME).`, false);
    }
    for (const m of MIGRATIONS) {
      if (m.version <= found) continue;
      for (const sql of m.sql(schema)) await client.query(sql);
      await client.query(`INSERT INTO ${q(schema)}.schema_version (version, doc) VALUES ($1, $2)`, [m.version, m.doc]);
    }
    const cols = await client.query<{ table_name: string; column_name: string }>('SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1', [schema]);
    const have = new Map<string, Set<string>>();
    for (const r of cols.rows) (have.get(r.table_name) ?? have.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
    for (const sql of missingColumns(schema, have)) await client.query(sql);
    await client.query('COMMIT');
    return found;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

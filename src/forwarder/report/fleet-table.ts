// Whether this role may read a table a later fleet schema version added (decision 0102). A role granted SELECT on the
// schema's tables gets no right on a table a migration adds afterwards, so each reader of such a table asks first and
// falls back, or says which GRANT to run, instead of meeting PostgreSQL's permission error. No pg at run time: the
// dataset's report imports it.
import type pg from 'pg';
import { quoteName as q } from '../../shared/sql-name.js';

/** Whether this role may read a table of the fleet schema: `absent` (an older fleet), or `denied` with the GRANT to run. */
export type FleetTable = { state: 'readable' } | { state: 'absent' } | {
  state: 'denied';
  /** What the schema's owner runs: SELECT on the table, and on the tables later versions add (default privileges). */
  grant: string;
};

/**
 * A table a later fleet schema version added, as this role meets it (decision 0102): a role granted SELECT on the
 * schema's tables before a migration added one has no right on it (no grant follows a new table by itself).
 */
export async function fleetTable(client: pg.PoolClient, schema: string, table: string): Promise<FleetTable> {
  const name = `${q(schema)}.${q(table)}`;
  const r = (await client.query(`SELECT to_regclass($1) IS NOT NULL AS here, CASE WHEN to_regclass($1) IS NOT NULL THEN has_table_privilege(to_regclass($1), 'SELECT') END AS may, quote_ident(current_user) AS role`, [name])).rows[0] as { here: boolean; may: boolean | null; role: string };
  if (!r.here) return { state: 'absent' };
  return r.may === true ? { state: 'readable' } : { state: 'denied', grant: `GRANT SELECT ON ${name} TO ${r.role}; ALTER DEFAULT PRIVILEGES IN SCHEMA ${q(schema)} GRANT SELECT ON TABLES TO ${r.role}` };
}

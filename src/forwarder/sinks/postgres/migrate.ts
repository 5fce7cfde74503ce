// Creates and migrates the fleet schema in one transaction under a transaction-scoped advisory lock, so forwarders
// starting at once take turns: the first migrates, the others find it done. A schema a newer Hermetic migrated
// further is refused (fatal), never changed.
import type { PoolClient } from 'pg';
import { SinkError } from '../remote/contract.js';
import { MIGRATIONS, SCHEMA_VERSION, SHIPPED_TABLES, createTable, failedColumn, missingColumns } from './schema.js';
import { FLEET_TOOL_CALLS, toolCallsSchema } from './tool-calls.js';
import { FAILED_COLUMN, storedVerdictSql } from '../../dataset/tool-error.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/** The advisory lock's first key: "HRMT"; the second is the schema name's hash, so schemas migrate independently. */
const LOCK_KEY = 0x48524d54;

/**
 * Brings `schema` to SCHEMA_VERSION; resolves with the version it found (0: it was new).
 * @example await migrate(client, 'hermetic')
 */
export async function migrate(client: PoolClient, schema: string): Promise<number> {
  await refuseNarrowEncoding(client);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_KEY, schema]);
    // Looked at first, without DDL: a role given only the rights to write rows (the schema made by its owner) can
    // ship, as CREATE … IF NOT EXISTS needs the right to create even when there is nothing to create.
    const made = (await client.query('SELECT to_regclass($1) IS NOT NULL AS made', [`${q(schema)}.schema_version`])).rows[0].made === true;
    let found = made ? Number((await client.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${q(schema)}.schema_version`)).rows[0].v) : 0;
    if (found > SCHEMA_VERSION) {
      throw new SinkError('HERMETIC_SINK_SCHEMA', `The schema "${schema}" was migrated to version ${found} by a newer Hermetic (this one knows ${SCHEMA_VERSION}); upgrade this forwarder, or give it another schema (?schema=NAME).`, false);
    }
    if (!made) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${q(schema)}.schema_version (version integer PRIMARY KEY, doc text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      found = 0;
    }
    for (const m of MIGRATIONS) {
      if (m.version <= found) continue;
      for (const sql of m.sql(schema)) await client.query(sql);
      await client.query(`INSERT INTO ${q(schema)}.schema_version (version, doc) VALUES ($1, $2)`, [m.version, m.doc]);
    }
    for (const sql of missingColumns(schema, await columnsOf(client, schema))) await client.query(sql);
    // `parts.failed` made or altered by hand (a plain column, another expression): made again by the rule.
    if (await verdictMadeByHand(client, schema)) for (const sql of [`ALTER TABLE ${q(schema)}.parts DROP COLUMN ${FAILED_COLUMN}`, failedColumn(schema)]) await client.query(sql);
    // `tool_calls` dropped by hand: made and filled again (its triggers skip writing while it is gone).
    if (await toolCallsGone(client, schema)) for (const sql of toolCallsSchema(schema)) await client.query(sql);
    await client.query('COMMIT');
    return found;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * A database whose encoding is not UTF8 refuses, fatally, the first batch holding text it cannot encode (an emoji in
 * LATIN1), perhaps days after its first: said at open instead. SQL_ASCII stores the UTF-8 bytes it is sent, as sent.
 */
async function refuseNarrowEncoding(client: PoolClient): Promise<void> {
  const encoding = String((await client.query("SELECT current_setting('server_encoding') AS e")).rows[0].e);
  if (encoding === 'UTF8' || encoding === 'SQL_ASCII') return;
  throw new SinkError('HERMETIC_SINK_SCHEMA', `The database's encoding is ${encoding}, which cannot hold every text Hermes stores (titles and tool output in any script); the fleet store needs a UTF8 database (CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0).`, false);
}

/**
 * Creates the shipped tables the schema lacks (dropped by hand), in the caller's transaction, under the migrations'
 * lock: a snapshot's first batch then brings back all of this machine's rows, which a log batch cannot (it holds only
 * what changed). Nothing is created, and no right to create is needed, when every table is there.
 */
export async function createMissingTables(client: PoolClient, schema: string): Promise<void> {
  const have = await columnsOf(client, schema);
  const gone = await toolCallsGone(client, schema);
  if (SHIPPED_TABLES.every((t) => have.has(t.name)) && !gone) return;
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_KEY, schema]);
  // A `parts` made again brings its tool calls' triggers and table (createTable); a `tool_calls` gone alone is made again.
  for (const t of SHIPPED_TABLES) if (!have.has(t.name)) for (const sql of createTable(schema, t)) await client.query(sql);
  // A `parts` made again has its stored verdicts too (fleet schema version 12; its rule is there: the schema is current).
  if (!have.has('parts')) await client.query(failedColumn(schema));
  if (have.has('parts') && gone) for (const sql of toolCallsSchema(schema)) await client.query(sql);
}

/**
 * Whether the fleet's `tool_calls` (decision 0099) is gone while `parts` is there. Asked of the catalogue, not of
 * information_schema, which hides a table from a role with no right on it (a role that may only write the shipped
 * tables needs none on this one: its triggers write it as their owner).
 */
async function toolCallsGone(client: PoolClient, schema: string): Promise<boolean> {
  const r = await client.query('SELECT to_regclass($1) IS NOT NULL AS parts, to_regclass($2) IS NOT NULL AS calls', [`${q(schema)}.parts`, `${q(schema)}.${FLEET_TOOL_CALLS}`]);
  return r.rows[0].parts === true && r.rows[0].calls !== true;
}

/**
 * Whether `parts` has a `failed` column PostgreSQL does not generate by the rule (decision 0170): a plain column or
 * another expression put there by hand, which no writer keeps and a report would read as the stored verdicts.
 */
async function verdictMadeByHand(client: PoolClient, schema: string): Promise<boolean> {
  const parts = `${q(schema)}.parts`;
  const r = await client.query(`SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = '${FAILED_COLUMN}' AND NOT attisdropped)
    AND NOT ${storedVerdictSql('$1')} AS hand`, [parts]);
  return r.rows[0].hand === true;
}

/** The schema's tables and their columns. */
async function columnsOf(client: PoolClient, schema: string): Promise<Map<string, Set<string>>> {
  const cols = await client.query<{ table_name: string; column_name: string }>('SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1', [schema]);
  const have = new Map<string, Set<string>>();
  for (const r of cols.rows) (have.get(r.table_name) ?? have.set(r.table_name, new Set()).get(r.table_name)!).add(r.column_name);
  return have;
}

// The fleet store's read side (issue 17 §2): `hermetic report|query --from postgres://…` open it here, run in one
// read-only, repeatable-read transaction with the fleet schema first on the search path, and close it. Failures are
// HermeticErrors with the password scrubbed: a store nobody answers at is HERMETIC_FLEET_UNAVAILABLE (there is no sink
// here to retry); refused credentials, a missing database or schema HERMETIC_FLEET_AUTH, _NO_DATABASE, _SCHEMA.
import type pg from 'pg';
import { HermeticError, type ErrorCode } from '../../../shared/errors.js';
import { postgresDialect } from '../../report/dialect.js';
import { fleetTable } from '../../report/fleet-table.js';
import { SinkError } from '../remote/contract.js';
import { toSinkError } from './errors.js';
import { createPool } from './pool.js';
import { postgresTarget, type PostgresTarget } from './url.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export { fleetTable, type FleetTable } from '../../report/fleet-table.js';

/** The fleet's code for each of the sink's (the same server, read instead of written); any other is FLEET_FAILED. */
const FLEET_CODES: Readonly<Record<string, ErrorCode>> = {
  HERMETIC_SINK_UNAVAILABLE: 'HERMETIC_FLEET_UNAVAILABLE', HERMETIC_SINK_AUTH: 'HERMETIC_FLEET_AUTH',
  HERMETIC_SINK_NO_DATABASE: 'HERMETIC_FLEET_NO_DATABASE', HERMETIC_SINK_SCHEMA: 'HERMETIC_FLEET_SCHEMA',
};

/** A SinkError as the CLI prints it: the fleet's code (there is no sink here) and its sentence. */
function asHermetic(e: SinkError): HermeticError {
  return new HermeticError(FLEET_CODES[e.code] ?? 'HERMETIC_FLEET_FAILED', e.message);
}

/** A driver or server error met reading the fleet store at `target`, as the CLI prints it (password scrubbed). */
export function fleetError(e: unknown, target: PostgresTarget): HermeticError {
  return e instanceof HermeticError ? e : permissionDenied(e, target) ?? asHermetic(toSinkError(e, target.display, target.secrets, true));
}

/**
 * PostgreSQL's refusal of a table or the schema to this role (42501), with what the schema's owner runs to grant it
 * (decision 0102): the readers that know a table may be missing a grant ask first (report/fleet-table.ts); this is
 * for the rest: a role granted nothing on a table every version has. (`query --from` keeps the server's words: the
 * statement is the user's own, its tables anywhere.)
 */
export function permissionDenied(e: unknown, target: PostgresTarget): HermeticError | null {
  const err = (e ?? {}) as { code?: unknown; message?: unknown };
  if (err.code !== '42501') return null;
  const said = typeof err.message === 'string' ? err.message : '';
  const user = typeof target.config.user === 'string' && target.config.user !== '' ? target.config.user : null;
  const role = user === null ? 'the role in the URL' : /^[a-z_][a-z0-9_$]*$/.test(user) ? user : q(user);
  const table = /permission denied for (?:table|relation|view) "?([^"\s]+)"?/.exec(said)?.[1];
  const grant = table !== undefined ? `GRANT SELECT ON ${q(target.schema)}.${q(table)} TO ${role}`
    : /permission denied for schema/.test(said) ? `GRANT USAGE ON SCHEMA ${q(target.schema)} TO ${role}`
      : `GRANT USAGE ON SCHEMA ${q(target.schema)} TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA ${q(target.schema)} TO ${role}`;
  const what = table !== undefined ? `the fleet's ${table} table` : 'the fleet\'s schema';
  return new HermeticError('HERMETIC_FLEET_SCHEMA', `This role may not read ${what} (${target.display}); nothing was read. Have the schema's owner run: ${grant}; (and ALTER DEFAULT PRIVILEGES IN SCHEMA ${q(target.schema)} GRANT SELECT ON TABLES TO ${role}, for the tables later versions add).`);
}

type FleetFn<T> = (client: pg.PoolClient, dialect: ReturnType<typeof postgresDialect>, target: PostgresTarget) => Promise<T>;

/** How a read opens its transaction. */
export interface ReadOptions {
  /** Refuse a store without Hermetic's tables (default true). */
  requireSchema?: boolean;
  /**
   * Statements that make the read's own temporary tables (`ON COMMIT DROP`), run before the transaction turns
   * read-only: all or none (a savepoint), and none is no failure — a role without TEMP, or a standby, reads without
   * them. The read's statements find out by looking (`to_regclass('pg_temp.…')`).
   */
  scratch?: (dialect: ReturnType<typeof postgresDialect>) => readonly string[];
}

export interface FleetReader {
  readonly target: PostgresTarget;
  /**
   * Runs `fn` in one read-only, repeatable-read transaction (search_path: the schema, then public); with `scratch`
   * the transaction makes its temporary tables first, then turns read-only before `fn` runs.
   */
  read<T>(fn: FleetFn<T>, options?: ReadOptions): Promise<T>;
  close(): Promise<void>;
}

/**
 * The fleet store at `url` for many reads (`hermetic web --from`): a pool of `connections`, each read its own
 * transaction. Connection and server failures become HermeticErrors (HERMETIC_FLEET_*),
 * password scrubbed.
 * @example const fleet = openFleet('postgres://me@db/fleet'); await fleet.read(async (c) => (await c.query('SELECT 1')).rows); await fleet.close();
 */
export function openFleet(url: string, connections = 1): FleetReader {
  let target: PostgresTarget;
  try {
    target = postgresTarget(url);
  } catch (e) {
    throw e instanceof SinkError ? asHermetic(e) : e;
  }
  const pool = createPool(target, { max: connections });
  // An idle connection the server drops is removed by the pool; without a listener it would end the process.
  pool.on('error', () => undefined);
  const fail = (e: unknown) => fleetError(e, target);
  return {
    target,
    async read(fn, options = {}) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw fail(e);
      }
      const onError = () => { /* the query in flight fails with it */ };
      client.on('error', onError);
      // A connection that cannot even roll back is closed rather than handed to the next read.
      let broken = false;
      try {
        const dialect = postgresDialect(target.schema);
        const scratch = options.scratch?.(dialect) ?? [];
        // A read that makes temporary tables starts read-write and turns read-only once they are made (PostgreSQL
        // allows that turn at any point, and refuses CREATE in a read-only transaction, but not writes to a
        // temporary table); nothing of the fleet's is written before the turn.
        await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ${scratch.length > 0 ? '' : ' READ ONLY'}`).catch((e) => { throw fail(e); });
        if (options.requireSchema !== false) {
          if ((await fleetTable(client, target.schema, 'usage_ledger').catch((e) => { throw fail(e); })).state === 'absent') {
            throw new HermeticError('HERMETIC_FLEET_SCHEMA', `The fleet store ${target.display} has no "${target.schema}" schema with Hermetic's tables yet: run a forwarder with --sink ${target.display} first (or give ?schema=NAME).`);
          }
        }
        await client.query(`SET LOCAL search_path TO ${q(target.schema)}, public`).catch((e) => { throw fail(e); });
        if (scratch.length > 0) {
          await makeScratch(client, scratch).catch((e) => { throw fail(e); });
          await client.query('SET TRANSACTION READ ONLY').catch((e) => { throw fail(e); });
        }
        const out = await fn(client, dialect, target);
        // A read keeps nothing. One that made its tables ends by ROLLBACK: they gave it a transaction id and catalog
        // WAL, so a COMMIT would wait for a synchronous standby (forever, while it is down); an abort never waits.
        await client.query(scratch.length > 0 ? 'ROLLBACK' : 'COMMIT').catch(() => undefined);
        return out;
      } catch (e) {
        broken = await client.query('ROLLBACK').then(() => false, () => true);
        throw e instanceof HermeticError ? e : fail(e);
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    close: () => pool.end().catch(() => undefined),
  };
}

/**
 * Makes a read's temporary tables, all or none: a statement the server refuses (no TEMP privilege on the database, a
 * standby in recovery, a fleet schema without a table the statement reads) takes back the ones before it, and the
 * read goes on without them. A connection that fails is a failure of the read.
 */
async function makeScratch(client: pg.PoolClient, statements: readonly string[]): Promise<void> {
  await client.query('SAVEPOINT hermetic_scratch');
  try {
    for (const sql of statements) await client.query(sql);
    await client.query('RELEASE SAVEPOINT hermetic_scratch');
  } catch (e) {
    if (typeof (e as { code?: unknown }).code !== 'string') throw e;
    // A connection that cannot take the tables back (lost, or ended by the server: 57P01, a socket's ECONNRESET)
    // fails the read with its own cause, not the driver's word for the statement after it.
    await client.query('ROLLBACK TO SAVEPOINT hermetic_scratch').catch(() => { throw e; });
    await client.query('RELEASE SAVEPOINT hermetic_scratch');
  }
}

/**
 * Opens the fleet store at `url`, runs `fn` in a read-only transaction (search_path: the schema, then public), and
 * closes it. Connection and server failures become HermeticErrors (HERMETIC_FLEET_*),
 * password scrubbed.
 * @example await readFleet('postgres://me@db/fleet', async (client, dialect) => runPostgres(client, planTotals({}, dialect), dialect))
 */
export async function readFleet<T>(url: string, fn: FleetFn<T>, options: ReadOptions = {}): Promise<T> {
  const fleet = openFleet(url);
  try {
    return await fleet.read(fn, options);
  } finally {
    await fleet.close();
  }
}


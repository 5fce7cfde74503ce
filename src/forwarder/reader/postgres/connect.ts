// One short-lived, read-only PostgreSQL connection per pass (spec forwarding §6.3 item 19, as with SQLite): connect,
// BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY (every query sees one moment, and the server refuses any write),
// run, commit, close. Failures become HERMETIC_READER_PG_* with a sentence and never the password.
import pg from 'pg';
import { HermeticError, type ErrorCode } from '../../../shared/errors.js';
import { PASSWORD_PLACES, passwordMissing } from '../../../shared/url-password.js';
import { quoteName } from '../../../shared/sql-name.js';

export interface PgTarget {
  url: string;
  schema: string;
  /** The URL with the password redacted. */
  display: string;
}

/** int8 as a number (a bigint past 2^53, which better-sqlite3 binds exactly); everything else as pg parses it. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => { const n = Number(v); return Number.isSafeInteger(n) ? n : BigInt(v); };
    return (pg.types.getTypeParser as (o: number, f?: 'text' | 'binary') => (v: string) => unknown)(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

/**
 * What the server gave up that a later pass may not: statement_timeout or a cancel (57014), lock_timeout (55P03: Hermes
 * migrating holds its tables), a serialization failure or deadlock (40001, 40P01; on a standby, a conflict with
 * recovery), an idle transaction ended (25P03); and, by its class, 53xxx: out of connections or resources.
 */
const GAVE_UP = new Set(['57014', '55P03', '40001', '40P01', '25P03']);

const CONNECT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOENT']);

/** The password of a URL (decoded), to scrub from any message that might echo it. */
function passwordOf(url: string): string | null {
  try {
    const u = new URL(url);
    const p = u.password ? decodeURIComponent(u.password) : u.searchParams.get('password');
    return p ? p : null;
  } catch {
    return null;
  }
}

/** `e` as the source's failure (HermeticError), or `e` itself when it is neither PostgreSQL's nor the mirror's (a bug). */
export function pgFailure(target: PgTarget, e: unknown): unknown {
  if (e instanceof HermeticError) return e;
  const err = e as { code?: unknown; message?: unknown; name?: unknown };
  const raw = typeof err?.message === 'string' ? err.message : String(e);
  const password = passwordOf(target.url);
  const text = (password ? raw.split(password).join('***') : raw).split(target.url).join(target.display).replace(/\s+$/, '').replace(/\.$/, '');
  const code = typeof err?.code === 'string' ? err.code : '';
  const at = `PostgreSQL at ${target.display} (schema ${target.schema})`;
  const make = (c: ErrorCode, sentence: string) => new HermeticError(c, sentence);
  if (err?.name === 'SqliteError') return make('HERMETIC_DATASET_WRITE', `The local mirror of ${at} could not be written: ${text}; nothing was read this time.`);
  if (passwordMissing(e)) {
    return make('HERMETIC_READER_PG_AUTH', `${at} asks for a password and HERMES_DATABASE_URL gives none (${PASSWORD_PLACES}): ${text}. Nothing was read.`);
  }
  if (code === '28P01' || code === '28000') return make('HERMETIC_READER_PG_AUTH', `${at} refused the credentials of HERMES_DATABASE_URL: ${text}. Nothing was read.`);
  if (CONNECT.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '3D000' || /timeout|timed out|Connection terminated|connect/i.test(text) && !/^[0-9A-Z]{5}$/.test(code)) {
    return make('HERMETIC_READER_PG_CONNECT', `Cannot reach ${at}: ${text}. Nothing was read this time; the next pass tries again.`);
  }
  if (GAVE_UP.has(code) || code.startsWith('53')) {
    return make('HERMETIC_READER_PG_CONNECT', `${at} gave up a statement: ${text} (SQLSTATE ${code}). Nothing was read this time; the next pass tries again.`);
  }
  if (code === '3F000' || code === '42P01' || code === '42501' || code === '42703') {
    return make('HERMETIC_READER_PG_SCHEMA', `${at} holds no Hermes state this role can read: ${text}. Nothing was read.`);
  }
  if (/^[0-9A-Z]{5}$/.test(code)) return make('HERMETIC_READER_PG_SCHEMA', `${at} could not be read: ${text} (SQLSTATE ${code}). Nothing was read.`);
  return e;
}

/**
 * Runs `fn` in one read-only, repeatable-read transaction on a fresh connection, then closes it.
 * @example await readOnly(target, (c) => c.query('SELECT count(*) FROM "hermes_default_0123".sessions'))
 */
export async function readOnly<T>(target: PgTarget, fn: (client: pg.Client) => Promise<T>, options: { connectTimeoutMs?: number } = {}): Promise<T> {
  const client = new pg.Client({
    connectionString: target.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, query_timeout: 120_000,
    application_name: 'hermetic-forwarder', types: TYPES,
  });
  // A connection dropped while idle is reported by the query that needs it.
  client.on('error', () => {});
  try {
    try {
      await client.connect();
    } catch (e) {
      throw pgFailure(target, e);
    }
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    throw pgFailure(target, e);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The source's `schema_version` (what status shows), on a short read-only connection. Throws HERMETIC_READER_PG_*
 * when the server cannot be reached or holds no Hermes state in the schema.
 */
export async function pgSchemaVersion(target: PgTarget): Promise<number | null> {
  return readOnly(target, async (c) => {
    const s = quoteName(target.schema);
    if (!(await c.query('SELECT to_regclass($1) AS r', [`${s}.schema_version`])).rows[0]?.r) {
      throw Object.assign(new Error(`schema "${target.schema}" holds no schema_version table`), { code: '3F000' });
    }
    const v = (await c.query(`SELECT max(version) AS v FROM ${s}.schema_version`)).rows[0]?.v;
    return v === null || v === undefined ? null : Number(v);
  }, { connectTimeoutMs: 5000 });
}

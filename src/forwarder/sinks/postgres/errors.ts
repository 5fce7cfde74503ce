// What went wrong talking to PostgreSQL, as a SinkError a person can act on (decision 0036): retriable when waiting
// can fix it (the server unreachable, restarting, out of connections; a serialization failure or deadlock), fatal
// when only a person can (authentication, a missing database, a schema we cannot use, data refused). Every message
// is scrubbed: the password never appears, whatever the driver or server put in its text.
import { SinkError } from '../remote/contract.js';
import { PASSWORD_PLACES, passwordMissing } from '../../../shared/url-password.js';
import { redactUrl } from './url.js';
import { quoteName } from '../../../shared/sql-name.js';

/** Node socket errors that mean "not reachable now". */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED', 'ENOENT']);

/** `next`: what to do, where the code's usual advice does not fit. */
interface Class { code: string; retriable: boolean; say: string; next?: string }

/** What to do about a statement_timeout too short for the sink. */
const RAISE = 'raise it for the sink\'s role (ALTER ROLE name SET statement_timeout = \'5min\', or 0 for none; ALTER ROLE … IN DATABASE … for this database only)';

/**
 * A statement PostgreSQL cancelled at statement_timeout (57014 says "due to statement timeout"), not one an
 * administrator cancelled (57014 "due to user request", pg_cancel_backend). A server whose lc_messages is not English
 * words it otherwise: then it is an ordinary cancel, retried as before.
 */
export function isStatementTimeout(e: unknown): boolean {
  const err = (e ?? {}) as { code?: unknown; message?: unknown };
  return err.code === '57014' && typeof err.message === 'string' && /statement timeout/i.test(err.message);
}

/**
 * A statement of one row cancelled at statement_timeout: the sink cannot cut it smaller. `setting`: the connection's
 * statement_timeout and role, when they could be read.
 * @example throw rowTimeout(e, 'messages', { timeout: '50ms', role: 'fleet' }, display, secrets)
 */
export function rowTimeout(e: unknown, table: string, setting: { timeout: string; role: string } | null, display: string, secrets: readonly string[]): SinkError {
  const err = (e ?? {}) as { message?: unknown };
  const detail = scrub(typeof err.message === 'string' ? err.message : String(e), secrets);
  const now = setting ? ` (${setting.timeout} for the role ${setting.role})` : '';
  const raise = setting ? RAISE.replace('ALTER ROLE name', `ALTER ROLE ${quoteIdent(setting.role)}`) : RAISE;
  return new SinkError('HERMETIC_SINK_STATEMENT_TIMEOUT',
    `PostgreSQL cancelled the statement writing a single row of ${table} at its statement_timeout${now}: one row takes longer than the role allows (a trigger, a lock, a busy server), so smaller pieces cannot help; ${raise} (${display}): ${detail} [57014]; nothing of the batch was applied; it is kept and retried.`,
    true, { cause: e });
}

const quoteIdent = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : quoteName(name));

function classOf(e: { code?: unknown; message?: unknown }): Class {
  const code = typeof e.code === 'string' ? e.code : '';
  const text = typeof e.message === 'string' ? e.message : '';
  // "not queryable": pg's answer to a query on a connection the server already ended (its reason came as an event).
  if (NETWORK.has(code) || /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection ended unexpectedly|server closed the connection|not queryable/i.test(text)) {
    return { code: 'HERMETIC_SINK_UNAVAILABLE', retriable: true, say: 'PostgreSQL could not be reached or dropped the connection' };
  }
  if (code === '40001' || code === '40P01') return { code: 'HERMETIC_SINK_CONFLICT', retriable: true, say: 'PostgreSQL gave up the batch to resolve a conflict with another writer (a serialization failure or a deadlock)' };
  // lock_timeout: another writer held a row or table the batch needed for longer than the role allows.
  if (code === '55P03') return { code: 'HERMETIC_SINK_CONFLICT', retriable: true, say: 'PostgreSQL gave up waiting for a lock another writer held (lock_timeout)' };
  // A standby, or default_transaction_read_only: a failover may make it the primary, so it is tried again.
  if (code === '25006') return { code: 'HERMETIC_SINK_UNAVAILABLE', retriable: true, say: 'PostgreSQL takes no writes at this address (a standby, or default_transaction_read_only = on); point the sink at the primary, or wait for a failover' };
  if (code === '25P03' || code === '57P05') {
    return { code: 'HERMETIC_SINK_UNAVAILABLE', retriable: true, say: 'PostgreSQL ended a connection idle too long (idle_in_transaction_session_timeout or idle_session_timeout)' };
  }
  // statement_timeout (decision 0086): the sink halves the rows of a statement it cancelled; what reaches here is a
  // statement that carries no rows (the progress row's lock, a snapshot's first delete) or a row alone.
  if (isStatementTimeout(e)) return { code: 'HERMETIC_SINK_STATEMENT_TIMEOUT', retriable: true, say: `PostgreSQL cancelled a statement of the batch at its statement_timeout; ${RAISE}` };
  if (code === '57P01' || code === '57P02' || code === '57P03' || code === '57014' || code.startsWith('08') || code.startsWith('53') || code === '58000' || code === '58030') {
    return { code: 'HERMETIC_SINK_UNAVAILABLE', retriable: true, say: 'PostgreSQL is shutting down, starting, out of connections or resources, or cancelled the statement' };
  }
  // No password anywhere (URL, PGPASSWORD, ~/.pgpass) for a server that asks one by SCRAM: the driver's own error.
  if (passwordMissing(e)) return { code: 'HERMETIC_SINK_AUTH', retriable: false, say: 'PostgreSQL asks for a password and none was given', next: PASSWORD_PLACES };
  if (code === '28P01' || code === '28000') return { code: 'HERMETIC_SINK_AUTH', retriable: false, say: 'PostgreSQL refused the user name or password' };
  if (code === '3D000') return { code: 'HERMETIC_SINK_NO_DATABASE', retriable: false, say: 'the database in the URL does not exist' };
  if (code === '42P01') return { code: 'HERMETIC_SINK_SCHEMA', retriable: false, say: 'a table of the sink\'s schema is missing (dropped by hand?); `hermetic sinks remove URL`, then name the sink again, sends a new copy of this machine\'s rows that creates it again' };
  if (code.startsWith('42') || code === '3F000') return { code: 'HERMETIC_SINK_SCHEMA', retriable: false, say: 'PostgreSQL refused the sink\'s tables or statements (a missing permission, or a schema changed by hand)' };
  if (code.startsWith('22') || code.startsWith('23')) return { code: 'HERMETIC_SINK_REJECTED', retriable: false, say: 'PostgreSQL refused a row of the batch' };
  return { code: 'HERMETIC_SINK_FAILED', retriable: false, say: 'the PostgreSQL sink failed' };
}

/** Text with every secret (and any DSN password) replaced by ***. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s !== '') out = out.split(s).join('***');
  return redactUrl(out);
}

/**
 * A driver or server error as a SinkError: its class, a sentence with what to do, and the server's own words.
 * `reading`: the fleet store read by `report`/`query`/`web --from` (no batch to keep or retry).
 * @example throw toSinkError(e, target.display, target.secrets)
 */
export function toSinkError(e: unknown, display: string, secrets: readonly string[], reading = false): SinkError {
  if (e instanceof SinkError) return e;
  const err = (e ?? {}) as { code?: unknown; message?: unknown };
  const c = classOf(err);
  if (reading && c.code === 'HERMETIC_SINK_SCHEMA') c.say = 'PostgreSQL refused to read the fleet\'s tables (a missing permission, or a schema changed by hand)';
  if (reading && c.code === 'HERMETIC_SINK_FAILED') c.say = 'reading the fleet store failed';
  if (reading && c.code === 'HERMETIC_SINK_REJECTED') c.say = 'PostgreSQL refused a value of the query (a bug in Hermetic: please report it)';
  const detail = scrub(typeof err.message === 'string' && err.message !== '' ? err.message : String(e), secrets);
  const pgCode = typeof err.code === 'string' ? ` [${err.code}]` : '';
  const next = c.next !== undefined ? c.next : c.code === 'HERMETIC_SINK_AUTH' || c.code === 'HERMETIC_SINK_NO_DATABASE' ? 'fix the URL and try again'
    : reading ? (c.retriable ? 'nothing was read; try again when it answers' : 'nothing was read')
      : c.retriable ? 'the batch is kept and retried' : 'nothing of the batch was applied';
  return new SinkError(c.code, `${c.say} (${display}): ${detail}${pgCode}; ${next}.`, c.retriable);
}

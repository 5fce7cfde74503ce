// A URL as Hermetic prints it (sinks, sources, --from, errors): its password replaced by `***`, in the user info
// (scheme://user:***@host) and in a `password=` parameter; everything else kept as written (no normalisation, so
// the URL a person typed is the one they read back). `hideSecrets` adds Hermes's redactor, for free text.
import { redactSensitiveText } from './redact/index.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A URL's `scheme://`, what follows it up to its query or fragment, and that query or fragment; null without a scheme. */
function splitUrl(url: string): { scheme: string; head: string; tail: string } | null {
  const scheme = SCHEME.exec(url)?.[0];
  if (scheme === undefined) return null;
  const rest = url.slice(scheme.length);
  const end = rest.search(/[?#]/);
  return { scheme, head: end < 0 ? rest : rest.slice(0, end), tail: end < 0 ? '' : rest.slice(end) };
}

/**
 * The URL with its password shown as `***`. The user info ends at the last `@` before the query, so a password
 * holding an unencoded `@` or `/` is hidden whole (a path holding an `@` may hide more than the password: never less).
 * An OTLP URL's user without a password is hidden too: the sink sends it as Basic auth, and a collector that takes a
 * key alone has it written there (`otlp+https://KEY@collector`); a PostgreSQL user alone is a name, kept.
 * @example hidePassword('postgres://me:s3cret@db/fleet?sslmode=require') // 'postgres://me:***@db/fleet?sslmode=require'
 * @example hidePassword('otlp+https://k3y@otel.example.com') // 'otlp+https://***@otel.example.com'
 */
export function hidePassword(url: string): string {
  const u = splitUrl(url);
  let out = url;
  if (u !== null) {
    const at = u.head.lastIndexOf('@');
    const colon = u.head.indexOf(':');
    if (colon >= 0 && colon < at) out = `${u.scheme}${u.head.slice(0, colon)}:***@${u.head.slice(at + 1)}${u.tail}`;
    else if (at >= 0 && /^otlp\+/i.test(u.scheme) && !u.head.slice(0, at).includes('/')) out = `${u.scheme}***@${u.head.slice(at + 1)}${u.tail}`;
  } else {
    // Written without a scheme (`user:password@host/db`, a common slip): the same user info, at the start.
    out = url.replace(/^([^\s/?#:@]+):[^\s?#]*@/, '$1:***@');
  }
  return out.replace(/([?&]password=)[^&#\s]*/gi, '$1***');
}

/**
 * Why the URL's user info cannot be read as written (an `@` or `/` in a user or password must be percent-encoded, or
 * the host is read from inside the password), or null. Checked before anything connects.
 * @example userInfoProblem('postgres://me:p@ss/w@db/fleet') // 'its user or password holds an unencoded "@" or "/" …'
 */
export function userInfoProblem(url: string): string | null {
  const u = splitUrl(url);
  if (u === null) return null;
  const slash = u.head.indexOf('/');
  const authority = slash < 0 ? u.head : u.head.slice(0, slash);
  const lastAt = u.head.lastIndexOf('@');
  const split = authority.indexOf('@') !== authority.lastIndexOf('@') || (lastAt >= 0 && slash >= 0 && lastAt > slash && u.head.slice(0, lastAt).includes(':'));
  return split ? 'its user or password holds an unencoded "@" or "/": write them as %40 and %2F' : null;
}

/**
 * Text that may hold URLs (a URL, or a server's error message about one) with every password hidden: Hermes's
 * redactor (its DSN rule masks `scheme://user:password@` wherever it appears), then `hidePassword` for what that rule
 * leaves (a password with `@` or spaces in it, a `password=` parameter).
 * @example hideSecrets('connect to postgres://me:pw@db/x failed') // 'connect to postgres://me:***@db/x failed'
 */
export function hideSecrets(text: string): string {
  return hidePassword(redactSensitiveText(text) ?? '');
}

/**
 * Whether a PostgreSQL connection failed because the server asked for a password and none was given: no password in
 * the URL, PGPASSWORD or ~/.pgpass. The server's SCRAM exchange then ends in the driver with an error of its own that
 * has no SQLSTATE (a cleartext or md5 exchange gets the server's 28P01 instead), so it is told by its words.
 * @example passwordMissing(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string')) // true
 */
export function passwordMissing(e: unknown): boolean {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /^SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a (non-empty )?string/.test(message);
}

/** Where a PostgreSQL password may be given, said after `passwordMissing`. */
export const PASSWORD_PLACES = 'give it in the URL (postgres://user:PASSWORD@host/db), or in PGPASSWORD or ~/.pgpass';

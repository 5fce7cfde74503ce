// A PostgreSQL sink URL read once: pg's own connection-string parsing (sslmode, host=/socket, …), the schema
// (`?schema=NAME`, default `hermetic`) taken out of it, and the forms that may be shown: `display` (the URL with the
// password as ***) and `id` (kind, host, port, database and schema: no user, no password).
import { parse } from 'pg-connection-string';
import type { PoolConfig } from 'pg';
import { hideSecrets } from '../../../shared/url-password.js';
import { SinkError } from '../remote/contract.js';

export const DEFAULT_SCHEMA = 'hermetic';
/** A plain identifier: no quoting needed, at most 63 bytes (PostgreSQL's NAMEDATALEN - 1). */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresTarget {
  /** What pg.Pool takes (the schema left out). */
  config: PoolConfig;
  schema: string;
  display: string;
  id: string;
  /** Every secret a message might echo (the password, raw and URL-encoded): scrub() replaces them. */
  secrets: string[];
}

/** The URL (or a message holding one) with its password (userinfo or `?password=`) shown as ***. */
export const redactUrl = hideSecrets;

/**
 * Parses `postgres://` / `postgresql://` URLs; a refusal is a fatal SinkError (HERMETIC_SINK_URL) naming the problem.
 * @example postgresTarget('postgres://me@db.example/fleet?sslmode=require&schema=team')
 */
export function postgresTarget(url: string, schemaOption?: string): PostgresTarget {
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new SinkError('HERMETIC_SINK_URL', `A PostgreSQL sink URL starts with postgres:// or postgresql://; got ${JSON.stringify(redactUrl(url))}.`, false);
  }
  // pg keeps the last of a repeated parameter; for the schema, where the rows go, a second one is a mistake to say.
  const named = schemaParams(url);
  if (named > 1) {
    throw new SinkError('HERMETIC_SINK_URL', `The PostgreSQL URL ${redactUrl(url)} names its schema ${named} times; give ?schema= once.`, false);
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url);
  } catch (e) {
    throw new SinkError('HERMETIC_SINK_URL', `The PostgreSQL URL ${redactUrl(url)} cannot be read: ${(e as Error).message}.`, false);
  }
  const { schema: fromUrl, ...rest } = parsed as Record<string, unknown>;
  const schema = schemaOption ?? (typeof fromUrl === 'string' && fromUrl !== '' ? fromUrl : DEFAULT_SCHEMA);
  if (!IDENTIFIER.test(schema)) {
    throw new SinkError('HERMETIC_SINK_URL', `The schema name ${JSON.stringify(schema)} is not a plain PostgreSQL name: use lower-case letters, digits and _, starting with a letter or _, at most 63 characters.`, false);
  }
  const password = typeof rest.password === 'string' ? rest.password : '';
  const secrets = password === '' ? [] : [...new Set([password, encodeURIComponent(password)])];
  const config = { ...rest, port: rest.port ? Number(rest.port) : undefined, application_name: (rest.application_name as string | undefined) ?? 'hermetic' } as PoolConfig;
  if (config.port === undefined) delete config.port;
  const host = String(rest.host || 'localhost');
  const id = `postgres://${host}:${config.port ?? 5432}/${String(rest.database || rest.user || '')}?schema=${schema}`;
  return { config, schema, display: redactUrl(schemaOption === undefined || schemaOption === fromUrl ? url : withSchema(url, schema)), id, secrets };
}

/**
 * The URL naming `schema` in its query (an option given beside the URL, as a config file's `options.schema`, wins
 * over the URL's): two sinks on one database with different schemas never show alike, and what is shown is a URL that
 * means the same sink.
 */
function withSchema(url: string, schema: string): string {
  const { path, query } = splitQuery(url);
  const params = (query ?? '').split('&').filter((p) => p !== '' && !/^schema(=|$)/.test(p));
  return `${path}?${[...params, `schema=${schema}`].join('&')}`;
}

/** How many query parameters of a URL are named `schema` (percent-encoded names included). */
const schemaParams = (url: string): number => new URLSearchParams(splitQuery(url).query ?? '').getAll('schema').length;

/** A URL up to its query, and its query (null when it has none), the fragment left out. */
function splitQuery(url: string): { path: string; query: string | null } {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const q = base.indexOf('?');
  return q < 0 ? { path: base, query: null } : { path: base.slice(0, q), query: base.slice(q + 1) };
}

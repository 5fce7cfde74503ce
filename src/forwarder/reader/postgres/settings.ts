// Where a Hermes profile on the PostgreSQL backend keeps its state (decision 0038, read from Hermes's
// hermes_state_backend.py): the connection URL (HERMES_DATABASE_URL from the environment for the process's own home,
// else the profile's .env, else `database.url` in config.yaml) and the schema (`database.schema`, else
// `hermes_<profile>_<sha256 of the state.db path, 12 hex>`). Also the two names the forwarder shows: the store
// identity (no password, ever) and the connection as status prints it (password redacted).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import { realPathOf } from '../../../shared/real-path.js';
import { hideSecrets } from '../../../shared/url-password.js';

/** A PostgreSQL source: what to connect to (`url` holds the password: never print it) and what to call it. */
export interface PgSource {
  /** The connection URL as configured (secret). */
  url: string;
  /** The PostgreSQL schema holding the profile's tables. */
  schema: string;
  /** The store identity: `postgres://user@host:port/db#schema`, no password (it keys cursors and dataset rows). */
  identity: string;
  /** The connection for people: the URL with the password (and any password= parameter) as `***`. */
  display: string;
  /** Where the URL came from, for status (`HERMES_DATABASE_URL`, `<home>/.env`, `config.yaml database.url`). */
  from: string;
}

/** What one mirror refresh needs (reader/postgres/mirror.ts). */
export interface MirrorJob {
  /** The connection URL (secret). */
  url: string;
  schema: string;
  /** The store identity (no password), recorded in the mirror: another source's mirror is never reused. */
  identity: string;
  /** The URL with its password redacted, for messages. */
  display: string;
  /** The mirror file (in Hermetic's home). */
  file: string;
  /** The pass's time (epoch seconds, the forwarder's clock): paces the look for edits in place. */
  now: number;
  /** Sessions active within this many seconds before `now` are looked at for edits in place (pipeline/edits.ts). */
  editsWindow: number;
  /** Every session, the quieter ones too, is looked at once in this many seconds (pipeline/edits.ts SETTLED_INTERVAL). */
  settledEvery: number;
}

/** The refresh job of a discovered PostgreSQL store (its `file` set by the forwarder), at `now` (epoch seconds). */
export function mirrorJob(ref: { path: string; source?: PgSource | undefined; file?: string | undefined }, pace: Pick<MirrorJob, 'now' | 'editsWindow' | 'settledEvery'>): MirrorJob {
  if (!ref.source || !ref.file) throw new HermeticError('HERMETIC_INTERNAL', `The store ${ref.path} is not a PostgreSQL store with a mirror file.`);
  return { url: ref.source.url, schema: ref.source.schema, identity: ref.source.identity, display: ref.source.display, file: ref.file, ...pace };
}

/** The settings to resolve a profile's source from: its config's `database` mapping and the environment. */
export interface PgSettingsInput {
  hermesHome: string;
  /** `database` from the profile's config.yaml. */
  database: Record<string, unknown>;
  /** The environment (HERMES_DATABASE_URL, HERMES_HOME). */
  env?: NodeJS.ProcessEnv;
  /** The user's home, for the default Hermes home `~/.hermes`. */
  userHome?: string;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** `KEY=value` lines of a dotenv file (quotes, `export `, comments), as python-dotenv reads the simple cases. */
export function parseDotenv(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*export\s+/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.indexOf(q, 1) > 0) value = value.slice(1, value.indexOf(q, 1));
    else value = value.replace(/\s+#.*$/, '');
    out.set(key, value);
  }
  return out;
}

/** `<name>` for a `…/profiles/<name>` home, else `default` (Hermes's profile_name_for_home, or "default"). */
export function profileNameOf(hermesHome: string): string {
  const home = resolve(hermesHome);
  return basename(dirname(home)) === 'profiles' && basename(home) ? basename(home) : 'default';
}

/** The schema Hermes derives when config.yaml names none: `hermes_<profile>_<sha256(state.db path)[:12]>`. */
export function defaultSchema(hermesHome: string): string {
  const path = join(realPathOf(hermesHome), 'state.db');
  const profile = profileNameOf(hermesHome).toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 35);
  return `hermes_${profile}_${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

/** The URL with its password as `***` (Hermes's redactor, then what its DSN rule leaves). */
export const redactUrl = hideSecrets;

/** The identity of a source: scheme, user, host, port, database and schema; never the password or other parameters. */
export function sourceIdentity(url: URL, schema: string): string {
  const user = url.username ? `${url.username}@` : '';
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  return `postgres://${user}${host}:${port}/${db}#${schema}`;
}

/** The local mirror of a source in Hermetic's home: `<home>/mirrors/<sha256 of the identity, 16 hex>.db`. */
export function mirrorFile(hermeticHome: string, source: Pick<PgSource, 'identity'>): string {
  return join(hermeticHome, 'mirrors', `${createHash('sha256').update(source.identity).digest('hex').slice(0, 16)}.db`);
}

const fail = (message: string): never => { throw new HermeticError('HERMETIC_READER_PG_CONFIG', message); };

/**
 * The profile's PostgreSQL source. Throws HERMETIC_READER_PG_CONFIG (no URL, not a PostgreSQL URL, a bad schema).
 * @example pgSource({ hermesHome: '/home/u/.hermes', database: { backend: 'postgres' }, env: { HERMES_DATABASE_URL: 'postgres://h:pw@db/hermes' } })
 */
export function pgSource(input: PgSettingsInput): PgSource {
  const env = input.env ?? process.env;
  const home = resolve(input.hermesHome);
  const envFile = join(home, '.env');
  let url: string | undefined;
  let from = '';
  // Hermes: the process's HERMES_DATABASE_URL applies to the process's own home only; other profiles use their .env.
  const processHome = env.HERMES_HOME ? resolve(env.HERMES_HOME) : input.userHome ? join(resolve(input.userHome), '.hermes') : null;
  if (env.HERMES_DATABASE_URL?.trim() && processHome !== null && realPathOf(processHome) === realPathOf(home)) {
    url = env.HERMES_DATABASE_URL.trim();
    from = 'HERMES_DATABASE_URL';
  }
  if (!url && existsSync(envFile)) {
    let text = '';
    try { text = readFileSync(envFile, 'utf8'); } catch { /* unreadable: as if absent */ }
    const v = parseDotenv(text).get('HERMES_DATABASE_URL')?.trim();
    if (v) { url = v; from = envFile; }
  }
  if (!url && typeof input.database.url === 'string' && input.database.url.trim()) {
    url = input.database.url.trim();
    from = `${join(home, 'config.yaml')} database.url`;
  }
  if (!url) return fail(`${join(home, 'config.yaml')} selects the PostgreSQL backend, but no HERMES_DATABASE_URL was found (the environment, ${envFile}, or database.url in config.yaml); nothing was read from this profile.`);
  let parsed: URL;
  const where = from === 'HERMES_DATABASE_URL' ? 'the environment' : from;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`HERMES_DATABASE_URL from ${where} is not a URL (${redactUrl(url)}); give postgres://user:password@host:port/database.`);
  }
  if (!/^postgres(ql)?:$/i.test(parsed.protocol)) return fail(`HERMES_DATABASE_URL from ${where} is not a postgres:// or postgresql:// URL (${redactUrl(url)}).`);
  const configured = input.database.schema;
  if (configured !== undefined && configured !== null && (typeof configured !== 'string' || !SCHEMA.test(configured) || configured.startsWith('pg_'))) {
    return fail(`database.schema in ${join(home, 'config.yaml')} must be a lowercase PostgreSQL identifier of 1–63 characters not starting with pg_; got ${JSON.stringify(configured)}.`);
  }
  const schema = typeof configured === 'string' ? configured : defaultSchema(home);
  return { url, schema, identity: sourceIdentity(parsed, schema), display: redactUrl(url), from };
}

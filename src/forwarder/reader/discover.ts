// Where Hermes keeps its stores (spec state-db §2, forwarding §6.4 item 28): `$HERMES_HOME/state.db`,
// `~/.hermes/state.db`, every `profiles/<name>/state.db` under those homes, or the paths given with --state-db (a
// folder given there stands for the state.db in it).
// A profile whose config.yaml selects the PostgreSQL backend (§6.1 item 11) is a store whose rows come from PostgreSQL:
// its connection and schema are resolved here (postgres/settings.ts), its identity names the source, never a file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { realPathOf } from '../../shared/real-path.js';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { HermeticError, type ErrorCode } from '../../shared/errors.js';
import { HERMES_PROFILE_ID } from '../../state-db/home.js';
import { pgSource, type PgSource } from './postgres/settings.js';

/** The YAML parser, loaded the first time a config.yaml is there to read (most runs have none to parse). */
let yamlParse: ((text: string) => unknown) | null = null;
const parse = (text: string): unknown => (yamlParse ??= (createRequire(import.meta.url)('yaml') as { parse: (t: string) => unknown }).parse)(text);

export interface StoreRef {
  /**
   * The store's identity: the absolute path of the state.db (it may not exist yet), or for a PostgreSQL profile
   * `postgres://user@host:port/db#schema` (postgres/settings.ts; no password).
   */
  path: string;
  /** `default` for a Hermes root, the profile name under `profiles/`. */
  profile: string;
  /** The Hermes home the store belongs to (its folder). */
  hermesHome: string;
  backend: 'sqlite' | 'postgres';
  /** A sentence for status and the log when something is off (unreadable config, PostgreSQL backend). */
  warning: string | null;
  exists: boolean;
  /**
   * Why a SQLite store's path holds no store file, in words after the path, as the one look that set `exists` saw it
   * (a store appearing in between is not said to be something else): `does not exist`, or what is there instead.
   */
  absent?: string;
  /** A PostgreSQL profile's source (its URL holds the password: never print it). */
  source?: PgSource;
  /** The file the pipeline reads when it is not `path`: a PostgreSQL store's local mirror (set by the forwarder). */
  file?: string;
  /** Why the store cannot be read at all (a PostgreSQL profile with no usable connection), said in every pass. */
  problem?: { code: ErrorCode; message: string };
  /**
   * Set by the forwarder: a store file one of its passes found there, gone since (its state.db deleted, its profile
   * folder removed). A pass keeps it, as not there, so it is said once and read again when it comes back.
   */
  gone?: true;
}

export interface DiscoverOptions {
  /** The user's home (`~`). */
  home: string;
  /** `HERMES_HOME`, when set. */
  hermesHome?: string | undefined;
  /** Paths given with --state-db: only these are read. */
  explicit?: readonly string[];
  /** The environment, for a PostgreSQL profile's HERMES_DATABASE_URL (default process.env). */
  env?: NodeJS.ProcessEnv;
}

const isFile = (p: string) => { try { return statSync(p).isFile(); } catch { return false; } };
const isDir = (p: string) => { try { return statSync(p).isDirectory(); } catch { return false; } };

/** The backend a Hermes home's config.yaml selects (`database.backend`), read with a YAML parser. */
export function backendOf(hermesHome: string): { backend: 'sqlite' | 'postgres'; warning: string | null; database: Record<string, unknown> } {
  const config = join(hermesHome, 'config.yaml');
  if (!existsSync(config)) return { backend: 'sqlite', warning: null, database: {} };
  let doc: unknown;
  try {
    doc = parse(readFileSync(config, 'utf8'));
  } catch (e) {
    return { backend: 'sqlite', warning: `${config} could not be read as YAML (${(e as Error).message.split('\n')[0]}); assuming the SQLite backend`, database: {} };
  }
  const db = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).database : undefined;
  const database = db && typeof db === 'object' ? (db as Record<string, unknown>) : {};
  const backend = database.backend;
  if (typeof backend === 'string' && /^postgres(ql)?$/i.test(backend.trim())) return { backend: 'postgres', warning: null, database };
  return { backend: 'sqlite', warning: null, database };
}

function ref(path: string, profile: string, options: Pick<DiscoverOptions, 'env' | 'home'>): StoreRef {
  const hermesHome = dirname(path);
  const { backend, warning, database } = backendOf(hermesHome);
  if (backend === 'sqlite') {
    const { unreachable, ...file } = storeFile(path);
    // A folder on the way that cannot be entered (its mode changed under a running forward) hides the store: said as
    // that, not as a store that does not exist and is waited for.
    if (unreachable) {
      return { path, profile, hermesHome, backend, warning, exists: false, problem: { code: 'HERMETIC_READER_OPEN', message: `${path} cannot be reached: permission denied on ${dirname(path)} or a folder above it` } };
    }
    return { path, profile, hermesHome, backend, warning, ...file };
  }
  try {
    const source = pgSource({ hermesHome, database, env: options.env ?? process.env, userHome: options.home });
    return { path: source.identity, profile, hermesHome, backend, warning: null, exists: true, source };
  } catch (e) {
    if (!(e instanceof HermeticError)) throw e;
    return { path, profile, hermesHome, backend, warning: e.message, exists: false, problem: { code: e.code, message: e.message } };
  }
}

/**
 * Whether a SQLite store's path holds a store file, from one look at it; when not, why, in words after the path: it is
 * missing, or something other than a file (a folder named state.db, a device) is there.
 * @example const { exists, absent } = storeFile(path); if (!exists) say(`${path} ${absent}`);
 */
export function storeFile(path: string): Pick<StoreRef, 'exists' | 'absent'> & { unreachable?: true } {
  try {
    const st = statSync(path);
    if (st.isFile()) return { exists: true };
    return { exists: false, absent: st.isDirectory() ? 'is a folder, not the store file Hermes writes' : 'is not a regular file, so not a store Hermes writes' };
  } catch (e) {
    // `unreachable`: a folder on the way may not be entered (EACCES), so whether the store is there cannot be told.
    return (e as NodeJS.ErrnoException).code === 'EACCES' ? { exists: false, absent: 'does not exist', unreachable: true } : { exists: false, absent: 'does not exist' };
  }
}

/**
 * A --state-db path as a store: absolute, and a folder taken for the state.db in it (a Hermes home); but a folder named
 * state.db holding none is the store's own path, said as a folder where the file should be (not state.db/state.db).
 */
export function explicitStore(path: string): string {
  const p = resolve(path);
  if (!isDir(p)) return p;
  const inside = join(p, 'state.db');
  return basename(p) === 'state.db' && !existsSync(inside) ? p : inside;
}

/** Why a --state-db path names no store, in words, or null when it names one. */
export function explicitProblem(path: string): string | null {
  const p = resolve(path);
  const denied = (store: string) => `${store} cannot be reached: permission denied on ${dirname(store)} or a folder above it`;
  if (isDir(p)) {
    const inside = join(p, 'state.db');
    if (isFile(inside) || backendOf(p).backend === 'postgres') return null;
    // A folder that cannot be entered may hold a store: said as that, not as a folder without one.
    return storeFile(inside).unreachable ? denied(inside) : `${p} is a folder with no state.db in it`;
  }
  if (existsSync(p)) return null;
  return storeFile(p).unreachable ? denied(p) : `${p} does not exist`;
}

/** A folder Hermes lists as a profile (list_profiles): a profile id, not `default` (the name of the home itself). */
export const isProfileName = (name: string): boolean => HERMES_PROFILE_ID.test(name) && name !== 'default';

/** The profile a store path belongs to: `<root>/profiles/<name>/state.db` → name, else `default`. */
export function profileOf(path: string): string {
  const dir = dirname(path);
  return basename(dirname(dir)) === 'profiles' ? basename(dir) : 'default';
}

/**
 * The paths with each file or folder once, by where it really is: the first spelling wins (HERMES_HOME before
 * ~/.hermes, --state-db paths in their order), so a HERMES_HOME that is a link to ~/.hermes, or a store named twice
 * through a link, is one store and its usage is counted once.
 */
function once(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const real = realPathOf(p);
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

/**
 * The stores under the keys a dataset already knows them by: a store found through another spelling of the same file
 * (a HERMES_HOME that is a link to ~/.hermes in one shell and not in another, `--state-db` through a link) keeps the
 * key its rows were first written under, so one file is one store in the dataset whichever way a run names it.
 * @example spelledAsKnown(discoverStores(o), ['/home/u/.hermes/state.db'])
 */
export function spelledAsKnown(refs: readonly StoreRef[], known: readonly string[]): StoreRef[] {
  const found = new Set(refs.map((r) => r.path));
  const others = known.filter((k) => !found.has(k));
  if (others.length === 0) return [...refs];
  const byReal = new Map<string, string>();
  for (const k of others) {
    const real = realPathOf(k);
    if (!byReal.has(real)) byReal.set(real, k);
  }
  const keys = new Set(known);
  return refs.map((r) => {
    // A PostgreSQL store is named by its source; a spelling the dataset knows already stays as it is.
    if (r.source || keys.has(r.path)) return r;
    const key = byReal.get(realPathOf(r.path));
    // A state.db's Hermes home is its folder (ref() above): the kept key's, so its scopes are spelled as before too.
    return key === undefined ? r : { ...r, path: key, hermesHome: dirname(key), profile: profileOf(key) };
  });
}

/**
 * The Hermes homes searched when no --state-db is given, each once: HERMES_HOME (when set), then ~/.hermes.
 * @example storeRoots({ home: '/home/u' }) // ['/home/u/.hermes']
 */
export function storeRoots(options: Pick<DiscoverOptions, 'home' | 'hermesHome'>): string[] {
  return once([options.hermesHome, join(options.home, '.hermes')].filter((r): r is string => !!r).map((r) => resolve(r)));
}

/**
 * Every store to read, each once (however many links lead to it), in a stable order.
 * @example discoverStores({ home: '/home/u', hermesHome: '/srv/hermes' }) // HERMES_HOME comes from pipeline/stores.ts findStores
 */
export function discoverStores(options: DiscoverOptions): StoreRef[] {
  if (options.explicit && options.explicit.length > 0) {
    return once(options.explicit.map(explicitStore)).map((p) => ref(p, profileOf(p), options));
  }
  const roots = storeRoots(options);
  const out: StoreRef[] = [];
  for (const root of roots) {
    const main = ref(join(root, 'state.db'), 'default', options);
    if (main.exists || main.backend === 'postgres' || isDir(root)) out.push(main);
    const profiles = join(root, 'profiles');
    if (!isDir(profiles)) continue;
    let names: string[];
    try {
      names = readdirSync(profiles).sort();
    } catch (e) {
      // Not listable (its mode changed, or removed this instant): the profiles are not read this pass, and the home's
      // own store says why (a pass of a running forward must not fail on it).
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (e as Error).message;
        main.warning = [main.warning, `${profiles} cannot be listed (${why}): the profiles in it are not read`].filter(Boolean).join('; ');
        if (!out.includes(main)) out.push(main);
      }
      continue;
    }
    const unused: string[] = [];
    for (const name of names) {
      if (!isDir(join(profiles, name))) continue;
      // Hermes's own list of profiles (hermes_cli/profiles.py list_profiles) passes over a folder whose name is not a
      // profile id, and `default` (the home itself): never Hermes's store, often a copy (`work.bak`), read twice.
      if (!isProfileName(name)) {
        if (isFile(join(profiles, name, 'state.db'))) unused.push(name);
        continue;
      }
      const p = ref(join(profiles, name, 'state.db'), name, options);
      if (p.exists || p.backend === 'postgres' || p.problem) out.push(p);
    }
    if (unused.length > 0) {
      const which = unused.map((n) => join(profiles, n, 'state.db')).join(', ');
      const note = `not read: ${which} (Hermes uses no profile by ${unused.length === 1 ? 'that name' : 'those names'}: a profile is named with a-z, 0-9, _ and -, first a letter or digit, and not "default"); give --state-db to read ${unused.length === 1 ? 'it' : 'one'}`;
      main.warning = [main.warning, note].filter(Boolean).join('; '); // listed: its home is a folder
    }
  }
  // A profile folder that is a link to another store's folder is that store.
  const files = new Set(once(out.filter((r) => r.backend === 'sqlite').map((r) => r.path)));
  return out.filter((r) => r.backend !== 'sqlite' || files.has(r.path));
}

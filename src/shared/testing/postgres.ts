// A throwaway PostgreSQL server for tests and benches: Debian's `postgresql` package (.ci/run installs it), a cluster
// made with initdb in a temp dir, started with pg_ctl on a free TCP port (127.0.0.1) and a Unix socket in that dir,
// run as the `postgres` user when we are root. One cluster per process (sharedPostgres), one database per test.
// Stopped at process exit, whatever happens (an immediate shutdown; the temp dir removed).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PgCluster {
  /** A URL for the `postgres` database, with the password (tests only). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** The directory of the Unix socket (for `?host=` URLs and psql -h). */
  readonly socketDir: string;
  readonly binDir: string;
  /**
   * A new empty database, and its URL. Its text sorts by ICU's `en-US` collation, as on a server set up with a
   * language's locale (many are), not by bytes as the cluster's `C` and SQLite do: code that needs SQLite's order
   * must ask for it (decision 0122).
   */
  createDatabase(name?: string): string;
  /** Runs SQL with psql against a database (default `postgres`) and returns its unaligned, tuples-only output. */
  psql(sql: string, database?: string): string;
  /**
   * A login role `name` that may read every table of the `hermetic` schema of the database at `url` but `revoked` (as
   * a role granted before later versions added those tables), and the URL that connects as it.
   */
  readerRole(url: string, name: string, revoked: readonly string[]): string;
  /** Stops the server (`mode`: fast, the default, or immediate: a crash), keeping its data. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again on the same port. */
  start(): void;
  /** Stops it and removes its files (also done at process exit). */
  destroy(): void;
}

const PASSWORD = 'pg-test-secret';
const USER = 'hermetic';

/** The directory of initdb and pg_ctl: $HERMETIC_PG_BIN, else the newest /usr/lib/postgresql/<v>/bin. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HERMETIC_PG_BIN) return env.HERMETIC_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) {
    throw new Error('PostgreSQL is not installed: the tests need Debian\'s postgresql package (apt-get install postgresql; .ci/run installs it), or HERMETIC_PG_BIN naming a directory with initdb and pg_ctl.');
  }
  return join(root, versions[0]!, 'bin');
}

/** A TCP port nobody listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Runs a PostgreSQL program as the postgres user when we are root (initdb, pg_ctl and postgres refuse root), or as
 * ourselves with `asUs`: psql, a client, runs as root as well, and without runuser's start (about 20 ms of CPU, as
 * much as psql's own) on each of the couple of hundred psql calls of a test run (decision 0095).
 */
function runPg(bin: string, args: string[], options: { input?: string; asUs?: boolean } = {}): string {
  const [cmd, argv] = isRoot() && !options.asUs ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', input: options.input, timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${bin.split('/').pop()} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** A new cluster's files, with our user, password and settings. */
function initdb(binDir: string, data: string, pwfile: string): void {
  runPg(join(binDir, 'initdb'), ['-D', data, '-U', USER, '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C']);
}

/** A folder the postgres user may write in (ours when we are not root). */
function pgTempDir(parent: string): string {
  const dir = mkdtempSync(join(parent, 'hermetic-pg-'));
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/**
 * Under the test runner (HERMETIC_TEST=1, a temporary folder per run): one initdb'd data folder for the whole run,
 * which each cluster copies (about 0.4 s of CPU against initdb's 1.3; a dozen test files start clusters). The process
 * that takes the lock (a folder made beside it) makes it; the others, started at the same moment, wait for it; a lock
 * left without a template (its maker died) sends them to initdb of their own. The run's folder, and the template with
 * it, goes at its end. Elsewhere (benches, scripts) null: every cluster runs initdb.
 */
function templateCluster(binDir: string): string | null {
  if (process.env.HERMETIC_TEST !== '1') return null;
  const template = join(tmpdir(), `hermetic-pg-template-${binDir.replace(/[^A-Za-z0-9]+/g, '-')}`);
  const made = () => existsSync(join(template, 'PG_VERSION'));
  if (made()) return template;
  try {
    mkdirSync(`${template}.lock`);
  } catch {
    // Another process is making it: wait while its lock is there (an initdb takes seconds; a minute is a dead maker).
    const until = Date.now() + 60_000;
    while (!made() && existsSync(`${template}.lock`) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    return made() ? template : null;
  }
  const work = pgTempDir(tmpdir());
  try {
    const pwfile = join(work, 'pw');
    writeFileSync(pwfile, PASSWORD);
    if (isRoot()) chownSync(pwfile, statSync(work).uid, statSync(work).gid);
    initdb(binDir, join(work, 'data'), pwfile);
    renameSync(join(work, 'data'), template);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(`${template}.lock`, { recursive: true, force: true });
  }
  return template;
}

/** Makes and starts a new cluster; `settings` (`name=value`) are given to the server after the usual ones. */
export async function startPostgres(settings: readonly string[] = []): Promise<PgCluster> {
  const binDir = postgresBinDir();
  const dir = pgTempDir(tmpdir());
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, PASSWORD);
  if (isRoot()) chownSync(pwfile, statSync(dir).uid, statSync(dir).gid);
  const template = templateCluster(binDir);
  if (template === null) initdb(binDir, data, pwfile);
  else runPg('/bin/cp', ['-a', template, data]);
  const port = await freePort();
  // A throwaway server: no fsync, and none of the background work (autovacuum's visits to each test's database, WAL
  // kept for replicas) a test never looks at; about a tenth of its CPU (decision 0127). Commits stay synchronous: the
  // crash tests stop it with `immediate` and count what was acknowledged.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200 -c autovacuum=off -c wal_level=minimal -c max_wal_senders=0${settings.map((s) => ` -c ${s}`).join('')}`;
  let destroyed = false;
  const start = () => { runPg(join(binDir, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start']); };
  const stop = (mode: 'fast' | 'immediate' = 'fast') => { runPg(join(binDir, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']); };
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    spawnSync(isRoot() ? 'runuser' : join(binDir, 'pg_ctl'), isRoot() ? ['-u', 'postgres', '--', join(binDir, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', destroy);
  start();
  const psql = (sql: string, database = 'postgres') =>
    runPg(join(binDir, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-At', '-h', dir, '-p', String(port), '-U', USER, '-d', database], { input: sql, asUs: true });
  let n = 0;
  // A new database copies its template's files (PostgreSQL 15's FILE_COPY, before it the only way) instead of writing
  // every page of it through the WAL (15's default, WAL_LOG): about half the CPU of each database a test makes
  // (0.07–0.12 s against 0.14–0.23 s, server included; decision 0106). The database is the same.
  // From 15 on it also sorts text by ICU's en-US (a collation other than template1's can only copy template0, which is
  // as empty): a server set up with a language's locale, not byte order (decision 0122). Before 15, the cluster's C.
  const v15 = Number(readFileSync(join(data, 'PG_VERSION'), 'utf8').trim()) >= 15;
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    host: '127.0.0.1', port, user: USER, password: PASSWORD, socketDir: dir, binDir,
    createDatabase(name) {
      const db = name ?? `t${process.pid}_${++n}_${Math.random().toString(36).slice(2, 8)}`;
      psql(`CREATE DATABASE "${db}"${v15 ? " STRATEGY = FILE_COPY TEMPLATE = template0 LOCALE_PROVIDER = icu ICU_LOCALE = 'en-US'" : ''}`);
      return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
    },
    readerRole(url, name, revoked) {
      const db = url.split('/').pop()!;
      psql(`CREATE ROLE ${name} LOGIN PASSWORD '${name}-pw'; GRANT USAGE ON SCHEMA hermetic TO ${name}; GRANT SELECT ON ALL TABLES IN SCHEMA hermetic TO ${name};
        ${revoked.length > 0 ? `REVOKE ALL ON ${revoked.map((t) => `hermetic.${t}`).join(', ')} FROM ${name}` : ''}`, db);
      return url.replace(`${USER}:${PASSWORD}`, `${name}:${name}-pw`);
    },
    psql, stop, start, destroy,
  };
}

let shared: Promise<PgCluster> | null = null;

/** One cluster for this process, started on first use. */
export function sharedPostgres(): Promise<PgCluster> {
  shared ??= startPostgres();
  return shared;
}

/**
 * Runs `fn` where a URL without a password finds none elsewhere: no PGPASSWORD, a PGPASSFILE that does not exist (so
 * not the user's ~/.pgpass). Only a connection whose URL has no password reads them, so other tests running in the
 * process meanwhile are not changed.
 * @example await withoutPgPassword(() => assert.rejects(sink.open()))
 */
export async function withoutPgPassword<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
  delete process.env.PGPASSWORD;
  process.env.PGPASSFILE = join(tmpdir(), 'hermetic-no-pgpass-here', '.pgpass');
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

// `hermetic serve`: flags (and Hermes's own API_SERVER_* variables) → emulator options → a running server that
// stops cleanly on SIGINT/SIGTERM.
import { parseFlags, wholeNumber, type FlagSpec } from '../../cli/args.js';
import { epochProblem } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import { pyStrip } from '../../shared/python/index.js';
import { sqliteFileProblem, storePathProblem } from '../../shared/sqlite.js';
import { HERMES_VERSION } from '../api/meta.js';
import { startServer, type ServerOptions } from './node.js';

export const SERVE_HELP = `Usage: hermetic serve [options]

Emulates Hermes Agent v${HERMES_VERSION} (release v2026.8.31) /v1/runs over HTTP, with a scriptable fake agent.

Options:
  --port N                  port to listen on (default 8642, or API_SERVER_PORT; 0 picks a free one)
  --host H                  address to bind (default 127.0.0.1, or API_SERVER_HOST)
  --db PATH                 idempotency store file, kept across restarts and shared by servers given the same
                            path; its folder must exist. Default: a store private to this process (other servers
                            never see it; it survives POST /__admin/restart, not the process). :memory: is
                            Hermes's own fallback: not durable, nothing survives even an emulated restart
  --state-db PATH           also record every run into this Hermes-shaped state.db (created if missing; its
                            folder must exist)
  --api-key K               require "Authorization: Bearer K" (default API_SERVER_KEY; none = Hermes's test listener)
  --max-concurrent-runs N   capacity (default 10; 0 disables)
  --model NAME              advertised model name (default API_SERVER_MODEL_NAME, else hermes-agent)
  --cors-origins LIST       comma-separated allowed origins (default API_SERVER_CORS_ORIGINS; none refuses any Origin)
  --time EPOCH              start the clock at this epoch time in seconds, 0 to 253402300799 (default: now)
  --frozen                  start with the clock frozen (move it with POST /__admin/clock)
  --seed S                  seed run ids and approval ids (repeatable sessions)
  --run-table fast|plain    the store's algorithm: fast (default) or Hermes's plain one (for checking the fast one)
  --lock-timeout SECONDS    how long a request waits for another process's lock on --db (default 30, as Hermes)
  -h, --help                show this help
`;

function usage(message: string): never {
  throw new HermeticError('HERMETIC_CLI_USAGE', message);
}

/** A decimal flag value; NaN for an empty or non-numeric one (Number('') would be 0). */
const decimal = (raw: string): number => (raw.trim() === '' ? NaN : Number(raw));

/** A whole-number flag, else the Hermes variable that stands in for it; `source` names whichever gave the value. */
function integer(flag: string, raw: string | undefined, min: number, max: number, variable?: [string, string | undefined]): number | undefined {
  if (raw !== undefined) return wholeNumber(`--${flag}`, raw, min, max);
  if (variable?.[1] !== undefined) return wholeNumber(variable[0], variable[1], min, max);
  return undefined;
}

const SERVE_FLAGS = {
  port: { type: 'string' }, host: { type: 'string' }, db: { type: 'string' }, 'state-db': { type: 'string' },
  'api-key': { type: 'string' }, 'max-concurrent-runs': { type: 'string' }, model: { type: 'string' },
  'cors-origins': { type: 'string', empty: true }, time: { type: 'string' }, frozen: { type: 'boolean' },
  seed: { type: 'string' }, 'run-table': { type: 'string' }, 'lock-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

/** Turns argv and the environment into server options (throws HERMETIC_CLI_USAGE with a plain sentence). */
export function serveOptions(argv: string[], env: NodeJS.ProcessEnv): ServerOptions | 'help' {
  const v = parseFlags(argv, SERVE_FLAGS).values;
  if (v.help) return 'help';
  const port = integer('port', v.port, 0, 65535, ['API_SERVER_PORT', env.API_SERVER_PORT]) ?? 8642;
  const host = v.host ?? env.API_SERVER_HOST ?? '127.0.0.1';
  const time = v.time === undefined ? undefined : decimal(v.time);
  if (time !== undefined && !Number.isFinite(time)) usage(`--time must be epoch seconds; got "${v.time}".`);
  const timeProblem = time === undefined ? null : epochProblem(time);
  if (timeProblem) usage(`--time is ${v.time}, which ${timeProblem}.`);
  // An empty API_SERVER_KEY is no key, as Hermes reads it; an empty --api-key is refused by parseFlags.
  const apiKey = v['api-key'] ?? (env.API_SERVER_KEY || null);
  const cors = v['cors-origins'] ?? env.API_SERVER_CORS_ORIGINS ?? '';
  const runTable = v['run-table'] ?? 'fast';
  if (runTable !== 'fast' && runTable !== 'plain') usage(`--run-table must be fast or plain; got "${runTable}".`);
  const rawTimeout = v['lock-timeout'];
  const lockTimeout = rawTimeout === undefined ? 30 : decimal(rawTimeout);
  if (!Number.isFinite(lockTimeout) || lockTimeout < 0) {
    usage(`--lock-timeout must be a number of seconds, 0 or more; got "${rawTimeout}".`);
  }
  return {
    port,
    host,
    // No --db: a store private to this process, so parallel servers (and yesterday's) never share keys or runs.
    db: v.db ?? null,
    runTable,
    lockTimeout,
    apiKey,
    stateDb: v['state-db'] ?? null,
    maxConcurrentRuns: integer('max-concurrent-runs', v['max-concurrent-runs'], -1_000_000, 1_000_000) ?? 10,
    modelName: v.model ?? env.API_SERVER_MODEL_NAME ?? 'hermes-agent',
    corsOrigins: cors.split(',').map(pyStrip).filter(Boolean),
    time: time ?? null,
    frozen: v.frozen ?? false,
    seed: v.seed ?? null,
  };
}

/** A --db or --state-db the user named must already have its folder: a typo fails with HERMETIC_STORE_OPEN. */
function prepareStores(options: ServerOptions): void {
  for (const [flag, path] of [['--db', options.db ?? null], ['--state-db', options.stateDb ?? null]] as const) {
    if (path === null || path === ':memory:') continue;
    // An existing --state-db is recorded into as it is, so it must already be a SQLite store.
    const problem = storePathProblem(path) ?? (flag === '--state-db' ? sqliteFileProblem(path) : null);
    if (problem) throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot open the ${flag} store at ${path}: ${problem}.`);
  }
}

/** What the banner says about the store. */
function describeStore(db: string | null | undefined): string {
  if (db === null || db === undefined) return 'private to this process (runs survive POST /__admin/restart; --db PATH keeps them across restarts)';
  if (db === ':memory:') return ":memory: (Hermes's in-memory fallback: nothing survives a restart)";
  return db;
}

export async function serveCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const options = serveOptions(argv, process.env);
  if (options === 'help') {
    out(SERVE_HELP);
    return 0;
  }
  prepareStores(options);
  const server = await startServer(options);
  const auth = options.apiKey ? ` -H 'Authorization: Bearer ${options.apiKey}'` : '';
  out(`hermetic: Hermes Agent v${HERMES_VERSION} /v1/runs emulator listening on ${server.url}`);
  out(`  store: ${describeStore(options.db)}`);
  if (options.stateDb) out(`  state.db: ${options.stateDb} (every run is recorded as Hermes's API server records it)`);
  out(`  auth:  ${options.apiKey ? 'API key required (Authorization: Bearer …)' : "none (Hermes's test-only listener)"}`);
  out(`  try:   curl -s -X POST ${server.url}/v1/runs${auth} -d '{"input":"hello"}'`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  out('hermetic: stopped');
  return 0;
}

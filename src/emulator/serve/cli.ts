// `hermetic serve`: flags (and Hermes's own API_SERVER_* variables) → emulator options → a running server that
// stops cleanly on SIGINT/SIGTERM.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { looksLikeHost, looksLikePath, looksLikePort, parseFlags, wholeNumber, type FlagSpec } from '../../cli/args.js';
import { listenForStop } from '../../cli/stop-signals.js';
import { epochProblem } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import { pyStrip } from '../../shared/python/index.js';
import { redactSwitch } from '../../shared/redact/index.js';
import { folderNotWritable, sqliteFileProblem, storePathProblem } from '../../shared/sqlite.js';
import { profileHome } from '../../state-db/home.js';
import { HERMES_VERSION } from '../api/meta.js';
import { loadFaultFile } from '../faults/file.js';
import { loadScenarioFile, ScenarioSet } from '../scenarios/index.js';
import { loadConfig } from './config.js';
import { isLoopbackHost } from '../../shared/loopback.js';
import { portTaken, startServer, type ServerOptions } from './node.js';
import { profileOptions } from './profiles.js';
import { LineBatch, requestLine } from './request-log.js';

export const SERVE_HELP = `Usage: hermetic serve [options]

Emulates Hermes Agent v${HERMES_VERSION} (release v2026.8.31) /v1/runs over
HTTP, with a scriptable fake agent.

Options:
  --port N                  port to listen on (default 8642, or API_SERVER_PORT;
                            0 picks a free one)
  --host H                  address to bind (default 127.0.0.1, or
                            API_SERVER_HOST)
  --db PATH                 idempotency store file, kept across restarts and
                            shared by servers given the same path; its folder
                            must exist. Default: a store private to this process
                            (other servers never see it; it survives
                            POST /__admin/restart, not the process). :memory: is
                            Hermes's own fallback: not durable, nothing survives
                            even an emulated restart
  --state-db PATH           also record every run into this Hermes-shaped
                            state.db (created if missing; its folder must exist)
  --state-home DIR          or record into a Hermes home at DIR (it must exist),
                            each profile in its own store as Hermes keeps them:
                            DIR/state.db, DIR/profiles/<name>/state.db
  --api-key K               require "Authorization: Bearer K" (default
                            API_SERVER_KEY; none = Hermes's test listener)
  --max-concurrent-runs N   capacity (default 10; 0 disables)
  --model NAME              advertised model name (default
                            API_SERVER_MODEL_NAME, else hermes-agent)
  --agent-model NAME        the model the agent runs when a run names none or
                            the advertised one (Hermes's model.default), as
                            sessions and --state-db record it (default: the
                            advertised name)
  --cors-origins LIST       comma-separated allowed origins (default
                            API_SERVER_CORS_ORIGINS; none refuses any Origin)
  --time EPOCH              start the clock at this epoch time in seconds, 0 to
                            253402300799 (default: now)
  --clock real|virtual      real (default): time passes with the wall clock,
                            scenario steps run in wall time; virtual: the clock
                            stands still until POST /__admin/clock
                            {"advance": s} moves it
  --frozen                  the same as --clock virtual
  --seed S                  seed run ids and approval ids (repeatable sessions)
  --run-table fast|plain    the store's algorithm: fast (default) or Hermes's
                            plain one (for checking the fast one)
  --lock-timeout SECONDS    how long a request waits for another process's lock
                            on --db (default 30, as Hermes)
  --draining                start draining: new runs are refused as Hermes
                            refuses them while shutting down
  --profile NAME[=KEY]      also serve Hermes profile NAME under /p/NAME/ with
                            its own API key (repeatable); without =KEY the key
                            is HERMETIC_PROFILE_<NAME>_KEY, else none: every
                            request 401, as Hermes (a KEY under 16 characters
                            counts as none)
  --admin-key K             require K on every /__admin route but
                            GET /__admin/health and the console's files
                            (GET /__admin/ui/), as "x-hermetic-admin-key: K" or
                            "Authorization: Bearer K" (default
                            HERMETIC_ADMIN_KEY; none: the control plane is open)
  --insecure-admin          allow a --host beyond loopback without an admin key
                            (refused otherwise)
  --scenarios FILE          scenarios for the fake agent, JSON or YAML
                            (examples/scenarios.yaml): each new run is matched
                            by input, model, session_id, instructions or a
                            header and plays its steps on the clock; a run
                            nothing matches follows the file's default (else it
                            waits for /__admin/runs/{id}/… as without scenarios)
  --start-delay SECONDS     the agent starts this long after admission (default
                            0; the run is queued until then)
  --on-stop cancel|hold     a stop is honoured at once (cancel, default:
                            stopping → cancelled) or held in stopping until the
                            agent finishes or is told to honour it
  --steer accept|decline    whether the agent accepts steer text (default
                            accept; decline: 409 as Hermes)
  --faults FILE.json        fault rules or presets every namespace starts with:
                            a JSON list as POST /__admin/faults takes, e.g.
                            [{"preset": "hermes_submit_accepted_drop"}]
                            (docs/reference/admin-api.md)
  --config FILE             read options from a JSON or YAML file: any
                            createEmulator option, plus port, host,
                            insecureAdmin and quiet (examples/hermetic.yaml).
                            Flags win over environment variables, which win over
                            the file. Relative paths in the file are relative to
                            its folder
  --journal-size N          requests each namespace's journal keeps for
                            GET /__admin/requests (default 1000; 0: none)
  --auto-checkpoints        every namespace takes a checkpoint after each
                            request that changed it, named in the answer's
                            x-hermetic-checkpoint header (default off: Hermes's
                            answers as Hermes sends them; POST /__admin/timeline
                            {"auto": true} turns it on for one namespace)
  --max-namespaces N        namespaces held at once, the default included
                            (default 10000); past it the idle one used least
                            recently is forgotten, and with none idle a new one
                            is refused (503)
  --quiet                   print no line per request (by default: method, path,
                            status, duration, namespace, operation)
  -h, --help                show this help

Environment: Hermes's API_SERVER_KEY, API_SERVER_PORT, API_SERVER_HOST,
API_SERVER_CORS_ORIGINS and API_SERVER_MODEL_NAME stand in for their flags.
HERMES_REDACT_SECRETS (security.redact_secrets; the config file's
redactSecrets): on, unless set to a value other than 1, true, yes or on (in
any case). Off, the assistant text runs record and the shell approval
preset's command and description are not redacted. The runs API's own
redaction runs either way.
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

/** A file named as Hermes names its store. */
const namesAStore = (word: string): boolean => /(^|[/\\])state\.db$/.test(word);

const SERVE_FLAGS = {
  // A stray word names the flag it looks meant for (`serve 9000`: did you mean "--port 9000"?); a `state.db` is the
  // store the runs are recorded into, any other file the emulator's own database.
  port: { type: 'string', lone: looksLikePort }, host: { type: 'string', lone: looksLikeHost },
  db: { type: 'string', lone: (w: string) => looksLikePath(w) && !namesAStore(w) }, 'state-db': { type: 'string', lone: namesAStore }, 'state-home': { type: 'string' },
  'api-key': { type: 'string' }, 'max-concurrent-runs': { type: 'string' }, model: { type: 'string' }, 'agent-model': { type: 'string' },
  'cors-origins': { type: 'string', empty: true }, time: { type: 'string' }, frozen: { type: 'boolean' },
  seed: { type: 'string' }, 'run-table': { type: 'string' }, 'lock-timeout': { type: 'string' },
  draining: { type: 'boolean' }, profile: { type: 'string', multiple: true }, 'admin-key': { type: 'string' },
  'insecure-admin': { type: 'boolean' }, config: { type: 'string' }, faults: { type: 'string' },
  clock: { type: 'string' }, scenarios: { type: 'string' }, 'start-delay': { type: 'string' }, 'on-stop': { type: 'string' },
  steer: { type: 'string' }, 'journal-size': { type: 'string' }, 'auto-checkpoints': { type: 'boolean' }, 'max-namespaces': { type: 'string' }, quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

/** What `hermetic serve` runs: the server's options, and what only the command reads. */
export interface ServeSettings extends ServerOptions {
  /** Listen beyond loopback without an admin key. */
  insecureAdmin: boolean;
  /** The --config file read, if any (absolute). */
  configPath: string | null;
  /** No line per request on the console. */
  quiet: boolean;
  /** How refusals name the db and stateDb paths: the flag, or the config file they came from. */
  storeLabels: { db: string; stateDb: string; stateHome: string };
}

/** A flag that takes one of a few words: the word's value, or a refusal naming them. */
function choice<T>(flag: string, raw: string | undefined, words: Record<string, T>): T | undefined {
  if (raw === undefined) return undefined;
  if (Object.hasOwn(words, raw)) return words[raw];
  return usage(`--${flag} must be ${Object.keys(words).join(' or ')}; got "${raw}".`);
}

/** --clock virtual (or --frozen) freezes the clock; --clock real lets it run; both ways at once are refused. */
function frozenFlag(v: { clock?: string; frozen?: true }): boolean | undefined {
  const clock = choice('clock', v.clock, { real: false, virtual: true });
  if (v.frozen && clock === false) usage('--frozen and --clock real disagree (--frozen is --clock virtual).');
  return v.frozen ?? clock;
}

/** The agent defaults the flags give, over the config file's (decision 0023). */
function agentFlags(v: { 'start-delay'?: string; 'on-stop'?: string; steer?: string }, file: ServerOptions['agent']): ServerOptions['agent'] {
  const raw = v['start-delay'];
  const startDelay = raw === undefined ? undefined : decimal(raw);
  if (startDelay !== undefined && !(Number.isFinite(startDelay) && startDelay >= 0)) {
    usage(`--start-delay must be a number of seconds, 0 or more; got "${raw}".`);
  }
  const flags = given({
    startDelay,
    acknowledgeStop: choice('on-stop', v['on-stop'], { cancel: true, hold: false }),
    acceptSteer: choice('steer', v.steer, { accept: true, decline: false }),
  });
  return Object.keys(flags).length === 0 ? file : { ...file, ...flags };
}

/** The object without its undefined values, so a flag that was not given never hides the config file's value. */
const given = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, value]) => value !== undefined)) as Partial<T>;

/**
 * Turns argv, the environment and the --config file into server options (throws HERMETIC_CLI_USAGE with a plain
 * sentence). Every key is `flag ?? environment ?? config file ?? default` (decision 0025); a key with no flag (agent,
 * say) comes from the file alone.
 */
export function serveOptions(argv: string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): ServeSettings | 'help' {
  const v = parseFlags(argv, SERVE_FLAGS).values;
  if (v.help) return 'help';
  const config = v.config === undefined ? null : loadConfig(v.config, cwd);
  const file = config?.emulator ?? {};
  const fileServer = config?.server ?? {};
  const port = integer('port', v.port, 0, 65535, ['API_SERVER_PORT', env.API_SERVER_PORT]) ?? fileServer.port ?? 8642;
  const host = v.host ?? env.API_SERVER_HOST ?? fileServer.host ?? '127.0.0.1';
  const time = v.time === undefined ? undefined : decimal(v.time);
  if (time !== undefined && !Number.isFinite(time)) usage(`--time must be epoch seconds; got "${v.time}".`);
  const timeProblem = time === undefined ? null : epochProblem(time);
  if (timeProblem) usage(`--time is ${v.time}, which ${timeProblem}.`);
  // An empty API_SERVER_KEY (or HERMETIC_ADMIN_KEY) is no key, as Hermes reads it; an empty flag is refused by parseFlags.
  const apiKey = v['api-key'] ?? (env.API_SERVER_KEY || null) ?? file.apiKey ?? null;
  const adminKey = v['admin-key'] ?? (env.HERMETIC_ADMIN_KEY || null) ?? file.adminKey ?? null;
  const cors = v['cors-origins'] ?? env.API_SERVER_CORS_ORIGINS;
  const runTable = v['run-table'] ?? file.runTable ?? 'fast';
  if (runTable !== 'fast' && runTable !== 'plain') usage(`--run-table must be fast or plain; got "${runTable}".`);
  const rawTimeout = v['lock-timeout'];
  const lockTimeout = rawTimeout === undefined ? (file.lockTimeout ?? 30) : decimal(rawTimeout);
  if (!Number.isFinite(lockTimeout) || lockTimeout < 0) {
    usage(`--lock-timeout must be a number of seconds, 0 or more; got "${rawTimeout}".`);
  }
  const settings: ServeSettings = {
    // Keys without a flag (agent, and any option added later) come from the config file as written.
    ...file,
    ...given({
      port,
      host,
      // No --db: a store private to this process, so parallel servers (and yesterday's) never share keys or runs.
      db: v.db ?? file.db ?? null,
      runTable,
      lockTimeout,
      apiKey,
      adminKey,
      stateDb: v['state-db'] ?? file.stateDb ?? null,
      stateHome: v['state-home'] ?? file.stateHome ?? null,
      maxConcurrentRuns: integer('max-concurrent-runs', v['max-concurrent-runs'], -1_000_000, 1_000_000) ?? file.maxConcurrentRuns ?? 10,
      modelName: v.model ?? env.API_SERVER_MODEL_NAME ?? file.modelName ?? 'hermes-agent',
      agentModel: v['agent-model'] ?? file.agentModel,
      corsOrigins: cors === undefined ? [...(file.corsOrigins ?? [])] : cors.split(',').map(pyStrip).filter(Boolean),
      time: time ?? file.time ?? null,
      frozen: frozenFlag(v) ?? file.frozen ?? false,
      seed: v.seed ?? file.seed ?? null,
      // Hermes's own switch, read as Hermes reads it (an empty value is off); else the config file's, else on.
      redactSecrets: env.HERMES_REDACT_SECRETS === undefined ? file.redactSecrets : redactSwitch(env.HERMES_REDACT_SECRETS),
      draining: v.draining ?? file.draining,
      profiles: profileOptions(v.profile ?? [], env, file.profiles),
      faults: v.faults === undefined ? undefined : loadFaultFile(resolve(cwd, v.faults), v.faults),
      scenarios: v.scenarios === undefined ? undefined : loadScenarioFile(resolve(cwd, v.scenarios), v.scenarios),
      agent: agentFlags(v, file.agent),
      journalSize: integer('journal-size', v['journal-size'], 0, 10_000_000),
      autoCheckpoints: v['auto-checkpoints'],
      maxNamespaces: integer('max-namespaces', v['max-namespaces'], 1, 1_000_000),
    }),
    quiet: v.quiet ?? fileServer.quiet ?? false,
    insecureAdmin: v['insecure-admin'] ?? fileServer.insecureAdmin ?? false,
    configPath: config?.path ?? null,
    storeLabels: {
      db: v.db === undefined && file.db != null ? `db (from ${config!.name})` : '--db',
      stateDb: v['state-db'] === undefined && file.stateDb != null ? `stateDb (from ${config!.name})` : '--state-db',
      stateHome: v['state-home'] === undefined && file.stateHome != null ? `stateHome (from ${config!.name})` : '--state-home',
    },
  };
  refuseOpenControlPlane(settings);
  refuseTwoRecordings(settings);
  return settings;
}

/** --state-db and --state-home are two places for the same recording; a profile folder needs a Hermes profile id. */
function refuseTwoRecordings({ stateDb, stateHome, profiles, storeLabels: labels }: ServeSettings): void {
  if (stateDb != null && stateHome != null) {
    throw new HermeticError('HERMETIC_CLI_USAGE', `${labels.stateDb} and ${labels.stateHome} both record the runs (one file, or a Hermes home of one per profile): give one.`);
  }
  const bad = stateHome == null ? undefined : Object.keys(profiles ?? {}).find((name) => profileHome(stateHome, name) === null);
  if (bad !== undefined) {
    throw new HermeticError('HERMETIC_CLI_USAGE', `Profile "${bad}" cannot have a folder in the ${labels.stateHome} Hermes home: Hermes names profiles with [a-z0-9][a-z0-9_-]{0,63}.`);
  }
}

/** Beyond loopback, an open control plane would let the network drive runs and change the gateway. */
function refuseOpenControlPlane({ host, adminKey, insecureAdmin }: ServeSettings): void {
  if (adminKey || insecureAdmin || isLoopbackHost(host ?? '127.0.0.1')) return;
  throw new HermeticError(
    'HERMETIC_SERVE_INSECURE',
    `Refusing to listen on ${host} without an admin key: anyone who can reach it could drive runs and change the gateway through /__admin. Give --admin-key K (or HERMETIC_ADMIN_KEY), or --insecure-admin to serve the control plane open.`,
  );
}

/**
 * A --db or --state-db the user named must already have its folder, and a --state-home must exist: a typo fails with
 * HERMETIC_STORE_OPEN.
 */
function prepareStores(options: ServeSettings): void {
  const { db, stateDb, stateHome } = options.storeLabels;
  const stores: [string, string | null, boolean][] = [[db, options.db ?? null, false], [stateDb, options.stateDb ?? null, true]];
  const home = options.stateHome ?? null;
  if (home !== null) {
    const problem = folderProblem(home);
    if (problem) throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot record into the ${stateHome} Hermes home at ${home}: ${problem}.`);
    // The stores already there are recorded into as they are; a profile's folder is made by its first run.
    for (const profile of ['default', ...Object.keys(options.profiles ?? {})]) {
      const folder = profileHome(home, profile);
      if (folder !== null && existsSync(join(folder, 'state.db'))) stores.push([`${stateHome} (profile ${profile})`, join(folder, 'state.db'), true]);
    }
  }
  for (const [label, path, isStateDb] of stores) {
    if (path === null || path === ':memory:') continue;
    // An existing --state-db is recorded into as it is, so it must already be a SQLite store.
    const problem = storePathProblem(path) ?? (isStateDb ? sqliteFileProblem(path) : null);
    if (problem) throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot open the ${label} store at ${path}: ${problem}.`);
  }
}

/** Why `dir` cannot be a Hermes home to record into (missing, not a folder, not writable), or null. */
function folderProblem(dir: string): string | null {
  let stat;
  try {
    stat = statSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'it does not exist' : (e as Error).message;
  }
  return stat.isDirectory() ? folderNotWritable(dir) : 'it is a file, not a folder';
}

/** What the banner says about the control plane (never the key itself). */
function describeAdmin(options: ServeSettings): string {
  if (options.adminKey) return 'admin key required on /__admin (x-hermetic-admin-key: … or Authorization: Bearer …; GET /__admin/health is open)';
  if (isLoopbackHost(options.host ?? '127.0.0.1')) return 'open to this machine (--admin-key K guards it)';
  return `OPEN to anyone who can reach ${options.host} (--insecure-admin)`;
}

/** What the banner says about profiles (their keys are never printed). */
function describeProfiles(profiles: ServeSettings['profiles']): string | null {
  const names = Object.entries(profiles ?? {});
  if (names.length === 0) return null;
  return names.map(([name, p]) => `/p/${name}/ (${p.apiKey ? 'own API key' : 'no key: every request is 401'})`).join(', ');
}

/** What the banner says about the clock and the agent. */
function describeAgent(options: ServeSettings): string[] {
  const clock = options.frozen
    ? `virtual: stands at ${new Date((options.time ?? Date.now() / 1000) * 1000).toISOString()} until POST /__admin/clock moves it`
    : 'real: time passes, scenario steps run in wall time';
  const set = options.scenarios;
  let agent = 'driven through /__admin/runs/{id}/… (--scenarios FILE scripts it)';
  if (set instanceof ScenarioSet) {
    const unmatched = set.fallback?.scenario ? 'the default scenario' : 'wait for /__admin/runs/{id}/…';
    agent = `${set.scenarios.length} scenario${set.scenarios.length === 1 ? '' : 's'}; runs nothing matches: ${unmatched}`;
  } else if (set) agent = 'scripted by the config file\'s scenarios';
  return [`  clock: ${clock}`, `  agent: ${agent}`];
}

/** What the banner says about the store. */
function describeStore(db: string | null | undefined): string {
  if (db === null || db === undefined) return 'private to this process (runs survive POST /__admin/restart; --db PATH keeps them across restarts)';
  if (db === ':memory:') return ":memory: (Hermes's in-memory fallback: nothing survives a restart)";
  return db;
}

export async function serveCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  // Listening first, before anything is read, bound or printed: a SIGINT or SIGTERM at any moment stops it with exit 0.
  const stop = listenForStop();
  let flushLog = (): void => {};
  try {
    const options = serveOptions(argv, process.env);
    if (options === 'help') {
      out(SERVE_HELP);
      return 0;
    }
    prepareStores(options);
    // Stopped while the modules loaded (the bin held the signal): nothing is opened.
    if (stop.signal !== null) {
      out('hermetic: stopped');
      return 0;
    }
    const { insecureAdmin: _insecure, configPath, storeLabels: _labels, quiet, ...serverOptions } = options;
    // One line per answered request, from the journal's metadata (never bodies, query strings or headers), batched: a
    // request costs an array push, stdout gets one write per 20 ms.
    const log = quiet ? null : new LineBatch(out);
    process.on('exit', flushLog = () => log?.flush());
    const server = await startServer({ ...serverOptions, onRequest: log ? (record) => log.push(requestLine(record)) : null }).catch((e: unknown) => {
      // A taken port (another server, an earlier npm start): said with the flag that picks another.
      throw portTaken(e) ? new HermeticError('HERMETIC_SERVE_LISTEN', `${e.message.slice(0, -1)}; give another with --port N (0 picks a free one).`) : e;
    });
    // Stopped while it started: what it opened is closed, and no banner announces a server that is going away.
    if (stop.signal === null) {
      const auth = options.apiKey ? ` -H 'Authorization: Bearer ${options.apiKey}'` : '';
      out(`hermetic: Hermes Agent v${HERMES_VERSION} /v1/runs emulator listening on ${server.url}`);
      out(`  store: ${describeStore(options.db)}`);
      if (options.stateDb) out(`  state.db: ${options.stateDb} (every run is recorded as Hermes's API server records it)`);
      if (options.stateHome) out(`  state home: ${options.stateHome} (every run is recorded into its profile's state.db, as Hermes's API server records it)`);
      out(`  auth:  ${options.apiKey ? 'API key required (Authorization: Bearer …)' : "none (Hermes's test-only listener)"}`);
      // Off only when asked for (often a variable left in the shell from a Hermes set up that way): said, not silent.
      if (options.redactSecrets === false) out('  redaction: off (HERMES_REDACT_SECRETS, or redactSecrets in the config): recorded assistant text and shell approval descriptions are kept as given');
      const profiles = describeProfiles(options.profiles);
      if (profiles) out(`  profiles: ${profiles}`);
      out(`  admin: ${describeAdmin(options)}`);
      for (const line of describeAgent(options)) out(line);
      if (configPath) out(`  config: ${configPath}`);
      out(`  try:   curl -s -X POST ${server.url}/v1/runs${auth} -d '{"input":"hello"}'`);
    }
    await stop.stopped;
    await server.close();
    flushLog();
    out('hermetic: stopped');
    return 0;
  } finally {
    stop.dispose();
    process.off('exit', flushLog);
  }
}

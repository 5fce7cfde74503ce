// The emulator's options, validated once at the front door (the CLI builds the same object). SCHEMA is the single
// source: it validates JavaScript callers at run time and gives TypeScript callers the EmulatorOptions type.
import { epochProblem, type ControlledClock } from '../shared/clock.js';
import { HermeticError } from '../shared/errors.js';
import { check, is, parseOptions, within, type OptionsInput } from '../shared/options.js';
import { HERMES_PROFILE_ID } from '../state-db/home.js';
import type { RequestListener } from './journal/traffic.js';
import { parseFaultRules, type ParsedFaultRule } from './faults/index.js';
import { loadFaultFile } from './faults/file.js';
import type { FaultRuleInput } from './faults/types.js';
import type { AdminScenario, AdminScenarioDocument } from './scenarios/document.js';
import { scenariosOption } from './scenarios/file.js';
import type { ScenarioSet } from './scenarios/schema.js';

const profile = {
  /**
   * That profile's own API_SERVER_KEY; null (default), or a key Hermes cannot use (under 16 characters stripped, or
   * its placeholder `your_api_key_here`), fails closed: every request is 401.
   */
  apiKey: is.nullable(is.string),
};

const profiles = check<Record<string, { apiKey: string | null }>, Record<string, OptionsInput<typeof profile>>>((value, name) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be an object of profile name → { apiKey }.`);
  }
  const out: Record<string, { apiKey: string | null }> = {};
  for (const [name_, settings] of Object.entries(value)) {
    if (!/^[^/\s]+$/.test(name_)) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Profile name "${name_}" must be one path segment.`);
    out[name_] = within(name_, () => parseOptions(`profile "${name_}"`, settings, profile, { apiKey: null }));
  }
  return out;
});

const clock = check<ControlledClock | undefined, ControlledClock>((value, name) => {
  if (value && typeof value === 'object' && 'advance' in value && 'now' in value) return value as ControlledClock;
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a ControlledClock.`);
});

/** Epoch seconds within the clock's range (decision 0014): a millisecond time is refused, not taken as year 58000. */
const epoch = check((value, name): number => {
  const n = is.number(value, name);
  const problem = epochProblem(n);
  if (problem) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" is ${n}, which ${problem}.`);
  return n;
});

const AGENT = {
  /** Seconds between admission and the agent starting (0, default: at once; queued until then). */
  startDelay: is.number,
  /**
   * Whether a stop's interrupt is honoured (default true: stopping → cancelled at once, or at the next poll of an
   * approval wait the agent is parked in; decision 0076).
   */
  acknowledgeStop: is.boolean,
  /** Whether agent.steer() accepts text (default true). */
  acceptSteer: is.boolean,
};

const agent = check<
  { readonly startDelay: number; readonly acknowledgeStop: boolean; readonly acceptSteer: boolean },
  OptionsInput<typeof AGENT>
>((value, name) => parseOptions(name, value, AGENT, { startDelay: 0, acknowledgeStop: true, acceptSteer: true }));

const runTable = check((value, name): 'fast' | 'plain' =>
  value === 'fast' || value === 'plain'
    ? value
    : (() => {
        throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be "fast" or "plain"; got ${JSON.stringify(value)}.`);
      })());

const seconds = check((value, name): number => {
  const n = is.number(value, name);
  if (n < 0) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be 0 seconds or more; got ${n}.`);
  return n;
});

const callback = check<((error: unknown) => void) | null, ((error: unknown) => void) | null>((value, name) => {
  if (value === null || typeof value === 'function') return value as ((error: unknown) => void) | null;
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a function or null.`);
});

const maxNamespaces = check((value, name): number => {
  const n = is.integer(value, name);
  if (n < 1 || n > 1_000_000) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be 1 (the default namespace alone) to 1000000; got ${n}.`);
  return n;
});

const journalSize = check((value, name): number => {
  const n = is.integer(value, name);
  if (n < 0 || n > 10_000_000) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be 0 (no journal) to 10000000 entries; got ${n}.`);
  return n;
});

const requestListener = check<RequestListener | null, RequestListener | null>((value, name) => {
  if (value === null || typeof value === 'function') return value as RequestListener | null;
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a function or null.`);
});

/** Fault rules or presets, checked as POST /__admin/faults checks them, or a JSON file of them (decision 0021). */
const faults = check<readonly ParsedFaultRule[], FaultRuleInput[] | string>((value, name) =>
  typeof value === 'string'
    ? parseFaultRules(loadFaultFile(value), `The fault file ${value}`, { unknown: 'HERMETIC_FAULT_INVALID', invalid: 'HERMETIC_FAULT_INVALID' })
    : parseFaultRules(value, `Option "${name}"`, { unknown: 'HERMETIC_OPTIONS_INVALID', invalid: 'HERMETIC_OPTIONS_INVALID' }));

/** Scenarios for the fake agent, checked as POST /__admin/scenarios checks them (decision 0023). */
const scenarios = check<ScenarioSet | null, AdminScenarioDocument | AdminScenario[] | ScenarioSet | string | null>((value, name) =>
  value === null ? null : scenariosOption(value, name));

const SCHEMA = {
  /** API_SERVER_KEY; null (default) is Hermes's unauthenticated test listener. */
  apiKey: is.nullable(is.string),
  /**
   * Hermetic's own key for the control plane: every /__admin route but GET /__admin/health then needs it, as
   * "x-hermetic-admin-key: K" or "Authorization: Bearer K" (decision 0025). null (default): the control plane is open.
   */
  adminKey: is.nullable(is.string),
  /**
   * Where the durable idempotency rows live: a file path (kept across restarts of the process and shared by gateways
   * given the same path); ':memory:' for Hermes's own fallback (not durable: nothing survives a restart); null
   * (default) for a store private to this emulator that survives its emulated restarts.
   */
  db: is.nullable(is.string),
  /** 'fast' (default) or 'plain': Hermes's own store algorithm, for checking the fast one (decision 0016). */
  runTable,
  /** Seconds a request waits for another connection's lock on the store before it fails (default 30, as Hermes). */
  lockTimeout: seconds,
  /** Called with every bug of Hermetic's own met while answering (default: printed to stderr with its stack). */
  onInternalError: callback,
  /** gateway.api_server.max_concurrent_runs (default 10; 0 or less disables the cap). */
  maxConcurrentRuns: is.integer,
  /** API_SERVER_MODEL_NAME, the model the gateway advertises (default 'hermes-agent'). */
  modelName: is.string,
  /**
   * The model the agent runs when a run names none or names the advertised one (Hermes's config.yaml `model.default`),
   * as the sessions and a --state-db file record it (default null: the advertised name).
   */
  agentModel: is.nullable(is.string),
  /** API_SERVER_CORS_ORIGINS (default none: any request with an Origin header is refused). */
  corsOrigins: is.stringArray,
  /** Named profiles served under /p/<name>/, each with its own key (default none: no multiplexing). */
  profiles,
  /** Start draining: new runs are refused as Hermes refuses them during shutdown (default false). */
  draining: is.boolean,
  /** Start time in epoch seconds, 0 … 253402300799 (default: the real time). */
  time: is.nullable(epoch),
  /** Start with the clock frozen: only POST /__admin/clock (or clock.set/advance) moves it (default false). */
  frozen: is.boolean,
  /**
   * Also record every run into this Hermes-shaped state.db (created at the current schema if missing): one file for
   * every profile.
   */
  stateDb: is.nullable(is.string),
  /**
   * Also record every run into a Hermes home at this folder, each profile into its own store as Hermes keeps them:
   * `<home>/state.db` for the default profile, `<home>/profiles/<name>/state.db` for each named one (decision 0140).
   */
  stateHome: is.nullable(is.string),
  /** Seed for run ids and request ids (default: random). */
  seed: is.nullable(is.string),
  /**
   * HERMES_REDACT_SECRETS (`security.redact_secrets`): whether Hermes's unforced redaction runs, that is the assistant
   * text a run records (into a state.db and the session routes) and the approval subsystem's pass over the shell
   * preset's command and description. The runs API's own, forced, redaction runs either way (default true, as Hermes).
   */
  redactSecrets: is.boolean,
  /** Use this clock instead of making one from `time` and `frozen` (it is not closed with the emulator). */
  clock,
  /** The fake agent's defaults for every new run. */
  agent,
  /**
   * Fault rules (or named presets) every namespace starts with, and goes back to on reset, or the path of a JSON file
   * of them (docs/reference/admin-api.md#faults).
   */
  faults,
  /** Entries each namespace's request journal keeps, newest replacing oldest (default 1000; 0: no journal). */
  journalSize,
  /**
   * Every namespace starts with automatic checkpoints on, and goes back to it on reset: each request that changed it
   * is followed by a checkpoint, named in the answer's x-hermetic-checkpoint header (default false: Hermes's answers
   * exactly as Hermes sends them; POST /__admin/timeline {"auto": true} turns it on per namespace; decision 0065).
   */
  autoCheckpoints: is.boolean,
  /**
   * Namespaces held at once, the default included (default 10000). Past it, the idle namespace untouched for the longest
   * (no live run, stream or request) is closed and forgotten; when none is idle, the request is refused with 503
   * HERMETIC_NAMESPACE_LIMIT (decision 0028).
   */
  maxNamespaces,
  /**
   * Scenarios every namespace starts with, and goes back to on reset: `{"scenarios": [...], "default": ...}` or the list
   * (docs/reference/admin-api.md#scenarios), a JSON or YAML file's path, or what loadScenarioFile read. Default none:
   * runs are left to the control plane.
   */
  scenarios,
  /** Called with every answered request's metadata (control-plane requests too); `hermetic serve` prints it. */
  onRequest: requestListener,
};

/**
 * What createEmulator accepts; every field is optional. JavaScript callers get the same rules at run time: an
 * unknown name is HERMETIC_OPTIONS_UNKNOWN (with a suggestion), a wrong value HERMETIC_OPTIONS_INVALID.
 */
export interface EmulatorOptions extends OptionsInput<typeof SCHEMA> {}

/** Every option name createEmulator accepts (a config file is checked against these and the server's own). */
export const EMULATOR_OPTION_NAMES = Object.keys(SCHEMA) as ReadonlyArray<keyof typeof SCHEMA>;

export function parseEmulatorOptions(input: EmulatorOptions | undefined) {
  const options = parseOptions('emulator', input, SCHEMA, {
    apiKey: null,
    adminKey: null,
    db: null,
    runTable: 'fast',
    lockTimeout: 30,
    onInternalError: null,
    maxConcurrentRuns: 10,
    modelName: 'hermes-agent',
    agentModel: null,
    corsOrigins: [],
    profiles: {},
    draining: false,
    time: null,
    frozen: false,
    stateDb: null,
    stateHome: null,
    seed: null,
    redactSecrets: true,
    clock: undefined,
    agent: agent(undefined, 'agent'),
    faults: [],
    journalSize: 1000,
    autoCheckpoints: false,
    maxNamespaces: 10_000,
    scenarios: null,
    onRequest: null,
  });
  if (options.apiKey === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Option "apiKey" must not be empty; use null for no key.');
  if (options.adminKey === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Option "adminKey" must not be empty; use null for an open control plane.');
  if (options.stateDb !== null && options.stateHome !== null) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Options "stateDb" and "stateHome" are two places to record the same runs; give one.');
  }
  if (options.stateHome !== null) {
    for (const name of Object.keys(options.profiles)) {
      if (name !== 'default' && !HERMES_PROFILE_ID.test(name)) {
        throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Profile "${name}" cannot have a folder in the "stateHome" Hermes home: Hermes names profile folders with [a-z0-9][a-z0-9_-]{0,63}.`);
      }
    }
  }
  return options;
}

export type ParsedEmulatorOptions = ReturnType<typeof parseEmulatorOptions>;

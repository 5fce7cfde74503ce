// The emulator's options, validated once at the front door (the CLI builds the same object).
import type { ControlledClock } from '../shared/clock.js';
import { HermeticError } from '../shared/errors.js';
import { is, parseOptions, type Check } from '../shared/options.js';

const profiles: Check<Record<string, { apiKey: string | null }>> = (value, name) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be an object of profile name → { apiKey }.`);
  }
  const out: Record<string, { apiKey: string | null }> = {};
  for (const [profile, settings] of Object.entries(value)) {
    if (!/^[^/\s]+$/.test(profile)) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Profile name "${profile}" must be one path segment.`);
    out[profile] = parseOptions(`profile "${profile}"`, settings, { apiKey: is.nullable(is.string) }, { apiKey: null });
  }
  return out;
};

const clock: Check<ControlledClock | undefined> = (value, name) => {
  if (value && typeof value === 'object' && 'advance' in value && 'now' in value) return value as ControlledClock;
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a ControlledClock.`);
};

const agent = (value: unknown, name: string) =>
  parseOptions(name, value, { startDelay: is.number, acknowledgeStop: is.boolean, acceptSteer: is.boolean }, {
    startDelay: 0,
    acknowledgeStop: true,
    acceptSteer: true,
  });

const SCHEMA = {
  /** API_SERVER_KEY; null (default) is Hermes's unauthenticated test listener. */
  apiKey: is.nullable(is.string),
  /** Store path for the durable idempotency rows; ':memory:' (default) keeps nothing across restarts. */
  db: is.string,
  maxConcurrentRuns: is.integer,
  modelName: is.string,
  corsOrigins: is.stringArray,
  profiles,
  draining: is.boolean,
  /** Start time (epoch seconds); default the real time. */
  time: is.nullable(is.number),
  /** Start with the clock frozen. */
  frozen: is.boolean,
  /** Also record every run into this Hermes-shaped state.db (created at the current schema if missing). */
  stateDb: is.nullable(is.string),
  /** Seed for run ids and request ids (default: random). */
  seed: is.nullable(is.string),
  clock,
  agent,
};

export type EmulatorOptions = Partial<{ [K in keyof typeof SCHEMA]: Parameters<(typeof SCHEMA)[K]>[0] }> & {
  profiles?: Record<string, { apiKey?: string | null }>;
  agent?: Partial<{ startDelay: number; acknowledgeStop: boolean; acceptSteer: boolean }>;
  clock?: ControlledClock;
};

export function parseEmulatorOptions(input: EmulatorOptions | undefined) {
  const options = parseOptions('emulator', input, SCHEMA, {
    apiKey: null,
    db: ':memory:',
    maxConcurrentRuns: 10,
    modelName: 'hermes-agent',
    corsOrigins: [],
    profiles: {},
    draining: false,
    time: null,
    frozen: false,
    stateDb: null,
    seed: null,
    clock: undefined,
    agent: agent(undefined, 'agent'),
  });
  if (options.apiKey === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'Option "apiKey" must not be empty; use null for no key.');
  return options;
}

export type ParsedEmulatorOptions = ReturnType<typeof parseEmulatorOptions>;

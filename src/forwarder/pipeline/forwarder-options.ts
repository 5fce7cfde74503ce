// createForwarder's options, checked once at the front door: a misspelt key is refused, a bad value said as the option
// it is. Each environment variable has one reader: HERMES_HOME `findStores` (stores.ts; the PostgreSQL settings also
// compare it, to know the process's own home), HERMETIC_HOME `hermeticHome` (home.ts), HERMETIC_TZ `explicitTimeZone`
// (ledger/zone.ts), HERMETIC_READ_WORKER and HERMETIC_BUILD_ASIDE below.
import { HermeticError } from '../../shared/errors.js';
import { check, is, parseOptions, type Check } from '../../shared/options.js';
import { explicitTimeZone } from '../ledger/zone.js';
import type { Sink } from '../sinks/sink.js';
import { BUILD_ASIDE_MESSAGES } from '../sinks/sqlite/first-build.js';
import { READ_WORKER_MODES, type ReadWorkerMode } from './read-mode.js';

export interface ForwarderOptions {
  /** Hermetic's home: the dataset is `<home>/hermetic.db` (default `$HERMETIC_HOME` or `~/.hermetic`). */
  home?: string;
  /** The user's home, where `~/.hermes` is looked for (default os.homedir()). */
  userHome?: string;
  /** `HERMES_HOME` (default the environment's). */
  hermesHome?: string | undefined;
  /** Read only these stores (--state-db). */
  stateDbs?: readonly string[];
  /** Store text through Hermes's secret redactor. */
  redact?: boolean;
  /** Milliseconds since the epoch (injected for tests). */
  now?: () => number;
  /**
   * Where passes write (default: the SQLite dataset in `home`). The usage policy's moves of sessions already forwarded
   * (decision 0063) run on the SQLite dataset itself: a sink of another kind gets none.
   */
  sink?: Sink;
  /**
   * Whether a worker thread reads and projects sessions while this thread writes (decision 0027): `auto` for passes
   * with many sessions to read, `off`, or `only` (every pass that reads; for tests). Default `$HERMETIC_READ_WORKER`,
   * else `auto`.
   */
  readWorker?: ReadWorkerMode;
  /**
   * The usage ledger's time zone, for its local days (an IANA name; decision 0031). Default `$HERMETIC_TZ`, else the
   * zone the dataset's ledger was built in, else the machine's. Naming another zone rebuilds the ledger once.
   */
  timeZone?: string;
  /** Message rows a session is read with at once; a longer one is read and written in chunks (decision 0055). */
  chunkRows?: number;
  /** Characters of values a session is read with at once, likewise (decision 0171; default 2 Mi). */
  chunkChars?: number;
  /**
   * A home with no dataset gets its first one built aside and published whole at the end of the pass, or once this
   * many messages are in (decision 0058); 0 writes it in place from the first batch. Default `$HERMETIC_BUILD_ASIDE`,
   * else 250,000.
   */
  buildAside?: number;
  /**
   * Called once, before the dataset written by an older Hermetic is upgraded to this one's version as the forwarder
   * opens it to write (seconds for a large dataset: decision 0172), with the two versions and its path: so a command
   * can say why it is quiet meanwhile.
   */
  onDatasetUpgrade?: (from: number, to: number, path: string) => void;
}

/** The read worker's mode: the option, else HERMETIC_READ_WORKER, else `auto`. */
export function readWorkerMode(option: ReadWorkerMode | undefined, env: NodeJS.ProcessEnv = process.env): ReadWorkerMode {
  const mode = option ?? env.HERMETIC_READ_WORKER ?? 'auto';
  if (!(READ_WORKER_MODES as readonly string[]).includes(mode)) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `The read worker mode must be ${READ_WORKER_MODES.join(', ')}; got "${mode}"${option === undefined ? ' (HERMETIC_READ_WORKER)' : ''}.`);
  }
  return mode as ReadWorkerMode;
}

/** Messages a first dataset is built aside for: the option, else HERMETIC_BUILD_ASIDE, else BUILD_ASIDE_MESSAGES. */
export function buildAside(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const raw = option ?? env.HERMETIC_BUILD_ASIDE;
  if (raw === undefined || raw === '') return BUILD_ASIDE_MESSAGES;
  const n = typeof raw === 'number' ? raw : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `The messages a first dataset is built aside for must be a whole number (0: none); got "${String(raw)}"${option === undefined ? ' (HERMETIC_BUILD_ASIDE)' : ''}.`);
  }
  return n;
}

const optional = <T>(inner: Check<T>): Check<T | undefined> => (value, name) => (value === undefined ? undefined : inner(value, name));
const invalid = (name: string, expected: string, value: unknown): never => {
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be ${expected}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`);
};
const isTimeZone = (name: string): boolean => {
  try {
    return explicitTimeZone(name) === name;
  } catch {
    return false;
  }
};
const nonEmpty = check((v, name): string => (typeof v === 'string' && v.trim() !== '' ? v : invalid(name, 'a path (a non-empty string)', v)));

/** The methods of the Sink contract (sinks/sink.ts) a pass calls on every sink; the others are optional. */
const SINK_METHODS = ['write', 'cursors', 'dataVersion', 'close'] as const satisfies ReadonlyArray<keyof Sink>;

/** Every option createForwarder takes, checked once: a misspelt key is refused, never read as "use the default home". */
const FORWARDER_OPTIONS: { [K in keyof Required<ForwarderOptions>]: Check<ForwarderOptions[K]> } = {
  home: optional(nonEmpty),
  userHome: optional(nonEmpty),
  hermesHome: optional(is.string),
  // An empty path would resolve to the working folder, whose state.db nobody named.
  stateDbs: optional(check((v, name) => (Array.isArray(v) ? v.map((p, i) => nonEmpty(p, `${name}[${i}]`)) : invalid(name, 'an array of paths', v)))),
  redact: optional(is.boolean),
  now: optional(check((v, name) => (typeof v === 'function' ? (v as () => number) : invalid(name, 'a function returning milliseconds since the epoch', v)))),
  sink: optional(check((v, name) => {
    if (typeof v !== 'object' || v === null) return invalid(name, 'a Sink', v);
    // What every pass calls: one missing would fail the pass as a bug (a TypeError), not as a wrong option.
    const missing = SINK_METHODS.filter((m) => typeof (v as Record<string, unknown>)[m] !== 'function');
    if (missing.length > 0) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "sink" must be a Sink, with the methods ${SINK_METHODS.join(', ')}; it has no ${missing.join(', ')}.`);
    return v as Sink;
  })),
  readWorker: optional(check((v, name) => ((READ_WORKER_MODES as readonly unknown[]).includes(v) ? (v as ReadWorkerMode) : invalid(name, READ_WORKER_MODES.map((m) => `"${m}"`).join(', '), v)))),
  // Checked here, not at the first write: a zone Intl does not know would fail every store of every pass.
  timeZone: optional(check((v, name) => (isTimeZone(nonEmpty(v, name)) ? v as string : invalid(name, 'an IANA time zone such as Europe/Berlin, or UTC', v)))),
  chunkRows: optional(check((v, name) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : invalid(name, 'a positive whole number of message rows', v)))),
  chunkChars: optional(check((v, name) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : invalid(name, 'a positive whole number of characters', v)))),
  buildAside: optional(check((v, name) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : invalid(name, 'a whole number of messages (0: none)', v)))),
  onDatasetUpgrade: optional(check((v, name) => (typeof v === 'function' ? (v as (from: number, to: number, path: string) => void) : invalid(name, 'a function', v)))),
};
/** No option has a default here: each is resolved where it is used (its environment variable, then its default). */
const NO_DEFAULTS = Object.fromEntries(Object.keys(FORWARDER_OPTIONS).map((k) => [k, undefined])) as never;

/**
 * The options checked (HERMETIC_OPTIONS_UNKNOWN, HERMETIC_OPTIONS_INVALID), no environment variable read yet. An
 * explicit `hermesHome: undefined` is kept as a key, meaning "no HERMES_HOME"; left out, it means the environment's.
 * @example checkForwarderOptions({ stateDbs: ['/tmp/state.db'] })
 */
export function checkForwarderOptions(input: ForwarderOptions = {}): ForwarderOptions {
  const checked = parseOptions('forwarder', input, FORWARDER_OPTIONS, NO_DEFAULTS);
  return 'hermesHome' in (input ?? {}) ? { ...checked, hermesHome: checked.hermesHome } : (({ hermesHome: _, ...rest }) => rest)(checked);
}

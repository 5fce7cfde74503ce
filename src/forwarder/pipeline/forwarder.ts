// The forwarder as a library: stores discovered once per pass, one sink, the usage policy, and the two ways to run
// a pass (backfill: windowed, origin `backfill`; forward: everything changed, origin `forward`).
import { homedir } from 'node:os';
import { createPolicyResolver, type PolicyResolver } from '../policy/index.js';
import { discoverStores, type StoreRef } from '../reader/discover.js';
import type { Sink } from '../sinks/sink.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { stepStore, type StepOptions, type StepResult } from './step.js';
import { READ_WORKER_MODES, type ReadWorkerMode } from './read-mode.js';
import { HermeticError } from '../../shared/errors.js';
import { CursorCache } from '../checkpoint/cursors.js';
import { hermeticHome } from '../home.js';

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
}

export interface PassOptions {
  since?: number | undefined;
  until?: number | undefined;
  onProgress?: StepOptions['onProgress'];
  beforeWrite?: StepOptions['beforeWrite'];
  onStore?: (ref: StoreRef) => void;
}

export interface Forwarder {
  readonly home: string;
  readonly sink: Sink;
  stores(): StoreRef[];
  backfill(options?: PassOptions): StepResult[];
  forwardOnce(options?: PassOptions): StepResult[];
  close(): void;
}

/** The read worker's mode: the option, else HERMETIC_READ_WORKER, else `auto`. */
export function readWorkerMode(option: ReadWorkerMode | undefined, env: NodeJS.ProcessEnv = process.env): ReadWorkerMode {
  const mode = option ?? env.HERMETIC_READ_WORKER ?? 'auto';
  if (!(READ_WORKER_MODES as readonly string[]).includes(mode)) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `The read worker mode must be ${READ_WORKER_MODES.join(', ')}; got "${mode}"${option === undefined ? ' (HERMETIC_READ_WORKER)' : ''}.`);
  }
  return mode as ReadWorkerMode;
}

export { hermeticHome } from '../home.js';

/**
 * @example const f = createForwarder({ stateDbs: ['/tmp/state.db'], home: '/tmp/h' }); f.backfill(); f.close();
 */
export function createForwarder(options: ForwarderOptions = {}): Forwarder {
  const home = hermeticHome(options.home);
  const readWorker = readWorkerMode(options.readWorker);
  const now = options.now ?? Date.now;
  const sink = options.sink ?? SqliteSink.open(home, { timeZone: options.timeZone });
  const policy: PolicyResolver = createPolicyResolver({ stateDir: home, now });
  const stores = () => discoverStores({ home: options.userHome ?? homedir(), hermesHome: options.hermesHome ?? process.env.HERMES_HOME, explicit: options.stateDbs ?? [] });
  const stamps = new Map<string, string>();
  const heartbeats = new Map<string, number>();
  const cursorCache = new CursorCache(sink);
  const schemaCache = new Map<string, { cookie: number; columns: Map<string, Set<string>> }>();
  const pass = (origin: 'backfill' | 'forward', o: PassOptions = {}) => stores().map((ref) => {
    o.onStore?.(ref);
    return stepStore(ref, {
      sink, policy, redact: options.redact ?? false, origin, now: () => now() / 1000,
      window: { since: o.since, until: o.until }, stamps: origin === 'forward' ? stamps : undefined, heartbeats: origin === 'forward' ? heartbeats : undefined, cursorCache, schemaCache, readWorker, onProgress: o.onProgress, beforeWrite: o.beforeWrite,
    });
  });
  return {
    home, sink, stores,
    backfill: (o) => pass('backfill', o),
    forwardOnce: (o) => pass('forward', { ...o, since: undefined, until: undefined }),
    close: () => sink.close(),
  };
}

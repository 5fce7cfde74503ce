// The forwarder as a library: stores discovered once per pass, one sink, the usage policy, and the two ways to run
// a pass (backfill: windowed, origin `backfill`; forward: everything changed, origin `forward`), each also as a pass
// that lets the event loop run between its batches (a SIGINT handler can stop it there). Options are checked once,
// here. Each environment variable has one reader: HERMES_HOME `findStores` (below; the PostgreSQL settings also
// compare it, to know the process's own home), HERMETIC_HOME `hermeticHome` (home.ts), HERMETIC_TZ `explicitTimeZone`
// (ledger/zone.ts), HERMETIC_READ_WORKER and HERMETIC_BUILD_ASIDE below.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPolicyResolver, type PolicyResolver } from '../policy/index.js';
import { discoverStores, spelledAsKnown, storeFile, storeRoots, type StoreRef } from '../reader/discover.js';
import type { MirrorResult } from '../reader/postgres/mirror.js';
import { mirrorFile, mirrorJob } from '../reader/postgres/settings.js';
import { BuildDropped, type Sink } from '../sinks/sink.js';
import { LazySqliteSink } from '../sinks/sqlite/lazy.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { DATASET_FILE } from '../sinks/sqlite/dataset.js';
import { PolicyMover, type PolicyMove } from './policy-moves.js';
import { countMoves, type StoreMoves } from './result.js';
import { BUILD_ASIDE_MESSAGES } from '../sinks/sqlite/first-build.js';
import { stepStore, stepStoreInSteps, StoreStopped, type StepOptions, type StepResult } from './step.js';
import { CHUNK_ROWS } from './read-session.js';
import { READ_WORKER_MODES, type ReadWorkerMode } from './read-mode.js';
import { SETTLED_INTERVAL, WATCH_SECONDS } from './edits.js';
import { HermeticError } from '../../shared/errors.js';
import { check, is, parseOptions, type Check } from '../../shared/options.js';
import { primaryCode } from '../../shared/sqlite-errors.js';
import { CursorCache } from '../checkpoint/cursors.js';
import { hermeticHome } from '../home.js';
import { explicitTimeZone } from '../ledger/zone.js';

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
  /**
   * A home with no dataset gets its first one built aside and published whole at the end of the pass, or once this
   * many messages are in (decision 0058); 0 writes it in place from the first batch. Default `$HERMETIC_BUILD_ASIDE`,
   * else 250,000.
   */
  buildAside?: number;
}

/** Message rows a forward tick compares for edits in place at most (a few milliseconds; decision 0053). */
export const EDIT_CHECK_ROWS = 20_000;

/** How often a forwarder applies the usage policy's changes to what it forwarded (spec forwarding §4: within 5 s). */
const POLICY_MOVES_EVERY_MS = 4000;
/** A pass's result for one store that wrote nothing of its sessions or delegations (a heartbeat aside). */
const wroteNothing = (r: StepResult): boolean =>
  r.sessionsWritten + r.sessionsPartial + r.sessionsRemoved + r.sessionsQuarantined + r.delegationsWritten + r.delegationsRemoved === 0;
/** A store a pass found, gone since (forwarder.ts `passStores`): not there, said removed (decision 0104). */
const gone = (r: StoreRef, absent: string | undefined): StoreRef =>
  ({ ...r, exists: false, absent: absent === undefined || absent === 'does not exist' ? 'was removed after this forwarder read it' : absent, gone: true });

/**
 * A store that went away between discovery and its step (removed mid-tick): the open failed on a file no longer there.
 * Its result is then the missing store's, and `onStore` hears of it again as not there, so the commands say it as
 * removed, not as a store that could not be opened. Null when that is not what happened.
 */
function vanished(ref: StoreRef, r: StepResult): StoreRef | null {
  if (r.error === null || r.read !== null || !ref.exists || ref.source || ref.backend !== 'sqlite') return null;
  const look = storeFile(ref.path);
  return look.exists || look.unreachable ? null : gone(ref, look.absent);
}

/** A clock set back by more than this between two passes makes them forget the times they remember (below). */
const CLOCK_BACK_MS = 60_000;

export interface PassOptions {
  since?: number | undefined;
  until?: number | undefined;
  onProgress?: StepOptions['onProgress'];
  beforeWrite?: StepOptions['beforeWrite'];
  onStore?: (ref: StoreRef) => void;
  /**
   * Asked after each committed batch, and between tries of a read a writer's lock held up (decision 0104): false stops
   * the pass there (what is committed stays; a later pass goes on).
   */
  keepGoing?: () => boolean;
  /**
   * The usage policy's moves after the pass (decision 0143) of stores it has no result of (a `--state-db` pass over one
   * store judges the dataset's other stores too); the moves of the stores it read are counted in their results.
   */
  onOtherMoves?: (moves: StoreMoves[]) => void;
}

export interface Forwarder {
  readonly home: string;
  readonly sink: Sink;
  stores(): StoreRef[];
  backfill(options?: PassOptions): StepResult[];
  forwardOnce(options?: PassOptions): StepResult[];
  /** The same passes, letting the event loop run after each committed batch and while a lock is waited for (where `keepGoing` may stop them). */
  backfillAsync(options?: PassOptions): Promise<StepResult[]>;
  forwardOnceAsync(options?: PassOptions): Promise<StepResult[]>;
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

export { hermeticHome } from '../home.js';

/** Where the stores are looked for: the user's home, HERMES_HOME (the option, else the environment's), --state-db. */
export interface StoreSearch {
  userHome?: string;
  hermesHome?: string | undefined;
  stateDbs?: readonly string[];
}

/**
 * The stores a pass reads (reader/discover.ts), with HERMES_HOME taken from the environment when not given.
 * @example findStores({ stateDbs: ['/tmp/state.db'] })
 */
export function findStores(search: StoreSearch = {}, env: NodeJS.ProcessEnv = process.env): StoreRef[] {
  return discoverStores({ home: search.userHome ?? homedir(), hermesHome: hermesHomeOf(search, env), explicit: search.stateDbs ?? [], env });
}

/** HERMES_HOME as a pass takes it: the option, else the environment's (the one place the forwarder reads it). */
function hermesHomeOf(search: StoreSearch, env: NodeJS.ProcessEnv): string | undefined {
  return 'hermesHome' in search ? search.hermesHome : env.HERMES_HOME;
}

/**
 * The Hermes homes findStores searches when no --state-db is given (HERMES_HOME's first, when set), and whether
 * HERMES_HOME was set: what the commands say when they found no store.
 * @example searchedHomes({ userHome: '/home/u' }, {}) // { roots: ['/home/u/.hermes'], hermesHomeSet: false }
 */
export function searchedHomes(search: StoreSearch = {}, env: NodeJS.ProcessEnv = process.env): { roots: string[]; hermesHomeSet: boolean } {
  const hermesHome = hermesHomeOf(search, env) || undefined;
  return { roots: storeRoots({ home: search.userHome ?? homedir(), hermesHome }), hermesHomeSet: hermesHome !== undefined };
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
  buildAside: optional(check((v, name) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : invalid(name, 'a whole number of messages (0: none)', v)))),
};
/** No option has a default here: each is resolved where it is used (its environment variable, then its default). */
const NO_DEFAULTS = Object.fromEntries(Object.keys(FORWARDER_OPTIONS).map((k) => [k, undefined])) as never;

/**
 * The stores of each pass: those discovery lists, and the store files an earlier pass of this forwarder found that it
 * no longer lists. One gone since — its state.db deleted, its profile folder (or the whole Hermes home) removed — stays
 * in every pass as not there: the commands say it once (forward waits for it), and read it again, as any store, once
 * it is back.
 */
function storesOfPasses(stores: () => StoreRef[]): () => StoreRef[] {
  const seen = new Map<string, StoreRef>();
  return () => {
    const found = stores();
    for (const r of found) if (r.exists && r.backend === 'sqlite' && !r.source) seen.set(r.path, r);
    const listed = new Set(found.map((r) => r.path));
    const unlisted: StoreRef[] = [];
    for (const r of seen.values()) {
      if (listed.has(r.path)) continue;
      // Still there but not listed (a profiles folder that cannot be listed: its home's store says so), or behind a
      // folder that cannot be entered: not gone.
      const look = storeFile(r.path);
      if (!look.exists && !look.unreachable) unlisted.push(gone(r, look.absent));
    }
    return [...found.map((r) => (!r.exists && !r.problem && seen.has(r.path) ? gone(r, r.absent) : r)), ...unlisted];
  };
}

/**
 * @example const f = createForwarder({ stateDbs: ['/tmp/state.db'], home: '/tmp/h' }); f.backfill(); f.close();
 */
export function createForwarder(input: ForwarderOptions = {}): Forwarder {
  const checked = parseOptions('forwarder', input, FORWARDER_OPTIONS, NO_DEFAULTS);
  // An explicit `hermesHome: undefined` means "no HERMES_HOME", where leaving it out means the environment's.
  const options: ForwarderOptions = 'hermesHome' in (input ?? {}) ? { ...checked, hermesHome: checked.hermesHome } : (({ hermesHome: _, ...rest }) => rest)(checked);
  const home = resolve(hermeticHome(options.home));
  // HERMETIC_TZ is checked with the options, not first when a pass opens the dataset: there a bad zone was said as
  // the store's failure (decision 0126, addendum).
  explicitTimeZone(options.timeZone);
  const readWorker = readWorkerMode(options.readWorker);
  const now = options.now ?? Date.now;
  // Opened on the first write: a pass that writes nothing creates no dataset.
  const sink = options.sink ?? new LazySqliteSink(home, { timeZone: options.timeZone, buildAside: buildAside(options.buildAside) });
  const policy: PolicyResolver = createPolicyResolver({ stateDir: home, now });
  // A PostgreSQL store is read through its local mirror in Hermetic's home (decision 0038).
  // A store the dataset knows under another spelling of the same file keeps that key (its rows are not written twice).
  const stores = () => spelledAsKnown(findStores({ userHome: options.userHome, ...('hermesHome' in options ? { hermesHome: options.hermesHome } : {}), stateDbs: options.stateDbs }), sink.storeKeys?.() ?? [])
    .map((r) => (r.source ? { ...r, file: mirrorFile(home, r.source) } : r));
  const passStores = storesOfPasses(stores);
  const stamps = new Map<string, string>();
  const heartbeats = new Map<string, number>();
  // When each session was last compared for edits in place (decision 0053): a forward tick compares at most
  // EDIT_CHECK_ROWS message rows, settled sessions (quiet for a week) included once a day; a backfill every session
  // due of the week.
  const checkedAt = new Map<string, Map<string, number>>();
  const owed = new Map<string, Map<string, number>>();
  const cursorCache = new CursorCache(sink);
  const schemaCache = new Map<string, { cookie: number; columns: Map<string, Set<string>> }>();
  const stepOptions = (origin: 'backfill' | 'forward', o: PassOptions): StepOptions => ({
    sink, policy, redact: options.redact ?? false, origin, now: () => now() / 1000,
    window: { since: o.since, until: o.until }, stamps: origin === 'forward' ? stamps : undefined, heartbeats: origin === 'forward' ? heartbeats : undefined,
    checkedAt, owed, checkBudget: origin === 'forward' ? EDIT_CHECK_ROWS : Infinity, checkSettled: origin === 'forward',
    cursorCache, schemaCache, readWorker, onProgress: o.onProgress, beforeWrite: o.beforeWrite, keepGoing: o.keepGoing,
    chunkRows: options.chunkRows ?? CHUNK_ROWS,
  });
  // The usage policy's changes applied to sessions already forwarded (policy-moves.ts): after a pass over a dataset
  // that was there before it (a first pass judged every session it wrote), at most every few seconds.
  let movesAt = -Infinity;
  const mover = new PolicyMover(policy);
  // The usage policy's moves run on the SQLite dataset itself: a sink of another kind (the `sink` option) gets none.
  const datasetNow = () => (sink instanceof LazySqliteSink ? sink.existing()?.db ?? null : sink instanceof SqliteSink ? sink.db : null);
  /** The moves made (none when it was not time to look, or the dataset was busy). */
  const movePolicies = (existed: boolean, o: PassOptions): PolicyMove[] => {
    const t = now();
    if (!existed || o.keepGoing?.() === false || t - movesAt < POLICY_MOVES_EVERY_MS) return [];
    movesAt = t;
    const dataset = datasetNow();
    if (dataset === null) return [];
    try {
      return mover.check(dataset, t);
    } catch (e) {
      // A dataset busy with another process: the next pass tries again.
      const code = primaryCode(e);
      if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw e;
      movesAt = -Infinity;
      return [];
    }
  };
  // The dataset removed or replaced under a running forwarder (its home deleted, a backup restored): what it knew of
  // the old file is forgotten, the next write opens or creates the one there now, and each store's result says so.
  const replacedNotice = (): string | null => {
    if (sink.replaced?.() !== true) return null;
    forgetCaches();
    return `the dataset at ${join(home, DATASET_FILE)} was removed or replaced while this forwarder ran: it writes to the file there now (a new one is built from the stores)`;
  };
  const said = (out: StepResult[], notice: string | null): StepResult[] => {
    if (notice) for (const r of out) r.warning = [notice, r.warning].filter(Boolean).join('; ');
    return out;
  };
  // The dataset's data version when the last pass began. Another process that wrote since may have acted on a usage
  // policy newer than this forwarder's cached answers (a `hermetic forget` just after a .hypignore): judged by the
  // cached ones, a session it forgot was read and written back, for good. So the policy is read again first.
  let policySeen: number | null = null;
  const policyAfterOthers = () => {
    const v = sink.dataVersion();
    if (policySeen !== null && v !== policySeen) policy.invalidate();
    policySeen = v;
  };
  // The clock set back (NTP stepping a clock that ran ahead, a VM resumed): the times the passes remember are in the
  // future, and each pace measured from them (the heartbeat, the looks for edits, the policy's moves) would wait for
  // the clock to catch up, a day for a day. They start again from now; the sessions owed a look are due now.
  let lastPassAt = -Infinity;
  const clockWentBack = () => {
    const t = now();
    if (t < lastPassAt - CLOCK_BACK_MS) {
      heartbeats.clear();
      checkedAt.clear();
      for (const due of owed.values()) for (const id of due.keys()) due.set(id, t / 1000);
      movesAt = -Infinity;
    }
    lastPassAt = t;
  };
  /** What every pass does first: the clock, the policy, the dataset replaced; whether a dataset was there before. */
  const beginPass = () => {
    clockWentBack();
    policyAfterOthers();
    // A usage-policy list that cannot be read stops the pass before any store (fail closed), also with nothing to judge.
    policy.checkList();
    return { notice: replacedNotice(), existed: datasetNow() !== null };
  };
  const endPass = (out: StepResult[], begun: { notice: string | null; existed: boolean }, o: PassOptions) => {
    // The moves are the dataset changing: counted in the results, so a summary never reads "nothing new" over them.
    const elsewhere = countMoves(out, movePolicies(begun.existed, o));
    if (elsewhere.length > 0) o.onOtherMoves?.(elsewhere);
    return said(out, begun.notice);
  };
  /** A store's result, or the result of the store it turned out to be once it vanished under the pass. */
  const settledStore = (ref: StoreRef, r: StepResult, origin: 'backfill' | 'forward', o: PassOptions): StepResult => {
    const away = vanished(ref, r);
    if (away) o.onStore?.(away);
    return away ? stepStore(away, stepOptions(origin, o)) : r;
  };
  const passOnce = (origin: 'backfill' | 'forward', o: PassOptions = {}) => {
    const begun = beginPass();
    const out: StepResult[] = [];
    for (const ref of passStores()) {
      if (o.keepGoing?.() === false) break;
      o.onStore?.(ref);
      try {
        out.push(settledStore(ref, stepStore(ref, stepOptions(origin, o)), origin, o));
      } catch (e) {
        // Stopped while a writer kept the store locked: nothing of it written, the pass ends (decision 0104).
        if (e instanceof StoreStopped) break;
        throw e;
      }
    }
    return endPass(out, begun, o);
  };
  /**
   * One store, a batch at a time with a turn of the event loop between batches (a signal's handler runs there, and
   * keepGoing() answers it after); null when it was stopped while a writer kept the store locked.
   */
  const stepStoreAsync = async (ref: StoreRef, origin: 'backfill' | 'forward', o: PassOptions): Promise<StepResult | null> => {
    // A PostgreSQL store's mirror is refreshed here, awaited in this thread (the synchronous passes use the mirror thread).
    let mirrorRefreshed: HermeticError | MirrorResult | undefined;
    if (ref.source) {
      try {
        // Loaded only when a PostgreSQL store is there: pg is no cost to a pass over state.db files.
        const { refreshMirror } = await import('../reader/postgres/mirror.js');
        mirrorRefreshed = await refreshMirror(mirrorJob(ref, { now: now() / 1000, editsWindow: WATCH_SECONDS, settledEvery: SETTLED_INTERVAL }));
      } catch (e) {
        if (!(e instanceof HermeticError)) throw e;
        mirrorRefreshed = e;
      }
    }
    const steps = stepStoreInSteps(ref, { ...stepOptions(origin, o), mirrorRefreshed });
    for (;;) {
      let next: IteratorResult<void, StepResult>;
      try {
        next = steps.next();
      } catch (e) {
        // Stopped while a writer kept the store locked: nothing of it written, the pass ends (decision 0104).
        if (e instanceof StoreStopped) return null;
        throw e;
      }
      if (next.done) return settledStore(ref, next.value, origin, o);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const passOnceAsync = async (origin: 'backfill' | 'forward', o: PassOptions = {}) => {
    const begun = beginPass();
    const out: StepResult[] = [];
    for (const ref of passStores()) {
      if (o.keepGoing?.() === false) break;
      o.onStore?.(ref);
      const r = await stepStoreAsync(ref, origin, o);
      if (r === null) break;
      out.push(r);
    }
    return endPass(out, begun, o);
  };
  // A first dataset built aside is published at the end of the pass, or during it once large (sinks/sqlite/
  // first-build.ts). When it cannot be, the pass stopped where it was and what it wrote went with the build: when another
  // process created the dataset meanwhile, the pass runs again over that dataset, with nothing remembered from the
  // first run (its stamps would take the store for read); when publishing failed, the pass fails.
  const settled = (out: StepResult[], origin: 'backfill' | 'forward', o: PassOptions): StepResult[] => {
    sink.settle?.();
    // A forward pass that wrote no session (the loop gone quiet, not stopping): the dataset's WAL goes into its file.
    if (origin === 'forward' && o.keepGoing?.() !== false && out.every(wroteNothing)) sink.quiet?.();
    return out;
  };
  /** What the passes remember of the dataset between them: forgotten when it is not the file they were taken from. */
  const forgetCaches = (): void => {
    stamps.clear();
    heartbeats.clear();
    checkedAt.clear();
    owed.clear();
    cursorCache.clear();
  };
  const dropped = (e: unknown, attempt: number): void => {
    if (!(e instanceof BuildDropped)) throw e;
    if (e.why !== 'lost') throw new HermeticError(e.why.code, `${e.why.message} Nothing this pass read was kept; run it again.`);
    // The second run writes into the dataset that is there; one that loses again saw it vanish and come back.
    if (attempt >= 3) throw new HermeticError('HERMETIC_DATASET_WRITE', `Other processes kept creating the dataset in ${home} while this pass wrote it; nothing this pass read was kept; run it again.`);
    forgetCaches();
  };
  const pass = (origin: 'backfill' | 'forward', o: PassOptions = {}): StepResult[] => {
    for (let attempt = 1; ; attempt++) {
      try {
        return settled(passOnce(origin, o), origin, o);
      } catch (e) {
        dropped(e, attempt);
      }
    }
  };
  const passAsync = async (origin: 'backfill' | 'forward', o: PassOptions = {}): Promise<StepResult[]> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return settled(await passOnceAsync(origin, o), origin, o);
      } catch (e) {
        dropped(e, attempt);
      }
    }
  };
  const forwardPass = (o: PassOptions = {}): PassOptions => ({ ...o, since: undefined, until: undefined });
  return {
    home, sink, stores,
    backfill: (o) => pass('backfill', o),
    forwardOnce: (o) => pass('forward', forwardPass(o)),
    backfillAsync: (o) => passAsync('backfill', o),
    forwardOnceAsync: (o) => passAsync('forward', forwardPass(o)),
    close: () => sink.close(),
  };
}

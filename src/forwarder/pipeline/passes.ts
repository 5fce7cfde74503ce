// A forwarder's passes over its stores: each begins (the clock, the usage policy, the dataset replaced), steps each
// store (step.ts), settles the sink, ends (the usage policy's moves), and runs again when a first dataset built aside
// was dropped. A pass runs straight through, or (async) with a turn of the event loop after each committed batch (a
// SIGINT handler can stop it there). What the passes remember between them is in pass-memory.ts.
import { join } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { primaryCode } from '../../shared/sqlite-errors.js';
import type { Db } from '../../shared/sqlite.js';
import type { PolicyResolver } from '../policy/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { MirrorResult } from '../reader/postgres/mirror.js';
import { mirrorJob } from '../reader/postgres/settings.js';
import { BuildDropped, type Sink } from '../sinks/sink.js';
import { DATASET_FILE } from '../sinks/sqlite/dataset.js';
import { LazySqliteSink } from '../sinks/sqlite/lazy.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { SETTLED_INTERVAL, WATCH_SECONDS } from './edits.js';
import { PassMemory } from './pass-memory.js';
import { PolicyMover, type PolicyMove } from './policy-moves.js';
import type { ReadWorkerMode } from './read-mode.js';
import type { ChunkSize } from './chunk-size.js';
import { countMoves, type StoreMoves } from './result.js';
import { stepStore, stepStoreInSteps, StoreStopped, type StepOptions, type StepResult } from './step.js';
import { vanished } from './stores.js';

/** Message rows a forward tick compares for edits in place at most (a few milliseconds; decision 0053). */
const EDIT_CHECK_ROWS = 20_000;
/** How often a forwarder applies the usage policy's changes to what it forwarded (spec forwarding §4: within 5 s). */
const POLICY_MOVES_EVERY_MS = 4000;
/** A clock set back by more than this between two passes makes them forget the times they remember. */
const CLOCK_BACK_MS = 60_000;

export type Origin = 'backfill' | 'forward';

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

/** What the passes are run with: the forwarder's options, resolved once (forwarder.ts). */
export interface PassSetup {
  /** Hermetic's home (said when the dataset there was replaced, or kept being created by others). */
  home: string;
  sink: Sink;
  policy: PolicyResolver;
  /** The stores of each pass (stores.ts storesOfPasses). */
  stores: () => StoreRef[];
  /** Milliseconds since the epoch. */
  now: () => number;
  redact: boolean;
  readWorker: ReadWorkerMode;
  chunk: ChunkSize;
}

/** How a pass began: the notice of a dataset replaced, and whether a dataset was there before it. */
interface Begun {
  notice: string | null;
  existed: boolean;
}

/** A pass's result for one store that wrote nothing of its sessions or delegations (a heartbeat aside). */
const wroteNothing = (r: StepResult): boolean =>
  r.sessionsWritten + r.sessionsPartial + r.sessionsRemoved + r.sessionsQuarantined + r.delegationsWritten + r.delegationsRemoved === 0;

/** The results, each with the pass's notice (when there is one) before its own warning. */
function said(out: StepResult[], notice: string | null): StepResult[] {
  if (notice) for (const r of out) r.warning = [notice, r.warning].filter(Boolean).join('; ');
  return out;
}

/**
 * The SQLite dataset the sink writes, when there is one now. The usage policy's moves run on the dataset itself: a
 * sink of another kind (the `sink` option) gets none.
 */
function datasetOf(sink: Sink): Db | null {
  return sink instanceof LazySqliteSink ? sink.existing()?.db ?? null : sink instanceof SqliteSink ? sink.db : null;
}

/**
 * The passes of one forwarder, sharing what they remember.
 * @example new Passes(setup).run('forward', {}) // one StepResult per store
 */
export class Passes {
  readonly #setup: PassSetup;
  readonly #memory: PassMemory;
  // The usage policy's changes applied to sessions already forwarded (policy-moves.ts): after a pass over a dataset
  // that was there before it (a first pass judged every session it wrote), at most every few seconds.
  readonly #mover: PolicyMover;
  #movesAt = -Infinity;
  // The dataset's data version when the last pass began. Another process that wrote since may have acted on a usage
  // policy newer than this forwarder's cached answers (a `hermetic forget` just after a .hypignore): judged by the
  // cached ones, a session it forgot was read and written back, for good. So the policy is read again first.
  #policySeen: number | null = null;
  #lastPassAt = -Infinity;

  constructor(setup: PassSetup) {
    this.#setup = setup;
    this.#memory = new PassMemory(setup.sink);
    this.#mover = new PolicyMover(setup.policy);
  }

  /** A pass, run again (with nothing remembered) when the first dataset it built aside was dropped. */
  run(origin: Origin, o: PassOptions = {}): StepResult[] {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.#settled(this.#once(origin, o), origin, o);
      } catch (e) {
        this.#dropped(e, attempt);
      }
    }
  }

  /** The same pass, letting the event loop run after each committed batch and while a lock is waited for. */
  async runAsync(origin: Origin, o: PassOptions = {}): Promise<StepResult[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return this.#settled(await this.#onceAsync(origin, o), origin, o);
      } catch (e) {
        this.#dropped(e, attempt);
      }
    }
  }

  #once(origin: Origin, o: PassOptions): StepResult[] {
    const begun = this.#begin();
    const out: StepResult[] = [];
    for (const ref of this.#setup.stores()) {
      if (o.keepGoing?.() === false) break;
      o.onStore?.(ref);
      try {
        out.push(this.#settledStore(ref, stepStore(ref, this.#stepOptions(origin, o)), origin, o));
      } catch (e) {
        // Stopped while a writer kept the store locked: nothing of it written, the pass ends (decision 0104).
        if (e instanceof StoreStopped) break;
        throw e;
      }
    }
    return this.#end(out, begun, o);
  }

  async #onceAsync(origin: Origin, o: PassOptions): Promise<StepResult[]> {
    const begun = this.#begin();
    const out: StepResult[] = [];
    for (const ref of this.#setup.stores()) {
      if (o.keepGoing?.() === false) break;
      o.onStore?.(ref);
      const r = await this.#stepAsync(ref, origin, o);
      if (r === null) break;
      out.push(r);
    }
    return this.#end(out, begun, o);
  }

  /**
   * One store, a batch at a time with a turn of the event loop between batches (a signal's handler runs there, and
   * keepGoing() answers it after); null when it was stopped while a writer kept the store locked.
   */
  async #stepAsync(ref: StoreRef, origin: Origin, o: PassOptions): Promise<StepResult | null> {
    // A PostgreSQL store's mirror is refreshed here, awaited in this thread (the synchronous passes use the mirror thread).
    let mirrorRefreshed: HermeticError | MirrorResult | undefined;
    if (ref.source) {
      try {
        // Loaded only when a PostgreSQL store is there: pg is no cost to a pass over state.db files.
        const { refreshMirror } = await import('../reader/postgres/mirror.js');
        mirrorRefreshed = await refreshMirror(mirrorJob(ref, { now: this.#setup.now() / 1000, editsWindow: WATCH_SECONDS, settledEvery: SETTLED_INTERVAL }));
      } catch (e) {
        if (!(e instanceof HermeticError)) throw e;
        mirrorRefreshed = e;
      }
    }
    const steps = stepStoreInSteps(ref, { ...this.#stepOptions(origin, o), mirrorRefreshed });
    for (;;) {
      let next: IteratorResult<void, StepResult>;
      try {
        next = steps.next();
      } catch (e) {
        // Stopped while a writer kept the store locked: nothing of it written, the pass ends (decision 0104).
        if (e instanceof StoreStopped) return null;
        throw e;
      }
      if (next.done) return this.#settledStore(ref, next.value, origin, o);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #stepOptions(origin: Origin, o: PassOptions): StepOptions {
    const { sink, policy, redact, now, readWorker, chunk } = this.#setup;
    const m = this.#memory;
    const forward = origin === 'forward';
    return {
      sink, policy, redact, origin, now: () => now() / 1000,
      window: { since: o.since, until: o.until }, stamps: forward ? m.stamps : undefined, heartbeats: forward ? m.heartbeats : undefined,
      checkedAt: m.checkedAt, owed: m.owed, checkBudget: forward ? EDIT_CHECK_ROWS : Infinity, checkSettled: forward,
      cursorCache: m.cursorCache, schemaCache: m.schemaCache, readWorker, onProgress: o.onProgress, beforeWrite: o.beforeWrite, keepGoing: o.keepGoing,
      chunk,
    };
  }

  /** A store's result, or the result of the store it turned out to be once it vanished under the pass (stores.ts). */
  #settledStore(ref: StoreRef, r: StepResult, origin: Origin, o: PassOptions): StepResult {
    const away = vanished(ref, r);
    if (away) o.onStore?.(away);
    return away ? stepStore(away, this.#stepOptions(origin, o)) : r;
  }

  /** What every pass does first: the clock, the policy, the dataset replaced; whether a dataset was there before. */
  #begin(): Begun {
    this.#clockWentBack();
    this.#policyAfterOthers();
    // A usage-policy list that cannot be read stops the pass before any store (fail closed), also with nothing to judge.
    this.#setup.policy.checkList();
    return { notice: this.#replacedNotice(), existed: datasetOf(this.#setup.sink) !== null };
  }

  #end(out: StepResult[], begun: Begun, o: PassOptions): StepResult[] {
    // The moves are the dataset changing: counted in the results, so a summary never reads "nothing new" over them.
    const elsewhere = countMoves(out, this.#movePolicies(begun.existed, o));
    if (elsewhere.length > 0) o.onOtherMoves?.(elsewhere);
    return said(out, begun.notice);
  }

  // A first dataset built aside is published at the end of the pass, or during it once large (sinks/sqlite/
  // first-build.ts). When it cannot be, the pass stopped where it was and what it wrote went with the build: when
  // another process created the dataset meanwhile, the pass runs again over that dataset, with nothing remembered from
  // the first run (its stamps would take the store for read); when publishing failed, the pass fails (#dropped).
  #settled(out: StepResult[], origin: Origin, o: PassOptions): StepResult[] {
    const { sink } = this.#setup;
    sink.settle?.();
    // A forward pass that wrote no session (the loop gone quiet, not stopping): the dataset's WAL goes into its file.
    if (origin === 'forward' && o.keepGoing?.() !== false && out.every(wroteNothing)) sink.quiet?.();
    return out;
  }

  #dropped(e: unknown, attempt: number): void {
    if (!(e instanceof BuildDropped)) throw e;
    if (e.why !== 'lost') throw new HermeticError(e.why.code, `${e.why.message} Nothing this pass read was kept; run it again.`);
    // The second run writes into the dataset that is there; one that loses again saw it vanish and come back.
    if (attempt >= 3) throw new HermeticError('HERMETIC_DATASET_WRITE', `Other processes kept creating the dataset in ${this.#setup.home} while this pass wrote it; nothing this pass read was kept; run it again.`);
    this.#memory.forgetDataset();
  }

  // The clock set back (NTP stepping a clock that ran ahead, a VM resumed): the times the passes remember are in the
  // future, and each pace measured from them (the heartbeat, the looks for edits, the policy's moves) would wait for
  // the clock to catch up, a day for a day. They start again from now; the sessions owed a look are due now.
  #clockWentBack(): void {
    const t = this.#setup.now();
    if (t < this.#lastPassAt - CLOCK_BACK_MS) {
      this.#memory.clockSetBack(t);
      this.#movesAt = -Infinity;
    }
    this.#lastPassAt = t;
  }

  #policyAfterOthers(): void {
    const v = this.#setup.sink.dataVersion();
    if (this.#policySeen !== null && v !== this.#policySeen) this.#setup.policy.invalidate();
    this.#policySeen = v;
  }

  // The dataset removed or replaced under a running forwarder (its home deleted, a backup restored): what it knew of
  // the old file is forgotten, the next write opens or creates the one there now, and each store's result says so.
  #replacedNotice(): string | null {
    if (this.#setup.sink.replaced?.() !== true) return null;
    this.#memory.forgetDataset();
    return `the dataset at ${join(this.#setup.home, DATASET_FILE)} was removed or replaced while this forwarder ran: it writes to the file there now (a new one is built from the stores)`;
  }

  /** The moves made (none when it was not time to look, or the dataset was busy). */
  #movePolicies(existed: boolean, o: PassOptions): PolicyMove[] {
    const t = this.#setup.now();
    if (!existed || o.keepGoing?.() === false || t - this.#movesAt < POLICY_MOVES_EVERY_MS) return [];
    this.#movesAt = t;
    const dataset = datasetOf(this.#setup.sink);
    if (dataset === null) return [];
    try {
      return this.#mover.check(dataset, t);
    } catch (e) {
      // A dataset busy with another process: the next pass tries again.
      const code = primaryCode(e);
      if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw e;
      this.#movesAt = -Infinity;
      return [];
    }
  }
}

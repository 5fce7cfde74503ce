// The sessions of a pass, read and projected, one at a time in whatever order they are ready: read on this thread,
// or by the read worker while this thread writes (decision 0027). Both take indexes from one shared counter, so each
// session is read once. With the worker off (or a small pass) this is simply a loop over the list. A worker whose thread
// ends in a pass leaves the sessions it took unread: `auto` reads them here, `only` fails (decision 0129).
import { availableParallelism, loadavg } from 'node:os';
import { HermeticError } from '../../shared/errors.js';
import { isLock } from '../reader/connection.js';
import type { StoreRef } from '../reader/discover.js';
import type { StoreReader } from '../reader/index.js';
import type { SessionRecords } from '../sinks/sink.js';
import { cpuMeter } from './cpu-meter.js';
import { newControl, ReadAhead, warmReadWorker } from './read-ahead.js';
import { THREAD_ENDED, type WorkerWhere } from '../../shared/thread-task.js';
import type { ReadWorkerMode } from './read-mode.js';
import { SLOT, type ReadWindow } from './read-protocol.js';
import { CHUNK, type ChunkSize } from './chunk-size.js';
import { readSession, type Long, type Prior, type ReadContext } from './read-session.js';

export const READ_WORKER_MIN_SESSIONS = 200;

/**
 * Starts the worker thread before a pass plans (decision 0164) when the pass will likely want it: `auto` or `only`
 * on the process's own worker, more than one core, a store read for the first time (no cursor of it yet: every
 * session is to read) and whole (no `--since`/`--until` window, which may select few sessions or none: the plan
 * tells, and the pass starts the worker then if it wants it), that holds at least READ_WORKER_MIN_SESSIONS sessions
 * (`sessions`, asked last). Its ~100 ms of loading then overlaps the plan's queries. The pass still decides whether
 * it reads (SessionFeed: a free core); a thread no pass takes ends after a minute.
 */
export function warmIfWorth(o: { mode: ReadWorkerMode; ownWorker: boolean; firstRead: boolean; windowed: boolean; sessions: () => number; cores?: number }): boolean {
  const worth = o.mode !== 'off' && !o.ownWorker && o.firstRead && !o.windowed && (o.cores ?? availableParallelism()) >= 2
    && o.sessions() >= READ_WORKER_MIN_SESSIONS;
  if (worth) warmReadWorker();
  return worth;
}

/** How long an `only` pass whose worker ended waits for the event loop to say why (a turn or two, in practice). */
const ONLY_REASON_MS = 500;

/** The cores others may keep busy, at most, for one to count as free: the worker would get most of what is left. */
export const FREE_CORE_SLACK = 0.4;

/**
 * Whether a core is free for the read worker (issue 16 §4): at least two cores, and other processes kept no more than
 * `cores - 2 + FREE_CORE_SLACK` of them busy since the last look (cpu-meter.ts: this process's own threads are not
 * counted); without that measure, the last minute's load average below one less than their number. With every core
 * busy the two threads share one and the pass is slower than the plain one (measured: 8.3–9.7 s against 5.7 s for a
 * 50k-message store), so `auto` then reads on this thread alone (decisions 0033, 0044).
 */
export function coreFree(cores = availableParallelism(), othersBusy: number | null = cpuMeter.othersBusy(), load = loadavg()[0]!): boolean {
  if (cores < 2) return false;
  return othersBusy !== null ? othersBusy <= cores - 2 + FREE_CORE_SLACK : load < cores - 1;
}

export interface FeedItem {
  index: number;
  read: SessionRecords | null | { error: string } | Long;
}

export interface FeedOptions {
  reader: StoreReader;
  ref: StoreRef;
  redact: boolean;
  origin: 'backfill' | 'forward';
  ids: readonly string[];
  /** What each session's cursor holds (its ledger, and the tail its delta is computed against). */
  priorOf: (id: string) => Prior | null;
  mode: ReadWorkerMode;
  window: ReadWindow;
  /** A session that does not fit in a chunk is not read here but left to the writing thread (default chunk-size.ts CHUNK; read-session.ts LONG). */
  chunk?: ChunkSize;
  /** Whether a core is free for the worker, and whether that can be told yet (default: this process's meter). */
  cores?: CoreJudge;
  /** The worker's module (default: read-worker's, workerEntry): tests give one that misbehaves. */
  worker?: WorkerWhere;
  /**
   * The caller can let the event loop run while it waits for the worker: `next()` then throws WorkerQuiet after a
   * second the worker posted nothing, and is called again after (the worker thread's end is told there everywhere).
   */
  quietThrows?: boolean;
}

/**
 * The worker posted nothing for a while and its thread still runs, as far as can be told (or, in `only`, it ended and
 * the event loop has yet to say why): turn the event loop and ask `next()` again.
 */
export class WorkerQuiet extends Error {
  constructor() {
    super('The read worker has posted nothing for a second.');
  }
}

/** `auto`'s judge of the machine (tests give their own). */
export interface CoreJudge {
  /** The meter's window is long enough to tell. */
  ready(): boolean;
  /** A core is free: asked once `ready()` says so. */
  free(): boolean;
}

const processCores: CoreJudge = { ready: () => cpuMeter.ready(), free: () => coreFree() };

export class SessionFeed {
  readonly #o: FeedOptions;
  readonly #ctx: ReadContext;
  readonly #control = newControl();
  #worker: ReadAhead | null = null;
  /** The worker has read every session; what this thread reads it reads alone. */
  #alone: boolean;
  /** Sessions the worker read (the rest this thread read). */
  readByWorker = 0;
  /** The worker's thread ended in this pass (its sessions then read here). */
  #workerStopped = false;
  /** Which indexes `next()` has handed out: what a worker that ended had taken is what is missing. */
  readonly #given: Uint8Array;
  /** Indexes the worker took and never posted, read by this thread before any new one. */
  #orphans: number[] = [];
  /**
   * The session this thread's last read of met a writer's lock (it threw): read first by the next `next()`, so the
   * caller may wait for the lock and ask again without losing it (decision 0104). Null otherwise.
   */
  #again: number | null = null;
  /**
   * `only`'s worker thread ended, seen by looking at it before the event loop said why: until this time the caller is
   * asked to turn the loop (WorkerQuiet), so the failure names the thread's own reason (out of memory, its exit code).
   */
  #onlyEndedBy: number | null = null;

  /** `auto` waits for a window long enough to tell whether a core is free: decided on a later `next()`. */
  #decideLater = false;
  get #cores(): CoreJudge {
    return this.#o.cores ?? processCores;
  }

  constructor(o: FeedOptions) {
    this.#o = o;
    this.#ctx = { ref: o.ref, redact: o.redact, origin: o.origin, chunk: o.chunk ?? CHUNK };
    this.#given = new Uint8Array(o.ids.length);
    if (o.mode === 'only') {
      if (o.ids.length > 0) this.#start();
    } else if (o.mode === 'auto' && o.ids.length >= READ_WORKER_MIN_SESSIONS) {
      if (!this.#cores.ready()) this.#decideLater = true;
      else if (this.#cores.free()) this.#start();
    }
    this.#alone = this.#worker === null;
  }

  #start(): void {
    const o = this.#o;
    this.#worker = ReadAhead.start({
      ref: { path: o.ref.path, profile: o.ref.profile, hermesHome: o.ref.hermesHome }, file: o.reader.db.name, redact: o.redact,
      origin: o.origin, ids: [...o.ids], priors: o.ids.map((id) => o.priorOf(id)),
      schema: { cookie: o.reader.db.pragma('schema_version', { simple: true }) as number, columns: o.reader.columns },
      window: o.window, chunk: this.#ctx.chunk,
    }, this.#control, o.worker);
    if (!this.#worker && o.mode === 'only') throw new HermeticError('HERMETIC_INTERNAL', 'The read worker could not be started.');
    this.#alone = this.#worker === null;
  }

  /**
   * `auto` started its pass reading on this thread (a run's start-up is too short a window to judge the cores):
   * once the window is long enough, the worker joins if a core is free and sessions are left for it.
   */
  #maybeJoin(): void {
    if (!this.#cores.ready()) return;
    this.#decideLater = false;
    if (Atomics.load(this.#control, SLOT.next) < this.#o.ids.length && this.#cores.free()) this.#start();
  }

  /** Whether a worker is reading beside this thread (or was, this pass). */
  get parallel(): boolean {
    return this.#worker !== null;
  }

  /** The next session read, or null when every one has been handed out. Throws the worker's failure to read the store. */
  next(): FeedItem | null {
    if (this.#decideLater) this.#maybeJoin();
    if (this.#onlyEndedBy !== null) this.#failOnly();
    for (;;) {
      const w = this.#worker;
      if (w && !w.finished) {
        const m = w.take();
        if (m) {
          if (m.kind === 'session') {
            this.readByWorker++;
            this.#given[m.index] = 1;
            return { index: m.index, read: m.read };
          }
          if (m.kind === 'fatal') throw new HermeticError(m.code, m.message);
          // A bug in the worker: thrown here as it was there, stack included.
          if (m.kind === 'bug') throw Object.assign(new Error(m.message), { stack: m.stack });
          if (m.kind === 'boot-failed') {
            if (this.#o.mode === 'only') throw new HermeticError('HERMETIC_INTERNAL', `The read worker could not be started: ${m.message}`);
            this.#alone = true;
          }
          if (m.kind === 'stopped') {
            if (this.#o.mode === 'only') {
              this.#onlyEndedBy = performance.now() + ONLY_REASON_MS;
              this.#failOnly();
            }
            this.#workerStopped = true;
            this.#orphans = this.#untaken();
            this.#alone = true;
          }
          continue;
        }
      }
      if (this.#o.mode !== 'only' || this.#alone) {
        // The worker has no session ready: this thread (the one that writes) reads one itself at once. Napping 2 ms for
        // the worker first left this thread idle for ~460 ms of a 100k-message pass of small sessions (decision 0176).
        const index = this.#again ?? this.#orphans.pop() ?? Atomics.add(this.#control, SLOT.next, 1);
        this.#again = null;
        if (index < this.#o.ids.length) {
          const id = this.#o.ids[index]!;
          try {
            // A writer's lock is waited for by the caller, in slices (decision 0104).
            const read = this.#o.reader.shortWaits(() => readSession(this.#o.reader, id, this.#o.priorOf(id), this.#ctx));
            this.#given[index] = 1;
            return { index, read };
          } catch (e) {
            if (isLock(e)) this.#again = index;
            throw e;
          }
        }
      }
      // Every index is taken: what is left is the worker's, unless it never started (in `only` mode it is waited for).
      if (!w || w.finished || this.#alone || (this.#o.mode !== 'only' && w.closeIfIdle())) return null;
      if (w.wait() && this.#o.quietThrows) throw new WorkerQuiet();
    }
  }

  /**
   * Fails an `only` pass whose worker thread ended: at once where its reason is known or the caller cannot turn the
   * event loop; else after the turns that tell it (its 'error' or 'exit' event), for ONLY_REASON_MS at most.
   */
  #failOnly(): never {
    const why = this.#worker?.stoppedWhy ?? THREAD_ENDED;
    if (why === THREAD_ENDED && this.#o.quietThrows && performance.now() < this.#onlyEndedBy!) throw new WorkerQuiet();
    throw new HermeticError('HERMETIC_INTERNAL', `The read worker stopped in the pass over ${this.#o.ref.path} (${why}); HERMETIC_READ_WORKER=only reads with nothing else: run the pass again without it.`);
  }

  /**
   * Why the worker's thread ended in this pass, or null: as it was seen, or better once the event loop has run since
   * (its 'error', such as running out of memory).
   */
  get workerStopped(): string | null {
    return this.#workerStopped ? this.#worker?.stoppedWhy ?? null : null;
  }

  /** The indexes taken from the shared counter (by either thread) that `next()` has not handed out, last first. */
  #untaken(): number[] {
    const taken = Math.min(Atomics.load(this.#control, SLOT.next), this.#o.ids.length);
    const out: number[] = [];
    for (let i = taken - 1; i >= 0; i--) if (!this.#given[i] && i !== this.#again) out.push(i);
    return out;
  }

  /** Whether the last `next()` threw a writer's lock met by this thread's read, whose session the next call reads. */
  get lockedOut(): boolean {
    return this.#again !== null;
  }

  /** Stops the worker, if any (always called, also when the pass fails). */
  close(): void {
    this.#worker?.release();
  }
}

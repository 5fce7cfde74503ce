// How much of the machine sat idle lately, measured rather than guessed, for `auto`'s choice of the read worker
// (decision 0044): the cores' idle time (the kernel's counters, through os.cpus()) over the window since the last
// look. The last minute's load average alone also counts processes that have just ended: a backfill started right
// after another one saw a load near 1 on an idle two-core machine and read on one thread.
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';

/** Below this window (ms) the counters (10 ms ticks on Linux) say too little: the load average decides instead. */
export const MIN_WINDOW_MS = 50;
/** A window longer than this (ms) starts over when asked whether it can tell. */
export const MAX_WINDOW_MS = 5000;

interface Snapshot {
  at: number;
  idleMs: number;
}

/** The cores' idle milliseconds summed, or null where the platform reports none. */
function idleNow(): number | null {
  const list = cpus();
  if (list.length === 0) return null;
  let idle = 0;
  for (const c of list) idle += c.times.idle;
  return Number.isFinite(idle) ? idle : null;
}

export class IdleCores {
  readonly #now: () => number;
  readonly #idle: () => number | null;
  #last: Snapshot | null;

  constructor(now: () => number = () => performance.now(), idle: () => number | null = idleNow) {
    this.#now = now;
    this.#idle = idle;
    this.#last = this.#take();
  }

  #take(): Snapshot | null {
    const idleMs = this.#idle();
    return idleMs === null ? null : { at: this.#now(), idleMs };
  }

  /**
   * Whether `sample()` can tell now: the window is at least MIN_WINDOW_MS long, or there are no counters to wait for.
   * A window longer than MAX_WINDOW_MS (a long-running `forward` between big passes) says little of now: it starts
   * over, and is ready MIN_WINDOW_MS later.
   */
  ready(): boolean {
    if (this.#last === null) return true;
    const ms = this.#now() - this.#last.at;
    if (ms > MAX_WINDOW_MS) {
      this.#last = this.#take();
      return this.#last === null;
    }
    return ms >= MIN_WINDOW_MS;
  }

  /**
   * The cores that were idle on average since the last call (or since this was made), e.g. 1.0 when one of two
   * cores did nothing; null when the window is shorter than MIN_WINDOW_MS or there are no counters. Starts the next
   * window either way, except that a window too short to tell keeps growing.
   */
  sample(): number | null {
    const prev = this.#last;
    const next = this.#take();
    if (prev === null || next === null) {
      this.#last = next;
      return null;
    }
    const ms = next.at - prev.at;
    if (ms < MIN_WINDOW_MS) return null;
    this.#last = next;
    return Math.max(0, next.idleMs - prev.idleMs) / ms;
  }
}

/** The process's one meter: its first window starts when the forwarder's pipeline is loaded (a command's start-up). */
export const idleCores = new IdleCores();

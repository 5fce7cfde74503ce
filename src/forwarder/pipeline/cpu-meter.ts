// How busy other processes kept the machine lately, measured rather than guessed, for `auto`'s choice of the read
// worker (decision 0044): the cores' busy time (the kernel's counters, through os.cpus()) less this process's own
// (process.cpuUsage(): every thread of it, V8's helpers included), over the window since the last look. The last
// minute's load average also counts processes that have just ended (a backfill started right after another saw a
// load near 1 on an idle two-core machine), and the plain idle time counts this process's own helper threads (its
// start-up kept 0.3–0.6 of the second core busy).
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';

/** Below this window (ms) the counters (10 ms ticks on Linux, per core) say too little: the pass waits to judge. */
export const MIN_WINDOW_MS = 100;
/** A window longer than this (ms) starts over when asked whether it can tell. */
export const MAX_WINDOW_MS = 5000;

/** Cumulative milliseconds: every core's busy time (user, nice, system, irq), and this process's CPU time. */
export interface CpuTimes {
  busyMs: number;
  ownMs: number;
  /** How many cores the busy time is summed over (no bound when not said). */
  cores?: number;
}

interface Snapshot extends CpuTimes {
  at: number;
  /** Cores the counters cover: what others can keep busy at most. */
  cores: number;
}

/** The machine's and this process's CPU time so far, or null where the platform reports no per-core times. */
function timesNow(): CpuTimes | null {
  const list = cpus();
  if (list.length === 0) return null;
  let busy = 0;
  for (const { times: t } of list) busy += t.user + t.nice + t.sys + t.irq;
  const own = process.cpuUsage();
  return Number.isFinite(busy) ? { busyMs: busy, ownMs: (own.user + own.system) / 1000, cores: list.length } : null;
}

export class CpuMeter {
  readonly #now: () => number;
  readonly #times: () => CpuTimes | null;
  #last: Snapshot | null;

  constructor(now: () => number = () => performance.now(), times: () => CpuTimes | null = timesNow) {
    this.#now = now;
    this.#times = times;
    this.#last = this.#take();
  }

  #take(): Snapshot | null {
    const t = this.#times();
    return t === null ? null : { at: this.#now(), ...t, cores: t.cores ?? Number.POSITIVE_INFINITY };
  }

  /**
   * Whether `othersBusy()` can tell now: the window is at least MIN_WINDOW_MS long, or there are no counters to wait
   * for. A window longer than MAX_WINDOW_MS (a long-running `forward` between big passes) says little of now: it
   * starts over, and is ready MIN_WINDOW_MS later.
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
   * The cores other processes kept busy on average since the last call (or since this was made): 0 on an idle machine
   * whatever this process did, 1.0 when another process kept one core busy. Null when the window is shorter than
   * MIN_WINDOW_MS or there are no counters. Starts the next window, except that one too short keeps growing.
   */
  othersBusy(): number | null {
    const prev = this.#last;
    const next = this.#take();
    if (prev === null || next === null) {
      this.#last = next;
      return null;
    }
    const ms = next.at - prev.at;
    if (ms < MIN_WINDOW_MS) return null;
    this.#last = next;
    // A thread descheduled between reading the counters and the clock (a loaded machine) makes the window look
    // shorter than the counters' span: never more cores than there are.
    return Math.min(next.cores, Math.max(0, (next.busyMs - prev.busyMs) - (next.ownMs - prev.ownMs)) / ms);
  }
}

/** The process's one meter: its first window starts when the forwarder's pipeline is loaded (a command's start-up). */
export const cpuMeter = new CpuMeter();

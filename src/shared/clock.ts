// Clock port: every timestamp, TTL, sweep and keep-alive in Hermetic reads time and schedules work here,
// so a test can set, freeze or advance time and see an hour-long sweep without waiting.
import { HermeticError } from './errors.js';

/** A scheduled callback; cancel() is idempotent (and safe from inside the callback itself). */
export interface Timer {
  cancel(): void;
  /** The clock time it is next due (a checkpoint re-arms it there). */
  readonly due: number;
}

export interface Clock {
  /** Epoch seconds as a float, like Python's time.time(). */
  now(): number;
  /** Runs fn once the clock reaches now() + delaySeconds (real time passing, or set/advance). */
  schedule(delaySeconds: number, fn: () => void): Timer;
  /**
   * Runs fn at every boundary start + k·intervalSeconds (start = `origin`, default now() at the call; the first
   * boundary run is the first after now). A jump over any number of boundaries runs fn once, at the last boundary
   * reached, as a real timer does after a long pause.
   */
  every(intervalSeconds: number, fn: () => void, origin?: number): Timer;
  /** True when time does not pass on its own (only set/advance move it). */
  readonly frozen: boolean;
}

/** The earliest clock time: the epoch itself (Hermes never sees an earlier time.time()). */
export const EPOCH_MIN = 0;
/** The latest clock time, 9999-12-31T23:59:59Z: Python's datetime limit, and the last 4-digit year of an HTTP Date. */
export const EPOCH_MAX = 253_402_300_799;
/** The shortest periodic interval (1 ms), so that a boundary is always a distinct float up to EPOCH_MAX. */
export const MIN_INTERVAL = 0.001;
/**
 * At most this many callbacks run in one step (one set/advance, or one turn of the real-time driver) before the
 * remaining due timers run once each, late, at the step's target time (see ControlledClock).
 */
export const MAX_FIRINGS_PER_STEP = 10_000;

/**
 * Why `epoch` cannot be a clock time, as the end of a sentence ("X is 1e21, which …"), or null when it can.
 * @example epochProblem(1796000000000) // 'looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000)'
 */
export function epochProblem(epoch: number): string | null {
  if (typeof epoch !== 'number' || !Number.isFinite(epoch)) return 'is not a finite number';
  if (epoch >= EPOCH_MIN && epoch <= EPOCH_MAX) return null;
  if (epoch >= 1e12 && epoch / 1000 <= EPOCH_MAX) {
    // Date.now() and friends: 1e12 ms is September 2001.
    return 'looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000)';
  }
  return `is outside the clock's range, ${EPOCH_MIN} to ${EPOCH_MAX} seconds since the epoch (the end of year 9999)`;
}

function rangeError(message: string): HermeticError {
  return new HermeticError('HERMETIC_CLOCK_RANGE', message);
}

interface Periodic {
  readonly origin: number;
  readonly interval: number;
  /** The boundary the entry is due at: origin + k·interval. */
  k: number;
}

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  /** Cancelled, or (one-shot) already fired. */
  done: boolean;
  periodic: Periodic | null;
}

const boundary = (p: Periodic, k: number): number => p.origin + k * p.interval;

/** The largest k with origin + k·interval ≤ t. */
function lastK(p: Periodic, t: number): number {
  let k = Math.floor((t - p.origin) / p.interval);
  while (boundary(p, k) > t) k--;
  while (boundary(p, k + 1) <= t) k++;
  return k;
}

// The process's time origin is fixed for its life; read once (the getter costs as much as performance.now() itself).
const TIME_ORIGIN = performance.timeOrigin;

/** Wall-clock time with microsecond resolution, like time.time(). */
export function realEpochSeconds(): number {
  return (TIME_ORIGIN + performance.now()) / 1000;
}

export interface ControlledClockOptions {
  /** Start time in epoch seconds, EPOCH_MIN … EPOCH_MAX (default: the real time). */
  start?: number;
  /** Start frozen (default false: time passes with the wall clock from `start`). */
  frozen?: boolean;
  /** Source of real time, for tests of the clock itself. */
  real?: () => number;
}

/**
 * A clock that follows real time from an offset and can be set, advanced and frozen. Times stay within
 * EPOCH_MIN … EPOCH_MAX; anything else is refused with HERMETIC_CLOCK_RANGE and changes nothing.
 *
 * One-shot timers (schedule) fire in due order; a step (set/advance forwards, or the real-time driver) fires
 * everything that falls due on the way, each with now() equal to its due time, so a one-shot that reschedules
 * itself every 60 s sees each tick of a short jump.
 *
 * Periodic timers (every) keep the phase rule of a real timer after a pause: boundaries are origin + k·interval
 * (origin = now() at the call); when a step reaches or passes one or more boundaries, fn runs ONCE, at the last
 * boundary reached (now() = that boundary, in due order among the other timers), and the timer is next due at the
 * following boundary, the first after the step's target. Setting the clock back fires nothing and moves each
 * periodic timer to the first boundary after the new time (so a sweep is never pushed years away).
 *
 * A step costs O(timers), whatever its length: periodic timers fire once, and at most MAX_FIRINGS_PER_STEP
 * callbacks run in due order; past that, each timer then due runs once more, late, with now() = the target, and
 * what those callbacks schedule for at or before the target (a zero-delay loop) waits for the next step (the next
 * turn of the real-time driver, or the next set/advance of a frozen clock).
 *
 * @example
 *   const clock = new ControlledClock({ start: 1789169800, frozen: true });
 *   clock.every(60, () => console.log('sweep at', clock.now()));
 *   clock.advance(10 ** 9); // one sweep, at the last minute boundary reached
 */
export class ControlledClock implements Clock {
  #base: number;
  #anchor: number;
  #frozen: boolean;
  #real: () => number;
  /** Sorted by (due, seq). */
  #timers: Entry[] = [];
  #seq = 0;
  #handle: ReturnType<typeof setTimeout> | null = null;
  #firing = false;
  #closed = false;

  constructor(options: ControlledClockOptions = {}) {
    this.#real = options.real ?? realEpochSeconds;
    this.#anchor = this.#real();
    const start = options.start ?? this.#anchor;
    const problem = epochProblem(start);
    if (problem) throw rangeError(`The clock's start time ${start} ${problem}.`);
    this.#base = start;
    this.#frozen = options.frozen ?? false;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  now(): number {
    return this.#frozen ? this.#base : this.#base + (this.#real() - this.#anchor);
  }

  schedule(delaySeconds: number, fn: () => void): Timer {
    const delay = Number.isFinite(delaySeconds) ? Math.max(0, delaySeconds) : delaySeconds > 0 ? Infinity : 0;
    return this.#add({ due: this.now() + delay, seq: 0, fn, done: false, periodic: null });
  }

  every(intervalSeconds: number, fn: () => void, origin?: number): Timer {
    if (!(intervalSeconds >= MIN_INTERVAL) || !Number.isFinite(intervalSeconds)) {
      throw rangeError(`A periodic timer's interval must be a finite number of seconds, at least ${MIN_INTERVAL}; got ${intervalSeconds}.`);
    }
    const now = this.now();
    const start = origin === undefined || !Number.isFinite(origin) || origin > now ? now : origin;
    // The first boundary after now (k = 1 when the phase starts now).
    const k = Math.floor((now - start) / intervalSeconds) + 1;
    const periodic: Periodic = { origin: start, interval: intervalSeconds, k };
    return this.#add({ due: boundary(periodic, k), seq: 0, fn, done: false, periodic });
  }

  /** Jumps to `epoch`: forwards (or to now) fires what falls due on the way; backwards fires nothing. */
  set(epoch: number): void {
    const problem = epochProblem(epoch);
    if (problem) throw rangeError(`Clock time ${epoch} ${problem}.`);
    if (epoch >= this.now()) this.#step(epoch);
    else this.#moveBack(epoch);
  }

  /** Moves the clock forward by `seconds` (finite, not negative, not past EPOCH_MAX). */
  advance(seconds: number): void {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      throw rangeError(`A clock advance must be a finite number of seconds, not negative; got ${seconds}.`);
    }
    const now = this.now();
    if (now + seconds > EPOCH_MAX) {
      throw rangeError(`Advancing the clock by ${seconds} seconds would pass ${EPOCH_MAX} (the end of year 9999); it stays at ${now}.`);
    }
    this.set(now + seconds);
  }

  freeze(frozen: boolean): void {
    if (frozen === this.#frozen) return;
    this.#base = this.now();
    this.#anchor = this.#real();
    this.#frozen = frozen;
    this.#arm();
  }

  /**
   * Starts over as a new clock would (a namespace reset): every timer is cancelled, the time is `start` (default: the
   * real time) and frozen as asked. The object stays the same, so whoever holds it keeps a working clock.
   */
  reset(options: { start?: number; frozen?: boolean } = {}): void {
    const anchor = this.#real();
    const start = options.start ?? anchor;
    const problem = epochProblem(start);
    if (problem) throw rangeError(`The clock's start time ${start} ${problem}.`);
    for (const entry of this.#timers) entry.done = true;
    this.#timers = [];
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = null;
    this.#anchor = anchor;
    this.#base = start;
    this.#frozen = options.frozen ?? false;
  }

  /** Cancels every timer and stops the real-time driver. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#timers) entry.done = true;
    this.#timers = [];
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = null;
  }

  #add(entry: Entry): Timer {
    if (this.#closed) {
      entry.done = true;
    } else {
      this.#insert(entry);
      if (!this.#firing) this.#arm();
    }
    return {
      cancel: () => {
        if (entry.done) return;
        entry.done = true;
        const i = this.#indexOf(entry);
        if (i >= 0) this.#timers.splice(i, 1);
      },
      get due() {
        return entry.due;
      },
    };
  }

  /** Where (due, seq) belongs: the first index whose entry sorts after it. */
  #position(due: number, seq: number): number {
    let lo = 0;
    let hi = this.#timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.#timers[mid]!;
      if (e.due < due || (e.due === due && e.seq < seq)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #indexOf(entry: Entry): number {
    const i = this.#position(entry.due, entry.seq);
    return this.#timers[i] === entry ? i : -1;
  }

  #insert(entry: Entry): void {
    entry.seq = this.#seq++;
    this.#timers.splice(this.#position(entry.due, entry.seq), 0, entry);
  }

  /** Sets the time without firing anything (timers then due fire at the next step). */
  #moveTo(t: number): void {
    this.#base = t;
    this.#anchor = this.#real();
  }

  #moveBack(epoch: number): void {
    this.#moveTo(epoch);
    const periodic = this.#timers.filter((e) => e.periodic);
    if (periodic.length > 0) {
      this.#timers = this.#timers.filter((e) => !e.periodic);
      for (const entry of periodic) {
        const p = entry.periodic!;
        p.k = lastK(p, epoch) + 1;
        entry.due = boundary(p, p.k);
        this.#insert(entry);
      }
    }
    this.#arm();
  }

  /** Fires what falls due up to `target` (see the class comment for the rules), then stands at `target`. */
  #step(target: number): void {
    const wasFiring = this.#firing;
    this.#firing = true;
    try {
      if (!this.#fireInOrder(target)) this.#fireLate(target);
    } finally {
      this.#firing = wasFiring;
      this.#moveTo(target);
      this.#arm();
    }
  }

  /** Fires due timers in order; false when the budget ran out with timers still due. */
  #fireInOrder(target: number): boolean {
    let budget = MAX_FIRINGS_PER_STEP;
    for (;;) {
      const next = this.#timers[0];
      if (!next || next.due > target) return true;
      const p = next.periodic;
      if (p) {
        const k = lastK(p, target);
        if (k > p.k) {
          // Missed boundaries collapse into the last one reached; it keeps its place in due order.
          this.#timers.shift();
          p.k = k;
          next.due = boundary(p, k);
          this.#insert(next);
          continue;
        }
      }
      if (budget-- === 0) return false;
      this.#timers.shift();
      this.#moveTo(next.due);
      this.#fire(next);
    }
  }

  /** After the budget: each timer due by `target` runs once, late, at `target`. */
  #fireLate(target: number): void {
    const late = this.#timers.splice(0, this.#position(target, Infinity));
    this.#moveTo(target);
    for (const entry of late) {
      if (entry.done) continue;
      if (entry.periodic) entry.periodic.k = lastK(entry.periodic, target);
      this.#fire(entry);
    }
  }

  /** Runs one entry: a periodic one is re-queued at its next boundary first, so its callback may cancel it. */
  #fire(entry: Entry): void {
    const p = entry.periodic;
    if (p) {
      p.k += 1;
      entry.due = boundary(p, p.k);
      this.#insert(entry);
    } else {
      entry.done = true;
    }
    entry.fn();
  }

  #arm(): void {
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = null;
    if (this.#closed || this.#frozen || this.#timers.length === 0) return;
    const wait = (this.#timers[0]!.due - this.now()) * 1000;
    this.#handle = setTimeout(() => {
      this.#handle = null;
      this.#step(this.now());
    }, Math.min(Math.max(0, wait), 2 ** 31 - 1));
    this.#handle.unref?.();
  }
}

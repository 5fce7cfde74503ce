// Clock port: every timestamp, TTL, sweep and keep-alive in Hermetic reads time and schedules work here,
// so a test can set, freeze or advance time and see an hour-long sweep without waiting.

/** A scheduled callback; cancel() is idempotent. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Epoch seconds as a float, like Python's time.time(). */
  now(): number;
  /** Runs fn once the clock reaches now() + delaySeconds (real time passing, or set/advance). */
  schedule(delaySeconds: number, fn: () => void): Timer;
  /** True when time does not pass on its own (only set/advance move it). */
  readonly frozen: boolean;
}

interface Entry {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Wall-clock time with microsecond resolution, like time.time(). */
export function realEpochSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

export interface ControlledClockOptions {
  /** Start time in epoch seconds (default: the real time). */
  start?: number;
  /** Start frozen (default false: time passes with the wall clock from `start`). */
  frozen?: boolean;
  /** Source of real time, for tests of the clock itself. */
  real?: () => number;
}

/**
 * A clock that follows real time from an offset and can be set, advanced and frozen.
 * Timers fire in due order; set/advance fire everything that falls due on the way, each with now() equal to its due
 * time, so a 60 s sweep sees every tick of a 25 h jump.
 *
 * @example
 *   const clock = new ControlledClock({ start: 1789169800, frozen: true });
 *   clock.schedule(60, () => console.log('sweep at', clock.now()));
 *   clock.advance(3600);
 */
export class ControlledClock implements Clock {
  #base: number;
  #anchor: number;
  #frozen: boolean;
  #real: () => number;
  #timers: Entry[] = [];
  #seq = 0;
  #handle: ReturnType<typeof setTimeout> | null = null;
  #firing = false;
  #closed = false;

  constructor(options: ControlledClockOptions = {}) {
    this.#real = options.real ?? realEpochSeconds;
    this.#anchor = this.#real();
    this.#base = options.start ?? this.#anchor;
    this.#frozen = options.frozen ?? false;
  }

  get frozen(): boolean {
    return this.#frozen;
  }

  now(): number {
    return this.#frozen ? this.#base : this.#base + (this.#real() - this.#anchor);
  }

  schedule(delaySeconds: number, fn: () => void): Timer {
    const entry: Entry = { due: this.now() + Math.max(0, delaySeconds), seq: this.#seq++, fn, cancelled: false };
    this.#insert(entry);
    if (!this.#firing) this.#arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        const i = this.#timers.indexOf(entry);
        if (i >= 0) this.#timers.splice(i, 1);
      },
    };
  }

  /** Jumps to `epoch` (forwards fires due timers on the way; backwards fires nothing). */
  set(epoch: number): void {
    const now = this.now();
    if (epoch > now) this.#runUntil(epoch);
    this.#base = epoch;
    this.#anchor = this.#real();
    this.#arm();
  }

  advance(seconds: number): void {
    this.set(this.now() + Math.max(0, seconds));
  }

  freeze(frozen: boolean): void {
    if (frozen === this.#frozen) return;
    this.#base = this.now();
    this.#anchor = this.#real();
    this.#frozen = frozen;
    this.#arm();
  }

  /** Cancels every timer and stops the real-time driver. */
  close(): void {
    this.#closed = true;
    this.#timers = [];
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = null;
  }

  #insert(entry: Entry): void {
    // Sorted by (due, seq); timer counts are small (sweeps, keep-alives), so a linear insert is enough.
    let i = this.#timers.length;
    while (i > 0) {
      const prev = this.#timers[i - 1]!;
      if (prev.due < entry.due || (prev.due === entry.due && prev.seq < entry.seq)) break;
      i--;
    }
    this.#timers.splice(i, 0, entry);
  }

  #runUntil(target: number): void {
    this.#firing = true;
    try {
      for (;;) {
        const next = this.#timers[0];
        if (!next || next.due > target) break;
        this.#timers.shift();
        this.#base = Math.max(this.#base, next.due);
        this.#anchor = this.#real();
        if (!next.cancelled) {
          next.cancelled = true;
          next.fn();
        }
      }
    } finally {
      this.#firing = false;
    }
  }

  #arm(): void {
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = null;
    if (this.#closed || this.#frozen || this.#timers.length === 0) return;
    const wait = (this.#timers[0]!.due - this.now()) * 1000;
    this.#handle = setTimeout(() => {
      this.#handle = null;
      this.#runUntil(this.now());
      this.#arm();
    }, Math.min(Math.max(0, wait), 2 ** 31 - 1));
    this.#handle.unref?.();
  }
}

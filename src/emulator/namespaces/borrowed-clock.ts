// The clock a caller gave (createEmulator({ clock })) as the default namespace runs on it: the time is the caller's
// (now, set, advance and freeze act on the caller's clock, as POST /__admin/clock always has), the timers are the
// namespace's own. A reset, a checkpoint restore or a close cancels those timers — and none of the caller's — where
// a clock of the namespace's own would be reset or closed (decision 0067).
import type { Clock, ControlledClock, Timer } from '../../shared/clock.js';

/** What a namespace asks of its clock, whether its own or the caller's. */
export type NamespaceClock = Clock & Pick<ControlledClock, 'set' | 'advance' | 'freeze'>;

export class BorrowedClock implements NamespaceClock {
  readonly #timers = new Set<Timer>();

  constructor(readonly owner: ControlledClock) {}

  get frozen(): boolean {
    return this.owner.frozen;
  }

  now(): number {
    return this.owner.now();
  }

  set(epoch: number): void {
    this.owner.set(epoch);
  }

  advance(seconds: number): void {
    this.owner.advance(seconds);
  }

  freeze(frozen: boolean): void {
    this.owner.freeze(frozen);
  }

  schedule(delaySeconds: number, fn: () => void): Timer {
    const timer: Timer = this.owner.schedule(delaySeconds, () => {
      this.#timers.delete(timer);
      fn();
    });
    return this.#track(timer);
  }

  every(intervalSeconds: number, fn: () => void, origin?: number): Timer {
    return this.#track(this.owner.every(intervalSeconds, fn, origin));
  }

  /** Timers of the namespace still armed on the caller's clock. */
  get armed(): number {
    return this.#timers.size;
  }

  /** Cancels every timer the namespace armed, and only those. */
  cancelTimers(): void {
    for (const timer of this.#timers) timer.cancel();
    this.#timers.clear();
  }

  #track(timer: Timer): Timer {
    this.#timers.add(timer);
    const timers = this.#timers;
    return {
      cancel() {
        timers.delete(timer);
        timer.cancel();
      },
      get due() {
        return timer.due;
      },
    };
  }
}

// The memory request bodies may hold at once in `hermetic serve`, and what each body holds of it: the bytes received
// as they arrive, the bytes a Content-Encoding decodes them to as they come out, then the text and the value a JSON
// parse makes, reserved before it runs and held until the handler is done with them (decisions 0046, 0135).
import type { BodyCharge } from '../http.js';

/** Request bodies one server holds in memory at once (bytes), but for the one body let past it (BodyBudget). */
export const BODY_BUDGET = 128 * 1024 * 1024;

/**
 * What every body may hold without waiting, counted all the same (bytes): a small body (a steer, an approval, a run's
 * input, a control request) is never queued, whatever the others hold.
 */
export const BODY_ALLOWANCE = 64 * 1024;

/** One body's share of the budget; the transport ends it when the request's handler has settled. */
export interface BodyLease extends BodyCharge {
  /** Bytes this lease holds now. */
  readonly held: number;
  /** Gives back all it holds and lets go of the overdraft; what it still waits for is let through uncounted. */
  end(): void;
}

interface Waiter {
  readonly lease: Lease;
  /** Bytes to hold once let through; 0 for a lease waiting for room to make more (a paused socket or decoder). */
  readonly bytes: number;
  readonly go: () => void;
}

/**
 * The bytes request bodies hold at once. Bytes that already exist (a chunk received or decoded) are counted as they
 * come and never wait, but a body past the budget stops making more (its socket or decoder paused) until there is
 * room; bytes about to be made (a parse) are reserved first and wait for room. An idle upload holds only what it
 * sent, whatever fits goes at once, never queued behind a larger want, and a small body never waits at all.
 *
 * One lease at a time may go past the budget: the first that finds no room while no other lease is past it. It keeps
 * that overdraft until it ends, and meanwhile the others wait for room. So bodies part-way through can always finish
 * (one of them always may), a body that costs more than the whole budget is still served, and memory stays under the
 * budget plus one body's cost (at most 10 MB received and 10 MB decoded, its text and its value: decision 0135), and
 * BODY_ALLOWANCE for each body being read.
 *
 * @example const lease = budget.lease(); lease.take(chunk.length); await lease.want(parseCost); lease.end();
 */
export class BodyBudget {
  #used = 0;
  #peak = 0;
  #beyond: Lease | null = null;
  readonly #queue: Waiter[] = [];

  constructor(readonly size = BODY_BUDGET) {}

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** The most bytes held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** Requests waiting for room. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** A new body's lease, holding nothing. */
  lease(): BodyLease {
    return new Lease(this);
  }

  /** @internal */
  hold(bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
  }

  /** @internal */
  release(bytes: number): void {
    this.#used -= bytes;
    this.#pump();
  }

  /**
   * @internal Whether `lease` may hold `bytes` more now: they are within its allowance, they fit, it is past the budget
   * already, or it may become so.
   */
  admits(lease: Lease, bytes: number): boolean {
    if (this.#beyond === lease) return true;
    if (bytes === 0 ? lease.held < BODY_ALLOWANCE : lease.held + bytes <= BODY_ALLOWANCE) return true;
    if (bytes === 0 ? this.#used < this.size : this.#used + bytes <= this.size) return true;
    if (this.#beyond !== null) return false;
    this.#beyond = lease;
    return true;
  }

  /** @internal */
  enqueue(waiter: Waiter): void {
    this.#queue.push(waiter);
  }

  /** @internal Takes the lease's waiters out of the queue (they are let through by the caller) and its overdraft. */
  leave(lease: Lease): Waiter[] {
    if (this.#beyond === lease) this.#beyond = null;
    const mine: Waiter[] = [];
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      if (this.#queue[i]!.lease === lease) mine.push(...this.#queue.splice(i, 1));
    }
    return mine.reverse();
  }

  /** Lets waiters through in arrival order, each that fits now; one that does not fit leaves the rest their turn. */
  #pump(): void {
    for (let i = 0; i < this.#queue.length; ) {
      // Full and the overdraft taken: no waiter can go (the lease past the budget and one within its allowance never
      // wait).
      if (this.#used >= this.size && this.#beyond !== null) return;
      const waiter = this.#queue[i]!;
      if (!this.admits(waiter.lease, waiter.bytes)) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      if (waiter.bytes > 0) waiter.lease.count(waiter.bytes);
      waiter.go();
    }
  }
}

class Lease implements BodyLease {
  #held = 0;
  #ended = false;

  constructor(private readonly budget: BodyBudget) {}

  get held(): number {
    return this.#held;
  }

  /** @internal */
  count(bytes: number): void {
    if (this.#ended) return;
    this.#held += bytes;
    this.budget.hold(bytes);
  }

  take(bytes: number): void {
    this.count(bytes);
  }

  room(): Promise<void> | null {
    if (this.#ended || this.budget.admits(this, 0)) return null;
    return new Promise((go) => this.budget.enqueue({ lease: this, bytes: 0, go }));
  }

  want(bytes: number): Promise<void> | null {
    if (this.#ended || bytes <= 0) return null;
    if (this.budget.admits(this, bytes)) {
      this.count(bytes);
      return null;
    }
    return new Promise((go) => this.budget.enqueue({ lease: this, bytes, go }));
  }

  give(bytes: number): void {
    if (this.#ended) return;
    const given = Math.min(bytes, this.#held);
    this.#held -= given;
    this.budget.release(given);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiters = this.budget.leave(this);
    const held = this.#held;
    this.#held = 0;
    this.budget.release(held);
    for (const w of waiters) w.go();
  }
}

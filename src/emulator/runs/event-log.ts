// One run's event buffer: Hermes's single in-memory FIFO queue per run (spec runs-api §8.1, §8.6). Events are
// buffered from admission on; concurrent subscribers compete (each item goes to exactly one waiting taker, FIFO).
import type { PyDict } from '../../shared/python/index.js';

/** An event dict (with its SSE event name, for a session chat stream's frames), or the end-of-run sentinel. */
export type BufferItem = { kind: 'event'; event: PyDict; name?: string } | { kind: 'end' };

export type Taker = (item: BufferItem) => void;

export class EventBuffer {
  readonly createdAt: number;
  #items: BufferItem[] = [];
  #head = 0;
  #takers: Taker[] = [];
  /** Subscriber handlers currently attached (a buffer with one is never swept). */
  subscribers = 0;

  constructor(createdAt: number) {
    this.createdAt = createdAt;
  }

  push(item: BufferItem): void {
    const taker = this.#takers.shift();
    if (taker) taker(item);
    else this.#items.push(item);
  }

  /** The next queued item, if any. */
  poll(): BufferItem | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as never;
    if (this.#head > 64 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Waits for the next pushed item (FIFO among waiters); returns a cancel, as a timed-out queue.get(). */
  wait(taker: Taker): () => void {
    this.#takers.push(taker);
    return () => {
      const i = this.#takers.indexOf(taker);
      if (i >= 0) this.#takers.splice(i, 1);
    };
  }

  /** The queued items, oldest first (a checkpoint keeps them). */
  queued(): BufferItem[] {
    return this.#items.slice(this.#head);
  }

  get pending(): number {
    return this.#items.length - this.#head;
  }
}

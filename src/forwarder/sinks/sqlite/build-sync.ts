// A build's bytes sent to disk while it grows (decision 0060, addendum "early syncs"): the final sync before the build is
// linked into place is what makes the published dataset durable, and on a first backfill it was the pass's last
// ~0.1–0.2 s with nothing else to do. Writeback is started early, in the background, so that little is left to flush
// at the end.
//
// Two descriptors, both opened when the build file is made, before any of its pages can be written back:
// - `early` only starts writeback (asynchronous fsyncs on libuv's pool); its results are hints and are not kept;
// - `final` is synced once, when the build is published. Linux reports a writeback error to every open file
//   description open when it happened (errseq, since 4.13), each once: an error an early sync saw is still reported
//   by the final one, so the promise that the published file is on disk holds as it did with one sync at the end.
import { closeSync, fsync, fsyncSync, fstatSync, openSync } from 'node:fs';

/** Bytes the build grows by between two early syncs. */
export const EARLY_SYNC_BYTES = 8 << 20;

/** What publishing needs of a build's sync: the sync that counts, then the descriptors closed. */
export interface FinalSync {
  final(): void;
  close(): void;
}

export class BuildSync implements FinalSync {
  readonly #early: number;
  readonly #final: number;
  #synced = 0;
  #inFlight = false;
  #closeEarly = false;

  /**
   * The syncs of the build at `path`; null when its descriptors cannot be opened (no descriptors left): the build is
   * then synced at the end by its path, as before, only later.
   */
  static open(path: string): BuildSync | null {
    try {
      return new BuildSync(path);
    } catch {
      return null;
    }
  }

  /** Early syncs started so far (for tests). */
  started = 0;

  /** Whether an early sync is under way. */
  get syncing(): boolean {
    return this.#inFlight;
  }

  private constructor(path: string) {
    this.#final = openSync(path, 'r');
    try {
      this.#early = openSync(path, 'r');
    } catch (e) {
      closeSync(this.#final);
      throw e;
    }
  }

  /** After a write: starts writeback of what the build gained since the last early sync, when that is enough. */
  nudge(): void {
    if (this.#inFlight || this.#closeEarly) return;
    const size = fstatSync(this.#early).size;
    if (size - this.#synced < EARLY_SYNC_BYTES) return;
    this.#synced = size;
    this.#inFlight = true;
    this.started++;
    fsync(this.#early, () => {
      this.#inFlight = false;
      if (this.#closeEarly) closeQuietly(this.#early);
    });
  }

  /** The sync that counts: throws what the file system reports for any write to the build since it was made. */
  final(): void {
    fsyncSync(this.#final);
  }

  /** Both descriptors closed (the early one once its sync in flight, if any, has returned). */
  close(): void {
    if (this.#closeEarly) return;
    this.#closeEarly = true;
    closeQuietly(this.#final);
    if (!this.#inFlight) closeQuietly(this.#early);
  }
}

/** A descriptor closed; a failure to close one only read from is nothing to report (and must not throw from a callback). */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing was written through it.
  }
}

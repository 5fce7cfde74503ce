// What a forwarder's passes remember between them (passes.ts): of each store, its commit stamp, last heartbeat and
// column map; of its sessions, when each was last compared for edits in place and which are owed a look; the cursors
// the dataset committed. What they know of the dataset is forgotten when it is not the file they were taken from; the
// times they keep start again from now when the clock went back.
import { CursorCache } from '../checkpoint/cursors.js';
import type { Sink } from '../sinks/sink.js';

export class PassMemory {
  /** Each store's commit stamp after its last complete forward pass (step.ts StepOptions.stamps). */
  readonly stamps = new Map<string, string>();
  /** When each store's `last_tick_at` was last written by a forward pass. */
  readonly heartbeats = new Map<string, number>();
  // When each session was last compared for edits in place (decision 0053): a forward tick compares at most
  // EDIT_CHECK_ROWS message rows, settled sessions (quiet for a week) included once a day; a backfill every session
  // due of the week.
  readonly checkedAt = new Map<string, Map<string, number>>();
  readonly owed = new Map<string, Map<string, number>>();
  readonly cursorCache: CursorCache;
  /** Column maps per store, kept while its schema cookie is unchanged: of the stores, so kept when the dataset is not. */
  readonly schemaCache = new Map<string, { cookie: number; columns: Map<string, Set<string>> }>();

  constructor(sink: Sink) {
    this.cursorCache = new CursorCache(sink);
  }

  /** What the passes remember of the dataset: forgotten when it is not the file they were taken from. */
  forgetDataset(): void {
    this.stamps.clear();
    this.heartbeats.clear();
    this.checkedAt.clear();
    this.owed.clear();
    this.cursorCache.clear();
  }

  /**
   * The clock set back: the times remembered are in the future, and each pace measured from them (the heartbeat, the
   * looks for edits) would wait for the clock to catch up. They start again from `nowMs`; the sessions owed a look
   * are due now.
   */
  clockSetBack(nowMs: number): void {
    this.heartbeats.clear();
    this.checkedAt.clear();
    for (const due of this.owed.values()) for (const id of due.keys()) due.set(id, nowMs / 1000);
  }
}

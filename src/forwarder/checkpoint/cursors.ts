// Cursors in memory between ticks (spec forwarding §6.3 item 22: no reload of every mark on every tick). They follow
// commits: `committed(batch)` is called only after the sink applied the batch, and a commit by another process
// (a backfill beside a running forward) is noticed through the sink's data version and reloads them.
import { REMOVED, type Batch, type Cursors, type Sink } from '../sinks/sink.js';

export class CursorCache {
  readonly #sink: Sink;
  readonly #byStore = new Map<string, { version: number; cursors: Cursors }>();

  constructor(sink: Sink) {
    this.#sink = sink;
  }

  /** The store's committed cursors: from memory while nobody else wrote the sink, else loaded. */
  load(store: string): Cursors {
    const version = this.#sink.dataVersion();
    const hit = this.#byStore.get(store);
    if (hit && hit.version === version) return hit.cursors;
    const cursors = this.#sink.cursors(store);
    this.#byStore.set(store, { version, cursors });
    return cursors;
  }

  /** Applies a batch the sink has just committed to the cached cursors (the same rules as the sink's transaction). */
  committed(batch: Batch): void {
    const store = String(batch.store.store);
    const hit = this.#byStore.get(store);
    if (!hit) return;
    // Our own commits leave our connection's data version alone; a change means another process wrote too.
    if (this.#sink.dataVersion() !== hit.version) {
      this.#byStore.delete(store);
      return;
    }
    const c = hit.cursors;
    if (batch.reset) for (const s of c.sessions.values()) if (s.fingerprint !== REMOVED) s.fingerprint = '';
    for (const w of batch.writes) {
      c.sessions.set(w.sessionId, { fingerprint: w.fingerprint, maxMessageId: w.maxMessageId, usageMark: w.usageMark, ledger: w.ledger, tail: w.projection?.tail ?? null });
      c.quarantine.delete(w.sessionId);
    }
    for (const id of batch.removed) {
      const s = c.sessions.get(id);
      if (s) s.fingerprint = REMOVED;
    }
    for (const q of batch.quarantine.failed) c.quarantine.set(q.sessionId, { failures: q.failures, retryAt: q.retryAt, lastError: q.error });
    for (const id of batch.quarantine.cleared) c.quarantine.delete(id);
    c.row = batch.store;
    c.identity = (batch.store.identity as string | null) ?? c.identity;
    c.maxMessageId = Number(batch.store.max_message_id ?? c.maxMessageId);
    c.usageStamp = batch.store.usage_stamp === undefined ? c.usageStamp : (batch.store.usage_stamp as string | null);
  }

  /** Forgets everything (after a failed write whose effect is unknown). */
  clear(): void {
    this.#byStore.clear();
  }
}

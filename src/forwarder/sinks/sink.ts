// The sink contract: what a pipeline step hands to a sink, and the promise a sink makes. A sink applies a batch
// whole or not at all, cursors included (spec DESIGN habit 14: the checkpoint moves only with the rows it covers).
import type { RecordOf } from '../dataset/columns.js';
import type { PackedRows } from '../dataset/packed.js';
import type { Ledger, Projection } from '../projector/index.js';

export type PolicyClass = 'full' | 'local-only';

/** One table's rows: records, or packed (dataset/packed.ts) when the read worker projected the session. */
export type Rows = readonly RecordOf[] | PackedRows;

/** A session's records as a sink takes them: its messages and parts may come packed. */
export type SessionRecords = Omit<Projection, 'messages' | 'parts'> & { messages: Rows; parts: Rows };

export interface SessionWrite {
  sessionId: string;
  /** The session's records, or null when policy says ignore: then every row of it is removed and none written. */
  projection: SessionRecords | null;
  policy: PolicyClass;
  fingerprint: string;
  maxMessageId: number;
  /** The session's usage mark when read (normalize/usage-mark.ts). */
  usageMark: string;
  /** The usage ledger after this write (null when the session is ignored: its ledger starts over if it comes back). */
  ledger: Ledger | null;
}

export interface Batch {
  /** The stores-table row for the store this batch came from (identity, cursor, health). */
  store: RecordOf;
  /** The store was replaced since the last batch: every cursor's fingerprint is cleared (ledgers kept) first. */
  reset: boolean;
  writes: SessionWrite[];
  /** Sessions Hermes no longer has: their rows stay, marked `removed_from_store`; their cursors say REMOVED. */
  removed: string[];
  quarantine: { failed: { sessionId: string; error: string; retryAt: number; failures: number }[]; cleared: string[] };
}

/** A cursor's fingerprint after Hermes deleted the session (the cursor stays: it holds the usage ledger). */
export const REMOVED = '-removed-';

export interface SessionCursor {
  fingerprint: string;
  maxMessageId: number;
  usageMark: string;
  ledger: Ledger | null;
}

export interface Cursors {
  /** The store's row in the stores table as last committed (null for a store never read). */
  row: RecordOf | null;
  identity: string | null;
  maxMessageId: number;
  usageStamp: string | null;
  sessions: Map<string, SessionCursor>;
  quarantine: Map<string, { failures: number; retryAt: number; lastError: string }>;
}

export interface Sink {
  /** Applies the batch atomically; throws (and changes nothing) on failure. */
  write(batch: Batch): void;
  /** The cursors last committed for a store (empty for a store never read). */
  cursors(store: string): Cursors;
  /**
   * Changes whenever another process commits to the sink (SQLite's `PRAGMA data_version`): cursors cached in memory
   * are then loaded again. A sink that cannot tell returns a fresh value every time (no caching).
   */
  dataVersion(): number;
  close(): void;
}

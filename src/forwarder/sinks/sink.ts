// The sink contract: what a pipeline step hands to a sink, and the promise a sink makes. A sink applies a batch
// whole or not at all, cursors included (spec DESIGN habit 14: the checkpoint moves only with the rows it covers).
// A batch carries deltas, not sessions (decision 0032): per session the rows added, the rows replaced (by primary key)
// and the ranges removed (dataset/delta.ts), so a remote sink (PostgreSQL, Parquet, OTLP) receives what changed.
import type { RecordOf } from '../dataset/columns.js';
import type { PackedRows } from '../dataset/packed.js';
import type { Ledger, Projection, Tail } from '../projector/index.js';
import type { HermeticError } from '../../shared/errors.js';

export type PolicyClass = 'full' | 'local-only';

/** One table's rows: records, or packed (dataset/packed.ts) when the read worker projected the session. */
export type Rows = readonly RecordOf[] | PackedRows;

/**
 * A session's records as a sink takes them: the rows to add (messages and parts may come packed) and the delta that
 * says what goes first (`delta`), with the tail its cursor keeps.
 */
export type SessionRecords = Omit<Projection, 'messages' | 'parts' | 'tail'> & { messages: Rows; parts: Rows; tail: Tail | null };

/** The cursor a delta was computed against. */
export interface CursorBase { fingerprint: string; maxMessageId: number }

export interface SessionWrite {
  sessionId: string;
  /**
   * The session's records, or null when policy says ignore: then every row of it is removed and none written, the
   * delegations it made included.
   */
  projection: SessionRecords | null;
  policy: PolicyClass;
  fingerprint: string;
  maxMessageId: number;
  /** The session's usage mark when read (normalize/usage-mark.ts). */
  usageMark: string;
  /** The usage ledger after this write (null when the session is ignored: its ledger starts over if it comes back). */
  ledger: Ledger | null;
  /**
   * The cursor the projection's delta was computed against (null for a delta that replaces everything). A sink
   * refuses the write when the session's stored cursor is no longer this one: another process wrote the session
   * since, and a delta against what it no longer holds would be wrong. The next pass reads the session again.
   */
  base: CursorBase | null;
}

/**
 * What changed in the store's `async_delegations` since its marks (decision 0054; the marks themselves travel in the
 * store's row, `delegation_marks`, so they commit with these rows).
 */
export interface DelegationChanges {
  /** Records to upsert (new or changed rows), each with its usage policy (`full` or `local-only`). */
  rows: RecordOf[];
  /** Their row issues: every issue of these delegations is replaced by these. */
  issues: RecordOf[];
  /** Delegations whose delegating session's scope says ignore: removed with their issues, never written. */
  dropped: string[];
  /** Delegations Hermes no longer has: their rows stay, marked `removed_from_store`. */
  removed: string[];
}

export interface Batch {
  /** The stores-table row for the store this batch came from (identity, cursor, health). */
  store: RecordOf;
  /** The store was replaced since the last batch: every cursor's fingerprint is cleared (ledgers kept; a removed session's stays REMOVED) first. */
  reset: boolean;
  writes: SessionWrite[];
  /** Sessions Hermes no longer has: their rows stay, marked `removed_from_store`; their cursors say REMOVED. */
  removed: string[];
  quarantine: { failed: { sessionId: string; error: string; retryAt: number; failures: number }[]; cleared: string[] };
  /** Its text went through Hermes's redactor: the sink remembers it, so every later write is redacted too. */
  redacted?: boolean;
  /** The store's delegations that changed (the last batch of a pass that found any). */
  delegations?: DelegationChanges;
}

/** Thrown by a sink for a write whose `base` is not the session's stored cursor any more (nothing of it is applied). */
export class CursorMoved extends Error {
  constructor(sessionId: string) {
    super(`session ${sessionId} was written by another process since it was read; it is read again on the next pass`);
    this.name = 'CursorMoved';
  }
}

/**
 * Thrown by a sink whose dataset built aside could not be published (sqlite/first-build.ts): `lost` when another
 * process created the dataset first (the pass must run again over it), else the error that stopped the publishing
 * (nothing the pass wrote is kept). Either way the pass stops at once: what it wrote went with the build.
 */
export class BuildDropped extends Error {
  constructor(readonly why: 'lost' | HermeticError) {
    super(why === 'lost' ? 'another process created the dataset while this one built it' : why.message);
    this.name = 'BuildDropped';
  }
}

/** A cursor's fingerprint after Hermes deleted the session (the cursor stays: it holds the usage ledger). */
export const REMOVED = '-removed-';

export interface SessionCursor {
  fingerprint: string;
  maxMessageId: number;
  usageMark: string;
  ledger: Ledger | null;
  /** What the session's rows were projected from (projector/tail.ts): the next write is a delta against it. */
  tail: Tail | null;
}

/**
 * Rows a batch added and removed in the transcript tables (issue 16 §5: reports say how many rows were affected), and
 * the delegations it wrote and marked removed from the store.
 */
export interface Written {
  messagesAdded: number;
  messagesRemoved: number;
  /** Of those, per session, the rows removed and written again (a /retry, an edit): min(added, removed) each. */
  messagesRewritten: number;
  partsAdded: number;
  partsRemoved: number;
  partsRewritten: number;
  delegationsWritten: number;
  delegationsRemoved: number;
}

export const NOTHING_WRITTEN: Readonly<Written> = { messagesAdded: 0, messagesRemoved: 0, messagesRewritten: 0, partsAdded: 0, partsRemoved: 0, partsRewritten: 0, delegationsWritten: 0, delegationsRemoved: 0 };

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
  /** Applies the batch atomically and says how many rows it added and removed; throws (and changes nothing) on failure. */
  write(batch: Batch): Written;
  /** The cursors last committed for a store (empty for a store never read). */
  cursors(store: string): Cursors;
  /**
   * Changes whenever another process commits to the sink (SQLite's `PRAGMA data_version`): cursors cached in memory
   * are then loaded again. A sink that cannot tell returns a fresh value every time (no caching).
   */
  dataVersion(): number;
  /** Whether text written here must go through the redactor: it was once written so (a sink that cannot tell: false). */
  redacts?(): boolean;
  /** The stores it holds rows of, by key (discover.ts spelledAsKnown keeps a store under its first spelling). */
  storeKeys?(): string[];
  /** Called at the end of every pass: a dataset built aside is published (sqlite/first-build.ts); throws BuildDropped. */
  settle?(): void;
  /** Whether the dataset was removed or replaced under this process since it last wrote (the next write opens it again). */
  replaced?(): boolean;
  /** Called after a forward pass that wrote no session (a loop gone quiet): a SQLite dataset copies its WAL into its file. */
  quiet?(): void;
  close(): void;
}

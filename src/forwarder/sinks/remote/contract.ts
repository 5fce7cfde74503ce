// The contract between the forwarder and a sink that lives outside the embedded dataset (PostgreSQL, OTLP; decision
// 0035). The embedded dataset is the hub: every remote sink is fed from it, never from Hermes's store, through a change
// log the dataset keeps while any remote sink is registered. A remote sink receives deltas (rows upserted, keys
// removed) in batches, applies each batch idempotently and atomically where it can, and acknowledges it; only then
// does that sink's own cursor move (in the dataset, in one local transaction). A slow or down sink holds no other back.
import type { RecordOf } from '../../dataset/columns.js';

/** The tables a remote sink may receive, by their dataset names (dataset/columns.ts). */
export type ShippedTable =
  | 'sessions' | 'messages' | 'parts' | 'model_usage' | 'usage_events' | 'daily_usage' | 'usage_ledger' | 'tool_usage' | 'delegations' | 'row_issues' | 'backfill_unread';

/** Where the rows come from: a machine (a stable id kept in the Hermetic home, and the host name) and its dataset. */
export interface Origin {
  machineId: string;
  hostname: string;
}

/**
 * One batch of changes, in the order they were made. `upserts` carry whole rows as the dataset holds them now (after
 * the sink's redaction, when on); `deletes` carry primary keys (dataset/columns.ts `primaryKey`) of rows that are gone.
 * Within a batch, a key is either upserted or deleted, never both. Local-only sessions never appear, and a session
 * that became local-only (or ignored) arrives as deletes of all its rows.
 */
export interface DeltaBatch {
  origin: Origin;
  /**
   * The change-log sequence numbers this batch covers: (fromSeq, toSeq]. A replay sends the same range again. A
   * snapshot batch (a new sink's first copy of the dataset, upserts only) covers none: fromSeq === toSeq, and it is
   * never skipped by `applied`. A sink that records `toSeq` keeps the highest it saw for the origin.
   */
  fromSeq: number;
  toSeq: number;
  /**
   * A log batch: the digest of its change-log entries (changelog.ts logDigest), which a sink that records `toSeq`
   * records beside it. Absent on snapshot batches.
   */
  logDigest?: string;
  /**
   * The first batch of a snapshot: after it the destination holds of this origin only what the snapshot sends, so a
   * sink that can delete drops the origin's rows first, in the same transaction (a sink removed and added again must
   * not keep rows the dataset has since lost, a forgotten session's above all). A replay of it does the same again.
   */
  first?: boolean;
  /**
   * The rules the dataset's stored terminal programs were named by when the batch was read (`dataset_meta.
   * program_rules`, decision 0152): the rows it sends are named by them, whatever rules the shipping process has (a
   * Hermetic of other rules may have named the dataset since this one opened it). Absent: the process's own.
   */
  programRules?: number;
  upserts: { table: ShippedTable; rows: RecordOf[] }[];
  deletes: { table: ShippedTable; keys: RecordOf[] }[];
}

/**
 * Why a sink failed: `retriable` ones (connection refused, timeout, serialization failure) are retried with backoff.
 * `retryAfterMs`: the destination asked to be left alone that long first (HTTP Retry-After); the backoff waits at
 * least that much.
 */
export class SinkError extends Error {
  readonly retryAfterMs: number | null;
  constructor(
    readonly code: string,
    message: string,
    readonly retriable: boolean,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options);
    this.name = 'SinkError';
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
}

/** A destination's record of what it applied for an origin. */
export interface AppliedMark {
  seq: number;
  /** The `fromSeq` and `logDigest` of the log batch that brought `seq`; null when a snapshot did, or before they were kept. */
  from: number | null;
  digest: string | null;
}

export interface RemoteSink {
  /** A stable identity for the sink's cursor: its kind and URL without credentials (never a password). */
  readonly id: string;
  /** What `status` prints: the URL with any password redacted. */
  readonly display: string;
  /** Whether rows leave the machine (then redaction is on unless the user said --no-redact). */
  readonly leavesMachine: boolean;
  /** Connects and prepares the destination (migrations); throws SinkError. Called before the first write. */
  open(): Promise<void>;
  /**
   * What the destination itself recorded for this origin (when it can record it in the same transaction as the rows:
   * PostgreSQL and sqlite:// do), else null: the highest `toSeq` applied, and the range and digest of the log batch
   * that brought it. A log batch at or below it is already applied (skipped) once the shipper has checked that the
   * batch was this dataset's own (decision 0035 addendum).
   */
  applied(origin: Origin): Promise<AppliedMark | null>;
  /** Applies one batch; resolves only when the destination holds it durably. Idempotent. Throws SinkError. */
  write(batch: DeltaBatch): Promise<void>;
  /**
   * Cuts short a write under way because the process is stopping (optional): the write then rejects soon, and its
   * batch, never acknowledged, is sent again by a later run. Without it, a stopping process waits for the write.
   */
  abort?(): void;
  close(): Promise<void>;
}

/** What a sink factory is given besides its URL (registry.ts maps each URL scheme to a module's factory). */
export interface SinkFactoryOptions {
  /** The Hermetic home (where a sink may keep state of its own). */
  home: string;
  /** The folder relative paths are resolved against (default the process's). */
  cwd?: string;
  /** Extra settings of a config file `sinks:` entry besides its url (each sink checks its own). */
  settings?: Readonly<Record<string, unknown>>;
}

/**
 * What a sink module exports for its scheme: `createPostgresSink(url, options)`, `createOtlpSink(url, options)`. The
 * shared conformance suite every sink passes is conformance.ts (remoteSinkConformance).
 */
export type SinkFactory = (url: string, options: SinkFactoryOptions) => RemoteSink | Promise<RemoteSink>;

// What the dashboard reads, as one interface: the embedded dataset (sqlite.ts) and the fleet store in PostgreSQL
// (`hermetic web --from postgres://…`, postgres.ts). Every usage figure comes from the report's one plan (`planReport`,
// as `hermetic report` runs it; DESIGN habit 17); the transcript and lineage are the dataset's rows as they are.
import type { FilterName, ReportRequest, RowIssueCount, UnreadSpan, UsageReport } from '../../report/index.js';
import type { Zone } from '../../ledger/zone.js';

/** A session's row as the page shows it (the dataset's `sessions` columns, foreign names kept). */
export type SessionRow = Record<string, string | number | null>;

/**
 * Hermes's fields the dataset has no column for, by their Hermes names (`attributes`, decision 0050), parsed; null
 * when none is set (and on a dataset or fleet store from before the column).
 */
export type Attributes = { [name: string]: unknown } | null;

/** The session the page is about: its row, with its `attributes` parsed. */
export interface SessionDetail {
  [column: string]: string | number | null | Attributes;
  attributes: Attributes;
}

export interface TranscriptMessage {
  seq: number;
  role: string;
  /** `message` for conversation, else the bookkeeping kind (`session_meta`, `model_switch`, `compaction_summary`, …). */
  kind: string;
  bookkeeping: boolean;
  /** Summarized away by an in-place compaction: in the history, no longer replayed to the model. */
  compacted: boolean;
  /** `platform_message_id`, `effect_disposition`, `observed`, `reactions` when any is set (decision 0050). */
  attributes: Attributes;
  content: string | null;
  content_format: string | null;
  reasoning: string | null;
  tool_calls: { id: string | null; name: string | null; arguments: unknown }[];
  tool_name: string | null;
  tool_call_id: string | null;
  model: string | null;
  finish_reason: string | null;
  created_at: number;
}

/**
 * A background subagent dispatch of the session (`delegations`, decision 0054), its dataset columns by their names.
 * `removed_from_store` is 1 once Hermes pruned it (kept in the dataset).
 */
export interface DelegationRow {
  delegation_id: string;
  state: string | null;
  delivery_state: string | null;
  delivery_attempts: number | null;
  dispatched_at: number | null;
  completed_at: number | null;
  delivered_at: number | null;
  duration_seconds: number | null;
  goal: string | null;
  summary: string | null;
  error: string | null;
  removed_from_store: number;
}

export interface SessionView {
  session: SessionDetail;
  parent: SessionRow | null;
  children: SessionRow[];
  /** Where an assistant message's model differs from the one before it. */
  model_changes: { seq: number; created_at: number; from: string | null; to: string | null }[];
  /**
   * The background delegations it dispatched (`delegations` whose parent is this session, same store and machine), by
   * dispatch time; empty on a dataset or fleet store from before the table.
   */
  delegations: DelegationRow[];
  /** The session's usage by model and task, all time: `usageReport` with the session as its filter. */
  usage: UsageReport;
  transcript: { page: number; page_size: number; pages: number; total: number; messages: TranscriptMessage[] };
}

export interface SlowCall {
  tool: string | null;
  session_id: string;
  /** Where the session is (two stores, or two machines in the fleet, may hold the same id): the page links with it. */
  store: string;
  /** The fleet store's machine. */
  machine_id?: string;
  started_at: number;
  seconds: number;
}

/** Which session: its id, and its store and machine when more than one hold the id. */
export interface SessionKey {
  id: string;
  store: string | null;
  /** The fleet's machine id (fleet stores only). */
  machine: string | null;
}

export interface UsageSource {
  /** Whether rows come from many machines (the fleet store): the page then shows the breakdown by machine. */
  readonly fleet: boolean;
  /** The zone of the ledger's days (windows start at its midnights). */
  zone(): Zone;
  /** The one aggregation: exactly what `hermetic report --json` answers for the request. */
  report(request: ReportRequest): Promise<UsageReport>;
  /** The values of a filter column in the window, costliest first, at most `limit` (the report's `planValues`). */
  values(request: ReportRequest, column: Exclude<FilterName, 'session'>, limit: number): Promise<(string | null)[]>;
  /** A session; null when there is none. */
  session(key: SessionKey, page: number, pageSize: number): Promise<SessionView | null>;
  /** The slowest tool calls whose call and result both have a time (the report's window and filter). */
  slowestCalls(request: ReportRequest, limit: number): Promise<SlowCall[]>;
  /** Values the forwarder changed or left out in the sessions the request counts; null where they are not kept (the fleet store). */
  rowIssues(request: ReportRequest): Promise<RowIssueCount | null>;
  /** Sessions a windowed backfill left unread that reach into the request's window; null where that is not kept (the fleet store). */
  unread(request: ReportRequest): Promise<UnreadSpan | null>;
  close(): Promise<void>;
}

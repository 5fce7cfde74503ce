// What the dashboard reads, as one interface: the embedded dataset (sqlite.ts) and the fleet store in PostgreSQL
// (`hermetic web --from postgres://…`, postgres.ts). Every usage figure comes from the report's one plan (`planReport`,
// as `hermetic report` runs it; DESIGN habit 17); the transcript and lineage are the dataset's rows as they are.
import type { ValueFilter, ReportRequest, RowIssueCount, UnreadSpan, UnreadUnknown, UsageReport } from '../../report/index.js';
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
  [column: string]: string | number | null | Attributes | CutLength | Record<string, CutLength>;
  /** Null too when its JSON was past ATTRIBUTES_CAP (`cut.attributes` then gives its length; decision 0094). */
  attributes: Attributes;
  /** The system prompt's whole length (it is not sent: `/api/session-text?…&field=system_prompt` gives it); null when none. */
  system_prompt_length: CutLength | null;
  /** The texts cut (title at TITLE_CAP, the others at FIELD_CAP, `attributes` not sent), with their whole lengths; null when none was. */
  cut: Record<string, CutLength> | null;
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
  /**
   * Its calls; `cut` when a call's arguments were past the cap (decision 0088): `arguments` is then the text's first
   * TEXT_CAP characters (not parsed), and the whole is `/api/message-text?…&field=arguments&call=<index>`.
   */
  tool_calls: { id: string | null; name: string | null; arguments: unknown; cut: CutLength | null }[];
  tool_name: string | null;
  tool_call_id: string | null;
  model: string | null;
  finish_reason: string | null;
  created_at: number;
  /**
   * The texts cut at TEXT_CAP characters (decision 0088), each with its whole length in characters (Unicode code
   * points) and UTF-8 bytes; null when none was. `tool_calls`: its JSON was past the cap, so only its first `shown` of
   * `calls` calls are listed. Each whole text is `/api/message-text?…&seq=<seq>&field=<name>`.
   */
  cut: ({ content?: CutLength; reasoning?: CutLength; tool_calls?: CutLength & { calls: number; shown: number }; attributes?: CutLength } & { [short: string]: CutLength | undefined }) | null;
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
  /** Its texts cut (goal, summary, error at TEXT_CAP; states at FIELD_CAP), with their whole lengths; null when none was (decision 0094). */
  cut: Record<string, CutLength> | null;
}

export interface SessionView {
  session: SessionDetail;
  parent: SessionRow | null;
  children: SessionRow[];
  /** Where an assistant message's model differs from the one before it. */
  model_changes: { seq: number; created_at: number; from: string | null; to: string | null }[];
  /**
   * The background delegations it dispatched (`delegations` whose parent is this session, same store and machine), by
   * dispatch time; empty on a dataset or fleet store from before the table. Null when this role may not read the fleet's
   * table: not known, not none (`withheld` names it with the GRANT; decision 0105).
   */
  delegations: DelegationRow[] | null;
  /** The fleet store: the tables of the page this role may not read, with the GRANT the schema's owner runs; absent when none. */
  withheld?: { table: string; grant: string }[];
  /** Whether the session has more children, delegations or model changes than the LIST_ROWS listed (decision 0094). */
  more: { children: boolean; delegations: boolean; model_changes: boolean };
  /** Where the session's own texts are cut and how many rows each list holds (decision 0094). */
  limits: { title_characters: number; field_characters: number; attributes_characters: number; list_rows: number };
  /** The session's usage by model and task, all time: `usageReport` with the session as its filter. */
  usage: UsageReport;
  /**
   * What the session cost with its descendants (its delegate subagents, continuations, branches and theirs, in its
   * store; not the new conversation a reset started, nor its own): how many there are (at most DESCENDANTS_CAP
   * counted; `more` when there are more) and the usage totals of the session and them together, as `usageReport`
   * gives them. Null when it has none (decision 0110).
   */
  lineage_usage: { descendants: number; more: boolean; totals: UsageReport['totals'] } | null;
  /**
   * A page of `page_size` messages by seq, from `from` (the page's first unless asked for); it stops early once its
   * messages' JSON reaches `limits.page_bytes`, and `next_from` is then the seq the rest of the page starts at (else
   * null). `limits.text_characters`: where each text is cut (decision 0088).
   */
  transcript: { page: number; page_size: number; pages: number; total: number; from: number; next_from: number | null; limits: { text_characters: number; page_bytes: number }; messages: TranscriptMessage[] };
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

/** A field's whole length when it was cut: Unicode code points (`characters`) and UTF-8 bytes. */
export interface CutLength { characters: number; bytes: number }

/** A text `/api/message-text` gives whole: a message's column, or one tool call's arguments (`call`, from 0). */
export type TextField = { name: 'content' | 'reasoning' | 'tool_calls' | 'attributes' } | { name: 'arguments'; call: number };

/** Which page of a transcript: its number and size (`page`, `page_size`), and where in it to start (`from`, a seq). */
export interface TranscriptPage { page: number; size: number; from: number | null }

/** A text read a chunk at a time (bounded memory however long it is). */
export interface MessageText {
  characters: number;
  bytes: number;
  chunk(from: number): Promise<string | null>;
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
  /**
   * A token that changes whenever what the source holds may have changed (a forwarder committed, the dataset was
   * replaced, a machine shipped): the page asks for it to follow the data live (decision 0119). Null where nothing
   * tells (a fleet store without its `progress` table, or a role that may not read it): the page then does not follow.
   */
  version(): Promise<string | null>;
  /** The values of a filter column in the window, costliest first, at most `limit` (the report's `planValues`). */
  values(request: ReportRequest, column: ValueFilter, limit: number): Promise<(string | null)[]>;
  /** A session; null when there is none. */
  session(key: SessionKey, page: TranscriptPage): Promise<SessionView | null>;
  /**
   * One text of a message whole, for `/api/message-text`: its lengths, and `chunk(from)` reading TEXT_CHUNK characters
   * from `from` (1-based; null when the text changed meanwhile). Null when there is no such session; a message or text
   * that is not there is refused (HERMETIC_WEB_NOT_FOUND).
   */
  messageText(key: SessionKey, seq: number, field: TextField): Promise<MessageText | null>;
  /**
   * One text of the session's own row whole, for `/api/session-text` (one of SESSION_TEXT_FIELDS), read as
   * `messageText` reads one. Null when there is no such session; a text it does not have is refused (decision 0094).
   */
  sessionText(key: SessionKey, field: string): Promise<MessageText | null>;
  /** The slowest tool calls whose call and result both have a time (the report's window and filter). */
  slowestCalls(request: ReportRequest, limit: number): Promise<SlowCall[]>;
  /** Values the forwarder changed or left out in the sessions the request counts (`planRowIssues`; decision 0092); null on a fleet store without the table yet. */
  rowIssues(request: ReportRequest): Promise<RowIssueCount | null>;
  /**
   * Sessions the request counts that Hermes recorded no cost for at all (the report's `planUncosted`, decision 0090):
   * their $0.00 is not a measured cost. Counted on the dataset and on the fleet store alike.
   */
  uncosted(request: ReportRequest): Promise<number>;
  /** Sessions a windowed backfill left unread that reach into the request's window; null when none, or where that is not kept (a fleet store before version 7). */
  unread(request: ReportRequest): Promise<UnreadSpan | null>;
  /**
   * Tables whose notes the overview leaves out because this role may not read them, with the GRANT the schema's owner
   * runs (the fleet store only; decision 0102). Absent or empty: every note it keeps is read.
   */
  withheld?(): Promise<{ table: string; grant: string }[]>;
  /**
   * The fleet store: how many of its machines do not say what windowed backfills left unread, of how many (their
   * forwarder is older: `unread` is the others'); null where not known (decision 0105).
   */
  unreadUnknown?(): Promise<UnreadUnknown | null>;
  close(): Promise<void>;
}

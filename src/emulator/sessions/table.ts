// The port between the sessions domain and the durable session rows (spec sessions-api §3–§6): what the domain asks
// of the store, whichever implementation answers (store/session-table.ts). Rows keep the column names of Hermes's
// state.db `sessions` and `messages` (state-db §4–§5), plus the profile: Hermes keeps one state.db per profile.
import type { StoreUnavailable } from '../runs/run-table.js';

/** One session row, column for column (REAL columns are numbers; flags 0/1). */
export interface SessionRow {
  profile: string;
  id: string;
  source: string;
  user_id: string | null;
  model: string | null;
  model_config: string | null;
  system_prompt: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  estimated_cost_usd: number | null;
  actual_cost_usd: number | null;
  api_call_count: number;
  title: string | null;
  last_activity_at: number | null;
  pinned: number;
  archived: number;
  hidden: number;
  last_read_at: number | null;
}

/** A row as list_sessions_rich returns it: the session plus its recency and the raw head of its first user message. */
export interface ListedSessionRow extends SessionRow {
  last_active: number;
  /** The first user message's head as _PREVIEW_RAW_SELECT reads it (63 characters; a /skill turn's wider), '' when none. */
  preview_raw: string;
}

/**
 * One message row; `content` and `tool_calls` as stored (`\x00json:` content, tool calls as JSON text). `id` is
 * numbered per profile, as each profile's state.db numbers its own (AUTOINCREMENT).
 */
export interface MessageRow {
  id: number;
  profile: string;
  session_id: string;
  role: string;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number;
  token_count: number | null;
  finish_reason: string | null;
  reasoning: string | null;
  reasoning_content: string | null;
  display_kind: string | null;
}

export type NewMessage = Omit<MessageRow, 'id' | 'profile' | 'session_id'>;

/** The new row of POST /api/sessions (the columns Hermes's INSERT names). */
export interface NewSession {
  profile: string;
  id: string;
  source: string;
  model: string | null;
  model_config: string | null;
  system_prompt: string | null;
  started_at: number;
  /** A delegate subagent's session: its parent's id. */
  parent_session_id?: string | null;
}

/** What a turn's API calls add to its session's counters (the agent adds each call's usage as it returns). */
export interface UsageDelta {
  input: number;
  output: number;
  reasoning: number;
  apiCalls: number;
  /** Estimated USD (0 when the calls reported none, as update_token_counts adds it). */
  cost: number;
}

export type CreateOutcome = { kind: 'created'; row: SessionRow } | { kind: 'exists' } | { kind: 'title-taken'; holder: string };

/** list_sessions_rich's arguments as the API server passes them (order_by_last_active, include_pinned). */
export interface ListQuery {
  profile: string;
  source: string | null;
  limit: number;
  offset: number;
  includeChildren: boolean;
  includeHidden: boolean;
  /** The title filter, pushed into SQL as a case-insensitive substring of the title or id (and a compact form). */
  search: string | null;
}

/** Everything of one namespace's sessions, for a checkpoint. */
export interface SessionsSnapshot {
  readonly sessions: readonly SessionRow[];
  readonly messages: readonly MessageRow[];
  /**
   * Each profile's last message id handed out (AUTOINCREMENT's counter, one per profile as each profile has its own
   * state.db; a profile that never held a message is absent). It can be past the profile's newest row once messages
   * were deleted; a restore continues from it, and a reset (none) numbers every profile from 1 again.
   */
  readonly messageSeqs: Readonly<Record<string, number>>;
}

/** The statements, each synchronous; `SessionTable.read`/`write` run them inside one transaction. */
export interface SessionOps {
  get(profile: string, id: string): SessionRow | undefined;
  /** Exact-title lookup over every row of the profile (hidden and archived ones included). */
  byTitle(profile: string, title: string): SessionRow | undefined;
  /** Hermes's create transaction: exists → nothing; insert; a title held by another row → the insert is undone. */
  create(row: NewSession, title: string | null): CreateOutcome;
  /** create_session's upsert when a run starts: a new row, or an existing one keeping what it has (a null `model` takes the run's). */
  ensure(row: NewSession): void;
  /** Another row holding `title`, if any (the row `id` itself excluded). */
  titleHolder(profile: string, title: string, id: string): string | undefined;
  update(profile: string, id: string, changes: Partial<Omit<SessionRow, 'profile' | 'id'>>): void;
  /** end_session: the first reason wins. True when it ended the row (it was open). */
  end(profile: string, id: string, reason: string, at: number): boolean;
  /** A turn's messages in order, the counters moved, optionally the usage of its API calls added; none for a row gone. */
  append(profile: string, sessionId: string, messages: readonly NewMessage[], usage: UsageDelta | null): void;
  /**
   * replace_messages: the session's rows deleted, `messages` inserted with new ids, `message_count` and
   * `tool_call_count` set to theirs (a fork's copy; decision 0141).
   */
  replaceMessages(profile: string, sessionId: string, messages: readonly NewMessage[], toolCalls: number): void;
  /** The titles get_next_title_in_lineage weighs: `title = base OR title LIKE pattern ESCAPE '\\'`, SQLite's LIKE. */
  lineageTitles(profile: string, base: string, pattern: string): string[];
  /** touch_session_activity: `last_activity_at` moves to `at`, never back. */
  touch(profile: string, sessionId: string, at: number): void;
  /** The page of list_sessions_rich, then the pinned rows the window left out (same filters, newest first). */
  list(query: ListQuery): ListedSessionRow[];
  messages(profile: string, sessionId: string, page: { limit: number; offset: number | bigint; latest: boolean }): MessageRow[];
  /** Deletes the session and its messages; children are orphaned. */
  delete(profile: string, id: string): boolean;
  snapshot(): SessionsSnapshot;
  /** Every row replaced, and the message id counter set as the snapshot has it (a fresh store's for an empty one). */
  replaceAll(snapshot: SessionsSnapshot): void;
}

/**
 * The session store. Every call waits off the event loop while another connection holds the lock (up to the lock
 * timeout) and rejects with StoreUnavailable when it cannot run; a call that resolved is committed to the file.
 */
export interface SessionTable {
  read<T>(what: string, fn: (ops: SessionOps) => T): Promise<T>;
  write<T>(what: string, fn: (ops: SessionOps) => T): Promise<T>;
  /** The same, now or never: for callers that cannot wait (a run's turn, flushed from the agent). Throws StoreUnavailable. */
  writeNow<T>(what: string, fn: (ops: SessionOps) => T): T;
  /** False while a store opened on first write has had none: it holds nothing, and no handle. */
  readonly opened: boolean;
  /** A store private to its namespace: closes it and forgets its sessions (a reset gives the memory back). */
  discard?(): void;
  close(): void;
}

export type { StoreUnavailable };

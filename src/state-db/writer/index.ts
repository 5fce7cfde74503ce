// A Hermes-like writer for state.db (spec state-db §8): sessions, messages in BEGIN IMMEDIATE transactions with
// message_count/tool_call_count kept, and the lifecycle. Usage and rewrites live beside it; time and ids injected.
import type Database from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import type { IdSource } from '../../shared/ids.js';
import { promptHash } from '../schema/create.js';
import { dumps as pyJson, scrubSurrogates, type PlainJson as PyJson } from '../../shared/python/index.js';
import { displayIdentity } from '../display-identity.js';
import type { MessageInput, SessionInput, Usage } from './types.js';
import { recordAuxiliaryUsage, updateTokenCounts } from './usage.js';
import { compactInPlace, compressSplit, deleteSession, replaceMessages, rewind, type ReplaceOptions } from './rewrite.js';
import { setMessageApiContent, setMessageReaction, stampDisplayKind, takeUnseenReactions } from './edits.js';
import {
  claimDelegationDelivery, completeDelegation, dispatchDelegation, dropDelegationDelivery, markDelegationDelivered,
  pruneDelegations, recoverAbandonedDelegations, releaseDelegationDelivery, type DelegationInput, type DelegationOutcome,
} from './delegations.js';

export type { MessageInput, SessionInput, ToolCall, Usage } from './types.js';
export type { DelegationChild, DelegationInput, DelegationOutcome } from './delegations.js';

export interface WriterOptions {
  /** Epoch seconds as a float, like time.time() (a Clock's now works). */
  now: () => number;
  ids: IdSource;
  /** session_daily_usage.day from local time (Hermes) or UTC (default, reproducible). */
  dayIn?: 'utc' | 'localtime';
}

/**
 * The last schema version whose SessionDB counted each tool-related message (a tool result, an assistant message with
 * tool_calls) as one tool call and let end_session overwrite an earlier end: v2 does both (its code, run in decision
 * 0109); v30 counts calls and keeps the first end. Where between the two it changed is not known [I].
 */
const EARLY_SESSIONDB_VERSION = 2;

/** Sources that mint 6-hex session ids; gateway-side sessions get 8 hex (spec §3). */
const SHORT_ID_SOURCES = new Set(['cli', 'tui', 'oneshot', 'desktop']);
export const JSON_PREFIX = '\x00json:';

type Row = Record<string, unknown>;

/**
 * Writes a state.db the way Hermes's SessionDB does, adapting to the columns the open store has.
 * @example
 *   const w = new StateDbWriter(db, { now: () => clock.now(), ids: createIdSource('seed') });
 *   const id = w.createSession({ source: 'cli', model: 'gpt-5' });
 *   w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
 *   w.updateTokenCounts(id, { input_tokens: 10, output_tokens: 3 });
 *   w.endSession(id, 'user_exit');
 */
export class StateDbWriter {
  readonly db: Db;
  readonly now: () => number;
  readonly ids: IdSource;
  readonly dayIn: 'utc' | 'localtime';
  #columns = new Map<string, Set<string>>();
  #early: boolean | undefined;
  #statements = new Map<string, Database.Statement<unknown[]>>();

  constructor(db: Db, options: WriterOptions) {
    this.db = db;
    this.now = options.now;
    this.ids = options.ids;
    this.dayIn = options.dayIn ?? 'utc';
    db.pragma('foreign_keys = ON');
  }

  /** True for a store at schema v2 or below, whose SessionDB counted and ended sessions the early way. */
  get early(): boolean {
    if (this.#early === undefined) {
      const v = this.has('schema_version') ? this.db.prepare('SELECT version FROM schema_version LIMIT 1').pluck().get() : undefined;
      this.#early = typeof v === 'number' && v <= EARLY_SESSIONDB_VERSION;
    }
    return this.#early;
  }

  /** Columns the store's table has (empty when the table does not exist at this version). */
  columns(table: string): Set<string> {
    let set = this.#columns.get(table);
    if (!set) {
      set = new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((r) => r.name));
      this.#columns.set(table, set);
    }
    return set;
  }

  has(table: string, column?: string): boolean {
    const cols = this.columns(table);
    return column === undefined ? cols.size > 0 : cols.has(column);
  }

  /** A cached prepared statement. */
  stmt(sql: string): Database.Statement<unknown[]> {
    let s = this.#statements.get(sql);
    if (!s) this.#statements.set(sql, (s = this.db.prepare<unknown[]>(sql)));
    return s;
  }

  /**
   * The statement cached under a short `key`, its SQL built only the first time: statements that run for every row or
   * API call (the generator's hundreds of thousands) are found without building their text again. Keys start with
   * "\0", so none is ever the SQL text stmt() caches under.
   */
  prepared(key: string, sql: () => string): Database.Statement<unknown[]> {
    let s = this.#statements.get(key);
    if (!s) this.#statements.set(key, (s = this.db.prepare<unknown[]>(sql())));
    return s;
  }

  /** INSERT of the given columns that exist in the store (unknown or undefined ones are dropped). */
  insert(table: string, row: Row, verb = 'INSERT'): { changes: number; lastInsertRowid: number | bigint } {
    const cols = this.columns(table);
    const keys: string[] = [];
    const values: unknown[] = [];
    for (const k in row) {
      const v = row[k];
      if (v !== undefined && cols.has(k)) {
        keys.push(k);
        values.push(v);
      }
    }
    // One statement per shape of row, found by its columns.
    return this.prepared(`\0${verb} ${table} ${keys.join(',')}`, () => `${verb} INTO ${table} (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`).run(values);
  }

  /** Runs fn inside BEGIN IMMEDIATE (nested calls join the outer transaction). */
  tx<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn).immediate();
  }

  /** `YYYYMMDD_HHMMSS_<hex>` from the clock (UTC, decision 0011) and the id source. */
  newSessionId(source: string, at = this.now()): string {
    const d = new Date(Math.floor(at) * 1000).toISOString();
    const stamp = `${d.slice(0, 4)}${d.slice(5, 7)}${d.slice(8, 10)}_${d.slice(11, 13)}${d.slice(14, 16)}${d.slice(17, 19)}`;
    return `${stamp}_${this.ids.uuid4Hex().slice(0, SHORT_ID_SOURCES.has(source) ? 6 : 8)}`;
  }

  /** Stores a prompt content-addressed (v25+) and returns its hash. */
  storeSystemPrompt(prompt: string): string {
    const hash = promptHash(prompt);
    this.insert('system_prompts', { hash, prompt }, 'INSERT OR IGNORE');
    return hash;
  }

  /** create_session: INSERT OR IGNORE; a placeholder row written by early usage (source 'unknown') is repaired. */
  createSession(input: SessionInput): string {
    return this.tx(() => {
      const started = input.started_at ?? this.now();
      const id = input.id ?? this.newSessionId(input.source, started);
      const row: Row = { ...input, id, started_at: started };
      if (input.model_config !== undefined) row.model_config = input.model_config === null ? null : pyJson(input.model_config);
      if (input.system_prompt != null && this.has('system_prompts')) {
        row.system_prompt_hash = this.storeSystemPrompt(input.system_prompt);
        row.system_prompt = null;
      }
      const { changes } = this.insert('sessions', row, 'INSERT OR IGNORE');
      if (changes === 0) {
        const existing = this.stmt('SELECT source FROM sessions WHERE id = ?').get(id) as { source: string };
        if (existing.source === 'unknown') {
          const cols = this.columns('sessions');
          const keys = Object.keys(row).filter((k) => k !== 'id' && row[k] !== undefined && cols.has(k));
          this.stmt(`UPDATE sessions SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`)
            .run(...keys.map((k) => row[k]), id);
        }
      }
      return id;
    });
  }

  /** Inserts one batch in one transaction; returns the new message ids. */
  appendMessages(sessionId: string, messages: MessageInput[]): number[] {
    return this.tx(() => {
      const ids: number[] = [];
      let last = -Infinity;
      let calls = 0;
      for (const m of messages) {
        let ts = m.timestamp ?? this.now();
        if (ts <= last) ts = last + 1e-6;
        last = ts;
        ids.push(this.#insertMessage(sessionId, m, ts));
        calls += this.early ? (m.role === 'tool' || m.tool_calls != null ? 1 : 0) : m.tool_calls?.length ?? 0;
      }
      this.stmt('UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ? WHERE id = ?')
        .run(messages.length, calls, sessionId);
      return ids;
    });
  }

  appendMessage(sessionId: string, message: MessageInput): number {
    return this.appendMessages(sessionId, [message])[0]!;
  }

  /** Inserts a message row without touching the session counters (used by rewrites). */
  insertMessageRow(sessionId: string, m: MessageInput, timestamp: number): number {
    return this.#insertMessage(sessionId, m, timestamp);
  }

  #insertMessage(sessionId: string, m: MessageInput, timestamp: number): number {
    const json = (v: PyJson | undefined) => (v === undefined || v === null ? v : pyJson(v));
    // SessionDB scrubs lone surrogates from its text columns (U+FFFD) before binding; tool_calls and the JSON columns
    // are json.dumps'd with ensure_ascii, which escapes them (hermes_state_messages.py `_message_row_params`).
    const text = <T>(v: T): T => (typeof v === 'string' ? scrubSurrogates(v) as T : v);
    const content = m.content === undefined || m.content === null || typeof m.content === 'string'
      ? text(m.content ?? null) : JSON_PREFIX + pyJson(m.content);
    const toolCalls = m.tool_calls && m.tool_calls.length > 0 ? pyJson(m.tool_calls as unknown as PyJson) : null;
    const toolName = text(m.tool_name);
    const row: Row = {
      // active is written explicitly: stores migrated across the reconciler quirk have no default for it (spec §5.2).
      active: 1, ...m, session_id: sessionId, content, tool_calls: toolCalls, timestamp, tool_name: toolName,
      reasoning: text(m.reasoning), reasoning_content: text(m.reasoning_content), api_content: text(m.api_content),
      display_kind: text(m.display_kind),
      reasoning_details: json(m.reasoning_details), codex_reasoning_items: json(m.codex_reasoning_items),
      codex_message_items: json(m.codex_message_items), display_metadata: json(m.display_metadata),
    };
    if (this.has('messages', 'display_identity')) {
      row.display_identity = displayIdentity({
        role: m.role, content, timestamp, tool_call_id: m.tool_call_id ?? null, tool_calls: toolCalls,
        tool_name: toolName ?? null,
      });
    }
    return Number(this.insert('messages', row).lastInsertRowid);
  }

  /** end_session: first reason wins (an early store: the last one). */
  endSession(sessionId: string, reason: string, at = this.now()): boolean {
    return this.tx(() =>
      this.stmt(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?${this.early ? '' : ' AND ended_at IS NULL'}`)
        .run(at, reason, sessionId).changes > 0);
  }

  /** reopen_session (resume): clears ended_at and end_reason. */
  reopenSession(sessionId: string): void {
    this.tx(() => this.stmt('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(sessionId));
  }

  /** Sets any sessions columns by name (title, title_source, handoff_*, flags...), skipping unknown ones. */
  updateSession(sessionId: string, fields: Row): void {
    const cols = this.columns('sessions');
    const keys = Object.keys(fields).filter((k) => fields[k] !== undefined && cols.has(k));
    if (keys.length === 0) return;
    this.tx(() => this.stmt(`UPDATE sessions SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`)
      .run(...keys.map((k) => fields[k]), sessionId));
  }

  /** `/model` switch: overwrites the model and the billing route (update_session_billing_route). */
  switchModel(sessionId: string, model: string, route: { billing_provider?: string; billing_base_url?: string; billing_mode?: string } = {}): void {
    this.updateSession(sessionId, { model, ...route });
  }

  updateTokenCounts(sessionId: string, usage: Usage, mode: 'delta' | 'absolute' = 'delta', task = ''): void {
    updateTokenCounts(this, sessionId, usage, mode, task);
  }

  recordAuxiliaryUsage(sessionId: string, task: string, usage: Usage): void {
    recordAuxiliaryUsage(this, sessionId, task, usage);
  }

  compressSplit(parentId: string, carried: MessageInput[], child: Partial<SessionInput> = {}): string {
    return compressSplit(this, parentId, carried, child);
  }

  compactInPlace(sessionId: string, summary: MessageInput[], carriedTail: number): number[] {
    return compactInPlace(this, sessionId, summary, carriedTail);
  }

  replaceMessages(sessionId: string, messages: MessageInput[], options: ReplaceOptions = {}): number[] {
    return replaceMessages(this, sessionId, messages, options);
  }

  rewind(sessionId: string, keepThroughId: number): void {
    rewind(this, sessionId, keepThroughId);
  }

  deleteSession(sessionId: string): void {
    deleteSession(this, sessionId);
  }

  /** Edits in place (edits.ts): nothing on the session row moves. */
  setMessageReaction(messageId: number, emoji: string, author: 'user' | 'agent' = 'user'): void {
    setMessageReaction(this, messageId, emoji, author);
  }

  takeUnseenReactions(sessionId: string, author: 'user' | 'agent' = 'user'): number {
    return takeUnseenReactions(this, sessionId, author);
  }

  stampDisplayKind(sessionId: string, role: string, content: string, kind: string, metadata: Record<string, PyJson> | null = null): boolean {
    return stampDisplayKind(this, sessionId, role, content, kind, metadata);
  }

  setMessageApiContent(messageId: number, apiContent: string): void {
    setMessageApiContent(this, messageId, apiContent);
  }

  /** Background subagent dispatches (delegations.ts): `async_delegations` rows, nothing else touched. */
  dispatchDelegation(input: DelegationInput): string {
    return dispatchDelegation(this, input);
  }

  completeDelegation(id: string, outcome: DelegationOutcome = {}): void {
    completeDelegation(this, id, outcome);
  }

  claimDelegationDelivery(id: string, options?: { consumer?: string; at?: number; token?: string }): string | null {
    return claimDelegationDelivery(this, id, options);
  }

  releaseDelegationDelivery(id: string): void {
    releaseDelegationDelivery(this, id);
  }

  markDelegationDelivered(id: string, at?: number): void {
    markDelegationDelivered(this, id, at);
  }

  dropDelegationDelivery(id: string): void {
    dropDelegationDelivery(this, id);
  }

  recoverAbandonedDelegations(): number {
    return recoverAbandonedDelegations(this);
  }

  pruneDelegations(now?: number): number {
    return pruneDelegations(this, now);
  }
}

// The API server's sessions in the emulator's store (migrations 006, 007): Hermes's SessionDB statements the session
// routes use — create, get, list_sessions_rich, set_* flags, end_session, delete_session, get_messages — over one
// profile's rows at a time, message ids numbered per profile as each profile's own state.db numbers them. Each call is
// one transaction; a held lock is waited for off the event loop (store/busy.ts).
import type Database from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import { StoreUnavailable, type LockWait } from '../runs/run-table.js';
import type {
  CreateOutcome,
  ListedSessionRow,
  ListQuery,
  MessageRow,
  NewMessage,
  NewSession,
  UsageDelta,
  SessionOps,
  SessionRow,
  SessionsSnapshot,
  SessionTable,
} from '../sessions/table.js';
import { SKILL_EXCERPT_JOINT, SKILL_INVOCATION_PREFIX } from '../sessions/skill-invocation.js';
import { orUnavailable, whileBusy } from './busy.js';
import { openEmulatorStore } from './db.js';

const SESSION_COLUMNS = [
  'profile', 'id', 'source', 'user_id', 'model', 'model_config', 'system_prompt', 'parent_session_id', 'started_at',
  'ended_at', 'end_reason', 'message_count', 'tool_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens',
  'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'api_call_count', 'title',
  'last_activity_at', 'pinned', 'archived', 'hidden', 'last_read_at',
] as const;
const MESSAGE_COLUMNS = [
  'id', 'profile', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'token_count',
  'finish_reason', 'reasoning', 'reasoning_content', 'display_kind',
] as const;
const UPDATABLE = new Set<string>(SESSION_COLUMNS.filter((c) => c !== 'profile' && c !== 'id'));

/** _PREVIEW_CONTENT_SQL: the message with newlines as spaces. */
const PREVIEW_CONTENT = "REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' ')";
/** _PREVIEW_SCAFFOLDED_SQL: an expanded /skill turn, by SQLite's LIKE (so ASCII letters in any case; decision 0134). */
const SCAFFOLDED = `m.content LIKE '${SKILL_INVOCATION_PREFIX}%'`;
/**
 * The first user message as hermes_state_common._PREVIEW_RAW_SELECT reads it for _shape_preview: newlines as spaces,
 * its first 63 characters; an expanded /skill turn whole up to 800, past that its first and last 400 around
 * SKILL_EXCERPT_JOINT, where the instruction the user typed lands (decision 0134).
 */
const PREVIEW_RAW = `COALESCE((SELECT CASE
      WHEN ${SCAFFOLDED} AND LENGTH(m.content) > 800
        THEN SUBSTR(${PREVIEW_CONTENT}, 1, 400) || char(${SKILL_EXCERPT_JOINT.codePointAt(0)}) || SUBSTR(${PREVIEW_CONTENT}, -400)
      WHEN ${SCAFFOLDED} THEN SUBSTR(${PREVIEW_CONTENT}, 1, 800)
      ELSE SUBSTR(${PREVIEW_CONTENT}, 1, 63) END
    FROM api_session_messages m
    WHERE m.profile = s.profile AND m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
    ORDER BY m.timestamp, m.id LIMIT 1), '')`;
/** _sql_session_last_active: the freshest of the activity heartbeat and the newest message, else started_at. */
const LAST_ACTIVE = `COALESCE((SELECT MAX(v) FROM (SELECT s.last_activity_at AS v UNION ALL
    SELECT (SELECT MAX(a.timestamp) FROM api_session_messages a WHERE a.profile = s.profile AND a.session_id = s.id))),
    s.started_at)`;
/** The pinned back-fill's recency: newest message, else started_at (its own expression in Hermes). */
const LAST_MESSAGE = `COALESCE((SELECT MAX(a.timestamp) FROM api_session_messages a WHERE a.profile = s.profile AND a.session_id = s.id),
    s.started_at)`;
/** _LISTABLE_CHILD_SQL and the delegate filter: roots and /branch children only. */
const LISTABLE = `(s.parent_session_id IS NULL
    OR json_extract(COALESCE(s.model_config, '{}'), '$._branched_from') IS NOT NULL
    OR EXISTS (SELECT 1 FROM api_sessions p WHERE p.profile = s.profile AND p.id = s.parent_session_id
               AND p.end_reason = 'branched' AND s.started_at >= p.ended_at))
  AND json_extract(COALESCE(s.model_config, '{}'), '$._delegate_from') IS NULL`;

const like = (needle: string): string => `%${needle.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_')}%`;

/** The list filters (without the search): list_sessions_rich's WHERE at the pin. */
function baseWhere(q: ListQuery): { sql: string; params: unknown[] } {
  const clauses = ['s.profile = ?'];
  const params: unknown[] = [q.profile];
  if (!q.includeChildren) clauses.push(LISTABLE);
  if (q.source !== null) {
    clauses.push('s.source IN (?)');
    params.push(q.source);
  }
  clauses.push('s.archived = 0');
  if (!q.includeHidden) clauses.push('s.hidden = 0');
  return { sql: clauses.join(' AND '), params };
}

/** search_query: a case-insensitive substring of the title or the id, or of the title without - _ . and spaces. */
function searchWhere(search: string): { sql: string; params: unknown[] } {
  const needle = search.trim().toLowerCase();
  // Python's re.sub(r"[\W_]+", "", needle): only letters and digits stay.
  const compact = needle.replace(/[^\p{L}\p{N}]+/gu, '');
  let sql = `(LOWER(COALESCE(s.title, '')) LIKE ? ESCAPE '\\' OR LOWER(s.id) LIKE ? ESCAPE '\\'`;
  const params: unknown[] = [like(needle), like(needle)];
  if (compact) {
    sql += ` OR REPLACE(REPLACE(REPLACE(REPLACE(LOWER(COALESCE(s.title, '')), '-', ''), '_', ''), '.', ''), ' ', '') LIKE ? ESCAPE '\\'`;
    params.push(like(compact));
  }
  return { sql: `${sql})`, params };
}

class Ops implements SessionOps {
  readonly #db: Db;
  readonly #stmts = new Map<string, Database.Statement<unknown[]>>();

  constructor(db: Db) {
    this.#db = db;
  }

  #stmt(sql: string): Database.Statement<unknown[]> {
    let s = this.#stmts.get(sql);
    if (!s) this.#stmts.set(sql, (s = this.#db.prepare<unknown[]>(sql)));
    return s;
  }

  get(profile: string, id: string): SessionRow | undefined {
    return this.#stmt('SELECT * FROM api_sessions WHERE profile = ? AND id = ?').get(profile, id) as SessionRow | undefined;
  }

  byTitle(profile: string, title: string): SessionRow | undefined {
    return this.#stmt('SELECT * FROM api_sessions WHERE profile = ? AND title = ?').get(profile, title) as SessionRow | undefined;
  }

  titleHolder(profile: string, title: string, id: string): string | undefined {
    const row = this.#stmt('SELECT id FROM api_sessions WHERE profile = ? AND title = ? AND id != ?').get(profile, title, id) as
      | { id: string }
      | undefined;
    return row?.id;
  }

  /** Inserts a new session row; `onConflict` is what an existing one with its key gets instead of an error. */
  #insert(row: NewSession, onConflict = ''): void {
    this.#stmt(
      `INSERT INTO api_sessions (profile, id, source, model, model_config, system_prompt, started_at, parent_session_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)${onConflict}`,
    ).run(row.profile, row.id, row.source, row.model, row.model_config, row.system_prompt, row.started_at, row.parent_session_id ?? null);
  }

  create(row: NewSession, title: string | null): CreateOutcome {
    if (this.get(row.profile, row.id)) return { kind: 'exists' };
    this.#insert(row);
    if (title !== null) {
      const holder = this.titleHolder(row.profile, title, row.id);
      if (holder !== undefined) {
        this.#stmt('DELETE FROM api_sessions WHERE profile = ? AND id = ?').run(row.profile, row.id);
        return { kind: 'title-taken', holder };
      }
      this.update(row.profile, row.id, { title });
    }
    return { kind: 'created', row: this.get(row.profile, row.id)! };
  }

  ensure(row: NewSession): void {
    // create_session's upsert: an existing row keeps what it has, and a column it lacks takes the agent's value —
    // of the columns the emulator's agent writes, only `model` (decision 0078).
    this.#insert(row, ' ON CONFLICT (profile, id) DO UPDATE SET model = COALESCE(api_sessions.model, excluded.model)');
  }

  update(profile: string, id: string, changes: Partial<Omit<SessionRow, 'profile' | 'id'>>): void {
    const keys = Object.keys(changes).filter((k) => UPDATABLE.has(k));
    if (keys.length === 0) return;
    this.#stmt(`UPDATE api_sessions SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE profile = ? AND id = ?`).run(
      ...keys.map((k) => (changes as Record<string, unknown>)[k]),
      profile,
      id,
    );
  }

  end(profile: string, id: string, reason: string, at: number): boolean {
    return this.#stmt('UPDATE api_sessions SET ended_at = ?, end_reason = ? WHERE profile = ? AND id = ? AND ended_at IS NULL').run(
      at,
      reason,
      profile,
      id,
    ).changes > 0;
  }

  /**
   * The profile's last message id: AUTOINCREMENT's rule, per profile (the largest id the profile ever handed out, or
   * the largest it holds if that is more; 0 for a profile that never had a message).
   */
  #lastId(profile: string): number {
    const row = this.#stmt(
      `SELECT MAX(COALESCE((SELECT seq FROM api_session_message_ids WHERE profile = ?), 0),
                  COALESCE((SELECT MAX(id) FROM api_session_messages WHERE profile = ?), 0)) AS last`,
    ).get(profile, profile) as { last: number };
    return row.last;
  }

  append(profile: string, sessionId: string, messages: readonly NewMessage[], usage: UsageDelta | null): void {
    // messages.session_id references sessions(id) and SessionDB's connection enforces it: a session deleted while its
    // turn ran takes none of the turn's later rows (the agent made its row once, at the start; its flush fails).
    if (!this.#stmt('SELECT 1 FROM api_sessions WHERE profile = ? AND id = ?').get(profile, sessionId)) return;
    const insert = this.#stmt(
      `INSERT INTO api_session_messages (id, profile, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
         token_count, finish_reason, reasoning, reasoning_content, display_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let id = this.#lastId(profile);
    let calls = 0;
    for (const m of messages) {
      insert.run(++id, profile, sessionId, m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.timestamp, m.token_count,
        m.finish_reason, m.reasoning, m.reasoning_content, m.display_kind);
      if (m.tool_calls) calls += (JSON.parse(m.tool_calls) as unknown[]).length;
    }
    if (messages.length > 0) this.#setLastId(profile, id);
    this.#stmt('UPDATE api_sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ? WHERE profile = ? AND id = ?')
      .run(messages.length, calls, profile, sessionId);
    if (usage) {
      this.#stmt(
        `UPDATE api_sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, reasoning_tokens = reasoning_tokens + ?,
           api_call_count = api_call_count + ?, estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + ?
         WHERE profile = ? AND id = ?`,
      ).run(usage.input, usage.output, usage.reasoning, usage.apiCalls, usage.cost, profile, sessionId);
    }
  }

  replaceMessages(profile: string, sessionId: string, messages: readonly NewMessage[], toolCalls: number): void {
    this.#stmt('DELETE FROM api_session_messages WHERE profile = ? AND session_id = ?').run(profile, sessionId);
    this.#stmt('UPDATE api_sessions SET message_count = 0, tool_call_count = 0 WHERE profile = ? AND id = ?').run(profile, sessionId);
    const insert = this.#stmt(
      `INSERT INTO api_session_messages (id, profile, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
         token_count, finish_reason, reasoning, reasoning_content, display_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let id = this.#lastId(profile);
    for (const m of messages) {
      insert.run(++id, profile, sessionId, m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.timestamp, m.token_count,
        m.finish_reason, m.reasoning, m.reasoning_content, m.display_kind);
    }
    if (messages.length > 0) this.#setLastId(profile, id);
    this.#stmt('UPDATE api_sessions SET message_count = ?, tool_call_count = ? WHERE profile = ? AND id = ?')
      .run(messages.length, toolCalls, profile, sessionId);
  }

  lineageTitles(profile: string, base: string, pattern: string): string[] {
    return this.#stmt("SELECT title FROM api_sessions WHERE profile = ? AND (title = ? OR title LIKE ? ESCAPE '\\')")
      .pluck().all(profile, base, pattern) as string[];
  }

  touch(profile: string, sessionId: string, at: number): void {
    this.#stmt('UPDATE api_sessions SET last_activity_at = ? WHERE profile = ? AND id = ? AND (last_activity_at IS NULL OR last_activity_at < ?)')
      .run(at, profile, sessionId, at);
  }

  list(q: ListQuery): ListedSessionRow[] {
    const base = baseWhere(q);
    const search = q.search === null ? null : searchWhere(q.search);
    const where = search ? `${base.sql} AND ${search.sql}` : base.sql;
    const page = this.#db
      .prepare(
        `SELECT s.*, ${PREVIEW_RAW} AS preview_raw, ${LAST_ACTIVE} AS last_active FROM api_sessions s WHERE ${where}
         ORDER BY last_active DESC, s.started_at DESC, s.id DESC LIMIT ? OFFSET ?`,
      )
      .all(...base.params, ...(search?.params ?? []), q.limit, q.offset) as ListedSessionRow[];
    // include_pinned: pins the window left out, under the same filters (not the search), newest first.
    const seen = new Set(page.map((r) => r.id));
    const pinned = this.#db
      .prepare(
        `SELECT s.*, ${PREVIEW_RAW} AS preview_raw, ${LAST_MESSAGE} AS last_active FROM api_sessions s
         WHERE ${base.sql} AND s.pinned = 1 ORDER BY s.started_at DESC`,
      )
      .all(...base.params) as ListedSessionRow[];
    for (const row of pinned) if (!seen.has(row.id)) page.push(row);
    return page;
  }

  messages(profile: string, sessionId: string, page: { limit: number; offset: number | bigint; latest: boolean }): MessageRow[] {
    if (!page.latest) {
      return this.#stmt('SELECT * FROM api_session_messages WHERE profile = ? AND session_id = ? ORDER BY id LIMIT ? OFFSET ?')
        .all(profile, sessionId, page.limit, page.offset) as MessageRow[];
    }
    const rows = this.#stmt('SELECT * FROM api_session_messages WHERE profile = ? AND session_id = ? ORDER BY id DESC LIMIT ? OFFSET ?')
      .all(profile, sessionId, page.limit, page.offset) as MessageRow[];
    return rows.reverse();
  }

  delete(profile: string, id: string): boolean {
    if (!this.get(profile, id)) return false;
    // delete_session: the delegate subagents the session spawned (walked recursively) go with it, messages and all;
    // any other child (a /branch) is orphaned (decision 0078).
    for (const child of this.#delegateChildren(profile, id)) {
      this.#stmt('DELETE FROM api_session_messages WHERE profile = ? AND session_id = ?').run(profile, child);
      this.#stmt('UPDATE api_sessions SET parent_session_id = NULL WHERE profile = ? AND parent_session_id = ?').run(profile, child);
      this.#stmt('DELETE FROM api_sessions WHERE profile = ? AND id = ?').run(profile, child);
    }
    this.#stmt('UPDATE api_sessions SET parent_session_id = NULL WHERE profile = ? AND parent_session_id = ?').run(profile, id);
    this.#stmt('DELETE FROM api_session_messages WHERE profile = ? AND session_id = ?').run(profile, id);
    this.#stmt('DELETE FROM api_sessions WHERE profile = ? AND id = ?').run(profile, id);
    return true;
  }

  /**
   * _collect_delegate_child_ids: rows whose `_delegate_from` marker names a session of the frontier, or whose parent is
   * one and that carry any marker, walked until nothing new; never the seed itself.
   */
  #delegateChildren(profile: string, id: string): string[] {
    const found = new Set([id]);
    const children: string[] = [];
    const next = this.#stmt(
      `SELECT id FROM api_sessions WHERE profile = ? AND (json_extract(COALESCE(model_config, '{}'), '$._delegate_from') = ?
         OR (parent_session_id = ? AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NOT NULL))`,
    );
    for (let frontier = [id]; frontier.length > 0;) {
      const reached: string[] = [];
      for (const parent of frontier) {
        for (const row of next.all(profile, parent, parent) as Array<{ id: string }>) {
          if (found.has(row.id)) continue;
          found.add(row.id);
          reached.push(row.id);
        }
      }
      children.push(...reached);
      frontier = reached;
    }
    return children;
  }

  #setLastId(profile: string, seq: number): void {
    this.#stmt('INSERT INTO api_session_message_ids (profile, seq) VALUES (?, ?) ON CONFLICT (profile) DO UPDATE SET seq = excluded.seq').run(profile, seq);
  }

  snapshot(): SessionsSnapshot {
    const seqs = this.#stmt('SELECT profile, seq FROM api_session_message_ids ORDER BY profile').all() as Array<{ profile: string; seq: number }>;
    return {
      sessions: this.#stmt('SELECT * FROM api_sessions ORDER BY rowid').all() as SessionRow[],
      messages: this.#stmt('SELECT * FROM api_session_messages ORDER BY rowid').all() as MessageRow[],
      messageSeqs: Object.fromEntries(seqs.map((r) => [r.profile, r.seq])),
    };
  }

  replaceAll(snapshot: SessionsSnapshot): void {
    this.#stmt('DELETE FROM api_session_messages').run();
    this.#stmt('DELETE FROM api_sessions').run();
    const session = this.#stmt(`INSERT INTO api_sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${SESSION_COLUMNS.map(() => '?').join(', ')})`);
    for (const row of snapshot.sessions) session.run(...SESSION_COLUMNS.map((c) => row[c]));
    const message = this.#stmt(`INSERT INTO api_session_messages (${MESSAGE_COLUMNS.join(', ')}) VALUES (${MESSAGE_COLUMNS.map(() => '?').join(', ')})`);
    for (const row of snapshot.messages) message.run(...MESSAGE_COLUMNS.map((c) => row[c]));
    // Each profile's counter outlives a DELETE, as AUTOINCREMENT's does: set them as the snapshot has them, so a reset
    // numbers every profile's messages from 1 as a new state.db does, and a restore continues where the checkpoint's
    // store would have.
    this.#stmt('DELETE FROM api_session_message_ids').run();
    const seqs = new Map(Object.entries(snapshot.messageSeqs));
    for (const m of snapshot.messages) seqs.set(m.profile, Math.max(seqs.get(m.profile) ?? 0, m.id));
    for (const [profile, seq] of seqs) if (seq > 0) this.#setLastId(profile, seq);
  }
}

/** The session store over its own connection (the run table keeps its own; neither holds a transaction across turns). */
export class SqliteSessionTable implements SessionTable {
  readonly #db: Db;
  readonly #ops: Ops;
  readonly #lock: LockWait;
  #closed = false;

  constructor(db: Db, lock: LockWait) {
    this.#db = db;
    this.#ops = new Ops(db);
    this.#lock = lock;
  }

  readonly opened = true;

  #run<T>(what: string, fn: (ops: SessionOps) => T, mode: 'deferred' | 'immediate'): T {
    if (this.#closed) throw new StoreUnavailable('closed', 'The session store is closed.');
    return this.#db.transaction(() => fn(this.#ops))[mode]();
  }

  read<T>(what: string, fn: (ops: SessionOps) => T): Promise<T> {
    return whileBusy(this.#lock, what, () => this.#run(what, fn, 'deferred'));
  }

  write<T>(what: string, fn: (ops: SessionOps) => T): Promise<T> {
    return whileBusy(this.#lock, what, () => this.#run(what, fn, 'immediate'));
  }

  writeNow<T>(what: string, fn: (ops: SessionOps) => T): T {
    return orUnavailable(what, () => this.#run(what, fn, 'immediate'));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#db.open) this.#db.close();
  }
}

/**
 * Opens a namespace's session store: on `path` (the default namespace's --db file, beside its run rows) or in memory
 * (kept for the emulator's life, across emulated restarts: Hermes's state.db outlives its gateway).
 */
export function openSessionTable(path: string, lock: LockWait): SessionTable {
  return new SqliteSessionTable(openEmulatorStore(path), lock);
}

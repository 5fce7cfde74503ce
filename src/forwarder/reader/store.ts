// Every query the forwarder runs against a Hermes state.db, on one read-only connection: store facts and identity,
// the cheap per-session fingerprint (spec forwarding §6.3 item 22), and the full rows of changed sessions.
import { HermeticError } from '../../shared/errors.js';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Db } from '../../shared/sqlite.js';
import { anyReplacement, CALLS_MARK, DELEGATION_TEXT_COLUMNS, EDITED_COLUMNS, EPOCH_MAX, EPOCH_MIN, identityKey, INVALID_UTF8, MESSAGE_TEXT_COLUMNS, SESSION_EXTRA_COLUMNS, SESSION_TEXT_COLUMNS, usageMark, usageMarkSql, validEpoch, type RowsCarry } from '../normalize/index.js';
import { USAGE_EVENTS_TABLE } from '../../state-db/schema/usage-events.js';
import { BUSY_TIMEOUT_MS, LOCK_SLICE_MS, retrying } from './connection.js';
import { DELEGATION_MARK_COLUMNS, DELEGATION_READ_COLUMNS, introspect, MESSAGE_READ_COLUMNS, MODEL_USAGE_COLUMNS, selectList, SESSION_COLUMNS } from './columns.js';
import { quoteName } from '../../shared/sql-name.js';

export type Row = Record<string, unknown>;

export interface StoreFacts {
  schemaVersion: number | null;
  journalMode: string;
  /** `state_meta.db_file_generation`, when the store has one. */
  generation: string | null;
  /** dev:ino of the file, schema version and generation: a change means the store was replaced. */
  identity: string;
  maxMessageId: number;
}

/** Session columns whose change means the session must be read again (and those kept in its attributes). */
const FINGERPRINT = [...new Set([
  'source', 'model', 'parent_session_id', 'started_at', 'ended_at', 'end_reason', 'message_count', 'tool_call_count',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count',
  'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'billing_provider', 'title',
  'last_activity_at', 'rewind_count', 'cwd', 'handoff_platform', 'system_prompt_hash',
  'billing_mode', 'cost_source', 'git_branch', 'git_repo_root', ...SESSION_EXTRA_COLUMNS,
])];

/**
 * `billing_base_url` may carry a key (`?api_key=…`, `user:pass@`), and the fingerprint is stored in the dataset: it
 * joins the fingerprint as a digest, never as itself (spec forwarding §6.1 item 12). A store has a handful of URLs.
 */
function urlDigest(url: unknown, cache: Map<unknown, string>): string {
  let d = cache.get(url);
  if (d === undefined) {
    d = url === null || url === undefined ? 'NULL' : createHash('sha256').update(`${typeof url}:${String(url)}`).digest('base64url').slice(0, 16);
    cache.set(url, d);
  }
  return d;
}

export interface SessionMark {
  id: string;
  /** Everything that decides whether the session changed, except its newest message id (kept by the cursor). */
  fingerprint: string;
  /** Last activity Hermes recorded on the session row (for windows); messages are checked when projecting. */
  activity: number;
  /** When the session started (for windows), or its last activity when `started_at` is not a plausible time. */
  started: number;
  /** The lineage parent (a child's lineage kind and scopes depend on its ancestors' rows). */
  parent: string | null;
  /**
   * The id as an SQL literal (`x'…'`, or `NULL`) when it is not valid UTF-8 text — invalid bytes, a BLOB (even one whose
   * bytes spell a text id: that would be another session's) or no id at all: the id read as text is not the one
   * stored, so no row of the session can be found by it (plan.ts sets such a session aside and a pass says so).
   */
  undecodable?: string;
}

/**
 * A row from its column values in `columns` order: one object literal, generated once, so every row is built whole
 * with the same shape (better-sqlite3 setting the columns one by one costs twice as much: over a backfill's messages,
 * and over a session's ~60 columns once a session).
 */
const rowBuilder = (columns: readonly string[]) =>
  new Function('v', `return { ${columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ')} };`) as (values: unknown[]) => Row;
const asRow = rowBuilder(MESSAGE_READ_COLUMNS);
const asSessionRow = rowBuilder(SESSION_COLUMNS);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether bytes are valid UTF-8. */
function wellFormed(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The tables and key columns every Hermes store has had; what a store lacks of them, in words, or null. */
function shapeProblem(columns: Map<string, Set<string>>): string | null {
  const need: [string, string[]][] = [['sessions', ['id']], ['messages', ['id', 'session_id']]];
  for (const [table, keys] of need) {
    const have = columns.get(table);
    if (!have) return `it has no ${table} table`;
    const lacking = keys.filter((k) => !have.has(k));
    if (lacking.length > 0) return `its ${table} table has no ${lacking.join(' or ')} column`;
  }
  return null;
}

/** The columns of an ancestor that lineage and scopes read (projector/lineage.ts, scope.ts). */
const PARENT_COLUMNS = ['id', 'parent_session_id', 'end_reason', 'source', 'cwd', 'handoff_platform', 'model_config'];

export class StoreReader {
  readonly db: Db;
  readonly columns: Map<string, Set<string>>;
  readonly path: string;
  #within: ReturnType<Db['prepare']> | null = null;
  #edited: ReturnType<Db['prepare']> | null = null;
  #prefix: { rows: ReturnType<Db['prepare']>; inactive: ReturnType<Db['prepare']> | null } | null = null;
  #same: ReturnType<Db['prepare']> | null = null;
  readonly #bytes = new Map<string, ReturnType<Db['prepare']>>();
  #usage: ReturnType<Db['prepare']> | null = null;
  #session: ReturnType<Db['prepare']> | null = null;
  #parent: ReturnType<Db['prepare']> | null = null;
  #begin: { run(): unknown } | null = null;
  #commit: { run(): unknown } | null = null;
  #moment: { get(): unknown } | null = null;
  #waitShort: { run(): unknown } | null = null;
  #waitLong: { run(): unknown } | null = null;
  #daily: ReturnType<Db['prepare']> | null = null;
  #calls: ReturnType<Db['prepare']> | null = null;
  #callsIndexed: boolean | null = null;
  #callsBySession: Map<string, Row[]> | null = null;
  #prompt: ReturnType<Db['prepare']> | null = null;
  readonly #prompts = new Map<string, string | null>();

  /**
   * @param schemaCache columns per store path, reused while SQLite's schema cookie (`PRAGMA schema_version`, bumped
   * by every CREATE/ALTER) is the same: introspecting every table on every tick costs more than the tick's reads.
   */
  constructor(db: Db, path: string, schemaCache?: Map<string, { cookie: number; columns: Map<string, Set<string>> }>) {
    this.db = db;
    this.path = path;
    // 2 MiB of page cache, not better-sqlite3's 16: a pass reads each page about once, and a larger cache only grows
    // memory with the store (decision 0027).
    db.pragma('cache_size = -2048');
    const cookie = db.pragma('schema_version', { simple: true }) as number;
    const cached = schemaCache?.get(path);
    if (cached && cached.cookie === cookie) this.columns = cached.columns;
    else {
      this.columns = introspect(db);
      // Not Hermes's store at all (a table or key column it always has is missing): this store's error, not a bug.
      const missing = shapeProblem(this.columns);
      if (missing) throw new HermeticError('HERMETIC_READER_OPEN', `${path} is not shaped like a Hermes store: ${missing}.`);
      schemaCache?.set(path, { cookie, columns: this.columns });
    }
  }

  has(table: string, column?: string): boolean {
    const cols = this.columns.get(table);
    return cols !== undefined && (column === undefined || cols.has(column));
  }

  facts(): StoreFacts {
    const version = this.has('schema_version') ? (this.db.prepare('SELECT MAX(version) FROM schema_version').pluck().get() as number | null) : null;
    const generation = this.has('state_meta')
      ? ((this.db.prepare("SELECT value FROM state_meta WHERE key = 'db_file_generation'").pluck().get() as string | undefined) ?? null)
      : null;
    const journalMode = String(this.db.pragma('journal_mode', { simple: true }));
    const maxMessageId = this.has('messages') ? ((this.db.prepare('SELECT MAX(id) FROM messages').pluck().get() as number | null) ?? 0) : 0;
    let file = '?';
    try {
      const st = statSync(this.path);
      file = `${st.dev}:${st.ino}`;
    } catch { /* gone between open and stat: the next tick sees it */ }
    return { schemaVersion: version, journalMode, generation, identity: `${file}|v${version ?? '?'}|${generation ?? '-'}`, maxMessageId };
  }

  /** One mark per session: a scan of `sessions`, no message is read (usage-only changes: see usageStamp). */
  marks(): SessionMark[] {
    if (!this.has('sessions')) return [];
    const have = this.columns.get('sessions')!;
    const col = (c: string) => (have.has(c) ? `s.${quoteName(c)}` : 'NULL');
    // The fingerprint is built by SQLite, one string per row instead of 50 values to materialize and encode: a JSON
    // array keeps NULL, text and numbers apart in one call (twice as fast as quote() per column joined by ||); a BLOB,
    // which json_array would read as JSONB, goes in quoted. Sorted here, not by ORDER BY: walking the TEXT primary
    // key's index costs a table lookup per row.
    const fp = `json_array(${FINGERPRINT.map((c) => (have.has(c) ? `CASE WHEN typeof(${col(c)}) = 'blob' THEN quote(${col(c)}) ELSE ${col(c)} END` : 'NULL')).join(', ')})`;
    // An id's bytes come along only when it has a character outside printable ASCII: rare, and the only ids that can
    // be invalid UTF-8. An id that is no text at all (a BLOB, NULL; the key allows both) comes with its type.
    const rows = (this.db.prepare(`SELECT s.id, ${fp}, ${col('started_at')}, ${col('ended_at')}, ${col('last_activity_at')}, ${col('parent_session_id')}, ${col('billing_base_url')},
        CASE WHEN s.id GLOB '*[^ -~]*' THEN CAST(s.id AS BLOB) END, CASE WHEN typeof(s.id) <> 'text' THEN typeof(s.id) END FROM sessions s`).raw().all() as unknown[][])
      .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
    const urls = new Map<unknown, string>();
    return rows.map((r) => {
      // A garbage time (5e+246) is no activity: it would put the session inside every window.
      const activity = Math.max(...[r[2], r[3], r[4]].map((v) => (validEpoch(v) ? v : 0)));
      const fingerprint = `${String(r[1])}|${urlDigest(r[6], urls)}`;
      const started = validEpoch(r[2]) ? Math.min(r[2], activity) : activity;
      const mark: SessionMark = { id: String(r[0]), fingerprint, activity, started, parent: typeof r[5] === 'string' && r[5] !== '' ? r[5] : null };
      const bytes = r[7];
      if (r[8] === 'null') mark.undecodable = 'NULL';
      else if (r[8] === 'blob' || (bytes instanceof Uint8Array && !Buffer.from(mark.id, 'utf8').equals(bytes))) mark.undecodable = `x'${Buffer.from((r[8] === 'blob' ? r[0] : bytes) as Uint8Array).toString('hex')}'`;
      return mark;
    });
  }

  /**
   * A stamp of all of `session_model_usage` (rows, the sums of calls, tokens and costs, newest `last_seen`): auxiliary usage changes only
   * that table, never the session row. Null when the store has no such table.
   */
  usageStamp(): { stamp: string; lastSeen: number } | null {
    if (!this.has('session_model_usage')) return null;
    const r = this.db.prepare(`SELECT COUNT(*), ${this.#usageSums()}, MAX(last_seen) FROM session_model_usage`).raw().get() as (number | null)[];
    const last = r[r.length - 1];
    return { stamp: r.join('/') + this.#callsMark(), lastSeen: typeof last === 'number' ? last : 0 };
  }

  /** Every session's usage mark (normalize/usage-mark.ts), read when the store-wide stamp moved. */
  usageMarks(): Map<string, string> {
    if (!this.has('session_model_usage')) return new Map();
    const rows = this.db.prepare(`SELECT session_id, COUNT(*), ${this.#usageSums()}, MAX(last_seen) FROM session_model_usage GROUP BY session_id`).raw().all() as unknown[][];
    const calls = this.#callsMark();
    return new Map(rows.flatMap((r) => (typeof r[0] === 'string' ? [[r[0], usageMark(r[1] as number, r.slice(2, -1) as number[], r[r.length - 1] as number | null) + calls] as const] : [])));
  }

  /** CALLS_MARK where the store has newer Hermes's per-call table (as the projector adds it), else nothing. */
  #callsMark(): string {
    return this.#hasCalls() ? CALLS_MARK : '';
  }

  #hasCalls(): boolean {
    return this.has(USAGE_EVENTS_TABLE, 'session_id') && this.has(USAGE_EVENTS_TABLE, 'recorded_at');
  }

  #usageSums(): string {
    return usageMarkSql((c) => this.has('session_model_usage', c));
  }

  /**
   * A stamp of all of `async_delegations` (decision 0054): per state and delivery state, the rows and the sums of
   * their times, attempts and JSON lengths. Any transition Hermes makes moves a count; a claim, a completion or a
   * delivery moves a sum; a prune moves a count. One scan of a small table. Null when the store has no such table.
   */
  delegationStamp(): string | null {
    if (!this.has('async_delegations')) return null;
    const col = (c: string) => (this.has('async_delegations', c) ? quoteName(c) : 'NULL');
    const sums = ['updated_at', 'dispatched_at', 'completed_at', 'delivered_at', 'delivery_attempts'].map((c) => `TOTAL(${col(c)})`);
    const lengths = ['task_json', 'event_json', 'result_json'].map((c) => `TOTAL(length(${col(c)}))`);
    const rows = this.db.prepare(`SELECT quote(${col('state')}), quote(${col('delivery_state')}), COUNT(*), MAX(${col('updated_at')}), ${[...sums, ...lengths].join(', ')}
      FROM async_delegations GROUP BY 1, 2 ORDER BY 1, 2`).raw().all() as unknown[][];
    return rows.map((r) => r.join('/')).join(';');
  }

  /**
   * Each delegation's id and its values as one text (DELEGATION_MARK_COLUMNS quoted, the JSON documents by their
   * length): what pipeline/delegations.ts digests to find the rows that changed.
   */
  delegationValues(): Map<string, string> {
    if (!this.has('async_delegations')) return new Map();
    const have = this.columns.get('async_delegations')!;
    const value = (c: string) => {
      const n = quoteName(c);
      return !have.has(c) ? "'-'" : c.endsWith('_json') ? `typeof(${n}) || ifnull(length(${n}), '')` : `quote(${n})`;
    };
    const rows = this.db.prepare(`SELECT delegation_id, ${DELEGATION_MARK_COLUMNS.map(value).join(" || '|' || ")} FROM async_delegations`).raw().all() as [unknown, string | null][];
    return new Map(rows.map(([id, v]) => [String(id), v ?? '']));
  }

  /** The delegations with these ids, their forwarded columns (NULL where the store lacks one), text not valid UTF-8 marked. */
  delegations(ids: readonly string[]): Row[] {
    if (!this.has('async_delegations') || ids.length === 0) return [];
    const stmt = this.db.prepare(`SELECT ${selectList(this.columns.get('async_delegations'), DELEGATION_READ_COLUMNS)} FROM async_delegations WHERE delegation_id = ?`);
    return ids.flatMap((id) => {
      const row = stmt.get(id) as Row | undefined;
      return row ? [this.#utf8('async_delegations', 'delegation_id', row, DELEGATION_TEXT_COLUMNS)] : [];
    });
  }

  /**
   * The message ids this file has given: `sqlite_sequence`'s number for `messages` (Hermes's ids are AUTOINCREMENT, so
   * in one file it never goes below an id once given), or null when the store keeps none.
   */
  messageSequence(): number | null {
    if (!this.has('sqlite_sequence') || !this.has('messages')) return null;
    const seq = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'messages'").pluck().get();
    return typeof seq === 'number' ? seq : null;
  }

  /** The session and time of the message row with this id, as stored; undefined when there is none. */
  messageAt(id: number): { session_id: unknown; timestamp: unknown } | undefined {
    if (!this.has('messages')) return undefined;
    return this.db.prepare('SELECT session_id, timestamp FROM messages WHERE id = ?').get(id) as { session_id: unknown; timestamp: unknown } | undefined;
  }

  /** Sessions that have messages with ids above `afterId`, with their newest id. */
  newMessages(afterId: number): Map<string, number> {
    if (!this.has('messages')) return new Map();
    // NOT INDEXED: a range of the rowid itself; with an index SQLite would scan all of it to skip a sort.
    const rows = this.db.prepare('SELECT session_id, MAX(id) FROM messages NOT INDEXED WHERE id > ? GROUP BY session_id').raw().all(afterId) as [unknown, number][];
    // A session id stored as a BLOB is another session than the text it spells (marks() sets it aside).
    return new Map(rows.flatMap(([s, m]) => (typeof s === 'string' ? [[s, m] as const] : [])));
  }

  /**
   * Sessions that have messages but no row in `sessions` (a store written with foreign keys off, or a row deleted
   * under a running chat before its next save recreates it), with how many messages each has; `afterId` limits the
   * look to the newer messages.
   */
  orphans(present: ReadonlySet<string>, afterId = 0): Map<string, number> {
    const out = new Map<string, number>();
    if (!this.has('messages')) return out;
    const rows = afterId > 0
      ? (this.db.prepare('SELECT session_id, COUNT(*) FROM messages NOT INDEXED WHERE id > ? GROUP BY session_id').raw().all(afterId) as [unknown, number][])
      : (this.db.prepare('SELECT session_id, COUNT(*) FROM messages GROUP BY session_id').raw().all() as [unknown, number][]);
    for (const [id, n] of rows) if (!present.has(String(id))) out.set(String(id), n);
    return out;
  }

  /**
   * How many sessions have messages but no row in `sessions`, and how many messages they have: what no pass forwards
   * until Hermes writes the rows (for `status`; ~150 ms over a million messages, by the session index).
   */
  orphanTotals(): { sessions: number; messages: number } {
    if (!this.has('messages') || !this.has('sessions')) return { sessions: 0, messages: 0 };
    const row = this.db.prepare(
      `SELECT COUNT(*) AS sessions, COALESCE(SUM(n), 0) AS messages
         FROM (SELECT session_id, COUNT(*) AS n FROM messages GROUP BY session_id) m
        WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id)`, // not NOT IN: one NULL id would make it NULL for all
    ).get() as { sessions: number; messages: number };
    return row;
  }

  /** Newest message time per session (for activity windows), only for the given ids. */
  lastMessageAt(ids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    if (!this.has('messages')) return out;
    const stmt = this.db.prepare(`SELECT MAX(timestamp) FROM messages WHERE session_id = ? AND timestamp >= ${EPOCH_MIN} AND timestamp < ${EPOCH_MAX}`).pluck();
    for (const id of ids) {
      const t = stmt.get(id);
      if (typeof t === 'number' && Number.isFinite(t)) out.set(id, t);
    }
    return out;
  }

  /**
   * Messages not read yet, per session: those above the given id (0: all the session's), how many, and when the first
   * of them was written (null when none has a plausible time). For `hermetic status`, not a pass.
   */
  pendingMessages(after: ReadonlyMap<string, number>): Map<string, { count: number; first: number | null }> {
    const out = new Map<string, { count: number; first: number | null }>();
    if (!this.has('messages')) return out;
    const stmt = this.db.prepare(`SELECT COUNT(*), MIN(CASE WHEN timestamp >= ${EPOCH_MIN} AND timestamp < ${EPOCH_MAX} THEN timestamp END) FROM messages WHERE session_id = ? AND id > ?`).raw();
    for (const [id, afterId] of after) {
      const [count, first] = stmt.get(id, afterId) as [number, number | null];
      if (count > 0) out.set(id, { count, first: typeof first === 'number' && Number.isFinite(first) ? first : null });
    }
    return out;
  }

  session(id: string): Row | undefined {
    this.#session ??= this.db.prepare(`SELECT ${selectList(this.columns.get('sessions'), SESSION_COLUMNS)} FROM sessions WHERE id = ?`).raw();
    const values = this.#session.get(id) as unknown[] | undefined;
    const row = values && asSessionRow(values);
    return row && this.#utf8('sessions', 'id', row, SESSION_TEXT_COLUMNS);
  }

  /** How many rows `sessions` holds (0 without the table). */
  sessionCount(): number {
    return this.has('sessions') ? (this.db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number) : 0;
  }

  /**
   * The session's message rows, every generation, with ids above `afterId` (-Infinity: from its first), in id order: at
   * most `chunk.rows`, and only as many as hold `chunk.chars` characters of values together, one at least (decision
   * 0171); `more`: rows are left after them; `chars`: the characters of those read. Read row by row, so a chunk of long
   * texts is cut before it is all in memory: a chunk of ten thousand rows of kilobyte texts held hundreds of megabytes.
   * What every read of a session's rows for the pipeline goes through (a whole session, what a tick appended, a chunk).
   */
  messagesWithin(id: string, afterId: number, chunk: { rows: number; chars: number }): { rows: Row[]; more: boolean; chars: number } {
    const { rows: limit, chars: budget } = chunk;
    // Rows as arrays, made objects here: better-sqlite3 builds an object key by key in C++, which costs twice as much.
    this.#within ??= this.db.prepare(`SELECT ${selectList(this.columns.get('messages'), MESSAGE_READ_COLUMNS)} FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`).raw();
    const raw: unknown[][] = [];
    let size = 0;
    let more = false;
    // One row past the limit tells whether rows are left. No other statement may run while this one iterates.
    for (const v of this.#within.iterate([id, afterId, limit + 1]) as Iterable<unknown[]>) {
      if (raw.length === limit) {
        more = true;
        break;
      }
      let s = 0;
      for (const x of v) s += typeof x === 'string' ? x.length : x instanceof Uint8Array ? x.length : 8;
      if (raw.length > 0 && size + s > budget) {
        more = true;
        break;
      }
      size += s;
      raw.push(v);
    }
    return { rows: raw.map((v) => this.#utf8('messages', 'id', asRow(v), MESSAGE_TEXT_COLUMNS)), more, chars: size };
  }

  /**
   * Whether the session's rows up to the carry's newest id are the rows the carry counted, in the same states: as
   * many rows, and the same rows with active 0 (their count, the sum of their ids, how many are compacted). A delete,
   * a rewind, compaction or a reactivation changes one of these (decision 0032). Index-only on the row count.
   */
  prefixUnchanged(id: string, carry: RowsCarry): boolean {
    const cols = this.columns.get('messages');
    this.#prefix ??= {
      rows: this.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ? AND id <= ?').pluck(),
      inactive: cols?.has('active')
        // `+id`: the (session_id, active) index then walks only the session's inactive rows; on (session_id, id) SQLite
        // would look up every row of a long session for its `active` (7 ms against 0.01 ms at 30,000 rows).
        ? this.db.prepare(`SELECT COUNT(*), TOTAL(id), ${cols.has('compacted') ? 'TOTAL(compacted = 1)' : '0'} FROM messages WHERE session_id = ? AND active = 0 AND +id <= ?`).raw()
        : null,
    };
    if ((this.#prefix.rows.get([id, carry.maxMessageId]) as number) !== carry.rows) return false;
    const [n, ids, compacted] = this.#prefix.inactive ? (this.#prefix.inactive.get([id, carry.maxMessageId]) as [number, number, number]) : [0, 0, 0];
    return n === carry.inactive + carry.compacted && ids === carry.inactiveIds && compacted === carry.compacted;
  }

  /**
   * The session's rows up to `upToId` with one of the columns Hermes edits in place set, each as its id and those
   * columns (EDITED_COLUMNS, NULL where the store lacks one), in id order: what pipeline/edits.ts digests to notice an edit no counter shows (decision 0053).
   * One row at a time: `api_content` may be as long as the row's content, on every row of a long session (decision
   * 0171's addendum). No other statement may run on the connection until the rows are consumed or let go.
   */
  editedRows(id: string, upToId: number): IterableIterator<unknown[]> {
    if (!this.#edited) {
      const have = this.columns.get('messages');
      const set = EDITED_COLUMNS.filter((c) => have?.has(c)).map((c) => `${quoteName(c)} IS NOT NULL`);
      // Only rows with one of them set: most rows have none, and the digest skips those (projector/tail.ts).
      this.#edited = this.db.prepare(`SELECT id, ${selectList(have, EDITED_COLUMNS)} FROM messages WHERE session_id = ? AND id <= ? AND (${set.length > 0 ? set.join(' OR ') : '0'}) ORDER BY id`).raw();
    }
    return this.#edited.iterate([id, upToId]) as IterableIterator<unknown[]>;
  }

  /**
   * Whether one of `rows` has the display identity of a row at or below `upToId` (a compaction clone of it, or the
   * same message again): then logical ids depend on rows before `rows`, and the session is read whole. A row without
   * a plausible numeric time counts as repeating (its identity cannot be looked up by time).
   */
  repeatsIdentity(id: string, upToId: number, rows: readonly Row[]): boolean {
    this.#same ??= this.db.prepare(`SELECT ${selectList(this.columns.get('messages'), ['role', 'content', 'timestamp', 'tool_call_id', 'tool_calls', 'tool_name'])} FROM messages WHERE session_id = ? AND timestamp = ? AND id <= ?`);
    for (const r of rows) {
      if (typeof r.timestamp !== 'number' || !Number.isFinite(r.timestamp)) return true;
      const key = identityKey(r);
      for (const other of this.#same.all([id, r.timestamp, upToId]) as Row[]) if (identityKey(other) === key) return true;
    }
    return false;
  }

  /**
   * The row, marked with the columns whose stored text is not valid UTF-8 (INVALID_UTF8): SQLite hands such text back
   * with U+FFFD for the bad bytes, so only a text holding U+FFFD is looked at again, as its bytes.
   */
  #utf8(table: string, key: string, row: Row, columns: readonly string[]): Row {
    if (!anyReplacement(row, columns)) return row;
    let bad: string[] | null = null;
    for (const c of columns) {
      const v = row[c];
      if (typeof v !== 'string' || !v.includes('\uFFFD')) continue;
      let stmt = this.#bytes.get(`${table}.${c}`);
      if (!stmt) this.#bytes.set(`${table}.${c}`, (stmt = this.db.prepare(`SELECT CAST(${quoteName(c)} AS BLOB) FROM ${quoteName(table)} WHERE ${quoteName(key)} = ?`).pluck()));
      const bytes = stmt.get(row[key] as string | number) as Uint8Array | null;
      if (bytes && !wellFormed(bytes)) (bad ??= []).push(c);
    }
    return bad ? { ...row, [INVALID_UTF8]: bad } : row;
  }

  modelUsage(id: string): Row[] {
    if (!this.has('session_model_usage')) return [];
    this.#usage ??= this.db.prepare(`SELECT ${selectList(this.columns.get('session_model_usage'), MODEL_USAGE_COLUMNS)} FROM session_model_usage WHERE session_id = ? ORDER BY model, billing_provider, billing_base_url, billing_mode${this.has('session_model_usage', 'task') ? ', task' : ''}`);
    return this.#usage.all(id) as Row[];
  }

  /** The session's per-day usage (post-v30 stores). */
  dailyUsage(id: string): Row[] {
    if (!this.has('session_daily_usage')) return [];
    this.#daily ??= this.db.prepare('SELECT * FROM session_daily_usage WHERE session_id = ? ORDER BY day');
    return this.#daily.all(id) as Row[];
  }

  /**
   * Newer Hermes's per-call usage (`session_model_usage_events`, decision 0112), summed per quarter hour, route and
   * task (null when the store has no such table). Each call's counters count as 0 when negative or not numbers, as
   * the ledger clamps them; a call without a plausible time is left out (its usage is placed as uncovered usage is).
   */
  usageCalls(id: string): Row[] | null {
    if (!this.#hasCalls()) return null;
    const have = this.columns.get(USAGE_EVENTS_TABLE)!;
    this.#callsIndexed ??= leadsAnIndex(this.db, USAGE_EVENTS_TABLE, 'session_id');
    if (this.#callsIndexed) {
      this.#calls ??= this.db.prepare(usageCallsSql(have, false));
      return this.#calls.all(id) as Row[];
    }
    // Without an index that finds a session's calls, each session's read would scan the whole table (a backfill of
    // 20,000 sessions, 20,000 scans): every session's sums are read in one scan, at the pass's first, and kept for it.
    // A session that gains calls later in the pass has its counters ahead of them: the ledger places the difference
    // by its other rules, and the next pass reads the calls again.
    if (!this.#callsBySession) {
      this.#callsBySession = new Map();
      for (const r of this.db.prepare(usageCallsSql(have, true)).all() as Row[]) {
        const sid = r.session_id as string;
        delete r.session_id;
        const list = this.#callsBySession.get(sid);
        if (list) list.push(r);
        else this.#callsBySession.set(sid, [r]);
      }
    }
    return this.#callsBySession.get(id) ?? [];
  }

  /** The session's system prompt: inline when present, else joined from `system_prompts` (v25+). */
  systemPrompt(session: Row): string | null {
    if (typeof session.system_prompt === 'string' && session.system_prompt !== '') return session.system_prompt;
    if (typeof session.system_prompt_hash === 'string' && this.has('system_prompts')) {
      // Few prompts, shared by many sessions: each is read once per pass.
      const hash = session.system_prompt_hash;
      if (!this.#prompts.has(hash)) {
        this.#prompt ??= this.db.prepare('SELECT prompt FROM system_prompts WHERE hash = ?').pluck();
        this.#prompts.set(hash, (this.#prompt.get(hash) as string | undefined) ?? null);
      }
      return this.#prompts.get(hash)!;
    }
    return null;
  }

  /**
   * Ancestors, nearest first, with the columns lineage and scopes read (PARENT_COLUMNS: a chain of compressions would
   * otherwise read every ancestor's whole row, prompt included, for each session); stops at a cycle or a missing parent.
   */
  parents(session: Row): Row[] {
    const out: Row[] = [];
    const seen = new Set([String(session.id)]);
    let next = session.parent_session_id;
    this.#parent ??= this.db.prepare(`SELECT ${selectList(this.columns.get('sessions'), PARENT_COLUMNS)} FROM sessions WHERE id = ?`);
    while (typeof next === 'string' && next !== '' && !seen.has(next) && out.length < 64) {
      seen.add(next);
      const p = this.#parent.get(next) as Row | undefined;
      if (!p) break;
      out.push(p);
      next = p.parent_session_id;
    }
    return out;
  }

  /**
   * Runs `fn` with the connection's busy timeout at LOCK_SLICE_MS, then BUSY_TIMEOUT_MS again: a read whose caller
   * waits for a writer's lock itself, in slices with a turn of the event loop between them (decision 0104).
   */
  shortWaits<T>(fn: () => T): T {
    // Prepared once: a pass reads each session this way.
    this.#waitShort ??= this.db.prepare(`PRAGMA busy_timeout = ${LOCK_SLICE_MS}`);
    this.#waitLong ??= this.db.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.#waitShort.run();
    try {
      return fn();
    } finally {
      this.#waitLong.run();
    }
  }

  /**
   * Runs `fn` inside one read transaction, so the rows it reads are one moment of the store; a lock or a transient
   * I/O error is tried again (reader/connection.ts), then said as the store's HERMETIC_READER_BUSY or _OPEN.
   */
  snapshot<T>(fn: () => T): T {
    // Prepared once: a pass takes a snapshot per session.
    this.#begin ??= this.db.prepare('BEGIN');
    this.#commit ??= this.db.prepare('COMMIT');
    return retrying(this.path, () => {
      this.#begin!.run();
      try {
        return fn();
      } finally {
        if (this.db.inTransaction) this.#commit!.run();
      }
    });
  }

  /**
   * Runs the generator `fn` inside one read transaction held across its steps (a long session read in chunks, each
   * written between two steps: pipeline/chunks.ts). Only the start of the transaction is tried again on a lock: once
   * it has its moment of the store, reads do not wait on writers, and a step may already have written.
   */
  *snapshotSteps<T>(fn: () => Generator<void, T>): Generator<void, T> {
    this.#begin ??= this.db.prepare('BEGIN');
    this.#commit ??= this.db.prepare('COMMIT');
    this.#moment ??= this.db.prepare('SELECT COUNT(*) FROM sqlite_master');
    retrying(this.path, () => {
      this.#begin!.run();
      try {
        this.#moment!.get();
      } catch (e) {
        this.#commit!.run();
        throw e;
      }
    });
    try {
      return yield* fn();
    } finally {
      if (this.db.inTransaction) this.#commit!.run();
    }
  }
}

/** Route fields and counters of a per-call usage row, as usageCalls reads them. */
const CALL_ROUTE = ['model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task'] as const;
const CALL_COUNTERS = ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'] as const;

/**
 * The per-quarter sums of one session's calls (`all`: of every session, each row led by its `session_id`, in one
 * scan), for the columns this store's table has.
 */
function usageCallsSql(have: Set<string>, all: boolean): string {
  const route = CALL_ROUTE.map((c) => {
    const n = quoteName(c);
    return have.has(c) ? `COALESCE(CAST(${n} AS TEXT), '') AS ${n}` : `'' AS ${n}`;
  });
  const sums = CALL_COUNTERS.map((c) => {
    const n = quoteName(c);
    return have.has(c) ? `TOTAL(CASE WHEN typeof(${n}) IN ('integer', 'real') AND ${n} > 0 THEN ${n} ELSE 0 END) AS ${n}` : `0 AS ${n}`;
  });
  const time = `typeof(recorded_at) IN ('integer', 'real') AND recorded_at BETWEEN ${EPOCH_MIN} AND ${EPOCH_MAX}`;
  const keys = [1, 2, 3, 4, 5, 6].map((i) => i + (all ? 1 : 0)).join(', ');
  return `SELECT ${all ? "CAST(session_id AS TEXT) AS session_id, " : ''}CAST(recorded_at / 900 AS INTEGER) AS quarter, ${route.join(', ')}, COUNT(*) AS calls, ${sums.join(', ')}
    FROM ${USAGE_EVENTS_TABLE} WHERE ${all ? 'session_id IS NOT NULL' : 'session_id = ?'} AND ${time}
    GROUP BY ${all ? '1, ' : ''}${keys} ORDER BY ${all ? '1, ' : ''}${keys}`;
}

/** Whether some index of `table` has `column` as its first column (so `WHERE column = ?` does not scan the table). */
function leadsAnIndex(db: Db, table: string, column: string): boolean {
  const indexes = db.prepare(`PRAGMA index_list(${quoteName(table)})`).all() as { name: string }[];
  return indexes.some((i) => (db.prepare(`PRAGMA index_info(${quoteName(i.name)})`).all() as { seqno: number; name: string | null }[]).some((c) => c.seqno === 0 && c.name === column));
}

// When each session's messages and tool calls were written, per quarter of an hour (decision 0031), so attributing a
// session's usage to time reads a few rows instead of its transcript. Rows the sink inserts are counted by the sink,
// one set-based statement per session and table (`InsertedActivity`: a per-row trigger cost a backfill ~0.5 s per
// 100k messages, decision 0040); rows deleted or changed by anyone (a rewrite, `forget`, a hand edit) are uncounted
// by triggers. The plain twin, `recomputeActivity`, counts them again from the tables; tests hold the two equal.
import type { Db } from '../../../shared/sqlite.js';
import { MESSAGES, PARTS, type DatasetTable } from '../../dataset/columns.js';
import { isPacked, longBytesAt, valueAt } from '../../dataset/packed.js';
import { SQLITE_JSON_DEPTH, toolErrorSql } from '../../dataset/tool-error.js';
import type { Rows } from '../sink.js';

// The rule is shared with the report's terminal commands (dataset/tool-error.ts); its JavaScript twin is here.
export { toolErrorSql };

const quarter = (t: string) => `CAST(${t} / 900 AS INTEGER)`;
/** Whether a part counts: a tool call, or a tool result that says it failed. */
const counted = (row: 'NEW' | 'OLD') => `(${row}.part_type = 'tool_call' OR (${row}.part_type = 'tool_result' AND ${toolErrorSql(`${row}.content_text`)}))`;

const addMessage = `INSERT INTO session_activity (store, session_id, quarter, messages, assistant)
  VALUES (NEW.store, NEW.session_id, ${quarter('NEW.created_at')}, 1, NEW.role = 'assistant')
  ON CONFLICT (store, session_id, quarter) DO UPDATE SET messages = messages + 1, assistant = assistant + excluded.assistant;`;
const dropMessage = `UPDATE session_activity SET messages = messages - 1, assistant = assistant - (OLD.role = 'assistant')
  WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')};
  DELETE FROM session_activity WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')} AND messages <= 0;`;
// The delete and update triggers run only for parts that count (their WHEN): inside, a part is a call or a failure.
const addTool = `INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors)
  VALUES (NEW.store, NEW.session_id, ${quarter('NEW.created_at')}, COALESCE(NEW.tool_name, ''), NEW.part_type = 'tool_call', NEW.part_type = 'tool_result')
  ON CONFLICT (store, session_id, quarter, tool_name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors;`;
const dropTool = `UPDATE tool_activity SET calls = calls - (OLD.part_type = 'tool_call'), errors = errors - (OLD.part_type = 'tool_result')
  WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')} AND tool_name = COALESCE(OLD.tool_name, '');
  DELETE FROM tool_activity WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')} AND tool_name = COALESCE(OLD.tool_name, '') AND calls <= 0 AND errors <= 0;`;

/** The delete triggers' names: `forgetStore` sets them aside once it has removed the store's counts itself. */
export const ACTIVITY_DELETE_TRIGGERS = ['messages_activity_delete', 'parts_activity_delete'] as const;

/** The triggers: deletes and updates (created by the dataset's migration to version 3). */
export const ACTIVITY_TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS ${ACTIVITY_DELETE_TRIGGERS[0]} AFTER DELETE ON messages BEGIN ${dropMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS messages_activity_update AFTER UPDATE OF store, session_id, created_at, role ON messages BEGIN ${dropMessage} ${addMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS ${ACTIVITY_DELETE_TRIGGERS[1]} AFTER DELETE ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  // An update is two triggers: the old row uncounted (when it counted), the new one counted (when it counts).
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_old AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_new AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('NEW')} BEGIN ${addTool} END`,
];

/** The insert triggers versions 3 had; version 4 drops them (the sink counts what it inserts: InsertedActivity). */
export const DROPPED_INSERT_TRIGGERS = ['messages_activity_insert', 'parts_activity_insert'];

type Stmt = { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown };

/** The value in column `col` of row `i`, records or packed. */
function reader(rows: Rows, t: DatasetTable): (i: number, col: string) => unknown {
  if (isPacked(rows)) {
    const index = new Map(t.columns.map((c, k) => [c.name, k]));
    return (i, col) => valueAt(rows, i, index.get(col)!);
  }
  return (i, col) => rows[i]![col] ?? null;
}

const PART_TEXT = PARTS.columns.findIndex((c) => c.name === 'content_text');
const decoder = new TextDecoder();

/**
 * A tool result's text for toolErrorJs: a long one still in UTF-8 (packed, decision 0175) decoded only when it may say
 * it failed, else told apart as '' (no JSON object can be empty); read from the bytes exactly as mayBeError reads the
 * text, since every character it looks for is ASCII and UTF-8 never has those bytes inside a longer character.
 */
function resultText(rows: Rows, i: number, at: (i: number, col: string) => unknown): unknown {
  const bytes = isPacked(rows) ? longBytesAt(rows, i, PART_TEXT) : null;
  if (bytes === null) return at(i, 'content_text');
  let k = 0;
  while (bytes[k] === 32) k++;
  if (bytes[k] !== 123) return '';
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return ERROR_KEYS.some((key) => b.includes(key)) ? decoder.decode(bytes) : '';
}

/** SQLite's CAST(t / 900 AS INTEGER) for the times it can be told exactly here (a finite number of reasonable size). */
const quarterOf = (t: unknown): number | null => (typeof t === 'number' && Math.abs(t) < 1e15 ? Math.trunc(t / 900) : null);

/** The keys toolErrorSql reads, as they appear in JSON text. */
const ERROR_KEYS = ['"exit_code"', '"error"', '"success"', '"status"'];
/** Whether toolErrorSql can be true of `text`: it starts with `{` after spaces and names one of the four keys. */
function mayBeError(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  let i = 0;
  while (text.charCodeAt(i) === 32) i++;
  return text.charCodeAt(i) === 123 && ERROR_KEYS.some((key) => text.includes(key));
}

/**
 * Whether `text` has more than `limit` `{` and `[` (string contents counted too: an upper bound of the nesting). Each
 * bracket found by indexOf, a native scan: a character loop over a tool result of kilobytes cost ~30 times as much.
 */
export function bracketsOver(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1)) if (++n > limit) return true;
  }
  return false;
}

/**
 * toolErrorSql's verdict on `text` reached in JavaScript (about ten times cheaper than a statement per result), or
 * null when only SQLite can tell: text JSON.parse refuses, a `\u` escape (it could spell a key), one of the four keys
 * named twice (JSON.parse keeps the last, SQLite the first), or nesting SQLite may refuse. Where it answers, it
 * answers as SQLite does: activity.test.ts holds the two equal over generated documents.
 */
export function toolErrorJs(text: unknown): boolean | null {
  if (!mayBeError(text)) return false;
  if (text.includes('\\u') || bracketsOver(text, SQLITE_JSON_DEPTH)) return null;
  for (const key of ERROR_KEYS) {
    const at = text.indexOf(key);
    if (at >= 0 && text.indexOf(key, at + 1) >= 0) return null;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return null;
  const { exit_code: code, error, success, status } = doc as Record<string, unknown>;
  if (typeof code === 'number' && code !== 0) return true;
  if (error !== undefined && error !== null && error !== false) {
    // SQLite's `->>` gives an object or array as its minified JSON: an empty one reads '{}' or '[]', as do those strings.
    if (typeof error === 'string') {
      if (error !== '' && error !== '{}' && error !== '[]') return true;
    } else if (typeof error === 'object') {
      if (Array.isArray(error) ? error.length > 0 : Object.keys(error).length > 0) return true;
    } else return true;
  }
  return success === false || status === 'error' || status === 'failed';
}

/**
 * Counts the rows the sink has just inserted into `messages` and `parts` (call it after they are in, in the same
 * transaction), added to what is there. Counted from the rows in hand — a quarter and a role per message, a tool
 * name per tool part; SQLite judges only the results that may say they failed (toolErrorSql, the triggers' own
 * test, in JavaScript where it can tell: toolErrorJs) — not read back: reading back a session's rows cost about as
 * much as the triggers did. A row whose values are not plain (a time that is not a number, a name that is not text)
 * sends its table back to SQL: the session's rows counted there (a replacement), or only the new ones (by seq and
 * part id).
 */
export class InsertedActivity {
  readonly #put: { message: Stmt; tool: Stmt };
  readonly #failed: Stmt;
  readonly #sql: { messages: { all: Stmt; some: Stmt }; parts: { all: Stmt; some: Stmt; drop: Stmt } };

  constructor(db: Db) {
    this.#put = {
      message: db.prepare(`INSERT INTO session_activity (store, session_id, quarter, messages, assistant) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (store, session_id, quarter) DO UPDATE SET messages = messages + excluded.messages, assistant = assistant + excluded.assistant`),
      tool: db.prepare(`INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (store, session_id, quarter, tool_name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`),
    };
    this.#failed = db.prepare(`SELECT ${toolErrorSql('@text')}`).pluck();
    const e = toolErrorSql('content_text');
    const messages = (only: string) => db.prepare(`INSERT INTO session_activity (store, session_id, quarter, messages, assistant)
      SELECT store, session_id, ${quarter('created_at')}, COUNT(*), SUM(role = 'assistant') FROM messages
      WHERE store = ? AND session_id = ?${only} GROUP BY 3
      ON CONFLICT (store, session_id, quarter) DO UPDATE SET messages = messages + excluded.messages, assistant = assistant + excluded.assistant`);
    const parts = (only: string) => db.prepare(`INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors)
      SELECT store, session_id, ${quarter('created_at')}, COALESCE(tool_name, ''), SUM(part_type = 'tool_call'), SUM(part_type = 'tool_result') FROM parts
      WHERE store = ? AND session_id = ?${only} AND (part_type = 'tool_call' OR (part_type = 'tool_result' AND ${e})) GROUP BY 3, 4
      ON CONFLICT (store, session_id, quarter, tool_name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`);
    this.#sql = {
      messages: { all: messages(''), some: messages(' AND seq IN (SELECT value FROM json_each(?))') },
      parts: { all: parts(''), some: parts(' AND part_id IN (SELECT value FROM json_each(?))'), drop: db.prepare('DELETE FROM tool_activity WHERE store = ? AND session_id = ?') },
    };
  }

  /** The session's inserted messages counted; `whole`: they are all its messages (it was replaced). */
  messages(store: string, sessionId: string, rows: Rows, whole: boolean): void {
    const at = reader(rows, MESSAGES);
    const counts = new Map<number, [number, number]>();
    for (let i = 0; i < rows.length; i++) {
      const q = quarterOf(at(i, 'created_at'));
      const role = at(i, 'role');
      if (q === null || typeof role !== 'string') return this.#messagesInSql(store, sessionId, rows, whole);
      const c = counts.get(q);
      const assistant = role === 'assistant' ? 1 : 0;
      if (c) { c[0]++; c[1] += assistant; } else counts.set(q, [1, assistant]);
    }
    for (const [q, [n, assistant]] of counts) this.#put.message.run(store, sessionId, q, n, assistant);
  }

  /** The session's inserted tool calls and failed tool results counted; `whole`: they are all its parts. */
  parts(store: string, sessionId: string, rows: Rows, whole: boolean): void {
    const at = reader(rows, PARTS);
    const counts = new Map<string, [number, string, number, number]>();
    for (let i = 0; i < rows.length; i++) {
      const type = at(i, 'part_type');
      if (type !== 'tool_call' && type !== 'tool_result') {
        if (typeof type === 'string') continue;
        return this.#partsInSql(store, sessionId, rows, whole);
      }
      const call = type === 'tool_call';
      if (!call) {
        const text = resultText(rows, i, at);
        const verdict = toolErrorJs(text);
        if (verdict === null ? this.#failed.get({ text }) !== 1 : !verdict) continue;
      }
      const q = quarterOf(at(i, 'created_at'));
      const name = at(i, 'tool_name') ?? '';
      if (q === null || typeof name !== 'string') return this.#partsInSql(store, sessionId, rows, whole);
      const key = `${q}\u0000${name}`;
      const c = counts.get(key);
      if (c) { if (call) c[2]++; else c[3]++; } else counts.set(key, [q, name, call ? 1 : 0, call ? 0 : 1]);
    }
    for (const [q, name, calls, errors] of counts.values()) this.#put.tool.run(store, sessionId, q, name, calls, errors);
  }

  #messagesInSql(store: string, sessionId: string, rows: Rows, whole: boolean): void {
    if (whole) this.#sql.messages.all.run(store, sessionId);
    else this.#sql.messages.some.run(store, sessionId, JSON.stringify(columnOf(rows, MESSAGES, 'seq')));
  }

  #partsInSql(store: string, sessionId: string, rows: Rows, whole: boolean): void {
    const ids = columnOf(rows, PARTS, 'part_id');
    // An id with a lone surrogate would not survive JSON into SQLite as it was bound: the session is counted again.
    if (whole || ids.some((id) => typeof id === 'string' && !(id as string & { isWellFormed(): boolean }).isWellFormed())) {
      this.#sql.parts.drop.run(store, sessionId);
      this.#sql.parts.all.run(store, sessionId);
    } else this.#sql.parts.some.run(store, sessionId, JSON.stringify(ids));
  }
}

/** One column's values of the rows, records or packed. */
export function columnOf(rows: Rows, t: DatasetTable, name: string): unknown[] {
  const at = reader(rows, t);
  return Array.from({ length: rows.length }, (_, i) => at(i, name));
}

/**
 * Counts the activity again from `messages` and `parts` (one session, one store, or all), replacing what the
 * triggers kept: the migration fills the tables with it, and tests compare it with the triggers' counts.
 */
export function recomputeActivity(db: Db, scope: { store?: string; sessionId?: string } = {}): void {
  const where = [scope.store !== undefined ? 'store = @store' : null, scope.sessionId !== undefined ? 'session_id = @sessionId' : null].filter(Boolean);
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const params = { ...(scope.store !== undefined ? { store: scope.store } : {}), ...(scope.sessionId !== undefined ? { sessionId: scope.sessionId } : {}) };
  db.prepare(`DELETE FROM session_activity ${w}`).run(params);
  db.prepare(`DELETE FROM tool_activity ${w}`).run(params);
  db.prepare(`INSERT INTO session_activity (store, session_id, quarter, messages, assistant)
    SELECT store, session_id, ${quarter('created_at')}, COUNT(*), SUM(role = 'assistant') FROM messages ${w} GROUP BY 1, 2, 3`).run(params);
  const e = toolErrorSql('content_text');
  db.prepare(`INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors)
    SELECT store, session_id, ${quarter('created_at')}, COALESCE(tool_name, ''), SUM(part_type = 'tool_call'), SUM(part_type = 'tool_result' AND ${e})
    FROM parts ${w ? `${w} AND` : 'WHERE'} (part_type = 'tool_call' OR (part_type = 'tool_result' AND ${e})) GROUP BY 1, 2, 3, 4`).run(params);
}

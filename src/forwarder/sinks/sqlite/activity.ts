// When each session's messages and tool calls were written, per quarter of an hour (decision 0031), so attributing a
// session's usage to time reads a few rows instead of its transcript. Rows the sink inserts are counted by the sink,
// one set-based statement per session and table (`InsertedActivity`: a per-row trigger cost a backfill ~0.5 s per
// 100k messages, decision 0040); rows deleted or changed by anyone (a rewrite, `forget`, a hand edit) are uncounted
// by triggers. The plain twin, `recomputeActivity`, counts them again from the tables; tests hold the two equal.
import type { Db } from '../../../shared/sqlite.js';

/**
 * A tool result that says its call failed: a JSON object with a non-zero exit_code, an error, success false, or status
 * error/failed. Text that names none of those keys is not parsed at all, and the rest is parsed once (one
 * json_extract of the four paths): most results cost a few byte searches.
 */
export function toolErrorSql(text: string): string {
  const v = `json_extract(${text}, '$.exit_code', '$.error', '$.success', '$.status')`;
  // CASE, not AND: SQLite evaluates both sides of an AND in a value, and json_extract() throws on text that is not JSON.
  return `(CASE WHEN substr(ltrim(${text}), 1, 1) = '{' AND (instr(${text}, '"exit_code"') OR instr(${text}, '"error"') OR instr(${text}, '"success"') OR instr(${text}, '"status"')) AND json_valid(${text})
    THEN (SELECT (json_type(v, '$[0]') IN ('integer', 'real') AND v ->> '$[0]' <> 0)
      OR (json_type(v, '$[1]') NOT IN ('null', 'false') AND COALESCE(v ->> '$[1]', '') NOT IN ('', '{}', '[]'))
      OR json_type(v, '$[2]') = 'false' OR v ->> '$[3]' IN ('error', 'failed') FROM (SELECT ${v} AS v)) IS 1
    ELSE 0 END)`;
}

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

/** The triggers: deletes and updates (created by the dataset's migration to version 3). */
export const ACTIVITY_TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS messages_activity_delete AFTER DELETE ON messages BEGIN ${dropMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS messages_activity_update AFTER UPDATE OF store, session_id, created_at, role ON messages BEGIN ${dropMessage} ${addMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_delete AFTER DELETE ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  // An update is two triggers: the old row uncounted (when it counted), the new one counted (when it counts).
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_old AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_new AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('NEW')} BEGIN ${addTool} END`,
];

/** The insert triggers versions 3 had; version 4 drops them (the sink counts what it inserts: InsertedActivity). */
export const DROPPED_INSERT_TRIGGERS = ['messages_activity_insert', 'parts_activity_insert'];

type Run = { run(...params: unknown[]): unknown };

/**
 * Counts rows the sink has just inserted into `messages` and `parts`, added to what is there: a session's rows
 * (its first write, or a whole replacement), or only the rows with these seqs and part ids (a tick's new rows).
 * Call it after the rows are in, in the same transaction.
 */
export class InsertedActivity {
  readonly #messages: { all: Run; some: Run };
  readonly #parts: { all: Run; some: Run; drop: Run };

  constructor(db: Db) {
    const e = toolErrorSql('content_text');
    const messages = (only: string) => db.prepare(`INSERT INTO session_activity (store, session_id, quarter, messages, assistant)
      SELECT store, session_id, ${quarter('created_at')}, COUNT(*), SUM(role = 'assistant') FROM messages
      WHERE store = ? AND session_id = ?${only} GROUP BY 3
      ON CONFLICT (store, session_id, quarter) DO UPDATE SET messages = messages + excluded.messages, assistant = assistant + excluded.assistant`);
    const parts = (only: string) => db.prepare(`INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors)
      SELECT store, session_id, ${quarter('created_at')}, COALESCE(tool_name, ''), SUM(part_type = 'tool_call'), SUM(part_type = 'tool_result') FROM parts
      WHERE store = ? AND session_id = ?${only} AND (part_type = 'tool_call' OR (part_type = 'tool_result' AND ${e})) GROUP BY 3, 4
      ON CONFLICT (store, session_id, quarter, tool_name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors`);
    this.#messages = { all: messages(''), some: messages(' AND seq IN (SELECT value FROM json_each(?))') };
    this.#parts = { all: parts(''), some: parts(' AND part_id IN (SELECT value FROM json_each(?))'), drop: db.prepare('DELETE FROM tool_activity WHERE store = ? AND session_id = ?') };
  }

  /** The session's messages (all of them, or those with these seqs), counted. */
  messages(store: string, sessionId: string, seqs: readonly unknown[] | null): void {
    if (seqs === null) this.#messages.all.run(store, sessionId);
    else if (seqs.length > 0) this.#messages.some.run(store, sessionId, JSON.stringify(seqs));
  }

  /** The session's tool calls and failed results (all of them, or those among these part ids), counted. */
  parts(store: string, sessionId: string, partIds: readonly unknown[] | null): void {
    if (partIds === null) this.#parts.all.run(store, sessionId);
    else if (partIds.some((id) => typeof id === 'string' && !(id as string & { isWellFormed(): boolean }).isWellFormed())) {
      // An id with a lone surrogate would not survive JSON into SQLite as it was bound: count the session again.
      this.#parts.drop.run(store, sessionId);
      this.#parts.all.run(store, sessionId);
    } else if (partIds.length > 0) this.#parts.some.run(store, sessionId, JSON.stringify(partIds));
  }
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

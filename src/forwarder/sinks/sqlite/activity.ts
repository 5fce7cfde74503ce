// When each session's messages and tool calls were written, per quarter of an hour, kept by triggers on `messages`
// and `parts` (decision 0031): whatever writes those tables — a whole session replaced, or only its new rows — the
// counts follow, so attributing a session's usage to time reads a few rows instead of its transcript. The plain
// twin, `recomputeActivity`, counts them again from the tables; a test holds the two equal.
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
// The insert and delete triggers run only for parts that count (their WHEN): inside, a part is a call or a failure.
const addTool = `INSERT INTO tool_activity (store, session_id, quarter, tool_name, calls, errors)
  VALUES (NEW.store, NEW.session_id, ${quarter('NEW.created_at')}, COALESCE(NEW.tool_name, ''), NEW.part_type = 'tool_call', NEW.part_type = 'tool_result')
  ON CONFLICT (store, session_id, quarter, tool_name) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors;`;
const dropTool = `UPDATE tool_activity SET calls = calls - (OLD.part_type = 'tool_call'), errors = errors - (OLD.part_type = 'tool_result')
  WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')} AND tool_name = COALESCE(OLD.tool_name, '');
  DELETE FROM tool_activity WHERE store = OLD.store AND session_id = OLD.session_id AND quarter = ${quarter('OLD.created_at')} AND tool_name = COALESCE(OLD.tool_name, '') AND calls <= 0 AND errors <= 0;`;

/** The triggers (created by the dataset's migration to version 3). */
export const ACTIVITY_TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS messages_activity_insert AFTER INSERT ON messages BEGIN ${addMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS messages_activity_delete AFTER DELETE ON messages BEGIN ${dropMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS messages_activity_update AFTER UPDATE OF store, session_id, created_at, role ON messages BEGIN ${dropMessage} ${addMessage} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_insert AFTER INSERT ON parts WHEN ${counted('NEW')} BEGIN ${addTool} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_delete AFTER DELETE ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  // An update is two triggers: the old row uncounted (when it counted), the new one counted (when it counts).
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_old AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('OLD')} BEGIN ${dropTool} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_activity_update_new AFTER UPDATE OF store, session_id, created_at, part_type, tool_name, content_text ON parts WHEN ${counted('NEW')} BEGIN ${addTool} END`,
];

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

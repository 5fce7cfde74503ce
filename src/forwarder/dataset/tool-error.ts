// Whether a tool result says its call failed (decisions 0031, 0149), as SQL: the one rule the writer's activity counts
// (`tool_activity`, `tool_usage`: sinks/sqlite/activity.ts, with its JavaScript twin `toolErrorJs`) and the report's
// terminal commands (report/commands.ts) judge results by, so `--by command` fails the calls `--by tool` counts failed.

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

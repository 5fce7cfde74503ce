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

/** The fleet store's twin of toolErrorSql (decision 0152): a function of its schema, made by fleet schema version 10. */
export const TOOL_ERROR_FUNCTION = 'hermetic_tool_error';

/**
 * The fleet's stored verdict of each terminal result (`parts.failed`, fleet schema version 12, decision 0167):
 * `TOOL_ERROR_FUNCTION` of its text, kept by PostgreSQL as the row is written (a generated column), NULL on every other
 * part. A migration that makes the function again with another rule must store the column again in the same step.
 */
export const FAILED_COLUMN = 'failed';

/**
 * The fleet's index of the terminal tool's cells in byte order (fleet schema version 12, decision 0167), by which a
 * report by command finds each part's cell: named here, as FAILED_COLUMN is, for the sink that makes it and the report
 * that asks whether it is there.
 */
export const TERMINAL_CELLS_INDEX = 'tool_usage_terminal';

/**
 * SQL: whether the table `parts` (a regclass name, as SQL text) has `FAILED_COLUMN` as version 12 makes it, a column
 * PostgreSQL generates by `TOOL_ERROR_FUNCTION` of the text — not a column of that name made or altered by hand (a
 * plain boolean, another expression), whose values nothing keeps (decision 0170). Asked of the catalogue: any role.
 */
export function storedVerdictSql(parts: string): string {
  return `EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = to_regclass(${parts}) AND a.attname = '${FAILED_COLUMN}' AND NOT a.attisdropped AND a.attgenerated = 's'
      AND strpos(pg_get_expr(d.adbin, d.adrelid), '${TOOL_ERROR_FUNCTION}(content_text)') > 0)`;
}

/** The deepest nesting SQLite's JSON parser accepts: a document nested deeper is not JSON to it. */
export const SQLITE_JSON_DEPTH = 1000;

/**
 * `TOOL_ERROR_FUNCTION` in schema `schema` (quoted), PostgreSQL's reading of the rule toolErrorSql says in SQLite's:
 * the same text tested first (a `{` after spaces, one of the four keys named), then parsed as `json` (not `jsonb`: it
 * keeps a key named twice, and of such keys the first is read, as SQLite's json_extract reads it: looked for among
 * the object's pairs in order only when a key's name is in the text twice), then the first value of each key judged
 * as SQLite judges it: an exit code that is a number other than 0; an error that is not
 * null, false, empty text, `{}` or `[]` (as text or as an empty object or list); success false; status `error` or
 * `failed`. Text PostgreSQL cannot parse says nothing failed, as text SQLite cannot parse does; where the two parsers
 * differ, SQLite's reading is taken (fleet schema version 13, decision 0170): a `\u0000` or surrogate escape, which
 * SQLite reads and PostgreSQL will not decode, is read as another character; nesting past SQLite's 1,000 levels
 * (SQLITE_JSON_DEPTH) is not JSON. An exit code too small for a double (1e-400: 0 to SQLite) still differs. Held
 * equal to toolErrorSql over generated documents by `report/commands-fleet.test.ts`. `PARALLEL UNSAFE`: its
 * `EXCEPTION` block starts a subtransaction, which PostgreSQL refuses inside a parallel query (fleet schema version 11;
 * version 10 had it `PARALLEL SAFE`, and a parallel plan that called it failed; decision 0160).
 */
export function toolErrorFunctionSql(schema: string): string {
  return `CREATE OR REPLACE FUNCTION ${schema}.${TOOL_ERROR_FUNCTION}(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp AS $hermetic$
DECLARE
  doc json;
  code json;
  err json;
  ok json;
  st json;
BEGIN
  IF t IS NULL OR substr(ltrim(t), 1, 1) <> '{'
    OR (strpos(t, '"exit_code"') = 0 AND strpos(t, '"error"') = 0 AND strpos(t, '"success"') = 0 AND strpos(t, '"status"') = 0) THEN
    RETURN false;
  END IF;
  BEGIN
    -- A NUL or surrogate escape (binary output, Python's surrogateescape) SQLite reads and PostgreSQL refuses to
    -- decode: spelled as U+FFFD, six characters for six, which no key or value the rule compares can become.
    IF strpos(t, '\\u') > 0 THEN t := regexp_replace(t, '\\\\u(0000|[dD][89abcdefABCDEF][0-9a-fA-F]{2})', '\\\\ufffd', 'g'); END IF;
    doc := t::json;
    IF json_typeof(doc) <> 'object' THEN RETURN false; END IF;
    -- Nesting past SQLite's 1,000 levels: not JSON to SQLite, so nothing failed (asked only past 1,000 brackets).
    IF length(t) > ${SQLITE_JSON_DEPTH} AND length(t) - length(translate(t, '[{', '')) > ${SQLITE_JSON_DEPTH} AND EXISTS (
      WITH RECURSIVE w(v, d) AS (SELECT doc, 1 UNION ALL SELECT c.value, w.d + 1 FROM w CROSS JOIN LATERAL (
          SELECT e.value FROM json_each(CASE WHEN json_typeof(w.v) = 'object' THEN w.v END) e
          UNION ALL SELECT a.value FROM json_array_elements(CASE WHEN json_typeof(w.v) = 'array' THEN w.v END) a) c
        WHERE json_typeof(c.value) IN ('object', 'array') AND w.d <= ${SQLITE_JSON_DEPTH})
      SELECT 1 FROM w WHERE w.d > ${SQLITE_JSON_DEPTH}) THEN
      RETURN false;
    END IF;
    IF ${['exit_code', 'error', 'success', 'status'].map((k) => `strpos(substr(t, strpos(t, '"${k}"') + 1), '"${k}"') = 0`).join(' AND ')} THEN
      -- Each key's name is in the text at most once: the object has it at most once, and -> reads it.
      code := doc -> 'exit_code'; err := doc -> 'error'; ok := doc -> 'success'; st := doc -> 'status';
    ELSE
      SELECT (array_agg(e.value ORDER BY e.n) FILTER (WHERE e.key = 'exit_code'))[1], (array_agg(e.value ORDER BY e.n) FILTER (WHERE e.key = 'error'))[1],
        (array_agg(e.value ORDER BY e.n) FILTER (WHERE e.key = 'success'))[1], (array_agg(e.value ORDER BY e.n) FILTER (WHERE e.key = 'status'))[1]
        INTO code, err, ok, st FROM json_each(doc) WITH ORDINALITY AS e(key, value, n);
    END IF;
    RETURN COALESCE(json_typeof(code) = 'number' AND (code::text)::numeric <> 0, false)
      OR CASE json_typeof(err)
        WHEN 'string' THEN (err #>> '{}') NOT IN ('', '{}', '[]')
        WHEN 'number' THEN true
        WHEN 'boolean' THEN err::text = 'true'
        WHEN 'object' THEN EXISTS (SELECT 1 FROM json_each(err))
        WHEN 'array' THEN json_array_length(err) > 0
        ELSE false END
      OR COALESCE(json_typeof(ok) = 'boolean' AND ok::text = 'false', false)
      OR COALESCE(json_typeof(st) = 'string' AND (st #>> '{}') IN ('error', 'failed'), false);
  EXCEPTION WHEN others THEN
    RETURN false;
  END;
END $hermetic$`;
}

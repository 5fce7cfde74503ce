// The fleet's own `tool_calls` (fleet schema version 6, decision 0099): one row per call id of each machine's session,
// with its greatest tool name, its earliest call and its earliest result — the grouping the dashboard's slowest calls
// made of every tool part of the window's sessions (web/data/rows.ts `slowestSql`), kept by PostgreSQL itself from
// `parts` with statement triggers, so whatever writes parts (any forwarder version, a replay, a first copy's deletes,
// a hand edit) keeps it. Inserted parts are merged in (MIN and MAX take no value back, so merging twice is harmless);
// a deleted or changed part's sessions are counted again from `parts`. Nothing is shipped: the dataset's own table
// (decision 0069) stays the dataset's.
import { callIdSql } from '../sqlite/tool-calls.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export const FLEET_TOOL_CALLS = 'tool_calls';

/** A string literal of `s`. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * One row per call id of `from`'s tool parts (aliased `p`), grouped as `slowestSql` groups them. The key is the call
 * id's SHA-256, not the id: an id is any text a store holds, and one past a B-tree entry's size (about 2.7 kB) would
 * make every batch of its machine fail, where `parts` (which keys no call id) took it. Of a call id with two tool names
 * the greater by bytes (`COLLATE "C"`, here and in the merge), as each machine's dataset keeps it, whatever the
 * database's collation (decision 0130).
 */
export function groupedToolCallsSql(from: string): string {
  const id = callIdSql('p');
  return `SELECT p.machine_id, p.store, p.session_id, sha256(convert_to(${id}, 'UTF8')) AS call_key, ${id} AS call_id,
      MAX(CASE WHEN p.part_type = 'tool_call' THEN p.tool_name COLLATE "C" END) AS tool,
      MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
      MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered
    FROM ${from} WHERE p.part_type IN ('tool_call', 'tool_result') AND ${id} IS NOT NULL
    GROUP BY p.machine_id, p.store, p.session_id, ${id}`;
}

const COLUMNS = 'machine_id, store, session_id, call_key, call_id, tool, called, answered';

/** The sessions holding a tool part in transition table `rows`. */
const sessionsOf = (rows: string) => `SELECT DISTINCT machine_id, store, session_id FROM ${rows} WHERE part_type IN ('tool_call', 'tool_result')`;

/** The columns of a part the grouping reads (groupedToolCallsSql): a change to any other leaves `tool_calls` as it is. */
const READ = 'machine_id, store, session_id, part_type, tool_call_id, tool_result_for, tool_name, created_at';
const toolRows = (rows: string) => `SELECT ${READ} FROM ${rows} WHERE part_type IN ('tool_call', 'tool_result')`;
/**
 * The sessions an UPDATE changed what the grouping reads of (fleet schema version 10, decision 0152): the tool parts
 * before and after, compared as multisets of those columns. An update of the other columns (a terminal call's
 * `program` named again, a result's text) counts nothing again; PostgreSQL allows no column list on a trigger with
 * transition tables, so the trigger looks for itself.
 */
const changedSessions = `SELECT DISTINCT machine_id, store, session_id FROM ((${toolRows('old_parts')} EXCEPT ALL ${toolRows('new_parts')})
    UNION ALL (${toolRows('new_parts')} EXCEPT ALL ${toolRows('old_parts')})) d`;

/** The function the UPDATE trigger runs (replaced by fleet schema version 10 to count again only what changed). */
export const toolCallsChangedSql = (schema: string): string => fn(schema, 'tool_calls_changed', recount(schema, changedSessions));

/** A trigger function's body, skipped while the table is gone (dropped by hand; made again at the next open or copy). */
function fn(schema: string, name: string, body: string): string {
  const table = `${q(schema)}.${FLEET_TOOL_CALLS}`;
  return `CREATE OR REPLACE FUNCTION ${q(schema)}.${name}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $hermetic$
BEGIN
  IF to_regclass(${lit(table)}) IS NULL THEN RETURN NULL; END IF;
  ${body}
  RETURN NULL;
END $hermetic$`;
}

/** The sessions of `sessions` counted again from `parts`. */
function recount(schema: string, sessions: string): string {
  const [t, parts] = [`${q(schema)}.${FLEET_TOOL_CALLS}`, `${q(schema)}.parts`];
  return `DELETE FROM ${t} c USING (${sessions}) x WHERE c.machine_id = x.machine_id AND c.store = x.store AND c.session_id = x.session_id;
  INSERT INTO ${t} (${COLUMNS}) ${groupedToolCallsSql(`(${sessions}) x JOIN ${parts} p ON p.machine_id = x.machine_id AND p.store = x.store AND p.session_id = x.session_id`)};`;
}

/**
 * The table, its trigger functions and triggers (each statement safe to run again: a migration run twice, a `parts`
 * made again by a first copy), then the table filled from `parts` in one INSERT … SELECT. The functions run as their
 * owner (SECURITY DEFINER), so a role that may only write the shipped tables needs no right on `tool_calls`.
 */
export function toolCallsSchema(schema: string): string[] {
  const s = q(schema);
  const t = `${s}.${FLEET_TOOL_CALLS}`;
  const merge = `INSERT INTO ${t} AS c (${COLUMNS}) ${groupedToolCallsSql('added p')}
  ON CONFLICT (machine_id, store, session_id, call_key) DO UPDATE SET
    tool = CASE WHEN excluded.tool IS NULL THEN c.tool WHEN c.tool IS NULL OR excluded.tool COLLATE "C" > c.tool COLLATE "C" THEN excluded.tool ELSE c.tool END,
    called = CASE WHEN excluded.called IS NULL THEN c.called WHEN c.called IS NULL OR excluded.called < c.called THEN excluded.called ELSE c.called END,
    answered = CASE WHEN excluded.answered IS NULL THEN c.answered WHEN c.answered IS NULL OR excluded.answered < c.answered THEN excluded.answered ELSE c.answered END;`;
  const trigger = (name: string, event: string, referencing: string, fnName: string) => [
    `DROP TRIGGER IF EXISTS ${name} ON ${s}.parts`,
    `CREATE TRIGGER ${name} AFTER ${event} ON ${s}.parts ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${s}.${fnName}()`,
  ];
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
  machine_id text NOT NULL,
  store text NOT NULL,
  session_id text NOT NULL,
  call_key bytea NOT NULL,
  call_id text NOT NULL,
  tool text,
  called double precision,
  answered double precision,
  PRIMARY KEY (machine_id, store, session_id, call_key)
)`,
    fn(schema, 'tool_calls_added', merge),
    fn(schema, 'tool_calls_removed', recount(schema, sessionsOf('removed'))),
    toolCallsChangedSql(schema),
    fn(schema, 'tool_calls_emptied', `DELETE FROM ${t};`),
    ...trigger('parts_tool_calls_insert', 'INSERT', 'REFERENCING NEW TABLE AS added', 'tool_calls_added'),
    ...trigger('parts_tool_calls_delete', 'DELETE', 'REFERENCING OLD TABLE AS removed', 'tool_calls_removed'),
    ...trigger('parts_tool_calls_update', 'UPDATE', 'REFERENCING OLD TABLE AS old_parts NEW TABLE AS new_parts', 'tool_calls_changed'),
    ...trigger('parts_tool_calls_truncate', 'TRUNCATE', '', 'tool_calls_emptied'),
    // Made after the triggers: CREATE TRIGGER waits for the writers of `parts` under way and holds off new ones until
    // the commit, so the copy below misses no part and counts none twice.
    `DELETE FROM ${t}`,
    `INSERT INTO ${t} (${COLUMNS}) ${groupedToolCallsSql(`${s}.parts p`)}`,
    // A window's calls by their time (made after the copy, in one pass): the 30-day view reads its month's calls, not
    // the year's. Its key is a number, so every row the table takes fits in it.
    `CREATE INDEX IF NOT EXISTS tool_calls_called ON ${t} (called)`,
    // Its statistics now, not at autovacuum's next look: the first reads are planned with them.
    `ANALYZE ${t}`,
  ];
}

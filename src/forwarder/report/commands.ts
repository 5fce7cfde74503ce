// `--by command` (decisions 0149, 0152): the terminal tool's calls in a window, each under the program its command line
// runs (dataset/program.ts), with the results that say they failed and the time from call to result. The window's calls
// are gathered once, shaped as `tool_usage` is — a row per counted part with the keys of its cell — so the report
// groups, ranks, cuts and names them as it does tool calls, and its totals, medians and the rest of a --top read those
// rows instead of the transcripts again. Each call's program is stored on its part (`parts.program`, named by the
// writer); a dataset whose names are by other rules than this Hermetic's (or one from before they were stored, read
// without migrating it) is named here instead, by a function of this process — the plain twin. On the dataset the
// rows are a table of the connection's own (`temp.command_usage`); on the fleet store, whose report runs in a
// read-only transaction, a temporary table the read made before it turned read-only (`commandScratch`), or where the
// server would not make one (no TEMP privilege, a standby), the same statement as a common table expression of each
// statement that reads them. On the fleet a result's failure is the verdict PostgreSQL stored as the row was written
// (`parts.failed`, fleet schema version 12, decision 0167), or on a fleet without it, the rule run on its text here.
import type pg from 'pg';
import type { Db } from '../../shared/sqlite.js';
import { FAILED_COLUMN, storedVerdictSql, TERMINAL_CELLS_INDEX, TOOL_ERROR_FUNCTION, toolErrorSql } from '../dataset/tool-error.js';
import { NO_CALL, PROGRAM_RULES, programOfArgs, TERMINAL_TOOL } from '../dataset/program.js';
import { sessionKeysOn, type Dialect, type Params } from './dialect.js';
import { HermeticError } from '../../shared/errors.js';
import { fleetTable } from './fleet-table.js';

export { TERMINAL_TOOL };

/** The name the statements read the window's calls by: the connection's table on SQLite, a CTE on PostgreSQL. */
export const COMMAND_TABLE = 'command_usage';

/** The SQL function that names a call's program from its arguments (programOfArgs): the plain twin's, SQLite only. */
export const PROGRAM_FUNCTION = 'hermetic_command_program';

/** The figures of a row by command, as a report gives them. */
export interface CommandFigures {
  tool_calls: number;
  tool_errors: number;
  /** Calls whose time from call to result is known (decision 0149): the first call of its id, answered after it. */
  timed_calls: number;
  /** Their times added up, in seconds (to the millisecond). */
  seconds: number;
  /** The middle of their times (the mean of the two middle ones for an even count); null when none is known. */
  median_seconds: number | null;
}

/** The window's terminal calls all told: what the rows by command add up to (`sessions` distinct, the median over all). */
export type CommandTotals = CommandFigures & { sessions: number };

const registered = new WeakSet<Db>();

/** Makes `PROGRAM_FUNCTION` known to this connection (once; a function of this process, so never in a stored schema). */
export function registerCommandProgram(db: Db): void {
  if (registered.has(db)) return;
  db.function(PROGRAM_FUNCTION, { deterministic: true }, (args: unknown) => programOfArgs(args));
  registered.add(db);
}

/**
 * How a store's terminal calls are read (`planCommandSource`): the program stored or named here, whether the dataset
 * has the index of the terminal tool's parts (version 15), and where a call's times come from.
 */
export interface CommandSource {
  /** `stored`: `parts.program`; `named`: from `tool_args` by PROGRAM_FUNCTION (SQLite only). */
  program: 'stored' | 'named';
  /** SQLite: the partial index `parts_terminal` is there to read the terminal tool's parts by. */
  indexed: boolean;
  /**
   * SQLite: `parts` is a rowid table (dataset version 16, decision 0172), so a gathered result's text is read by its
   * rowid, one descent, not by its key through the key's index; false on a dataset not yet migrated.
   */
  rowids: boolean;
  /**
   * `dataset`: the dataset's `tool_calls` (decision 0069); `fleet`: the fleet's (decision 0099, by the call id's key);
   * `grouped`: the fleet's parts grouped by call id, for a role that may not read its `tool_calls`.
   */
  times: 'dataset' | 'fleet' | 'grouped';
  /**
   * PostgreSQL: the read made its own `pg_temp.command_usage` (`commandScratch`), so the calls are gathered once into
   * it; else each statement that reads them gathers them again as a common table expression.
   */
  scratch: boolean;
  /**
   * Whether a terminal result failed: `stored`, the fleet's `parts.failed` (fleet schema version 12, decision 0167),
   * kept by PostgreSQL as each part is written; `judged`, the rule run on the result's text here (SQLite's
   * `toolErrorSql`, the fleet's `hermetic_tool_error`: the plain twin, for a fleet a forwarder has not migrated yet).
   */
  verdict: 'stored' | 'judged';
  /**
   * PostgreSQL: the index of the terminal tool's cells in byte order is there (`tool_usage_terminal`, fleet schema
   * version 12), so a part's cell is looked up by keys compared as it compares them.
   */
  cellIndex: boolean;
}

/**
 * What the store offers `--by command`, asked once per report. The dataset: its program named by this Hermetic's
 * rules when `dataset_meta.program_rules` says so and the column is there, else named here. The fleet store: the
 * programs its machines named (fleet schema version 10; a store before it is refused, with what makes it ready), its
 * failure rule, and its `tool_calls` when this role may read it.
 */
export function* planCommandSource(dialect: Dialect): Generator<{ sql: string; params: Params }, CommandSource, Record<string, unknown>[]> {
  if (dialect.name === 'sqlite') {
    const [r] = yield {
      sql: `SELECT (SELECT value FROM dataset_meta WHERE key = 'program_rules') AS rules,
        (SELECT COUNT(*) FROM pragma_table_info('parts') WHERE name = 'program') AS stored,
        (SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'parts_terminal') AS indexed,
        (SELECT instr(upper(sql), 'WITHOUT ROWID') = 0 FROM sqlite_master WHERE type = 'table' AND name = 'parts') AS rowids`,
      params: {},
    };
    const stored = Number(r?.stored ?? 0) > 0 && Number(r?.rules) === PROGRAM_RULES;
    return { program: stored ? 'stored' : 'named', indexed: Number(r?.indexed ?? 0) > 0, rowids: Number(r?.rowids ?? 0) > 0, times: 'dataset', scratch: false, verdict: 'judged', cellIndex: false };
  }
  const [r] = yield {
    sql: `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('parts') AND attname = 'program' AND NOT attisdropped) AS stored,
      to_regprocedure('${TOOL_ERROR_FUNCTION}(text)') IS NOT NULL AS judged,
      CASE WHEN to_regclass('tool_calls') IS NULL THEN false ELSE has_table_privilege(to_regclass('tool_calls'), 'SELECT') END AS kept,
      to_regclass('pg_temp.${COMMAND_TABLE}') IS NOT NULL AS scratch,
      ${storedVerdictSql("'parts'")} AS verdicts,
      to_regclass('${TERMINAL_CELLS_INDEX}') IS NOT NULL AS cells`,
    params: {},
  };
  if (r?.stored !== true || r?.judged !== true) {
    throw new HermeticError('HERMETIC_FLEET_SCHEMA', 'The fleet store holds no terminal programs yet (its schema is older than version 10, decision 0152): the first forwarder of this version to open it adds them; report by command once one has shipped.');
  }
  return { program: 'stored', indexed: false, rowids: false, times: r.kept === true ? 'fleet' : 'grouped', scratch: r.scratch === true, verdict: r.verdicts === true ? 'stored' : 'judged', cellIndex: r.cells === true };
}

/**
 * The fleet read's own table for a report by command (sinks/postgres/read.ts `scratch`): empty, shaped as the
 * statement that gathers the calls makes its rows (so its types are that statement's), dropped when the read ends.
 * On a fleet before version 10 (no `parts.program`) the server refuses it, and the report says why (planCommandSource).
 */
export function commandScratch(dialect: Dialect): string[] {
  // Judged, not stored: the shape asks only what a fleet of version 10 has (the columns are the same either way).
  const shape = commandUsageSql('false', dialect, { program: 'stored', indexed: false, rowids: false, times: 'grouped', scratch: false, verdict: 'judged', cellIndex: false });
  return [`CREATE TEMPORARY TABLE ${COMMAND_TABLE} ON COMMIT DROP AS ${shape} WITH NO DATA`];
}

/**
 * The statement that gathers the window's terminal calls for a window and filter (`where`, the report's condition on
 * a `tool_usage` row `l`), row for row what `tool_usage`'s terminal rows count there: each terminal call part, and each
 * terminal result part that says it failed (the writer's rule: `toolErrorSql`, on the fleet its twin), at its cell,
 * with that cell's keys (time, day, profile, source, project; on the fleet the machine). Only the sessions with
 * terminal rows in the window are read, their terminal parts alone; a result's text is judged only where its cell
 * counted a failure. A failed result takes the program of its call (the first with its id, wherever in the session
 * it is), `NO_CALL` when there is none. A call's time is its id's in `tool_calls`, the dashboard's slowest calls'
 * (decision 0069): from its first call to its first result, given to that first call, where the result came after it
 * and the row is not stale: `ms`, in whole milliseconds, NULL for a call whose time is not known (and for a failed
 * result), so the timed calls are those with one.
 */
export function commandUsageSql(where: string, dialect: Dialect, source: CommandSource): string {
  const on = (a: string, b: string) => sessionKeysOn(dialect, a).map((k, i) => `${k} = ${sessionKeysOn(dialect, b)[i]}`).join(' AND ');
  // The same keys compared byte by byte, as `tool_usage_terminal` orders them (equal text is equal bytes; decision 0167).
  const bytewise = (a: string, b: string) => sessionKeysOn(dialect, a).map((k, i) => `${k} COLLATE "C" = ${sessionKeysOn(dialect, b)[i]}`).join(' AND ');
  const keys = (a: string) => sessionKeysOn(dialect, a).join(', ');
  const sqlite = dialect.name === 'sqlite';
  // SQLite keeps the tables in the order written with CROSS JOIN; PostgreSQL plans its own (and takes no ON after CROSS).
  const join = sqlite ? 'CROSS JOIN' : 'JOIN';
  /** The start of the terminal cell (a `tool_usage` row's `at`) that holds the part's time, or NULL. */
  const cell = `(SELECT MAX(v.at) FROM tool_usage v WHERE ${on('v', 'p')} AND v.tool_name = '${TERMINAL_TOOL}' AND v.at <= p.created_at)`;
  const program = source.program === 'stored' ? 'p.program' : `${PROGRAM_FUNCTION}(p.tool_args)`;
  // Whether the result part `x` says it failed, its text read by its key: asked only where its cell counted a failure
  // (a CASE, which no planner splits to ask it sooner), so the gathered parts are read from the index alone. Where the
  // fleet stores the verdict, only the results it says failed are gathered, and the cell's count is all that is asked.
  const stored = !sqlite && source.verdict === 'stored';
  const judged = sqlite ? toolErrorSql('q.content_text') : `CASE WHEN ${TOOL_ERROR_FUNCTION}(q.content_text) THEN 1 ELSE 0 END`;
  const failed = stored ? '1' : `(SELECT ${judged} FROM parts q WHERE ${source.rowids ? 'q.rowid = x.rid' : `${on('q', 'x')} AND q.part_id = x.part_id`})`;
  const results = `s.failing = 1 AND p.part_type = 'tool_result'${stored ? ` AND p.${FAILED_COLUMN}` : ''}`;
  // Of an id's calls (most ids have one) the first — the earliest, then by part id, by its bytes — is the one timed,
  // and the one whose program a failed result of the id takes. SQLite looks for an earlier one only where the id has
  // several calls (`tool_calls.calls`), and finds a result's call by an index it makes on the gathered parts. The fleet,
  // whose planner cannot see into the gathered parts to join them well, orders each id's parts once, calls first: the
  // first is the first call, and every part of the id carries its program.
  const sameId = `c.is_call = 1 AND ${on('c', 'x')} AND c.call_id = x.call_id`;
  const order = `PARTITION BY ${keys('p')}, ${callId('p')} ORDER BY CASE WHEN p.part_type = 'tool_call' THEN 0 ELSE 1 END, ${dialect.order('p.created_at', { numeric: true })}, ${dialect.order('p.part_id')}`;
  const rank = sqlite ? '' : `, ROW_NUMBER() OVER (${order}) AS rn,
        CASE WHEN ${callId('p')} IS NOT NULL THEN FIRST_VALUE(CASE WHEN p.part_type = 'tool_call' THEN ${program} END) OVER (${order}) END AS first_command`;
  const first = sqlite
    ? `(k.calls = 1 OR NOT EXISTS (SELECT 1 FROM terminal_parts c WHERE ${sameId} AND c.t = x.t AND c.part_id < x.part_id))`
    : 'x.rn = 1';
  const callOf = sqlite ? `(SELECT c.command FROM terminal_parts c WHERE ${sameId} ORDER BY c.t, c.part_id LIMIT 1)` : 'x.first_command';
  const times = source.times === 'dataset'
    ? { from: 'tool_calls k', on: `${on('k', 'x')} AND k.call_id = x.call_id`, fresh: ' AND k.stale = 0', cte: '' }
    : source.times === 'fleet'
      ? { from: 'tool_calls k', on: `${on('k', 'x')} AND k.call_key = sha256(convert_to(x.call_id, 'UTF8'))`, fresh: '', cte: '' }
      : {
        from: 'call_times k', on: `${on('k', 'x')} AND k.call_id = x.call_id`, fresh: '',
        // The grouping the fleet's tool_calls keeps (sinks/postgres/tool-calls.ts), of the window's sessions alone.
        cte: `, call_times AS (SELECT ${keys('p')}, ${callId('p')} AS call_id, MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
            MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered
          FROM command_sessions s JOIN parts p ON ${on('p', 's')} WHERE p.part_type IN ('tool_call', 'tool_result') AND ${callId('p')} IS NOT NULL
          GROUP BY ${keys('p')}, ${callId('p')})`,
      };
  const timed = `x.is_call = 1 AND k.called = x.t AND k.answered >= k.called${times.fresh} AND ${first}`;
  const cellColumns = ['at', 'day', 'day_utc', ...carried(dialect), 'profile', 'source', 'project'].map((c) => `l.${c}`).join(', ');
  const parts = source.indexed ? 'parts p INDEXED BY parts_terminal' : 'parts p';
  // The part's cell: on SQLite its start found first (`cell`, by the session's index) and its row joined by it; on
  // PostgreSQL the row itself, the session's latest terminal row at or before the part, in one lookup (decision 0167).
  const at = sqlite ? `, ${cell} AS at` : '';
  const inCell = sqlite
    ? `${join} tool_usage l ON l.at = x.at AND ${on('l', 'x')} AND l.tool_name = '${TERMINAL_TOOL}'`
    : `JOIN LATERAL (SELECT v.* FROM tool_usage v WHERE ${source.cellIndex ? bytewise('v', 'x') : on('v', 'x')} AND v.tool_name = '${TERMINAL_TOOL}' AND v.at <= x.t ORDER BY v.at DESC LIMIT 1) l ON true`;
  return `WITH command_sessions AS (
      SELECT ${keys('l')}, CASE WHEN MAX(l.errors) > 0 THEN 1 ELSE 0 END AS failing FROM tool_usage l
      WHERE l.tool_name = '${TERMINAL_TOOL}' AND ${where} GROUP BY ${sessionKeysOn(dialect, 'l').map((k) => dialect.noIndex(k)).join(', ')}),
    terminal_parts AS MATERIALIZED (
      SELECT ${keys('p')}, p.part_id,${source.rowids ? ' p.rowid AS rid,' : ''} CASE WHEN p.part_type = 'tool_call' THEN 1 ELSE 0 END AS is_call, ${callId('p')} AS call_id,
        p.created_at AS t${at}, CASE WHEN p.part_type = 'tool_call' THEN ${program} END AS command${rank}
      FROM command_sessions s ${join} ${parts} ON ${on('p', 's')}
      WHERE p.tool_name = '${TERMINAL_TOOL}' AND (p.part_type = 'tool_call' OR (${results})))${times.cte}
    SELECT ${cellColumns},
      CASE WHEN x.is_call = 1 THEN x.command ELSE COALESCE(${callOf}, '${NO_CALL}') END AS command,
      x.is_call AS calls, 1 - x.is_call AS errors,
      CASE WHEN ${timed} THEN ${dialect.name === 'sqlite' ? 'CAST(ROUND((k.answered - k.called) * 1000) AS INTEGER)' : 'CAST(trunc((k.answered - k.called) * 1000 + 0.5) AS bigint)'} END AS ms
    FROM terminal_parts x
      ${inCell}
      LEFT JOIN ${times.from} ON x.is_call = 1 AND ${times.on}
    WHERE CASE WHEN x.is_call = 1 THEN 1 WHEN l.errors > 0 THEN ${failed} ELSE 0 END = 1 AND x.t - l.at < 3600 AND ${where}`;
}

/** A part's call id: its own for a call, the one it answers for a result. */
const callId = (p: string) => `CASE WHEN ${p}.part_type = 'tool_call' THEN ${p}.tool_call_id ELSE ${p}.tool_result_for END`;

/**
 * The columns of a `tool_usage` row the dialect's keys name besides the cell's (`l.store`, `l.session_id`; on the
 * fleet `l.machine_id` and `l.hostname` too): the gathered rows carry them for every grouping and filter.
 */
function carried(dialect: Dialect): string[] {
  const names = [...dialect.sessionKeys, ...dialect.machineKeys].map((k) => /^l\.([a-z_]+)$/.exec(k.sql)?.[1]).filter((n): n is string => n !== undefined);
  return [...new Set(names)];
}

/** A statement of a plan, and whether it calls `PROGRAM_FUNCTION` (then the runner registers it first). */
export type Step = { sql: string; params: Params; program?: true };

/**
 * How the report reads the window's calls: on SQLite the statements that make the connection's table afresh (a table
 * left by a report that failed is dropped) and the one that drops it after; on PostgreSQL those that fill the read's
 * temporary table and empty it after, or, where the read has none, the common table expression every statement
 * reading `COMMAND_TABLE` starts with.
 */
export function commandUsagePlan(where: string, params: Params, dialect: Dialect, source: CommandSource): { make: Step[]; drop: Step[]; ctes: string[] } {
  const sql = commandUsageSql(where, dialect, source);
  if (dialect.name === 'postgres') {
    // Never a parallel plan: a fleet of schema version 10 has hermetic_tool_error PARALLEL SAFE, which it is not
    // (decision 0160).
    const serial: Step = { sql: 'SET LOCAL max_parallel_workers_per_gather = 0', params: {} };
    if (!source.scratch) return { make: [serial], drop: [], ctes: [`${COMMAND_TABLE} AS MATERIALIZED (${sql})`] };
    // Emptied first: a read may report by command twice.
    const empty: Step = { sql: `DELETE FROM pg_temp.${COMMAND_TABLE}`, params: {} };
    return { make: [serial, empty, { sql: `INSERT INTO pg_temp.${COMMAND_TABLE} ${sql}`, params }], drop: [empty], ctes: [] };
  }
  const drop: Step = { sql: `DROP TABLE IF EXISTS temp.${COMMAND_TABLE}`, params: {} };
  const make: Step = { sql: `CREATE TEMP TABLE ${COMMAND_TABLE} AS ${sql}`, params, ...(source.program === 'named' ? { program: true as const } : {}) };
  return { make: [drop, make], drop: [drop], ctes: [] };
}

/**
 * The median of `ms` over the timed rows of `from` (`l`: those whose `ms` is known), per group of `keys` (SQL on `l`, named `k0`, `k1`, … in the
 * answer) or over all without keys: the middle row's, or the mean of the two middle ones, as `median_ms`.
 */
export function medianSql(from: string, keys: readonly string[], where = '1 = 1'): string {
  const named = keys.map((k, i) => `${k} AS k${i}`);
  const groups = keys.map((_, i) => `k${i}`);
  const partition = groups.length > 0 ? `PARTITION BY ${groups.join(', ')} ` : '';
  return `SELECT ${[...groups, 'AVG(ms) AS median_ms'].join(', ')} FROM (
      SELECT ${[...groups, 'ms'].join(', ')}, ROW_NUMBER() OVER (${partition}ORDER BY ms) AS i, COUNT(*) OVER (${partition.trim()}) AS n
      FROM (SELECT ${[...named, 'l.ms AS ms'].join(', ')} FROM ${from} WHERE ${where} AND l.ms IS NOT NULL) t) m
    WHERE i IN ((n + 1) / 2, (n + 2) / 2)${groups.length > 0 ? ` GROUP BY ${groups.join(', ')}` : ''}`;
}

/**
 * The totals of `COMMAND_TABLE` and their median, in one row: calls, failed results, timed calls and their time,
 * distinct sessions (per store, and on the fleet per machine).
 */
export function commandTotalsSql(dialect: Dialect): string {
  const sessions = sessionKeysOn(dialect, 'c').join(', ');
  return `SELECT t.*, m.median_ms FROM (SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT ${sessions} FROM ${COMMAND_TABLE} c) d) AS sessions,
    SUM(calls) AS tool_calls, SUM(errors) AS tool_errors, COUNT(ms) AS timed_calls, SUM(ms) AS ms FROM ${COMMAND_TABLE}) t
    CROSS JOIN (${medianSql(`${COMMAND_TABLE} l`, [])}) m`;
}

/** Milliseconds (a sum or a median) as the report's seconds; null stays null. */
export const seconds = (ms: unknown): number | null => (ms === null || ms === undefined ? null : Number(ms) / 1000);

/** The fleet's machines whose terminal programs are named by other rules than this Hermetic's (decision 0152). */
export interface OtherRules {
  machines: number;
  /** The first few of their host names, in byte order. */
  names: string[];
}

/**
 * The fleet's machines whose stored programs another Hermetic's rules named (`progress.program_rules`), said beside a
 * report by command so the names are not taken for this Hermetic's: older ones are named again by the next forwarder
 * of this version to open the store; newer ones are its machine's own. Null where that cannot be read (a fleet before
 * version 10, which refuses the grouping anyway, or a role that may not read `progress`: `onDenied` gets its GRANT).
 */
export async function fleetOtherRules(client: pg.PoolClient, dialect: Dialect & { readonly schema: string }, onDenied?: (table: string, grant: string) => void): Promise<OtherRules | null> {
  const progress = await fleetTable(client, dialect.schema, 'progress');
  if (progress.state === 'denied') onDenied?.('progress', progress.grant);
  if (progress.state !== 'readable') return null;
  const has = await client.query("SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('progress') AND attname = 'program_rules' AND NOT attisdropped");
  if (has.rows.length === 0) return null;
  const r = (await client.query(`SELECT COUNT(*) AS machines, ARRAY(SELECT DISTINCT left(hostname, 64) COLLATE "C" AS name FROM progress
      WHERE program_rules IS DISTINCT FROM $1 AND hostname <> '' ORDER BY name LIMIT 5) AS names FROM progress WHERE program_rules IS DISTINCT FROM $1`, [PROGRAM_RULES])).rows[0] as { machines: string; names: string[] };
  return { machines: Number(r.machines), names: r.names };
}

/** The note a report by command on the fleet store prints when some machines' programs are named by other rules. */
export function otherRulesText(other: OtherRules): string {
  const some = other.machines === 1 ? '1 machine' : `${other.machines} machines`;
  const named = other.names.length > 0 ? ` (${other.names.join(', ')}${other.machines > other.names.length ? ', …' : ''})` : '';
  return `the commands of ${some}${named} are named by other rules than this Hermetic's (version ${PROGRAM_RULES}): older ones are named again when a forwarder of this version next opens the fleet store, newer ones are their forwarder's own.`;
}

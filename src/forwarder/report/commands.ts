// `--by command` (decision 0149): the terminal tool's calls in a window, each under the program its command line runs
// (program.ts), with the results that say they failed and the time from call to result. The window's calls are read
// once into a table of the connection's own (`temp.command_usage`), shaped as `tool_usage` is — a row per counted part
// with the keys of its cell — so the report groups, ranks, cuts and names it as it does tool calls, and its totals,
// medians and the rest of a --top read those rows instead of the transcripts again. The dataset only (SQLite): what a
// call's arguments say is read by a function of this process.
import type { Db } from '../../shared/sqlite.js';
import { toolErrorSql } from '../dataset/tool-error.js';
import type { Params } from './dialect.js';
import { NO_CALL, programOfCommand } from '../dataset/program.js';

/** The tool whose calls run command lines, and the argument Hermes's terminal tool takes the line in. */
export const TERMINAL_TOOL = 'terminal';

/** The rows of the window's terminal calls, made for one report and dropped after it (a TEMP table: this connection's). */
export const COMMAND_TABLE = 'temp.command_usage';

/** The SQL function that names a command's program (programOfCommand), registered on a connection when a plan needs it. */
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
  db.function(PROGRAM_FUNCTION, { deterministic: true }, (command: unknown) => programOfCommand(command));
  registered.add(db);
}

/** A call part's `command` argument when it is text (else NULL): its arguments a JSON object with a string there. */
const commandText = (args: string) => `CASE WHEN json_valid(${args}) AND json_type(${args}, '$.command') = 'text' THEN json_extract(${args}, '$.command') END`;

/** The start of the terminal cell (a `tool_usage` row's `at`) that holds time `t` of session part `p`, or NULL. */
const cellOf = (p: string, t: string) => `(SELECT MAX(v.at) FROM tool_usage v WHERE v.store = ${p}.store AND v.session_id = ${p}.session_id AND v.tool_name = '${TERMINAL_TOOL}' AND v.at <= ${t})`;

/**
 * The statement that fills `COMMAND_TABLE` for a window and filter (`where`, the report's condition on a `tool_usage`
 * row `l`), row for row what `tool_usage`'s terminal rows count there: each terminal call part, and each terminal result
 * part that says it failed (`toolErrorSql`, the writer's rule), at its cell, with that cell's keys (time, day, profile,
 * source, project). Only the sessions with terminal rows in the window are read, their parts by key; a result's text is
 * judged only where its cell counted a failure. A failed result takes the program of its call (the first with its
 * id, wherever in the session it is), `NO_CALL` when there is none. A call's time is its id's in `tool_calls`, the
 * dashboard's slowest calls' (decision 0069): from its first call to its first result, given to that first call, where
 * the result came after it and the row is not stale.
 */
export function commandUsageSql(where: string): string {
  /** Another call part of the same id (the session's own, terminal or not). */
  const sameId = 'c.is_call AND c.store = x.store AND c.session_id = x.session_id AND c.call_id = x.call_id';
  // The id's first call (the earliest, then by part id), answered after it, its row not stale. Most ids have one call.
  const timed = `x.is_call AND k.called = x.t AND k.stale = 0 AND k.answered >= k.called
    AND (k.calls = 1 OR NOT EXISTS (SELECT 1 FROM terminal_parts c WHERE ${sameId} AND c.t = x.t AND c.part_id < x.part_id))`;
  return `CREATE TEMP TABLE command_usage AS
    WITH command_sessions AS (
      SELECT l.store, l.session_id, MAX(l.errors) > 0 AS failing FROM tool_usage l
      WHERE l.tool_name = '${TERMINAL_TOOL}' AND ${where} GROUP BY +l.store, +l.session_id),
    terminal_parts AS MATERIALIZED (
      SELECT p.store, p.session_id, p.part_id, p.part_type = 'tool_call' AS is_call,
        CASE WHEN p.part_type = 'tool_call' THEN p.tool_call_id ELSE p.tool_result_for END AS call_id, p.created_at AS t,
        ${cellOf('p', 'p.created_at')} AS at,
        CASE WHEN p.part_type = 'tool_call' THEN ${PROGRAM_FUNCTION}(${commandText('p.tool_args')}) END AS command,
        CASE WHEN p.part_type = 'tool_call' THEN 0
          WHEN (SELECT e.errors FROM tool_usage e WHERE e.at = ${cellOf('p', 'p.created_at')} AND e.store = p.store AND e.session_id = p.session_id AND e.tool_name = '${TERMINAL_TOOL}') > 0
          THEN ${toolErrorSql('p.content_text')} ELSE 0 END AS failed
      FROM command_sessions s CROSS JOIN parts p ON p.store = s.store AND p.session_id = s.session_id
      WHERE (p.part_type = 'tool_call' OR (s.failing AND p.part_type = 'tool_result')) AND p.tool_name = '${TERMINAL_TOOL}')
    SELECT l.at, l.day, l.day_utc, l.store, l.session_id, l.profile, l.source, l.project,
      CASE WHEN x.is_call THEN x.command
        ELSE COALESCE((SELECT c.command FROM terminal_parts c WHERE ${sameId} ORDER BY c.t, c.part_id LIMIT 1), '${NO_CALL}') END AS command,
      x.is_call AS calls, 1 - x.is_call AS errors,
      CASE WHEN ${timed} THEN 1 ELSE 0 END AS timed,
      CASE WHEN ${timed} THEN CAST(ROUND((k.answered - k.called) * 1000) AS INTEGER) ELSE 0 END AS ms
    FROM terminal_parts x
      CROSS JOIN tool_usage l ON l.at = x.at AND l.store = x.store AND l.session_id = x.session_id AND l.tool_name = '${TERMINAL_TOOL}'
      LEFT JOIN tool_calls k ON x.is_call AND k.store = x.store AND k.session_id = x.session_id AND k.call_id = x.call_id
    WHERE (x.is_call OR x.failed) AND x.t - x.at < 3600 AND ${where}`;
}

/** A statement of a plan, and whether it calls `PROGRAM_FUNCTION` (then the runner registers it first). */
export type Step = { sql: string; params: Params; program?: true };

/** The statements that make `COMMAND_TABLE` afresh for a window (a table left by a report that failed is dropped). */
export function commandUsageSteps(where: string, params: Params): Step[] {
  return [
    { sql: `DROP TABLE IF EXISTS ${COMMAND_TABLE}`, params: {} },
    { sql: commandUsageSql(where), params, program: true },
  ];
}

/** The statement that drops `COMMAND_TABLE` once the report has its rows. */
export const DROP_COMMAND_USAGE: Step = { sql: `DROP TABLE IF EXISTS ${COMMAND_TABLE}`, params: {} };

/**
 * The median of `ms` over the timed rows of `from` (`l`), per group of `keys` (SQL on `l`, named `k0`, `k1`, … in the
 * answer) or over all without keys: the middle row's, or the mean of the two middle ones, as `median_ms`.
 */
export function medianSql(from: string, keys: readonly string[], where = '1 = 1'): string {
  const named = keys.map((k, i) => `${k} AS k${i}`);
  const groups = keys.map((_, i) => `k${i}`);
  const partition = groups.length > 0 ? `PARTITION BY ${groups.join(', ')} ` : '';
  return `SELECT ${[...groups, 'AVG(ms) AS median_ms'].join(', ')} FROM (
      SELECT ${[...groups, 'ms'].join(', ')}, ROW_NUMBER() OVER (${partition}ORDER BY ms) AS i, COUNT(*) OVER (${partition.trim()}) AS n
      FROM (SELECT ${[...named, 'l.ms AS ms'].join(', ')} FROM ${from} WHERE ${where} AND l.timed = 1) t) m
    WHERE i IN ((n + 1) / 2, (n + 2) / 2)${groups.length > 0 ? ` GROUP BY ${groups.join(', ')}` : ''}`;
}

/** The totals of `COMMAND_TABLE`: calls, failed results, timed calls and their time, distinct sessions (per store). */
export const COMMAND_TOTALS_SQL = `SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT store, session_id FROM ${COMMAND_TABLE})) AS sessions,
  SUM(calls) AS tool_calls, SUM(errors) AS tool_errors, SUM(timed) AS timed_calls, SUM(ms) AS ms FROM ${COMMAND_TABLE}`;

/** Milliseconds (a sum or a median) as the report's seconds; null stays null. */
export const seconds = (ms: unknown): number | null => (ms === null || ms === undefined ? null : Number(ms) / 1000);

// The one aggregation every face of usage reads (DESIGN habit 17): filters in, `{ period, by, totals, rows }` out,
// computed by SQL over `usage_ledger` (and `tool_usage` for tools) so it stays fast over years of history. The
// terminal report, its CSV/Markdown/JSON forms, and later the web dashboard all call `usageReport`. The same plan runs
// on the fleet store in PostgreSQL (postgres.ts): each step is a generator that yields its SQL (dialect.ts) and gets
// the rows back, driven synchronously on SQLite and asynchronously on PostgreSQL.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import type { Db } from '../../shared/sqlite.js';
import { Zone } from '../ledger/zone.js';
import { EPOCH_MAX, EPOCH_MIN } from '../normalize/time.js';
import { HIDDEN_KEYS, sameSession, sqliteDialect, type Dialect, type Key, type Params } from './dialect.js';
import { COMMAND_TABLE, commandTotalsSql, commandUsagePlan, medianSql, planCommandSource, registerCommandProgram, seconds, type CommandTotals, type Step } from './commands.js';

export const DIMENSIONS = ['hour', 'day', 'week', 'month', 'weekday', 'hour_of_day', 'model', 'provider', 'profile', 'source', 'project', 'task', 'session', 'tree', 'tool', 'command', 'machine'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const TIME_DIMENSIONS: readonly Dimension[] = ['hour', 'day', 'week', 'month'];
/**
 * Dimensions that fold time onto a week or a day (decision 0116): every Monday together, every 02:00 together, in the
 * report's zone. Their rows come in their own order, as time's do.
 */
export const CYCLE_DIMENSIONS: readonly Dimension[] = ['weekday', 'hour_of_day'];
/** `weekday`'s values, ISO's order (Monday is 1). */
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
/** The most rows a `top` may keep, for `hermetic report --top` and the dashboard's `top` alike. */
export const MAX_TOP = 1_000_000;

/** The ledger's columns a report can be narrowed to (`filter`); values of one column are alternatives, columns combine. */
export const FILTERS = ['model', 'provider', 'profile', 'source', 'project', 'task', 'session', 'tree'] as const;
export type FilterName = (typeof FILTERS)[number];
/** The filters whose values are session ids: not listed as a column's values are (a filter's menu, a miss's hint). */
export const ID_FILTERS: readonly FilterName[] = ['session', 'tree'];
/** A filter whose values a report lists (`planValues`). */
export type ValueFilter = Exclude<FilterName, 'session' | 'tree'>;
export type ReportFilter = Partial<Record<FilterName, readonly string[]>>;

/** Dimensions tool calls do not have (Hermes records usage per call, not per tool), terminal commands included. */
const NOT_FOR_TOOLS: readonly Dimension[] = ['model', 'provider', 'task'];
/** The figures of rows by command (decision 0149), after the measures: they add up to `totals.commands`. */
export const COMMAND_FIGURES = ['tool_calls', 'tool_errors', 'timed_calls', 'seconds', 'median_seconds'] as const;

/** The additive measures, in output order (`sessions` is a distinct count: a session active on two days counts on both). */
export const MEASURES = ['sessions', 'api_calls', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'cost_usd'] as const;
export type MeasureName = (typeof MEASURES)[number];
const USAGE_SUMS = MEASURES.filter((m) => m !== 'sessions');

export interface ReportRequest {
  /** Epoch seconds; null or missing: open. Usage is windowed by when it happened (the ledger's cells). */
  since?: number | null;
  until?: number | null;
  by?: readonly string[];
  /** Keep the N costliest rows; the rest are summed into one row whose keys are null (`other_rows` says how many). */
  top?: number;
  /** Days, weeks and months in UTC instead of the ledger's zone. */
  utc?: boolean;
  /**
   * Only usage whose column has one of the values given (`project: ['']` is usage with no project). Tool calls have no
   * model, provider or task: filtered by those, they are the calls of the sessions that have such usage in the window.
   */
  filter?: ReportFilter;
  /**
   * Rows by session also say where the session is: `store`, and in the fleet store `machine_id` (the dashboard links
   * each to its own session view with them; the CLI's rows leave them out).
   */
  locate?: boolean;
  /**
   * Only the usage of one store (and in the fleet store one machine): a session id two stores share names a session
   * of each, and a session's own view counts only its own (the dashboard's session page).
   */
  place?: { store: string; machineId?: string };
  /**
   * The dashboard's bounds on a list (decisions 0094, 0120): grouped by session or tree, each title cut at
   * `titleCharacters` in SQL (the row's `cut.title`, or `cut.tree_title`, gives its whole length in characters and
   * UTF-8 bytes); any grouping, the rows kept stop at the first after which their JSON reaches `bytes` (at least one):
   * the rest are summed into the "other" row as a `top` of that many would sum them, and the report says `stopped`.
   * No more rows are read than could fit.
   */
  bounds?: { titleCharacters: number; bytes: number };
}

export type Measures = Record<MeasureName, number | null>;
export type ReportRow = Record<string, string | number | null | ReportCut>;
/** What a bounded report row had cut (decision 0094): its title, with its whole length. */
export type ReportCut = { title?: { characters: number; bytes: number }; tree_title?: { characters: number; bytes: number } };

/**
 * The least JSON a report row can be (its measures' names alone are 150 characters): a list bounded at B bytes never
 * needs more than B / 200 + 1 rows read.
 */
const MIN_ROW_BYTES = 200;

export interface UsageReport {
  period: { since: string | null; until: string | null };
  by: Dimension[];
  /** With `--by command`, also `commands`: the window's terminal calls, which its rows add up to (decision 0149). */
  totals: Measures & { tool_calls: number; tool_errors: number; commands?: CommandTotals };
  rows: ReportRow[];
  /**
   * Present only when a bounded list (`bounds`) stopped before `top`: how many rows it kept, and the bytes it stops at;
   * the rows after them are in the "other" row (decision 0094).
   */
  stopped?: { rows: number; bytes: number };
}

/** A step of the report: yields statements, gets each one's rows back, returns its result. */
export type Plan<T> = Generator<Step, T, Record<string, unknown>[]>;

/** Runs a plan on SQLite, synchronously. */
export function runSqlite<T>(db: Db, plan: Plan<T>, dialect: Dialect = sqliteDialect()): T {
  let step = plan.next();
  while (!step.done) {
    if (step.value.program) registerCommandProgram(db);
    const { sql, values } = dialect.bind(step.value.sql, step.value.params);
    const stmt = db.prepare(sql);
    // A statement that returns no rows (the table `--by command` makes and drops) is run, and answers none.
    step = plan.next(stmt.reader ? (stmt.all(values) as Record<string, unknown>[]) : (stmt.run(values), []));
  }
  return step.value;
}

/** Keys each dimension adds to a row, and the SQL (over a ledger or tool_usage row `l`) for each. */
function keysOf(dim: Dimension, utc: boolean, dialect: Dialect, local: string | null = null): Key[] {
  const day = utc ? 'l.day_utc' : 'l.day';
  switch (dim) {
    // The cell's start (epoch seconds), named in the report's zone once the rows are read (hourLabel).
    case 'hour': return [{ name: 'hour', sql: 'l.at', numeric: true }];
    // From the cell's local time (localTimeSql), as hours are named: ISO's 1 (Monday) to 7, and the hour 0 to 23,
    // named once the rows are read. Integer arithmetic in both dialects (the cell is whole seconds), which truncates
    // toward zero: the second of the day and the day's weekday are taken modulo, up again when negative, so a local
    // time before 1970 (the epoch's first hours west of UTC) is the evening of Wednesday 1969-12-31 (decision 0117).
    case 'weekday': return [{ name: 'weekday', sql: `((((${local!}) - ${secondOfDay(local!)}) / 86400 + 3) % 7 + 7) % 7 + 1`, numeric: true }];
    case 'hour_of_day': return [{ name: 'hour_of_day', sql: `${secondOfDay(local!)} / 3600`, numeric: true }];
    case 'day': return [{ name: 'day', sql: day }];
    // Monday of the ISO week.
    case 'week': return [{ name: 'week', sql: dialect.week(day) }];
    case 'month': return [{ name: 'month', sql: `substr(${day}, 1, 7)` }];
    case 'session': return [...dialect.sessionKeys];
    // The tree's first session (tree_roots), beside the keys that tell its store (and machine) apart.
    case 'tree': return [...dialect.sessionKeys.filter((k) => k.name !== 'session_id'), { name: 'tree', sql: 'COALESCE(t.root, l.session_id)' }];
    case 'tool': return [{ name: 'tool', sql: 'l.tool_name' }];
    case 'command': return [{ name: 'command', sql: 'l.command' }];
    case 'machine': return [...dialect.machineKeys];
    default: return [{ name: dim, sql: `l.${dim}` }];
  }
}

/** The second of the local day (0 to 86,399) of a local time in SQL, before 1970 too. */
const secondOfDay = (local: string): string => `((${local}) % 86400 + 86400) % 86400`;

/** The checked, de-duplicated dimensions; a refusal (HERMETIC_REPORT_INVALID) names the problem. */
export function checkDimensions(by: readonly string[]): Dimension[] {
  const out: Dimension[] = [];
  for (const d of by) {
    if (!(DIMENSIONS as readonly string[]).includes(d)) {
      const hint = suggest(d, DIMENSIONS);
      throw new HermeticError('HERMETIC_REPORT_INVALID', `"${d}" is not a report dimension${hint ? `; did you mean "${hint}"?` : `; use ${DIMENSIONS.join(', ')}.`}`);
    }
    if (!out.includes(d as Dimension)) out.push(d as Dimension);
  }
  if (out.includes('tool') && out.includes('command')) {
    throw new HermeticError('HERMETIC_REPORT_INVALID', 'Commands are the calls of one tool, terminal: group by command or by tool, not both.');
  }
  // Tool calls, terminal commands among them, have none of the usage dimensions.
  const calls = out.includes('tool') ? { what: 'Tool calls', group: 'tools' } : out.includes('command') ? { what: 'Terminal commands', group: 'commands' } : null;
  const bad = calls ? out.filter((d) => NOT_FOR_TOOLS.includes(d)) : [];
  if (calls && bad.length > 0) {
    const fit = DIMENSIONS.filter((d) => d !== 'tool' && d !== 'command' && !NOT_FOR_TOOLS.includes(d));
    throw new HermeticError('HERMETIC_REPORT_INVALID', `${calls.what} cannot be grouped by ${bad.join(' or ')}: Hermes records usage per call, not per tool; group ${calls.group} by ${fit.join(', ')}.`);
  }
  return out;
}

/** Rows of equal cost in the order of their keys' text (code units, as the report and its values list them). */
const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

const round = (v: number | null) => (v === null ? null : Math.round(v * 1e10) / 1e10);

/**
 * Whether session `alias` is part of its parent's work (a delegate, a continuation, a branch, a child without a
 * marker): every child but one a `reset` started, which is a new conversation. The report's trees and the session
 * page's descendants (web/data/rows.ts descendantsSql) both follow it.
 */
export const startedByParent = (alias: string): string => `COALESCE(${alias}.lineage_kind, '') <> 'reset'`;

/**
 * `tree_roots`: the sessions of the dataset that belong to a tree above them, each with the first session of its tree
 * (`root`), for `--by tree` (decision 0114); a session it does not list is the first of its own tree. A session belongs
 * to its parent's tree when its parent started it (a delegate, a continuation after compression, a branch, a child
 * without a marker) and the parent is in the dataset; a `reset` starts a new conversation, so a tree of its own, as on
 * the session page's "with its descendants" (web/data/rows.ts descendantsSql). Walked down from each first session
 * (one whose parent link does not lead to its tree) through the children its sessions started, found by the index on
 * parent_session_id, so a chain of any length is one tree, each session visited once (decision 0117: a climb capped at
 * 64 links had cut a long chain of compressions into a tree per session past the 64th). A session has one parent (the
 * key is unique), so the walk ends; a loop of parents in a damaged store has no first session, so the walk never
 * enters it: each of its sessions, and what hangs below them, is a tree of its own. A common table expression, for a
 * statement's `WITH RECURSIVE`.
 */
export function treeRootsSql(dialect: Dialect): string {
  const { place, on, of, climbs } = treeSql(dialect);
  const under = (k: string, d: string) => [...place.map((c) => `${k}.${c} = ${d}.${c}`), `${k}.parent_session_id = ${d}.session_id`].join(' AND ');
  return `tree_roots(${place.join(', ')}, session_id, root) AS (
      SELECT ${of('c')}, c.session_id, p.session_id FROM sessions c JOIN sessions p ON ${on('p', 'c', 'c.parent_session_id')}
      WHERE c.parent_session_id > '' AND ${startedByParent('c')} AND NOT (${climbs('p')})
      UNION ALL
      SELECT ${of('k')}, k.session_id, w.root FROM tree_roots w JOIN sessions k ON ${under('k', 'w')}
      WHERE k.parent_session_id > '' AND ${startedByParent('k')})`;
}

/**
 * The condition that a ledger or tool_usage row `l` is usage of a tree named by one of `keys` (parameters): exactly the
 * rows `--by tree` puts under those names (tree_roots, a loop of parents included): a row whose session tree_roots
 * lists under one of them, or a row of one of those sessions that tree_roots does not list (the first of its tree, or
 * a session the dataset does not hold, whose usage the grouping counts under its own id: decision 0117). A session
 * its parent started names no tree: it is part of its parent's. Uncorrelated, so each walk is made once per
 * statement (as long as the report by tree's own).
 */
function treeMembersSql(keys: readonly string[], dialect: Dialect): string {
  const { place } = treeSql(dialect);
  const named = keys.length === 1 ? `= ${keys[0]}` : `IN (${keys.join(', ')})`;
  const columns = [...place, 'session_id'];
  const row = `(${columns.map((c) => `l.${c}`).join(', ')})`;
  return `(${row} IN (WITH RECURSIVE ${treeRootsSql(dialect)} SELECT ${columns.join(', ')} FROM tree_roots WHERE root ${named})
    OR (l.session_id ${named} AND ${row} NOT IN (WITH RECURSIVE ${treeRootsSql(dialect)} SELECT ${columns.join(', ')} FROM tree_roots WHERE session_id ${named})))`;
}

/**
 * The tree session `id` is part of, named as `--by tree` names it (its first session), when that is another session:
 * what a `--filter tree=` that matched nothing meant. Null when `id` names no session or is the first of its tree.
 * Read from tree_roots itself, so it says what the grouping does (a loop included).
 */
export function* planTreeOf(id: string, dialect: Dialect): Plan<string | null> {
  const rows = yield {
    sql: `WITH RECURSIVE ${treeRootsSql(dialect)} SELECT root FROM tree_roots WHERE session_id = @tree_of ORDER BY ${dialect.order('root')} LIMIT 1`,
    params: { tree_of: id },
  };
  const top = rows[0]?.root;
  return typeof top === 'string' && top !== id ? top : null;
}

/** The pieces of SQL the tree statements share: the columns that place a session (store, and machine), and the link. */
function treeSql(dialect: Dialect) {
  const place = dialect.sessionKeys.filter((k) => k.name !== 'session_id').map((k) => k.sql.replace(/^l\./, ''));
  const on = (a: string, b: string, id: string) => [...place.map((c) => `${a}.${c} = ${b}.${c}`), `${a}.session_id = ${id}`].join(' AND ');
  const of = (alias: string) => place.map((c) => `${alias}.${c}`).join(', ');
  /** Whether session `k` belongs to its parent's tree: started by it, and the parent is in the dataset. */
  const climbs = (k: string) => `COALESCE(${k}.parent_session_id, '') > '' AND ${startedByParent(k)}
        AND EXISTS (SELECT 1 FROM sessions q WHERE ${on('q', k, `${k}.parent_session_id`)})`;
  return { place, on, of, climbs };
}

/**
 * A ledger or tool_usage row's local time in `zone` as SQL (epoch seconds plus the offset its cell had), for cells in
 * [lo, hi]: the offset a constant, or a CASE over the zone's changes in that span (two a year where clocks change).
 */
export function localTimeSql(zone: Zone, lo: number, hi: number): string {
  // Cells the ledger writes are plausible times; a hand-edited one past them takes the nearest bound's offset, and the
  // look for changes stays a century's days at most.
  const clamp = (t: number) => (Number.isFinite(t) ? Math.min(Math.max(t, EPOCH_MIN), EPOCH_MAX) : EPOCH_MIN);
  const spans = zone.offsetsBetween(clamp(lo), Math.max(clamp(lo), clamp(hi)));
  if (spans.length === 1) return `l.at + ${spans[0]!.offset}`;
  const cases = spans.slice(1).map((s, i) => `WHEN l.at < ${s.from} THEN ${spans[i]!.offset}`);
  return `l.at + CASE ${cases.join(' ')} ELSE ${spans.at(-1)!.offset} END`;
}

/** The zone the dataset's ledger was built in (dataset_meta), UTC when it says nothing. */
export function ledgerZone(db: Db): Zone {
  const row = db.prepare("SELECT value FROM dataset_meta WHERE key = 'ledger_time_zone'").get() as { value: string } | undefined;
  return new Zone(row?.value ?? 'UTC');
}

/** A request checked: its dimensions, window and the SQL condition and parameters for it. */
interface Checked {
  by: Dimension[];
  since: number | null;
  until: number | null;
  top: number | undefined;
  utc: boolean;
  /** The condition on a `usage_ledger` row `l`, and on a `tool_usage` row `l`. */
  where: string;
  toolWhere: string;
  params: Record<string, number | string>;
}

function check(request: ReportRequest, dialect: Dialect = sqliteDialect()): Checked {
  const by = checkDimensions(request.by ?? []);
  const since = request.since ?? null;
  const until = request.until ?? null;
  if (since !== null && until !== null && since > until) {
    throw new HermeticError('HERMETIC_REPORT_INVALID', `The window starts after it ends (since ${new Date(since * 1000).toISOString()}, until ${new Date(until * 1000).toISOString()}); swap them.`);
  }
  const top = request.top;
  if (top !== undefined && !(Number.isInteger(top) && top >= 1)) throw new HermeticError('HERMETIC_REPORT_INVALID', `top must be a whole number of rows, 1 or more; got ${top}.`);
  // A cell's time `at` is whole epoch seconds, so its bounds are too (at >= x ⇔ at >= ⌈x⌉, at < y ⇔ at < ⌈y⌉): the same
  // rows, and PostgreSQL takes them for its bigint column (a window ending now has a fraction). `since` and `until`
  // stay exact, for faces that compare real times (the slowest tool calls).
  const time = [since !== null ? 'l.at >= @at_from' : null, until !== null ? 'l.at < @at_to' : null].filter((x): x is string => x !== null);
  const params: Record<string, number | string> = {
    ...(since !== null ? { since, at_from: Math.ceil(since) } : {}),
    ...(until !== null ? { until, at_to: Math.ceil(until) } : {}),
  };
  const { ledger, tools } = filterSql(request.filter ?? {}, params, dialect);
  if (request.place) {
    params.place_store = request.place.store;
    const at = ['l.store = @place_store'];
    if (request.place.machineId !== undefined) {
      params.place_machine = request.place.machineId;
      at.push('l.machine_id = @place_machine');
    }
    ledger.push(...at);
    tools.push(...at);
  }
  const where = [...time, ...ledger].join(' AND ') || '1 = 1';
  // A model, provider or task filter reaches tool calls through the sessions with such usage in the window.
  const same = sameSession(dialect, 'u', 'l');
  const viaSessions = ledger.length > tools.length
    ? [`EXISTS (SELECT 1 FROM usage_ledger u WHERE ${same} AND ${[...time, ...ledger].join(' AND ').replace(/\bl\./g, 'u.')})`]
    : [];
  const toolWhere = [...time, ...tools, ...viaSessions].join(' AND ') || '1 = 1';
  return { by, since, until, top, utc: request.utc === true, where, toolWhere, params };
}

/**
 * The request's window and filter as SQL conditions on a `usage_ledger` row `l` and on a `tool_usage` row `l`, for a
 * face that lists rows the report counts (the dashboard's slowest tool calls) without aggregating them again.
 */
export function reportCondition(request: ReportRequest, dialect: Dialect = sqliteDialect()): { ledger: string; tools: string; params: Record<string, number | string> } {
  const { where, toolWhere, params } = check(request, dialect);
  return { ledger: where, tools: toolWhere, params };
}

/**
 * The values a filter column takes in the request's window and filter, the costliest first (then by value), at most
 * `limit`: what the report by that column would list, without counting sessions or summing the other measures (a
 * filter's menu needs only the values; the dashboard asks for six at every page). Cut by SQL's order as the report's
 * `top` is, then ordered as its rows are.
 */
export function* planValues(request: ReportRequest, column: ValueFilter, limit: number, dialect: Dialect): Plan<(string | null)[]> {
  const { where, params } = check({ ...request, by: [column] }, dialect);
  const [key] = keysOf(column, request.utc === true, dialect);
  const rows = yield {
    // Ordered outside the grouping: PostgreSQL takes an output column's name alone in ORDER BY, not in an expression.
    sql: `SELECT k0, cost_usd FROM (SELECT ${dialect.noIndex(key!.sql)} AS k0, SUM(l.cost_usd) AS cost_usd FROM usage_ledger l WHERE ${where} GROUP BY k0) x
      ORDER BY ${dialect.order('cost_usd', { numeric: true, desc: true })}, ${dialect.order('k0', { numeric: key!.numeric })} LIMIT ${Math.max(1, Math.trunc(limit))}`,
    params,
  };
  const costOf = (r: Record<string, unknown>) => Number(measure('cost_usd', r.cost_usd) ?? 0);
  return [...rows]
    .sort((a, b) => costOf(b) - costOf(a) || byText(String(a.k0 ?? ''), String(b.k0 ?? '')))
    .map((r) => (r.k0 as string | null) ?? null);
}

/** The SQL conditions of a filter (on the ledger; on tool_usage, the columns it has), its values added to `params`. */
function filterSql(filter: ReportFilter, params: Record<string, number | string>, dialect: Dialect): { ledger: string[]; tools: string[] } {
  const ledger: string[] = [];
  const tools: string[] = [];
  for (const [name, values] of Object.entries(filter)) {
    if (!(FILTERS as readonly string[]).includes(name)) {
      const hint = suggest(name, FILTERS);
      throw new HermeticError('HERMETIC_REPORT_INVALID', `"${name}" is not a report filter${hint ? `; did you mean "${hint}"?` : `; use ${FILTERS.join(', ')}.`}`);
    }
    if (values === undefined) continue;
    if (!Array.isArray(values) || values.length === 0 || values.some((v) => typeof v !== 'string')) {
      throw new HermeticError('HERMETIC_REPORT_INVALID', `The ${name} filter needs one or more values as text.`);
    }
    const column = name === 'session' ? 'l.session_id' : `l.${name}`;
    // One IN list, each value once: a chain of ORs nests one level per value, and SQLite refuses an expression tree
    // deeper than 1,000 (a dashboard URL can carry more values than that).
    const distinct = [...new Set(values as string[])];
    // usage without a project (NULL) is asked for as ''.
    const none = name === 'project' && distinct.includes('');
    const keys = distinct.filter((v) => !(none && v === '')).map((v, i) => {
      params[`f_${name}_${i}`] = v;
      return `@f_${name}_${i}`;
    });
    if (name === 'tree') {
      const sql = treeMembersSql(keys, dialect);
      ledger.push(sql);
      tools.push(sql);
      continue;
    }
    const alternatives: string[] = [];
    if (keys.length === 1) alternatives.push(`${column} = ${keys[0]}`);
    else if (keys.length > 1) alternatives.push(`${column} IN (${keys.join(', ')})`);
    if (none) alternatives.push(`${column} IS NULL OR ${column} = ''`);
    const sql = alternatives.length === 1 ? `(${alternatives[0]})` : `(${alternatives.join(' OR ')})`;
    ledger.push(sql);
    if (!NOT_FOR_TOOLS.includes(name as Dimension)) tools.push(sql);
  }
  return { ledger, tools };
}

/** The window's totals: every measure of the ledger, distinct sessions, tool calls and failed results. */
export function reportTotals(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'filter'> = {}, dialect: Dialect = sqliteDialect()): UsageReport['totals'] {
  return db.transaction(() => runSqlite(db, planTotals(request, dialect), dialect)).deferred();
}

export function* planTotals(request: Pick<ReportRequest, 'since' | 'until' | 'filter'>, dialect: Dialect): Plan<UsageReport['totals']> {
  const { where, toolWhere, params } = check(request, dialect);
  const [sums] = (yield { sql: `SELECT ${USAGE_SUMS.map((m) => `${dialect.sum(`l.${m}`)} AS ${m}`).join(', ')} FROM usage_ledger l WHERE ${where}`, params }) as Record<string, number | null>[];
  const [sessions] = yield { sql: dialect.distinctSessions(where), params };
  const [tools] = (yield { sql: `SELECT ${dialect.sum('l.calls')} AS calls, ${dialect.sum('l.errors')} AS errors FROM tool_usage l WHERE ${toolWhere}`, params }) as { calls: number | null; errors: number | null }[];
  const total = { sessions: Number(sessions?.n ?? 0) } as UsageReport['totals'];
  for (const m of USAGE_SUMS) total[m] = measure(m, sums?.[m]);
  total.tool_calls = Number(tools?.calls ?? 0);
  total.tool_errors = Number(tools?.errors ?? 0);
  return total;
}

/**
 * The rows of a grouping, given the window's totals (the rest of a --top is the totals less the rows kept, so the
 * rows always add up to them). One SQL aggregation; only the rows kept reach JavaScript.
 */
export function reportRows(db: Db, request: ReportRequest, totals: UsageReport['totals'], dialect: Dialect = sqliteDialect()): ReportRow[] {
  return runSqlite(db, planRows(request, totals, dialect, request.utc ? new Zone('UTC') : ledgerZone(db)), dialect);
}

/** The rows of a grouping; `zone` names its hours (the report's zone: the ledger's, or UTC). */
export function* planRows(request: ReportRequest, totals: UsageReport['totals'], dialect: Dialect, zone: Zone): Plan<ReportRow[]> {
  return (yield* planBoundedRows(request, totals, dialect, zone)).rows;
}

/**
 * An hour's row key: the local wall time its cell starts at (`2026-12-05 14:00`), with the zone's offset where clocks
 * going back make that wall time happen twice (`2026-11-01 01:00-04:00`), so every hour's key is its own.
 */
export function hourLabel(zone: Zone, at: number): string {
  const wall = (iso: string) => iso.slice(0, 16).replace('T', ' ');
  const iso = zone.iso(at);
  const here = wall(iso);
  const twice = wall(zone.iso(at - 3600)) === here || wall(zone.iso(at + 3600)) === here;
  return twice ? `${here}${iso.endsWith('Z') ? 'Z' : iso.slice(19)}` : here;
}

/** The rows of a grouping and, for a bounded list of sessions, where it stopped (null when it did not). */
function* planBoundedRows(request: ReportRequest, totals: UsageReport['totals'], dialect: Dialect, zone: Zone): Plan<{ rows: ReportRow[]; stopped: UsageReport['stopped'] | null; commands?: CommandTotals }> {
  const checked = check(request, dialect);
  const { by, top: asked } = checked;
  // A bounded list (decisions 0094, 0120) reads no more rows than could fit in its bytes: as a --top of that many.
  const bounds = request.bounds;
  const top = bounds ? Math.min(asked ?? Number.MAX_SAFE_INTEGER, Math.floor(bounds.bytes / MIN_ROW_BYTES) + 1) : asked;
  if (by.length === 0) {
    const row: ReportRow = {};
    for (const m of MEASURES) row[m] = totals[m];
    return { rows: [row], stopped: null };
  }
  // By command, the window's terminal calls are gathered once (a temporary table; on a fleet store that would not make
  // one, a common table expression of each statement that reads them), and grouped from there.
  const gathered = by.includes('command') ? yield* planCommandUsage(checked, dialect) : undefined;
  const commands = gathered?.totals;
  const g = yield* planGrouping(checked, top, totals, dialect, zone, gathered?.ctes ?? []);
  const raw = yield { sql: g.sql, params: g.params };
  const medians = commands ? yield* planMedians(g) : undefined;
  const { rows, hiddenOf } = rowsOf(raw, g, zone, medians);
  // Titles for the rows kept only, in rank order; a bounded list stops once its rows reach its bytes.
  const named = yield* nameRows(rows, hiddenOf, g, bounds, request.locate === true);
  const keep = named.keep ?? top;
  const n = Number(raw[0]?.n ?? 0);
  if (keep !== undefined && n > keep) rows.push(yield* otherRow(rows, raw, n, keep, { ...totals, ...(commands ? { commands } : {}) }, g));
  sortRows(rows, raw, by, g);
  if (gathered) for (const step of gathered.drop) yield step;
  return { rows, stopped: named.stopped, ...(commands ? { commands } : {}) };
}

/**
 * Gathers the window's terminal calls as `COMMAND_TABLE` (commands.ts) and reads their totals, median included: the
 * statements that drop or empty the table after the report, and the common table expressions every statement reading
 * it starts with (a fleet read without its temporary table).
 */
function* planCommandUsage(checked: Checked, dialect: Dialect): Plan<{ totals: CommandTotals; ctes: string[]; drop: Step[] }> {
  const source = yield* planCommandSource(dialect);
  const { make, drop, ctes } = commandUsagePlan(checked.toolWhere, checked.params, dialect, source);
  for (const step of make) yield step;
  const [t] = yield { sql: withCtes(ctes, commandTotalsSql(dialect)), params: checked.params };
  const totals = {
    sessions: Number(t?.sessions ?? 0), tool_calls: Number(t?.tool_calls ?? 0), tool_errors: Number(t?.tool_errors ?? 0),
    timed_calls: Number(t?.timed_calls ?? 0), seconds: seconds(t?.ms ?? 0)!, median_seconds: seconds(t?.median_ms),
  };
  return { totals, ctes, drop };
}

/** A statement that starts with common table expressions, recursive ones among them (`WITH RECURSIVE` takes both). */
const withCtes = (ctes: readonly string[], sql: string): string => (ctes.length > 0 ? `WITH RECURSIVE ${ctes.join(', ')} ${sql}` : sql);

/** The median time of each group's timed calls (commands.ts medianSql), by the JSON of the group's keys as SQL gives them. */
function* planMedians(g: Grouping): Plan<Map<string, number | null>> {
  const rows = yield { sql: withCtes(g.ctes, medianSql(g.from, g.keys.map((k) => k.sql), g.where)), params: g.params };
  return new Map(rows.map((r) => [groupKey(r, g.keys.length), seconds(r.median_ms)]));
}

/** A group's keys (`k0`, `k1`, … of a statement's row) as one text, to find the group again. */
const groupKey = (r: Record<string, unknown>, n: number): string => JSON.stringify(Array.from({ length: n }, (_, i) => r[`k${i}`] ?? null));

/** What a grouping reads and how (`planGrouping`): its keys, table, the grouped statement and the ranked one. */
interface Grouping {
  keys: Key[];
  /** The keys a row shows (not a session's store or machine). */
  shown: Key[];
  tools: boolean;
  /** By command: the rows are terminal calls (`COMMAND_TABLE`), counted as tools are, with their times. */
  commands: boolean;
  sessionKey: boolean;
  treeKey: boolean;
  /**
   * Whether the rows part the sessions, each session in one row: by session or by tree alone, or on the dataset by
   * what is one value a session (bySessionFacts).
   */
  partsSessions: boolean;
  from: string;
  ctes: string[];
  where: string;
  params: Params;
  dialect: Dialect;
  /** One row a group, unranked. */
  grouped: string;
  /** The order of the costliest first (most called, for tools). */
  rank: string;
  /** The statement run: the grouped rows, or with --top the costliest of them, how many there were and their sessions. */
  sql: string;
}

/**
 * The grouping's statement: its keys (a weekday or an hour of day reads the window's span first, for the zone's
 * offsets over it), the table (tool_usage for tools), the grouped rows (sessions counted per store when there are
 * several), and with --top the costliest of them.
 */
function* planGrouping(checked: ReturnType<typeof check>, top: number | undefined, totals: UsageReport['totals'], dialect: Dialect, zone: Zone, gathered: readonly string[]): Plan<Grouping> {
  const { by, utc, where: ledgerWhere, toolWhere, params } = checked;
  const commands = by.includes('command');
  // Rows by command count as tools do (calls, failures); their table holds the window's and filter's calls already.
  const tools = by.includes('tool') || commands;
  const where = commands ? '1 = 1' : tools ? toolWhere : ledgerWhere;
  const table = commands ? COMMAND_TABLE : tools ? 'tool_usage' : 'usage_ledger';
  // A weekday or hour of day needs the zone's offsets over the cells the window holds.
  let local: string | null = null;
  if (by.some((d) => CYCLE_DIMENSIONS.includes(d))) {
    const [span] = yield { sql: withCtes(gathered, `SELECT MIN(l.at) AS lo, MAX(l.at) AS hi FROM ${table} l WHERE ${where}`), params };
    local = localTimeSql(zone, Number(span?.lo ?? 0), Number(span?.hi ?? 0));
  }
  const keys = by.flatMap((d) => keysOf(d, utc, dialect, local));
  const shown = keys.filter((k) => !HIDDEN_KEYS.has(k.name));
  // By tree, each row of the table joined to its session's tree root (a session the dataset does not list: its own).
  const treeKey = by.includes('tree');
  const from = treeKey ? `${table} l LEFT JOIN tree_roots t ON ${sameSession(dialect, 't', 'l')}` : `${table} l`;
  const ctes = [...gathered, ...(treeKey ? [treeRootsSql(dialect)] : [])];
  const withClause = ctes.length > 0 ? `WITH RECURSIVE ${ctes.join(', ')} ` : '';
  const figures = commands ? ['tool_calls', 'tool_errors', 'timed_calls', 'ms'] : tools ? ['tool_calls', 'tool_errors'] : USAGE_SUMS;
  const sums = [
    ...(tools ? [`${dialect.sum('l.calls')} AS tool_calls`, `${dialect.sum('l.errors')} AS tool_errors`] : USAGE_SUMS.map((m) => `${dialect.sum(`l.${m}`)} AS ${m}`)),
    // Whole milliseconds, summed as integers: the rows' times add up to the totals' exactly. A call whose time is not
    // known has none (NULL): the timed calls are those that have one.
    ...(commands ? ['COUNT(l.ms) AS timed_calls', 'SUM(l.ms) AS ms'] : []),
  ];
  // The tables are clustered by time, so a window is one range of them and no window one scan; grouped by a session's
  // columns as they are, SQLite would walk the per-session index instead, a lookup per row. A unary + (a no-op on any
  // value; SQLite's way to say "not through an index") keeps it to the scan. PostgreSQL has no need of it.
  const keyList = keys.map((k, i) => `${dialect.noIndex(k.sql)} AS k${i}`);
  const groupKeys = keys.map((_, i) => `k${i}`);
  // Sessions are counted per store when there are several (two profiles may hold the same id), then added up;
  // grouped by session, each group is one.
  const sessionKey = by.includes('session');
  const distinct = sessionKey ? '1 AS sessions' : 'COUNT(DISTINCT l.session_id) AS sessions';
  // The fleet always has several stores (one per machine at least): counted per store there.
  const stores = dialect.name === 'postgres' ? 2 : Number((yield { sql: 'SELECT COUNT(*) AS n FROM stores', params: {} })[0]?.n ?? 0);
  const grouped = stores <= 1
    ? `SELECT ${[...keyList, distinct, ...sums].join(', ')} FROM ${from} WHERE ${where} GROUP BY ${groupKeys.join(', ')}`
    : `SELECT ${groupKeys.map((k) => `g.${k}`).join(', ')}, SUM(g.sessions) AS sessions, ${figures.map((m) => `${dialect.sum(`g.${m}`)} AS ${m}`).join(', ')} FROM (SELECT ${[...keyList, `${dialect.noIndex(dialect.storeKey)} AS st`, distinct, ...sums].join(', ')} FROM ${from} WHERE ${where} GROUP BY ${[...groupKeys, 'st'].join(', ')}) g GROUP BY ${groupKeys.join(', ')}`;
  // Costliest first (an unknown cost last), then by the keys shown, in one order in both dialects.
  const rank = [dialect.order(tools ? 'tool_calls' : 'cost_usd', { numeric: true, desc: true }), ...shown.map((k) => dialect.order(`k${keys.indexOf(k)}`, { numeric: k.numeric }))].join(', ');
  // With --top: the costliest rows (most called, for tools), how many rows there were and their sessions all told.
  // By session alone those two are the window's sessions, and a plain ORDER BY … LIMIT keeps it cheap.
  const bySessionOnly = keys.every((k) => HIDDEN_KEYS.has(k.name) || k.name === 'session_id');
  const byTreeOnly = keys.every((k) => HIDDEN_KEYS.has(k.name) || k.name === 'tree');
  const sql = withClause + (top === undefined ? grouped
    : bySessionOnly ? `SELECT x.*, ${totals.sessions ?? 0} AS n, ${totals.sessions ?? 0} AS all_sessions FROM (${grouped}) x ORDER BY ${rank} LIMIT ${top}`
      : `SELECT * FROM (SELECT x.*, ROW_NUMBER() OVER (ORDER BY ${rank}) AS rn, COUNT(*) OVER () AS n, SUM(sessions) OVER () AS all_sessions FROM (${grouped}) x) r WHERE rn <= ${top} ORDER BY rn`);
  return { keys, shown, tools, commands, sessionKey, treeKey, partsSessions: bySessionOnly || byTreeOnly || bySessionFacts(by, dialect), from, ctes, where, params, dialect, grouped, rank, sql };
}

/**
 * The report's rows from the statement's: keys named (an hour by its label, a weekday and an hour of day by their
 * names), figures as numbers. A session's store (and machine, in the fleet) is part of its key (two profiles may
 * share an id) but not shown: it is kept aside (`hiddenOf`) for its title.
 */
function rowsOf(raw: readonly Record<string, unknown>[], g: Grouping, zone: Zone, medians?: Map<string, number | null>): { rows: ReportRow[]; hiddenOf: Map<ReportRow, Record<string, unknown>> } {
  const hiddenOf = new Map<ReportRow, Record<string, unknown>>();
  const rows: ReportRow[] = raw.map((r) => {
    const row: ReportRow = {};
    g.keys.forEach((k, i) => {
      const v = r[`k${i}`];
      if (HIDDEN_KEYS.has(k.name)) hiddenOf.set(row, { ...hiddenOf.get(row), [k.name]: v });
      else if (k.name === 'hour') row.hour = v === null || v === undefined ? null : hourLabel(zone, Number(v));
      else if (k.name === 'weekday') row.weekday = WEEKDAYS[Number(v) - 1] ?? null;
      else if (k.name === 'hour_of_day') row.hour_of_day = v === null || v === undefined ? null : `${String(Number(v)).padStart(2, '0')}:00`;
      else row[k.name] = (v as string | null) ?? null;
    });
    if (g.sessionKey) row.title = null;
    if (g.treeKey) row.tree_title = null;
    row.sessions = Number(r.sessions ?? 0);
    for (const m of USAGE_SUMS) row[m] = g.tools ? null : measure(m, r[m]);
    if (g.tools) {
      row.tool_calls = Number(r.tool_calls ?? 0);
      row.tool_errors = Number(r.tool_errors ?? 0);
    }
    if (g.commands) {
      row.timed_calls = Number(r.timed_calls ?? 0);
      row.seconds = seconds(r.ms ?? 0);
      row.median_seconds = medians?.get(groupKey(r, g.keys.length)) ?? null;
    }
    return row;
  });
  return { rows, hiddenOf };
}

/**
 * The rows kept, in rank order: each session row's title and each tree row's first session's (`tree_title`), one
 * lookup a row, cut at the bounds' characters, and with `locate` its store (and machine); a bounded list of any
 * grouping stops once its rows' JSON reaches its bytes (`keep`, `stopped`; rows past it are dropped, and no title is
 * looked up for them).
 */
function* nameRows(rows: ReportRow[], hiddenOf: Map<ReportRow, Record<string, unknown>>, g: Grouping, bounds: ReportRequest['bounds'], locate: boolean): Plan<{ keep: number | undefined; stopped: UsageReport['stopped'] | null }> {
  const named: (readonly [id: 'session_id' | 'tree', title: 'title' | 'tree_title'])[] = [
    ...(g.treeKey ? [['tree', 'tree_title'] as const] : []), ...(g.sessionKey ? [['session_id', 'title'] as const] : []),
  ];
  if (named.length === 0 && !bounds) return { keep: undefined, stopped: null };
  const cap = bounds?.titleCharacters;
  const title = cap === undefined ? 'title'
    // Whole when its bytes fit: SQLite's substr stops at a NUL character, which a short title may hold.
    : `CASE WHEN octet_length(title) <= ${cap} THEN title ELSE substr(title, 1, ${cap}) END AS title, CASE WHEN length(title) > ${cap} THEN length(title) END AS characters, CASE WHEN length(title) > ${cap} THEN octet_length(title) END AS bytes`;
  let bytes = 0;
  for (const [i, r] of rows.entries()) {
    // A session's store (and machine) is kept aside only where the rows are by session or tree.
    const hidden = hiddenOf.get(r);
    if (hidden) {
      const machine = 'machine_key' in hidden ? ' AND machine_id = @machine_key' : '';
      for (const [id, as] of named) {
        const found = yield { sql: `SELECT ${title} FROM sessions WHERE store = @store AND session_id = @session_id${machine}`, params: { ...(hidden as Params), session_id: r[id] as string } };
        r[as] = (found[0]?.title as string | null | undefined) ?? null;
        if (found[0]?.characters !== null && found[0]?.characters !== undefined) r.cut = { ...(r.cut as ReportCut | undefined), [as]: { characters: Number(found[0].characters), bytes: Number(found[0].bytes) } };
      }
      if (locate) {
        r.store = (hidden.store as string | null) ?? null;
        if ('machine_key' in hidden) r.machine_id = (hidden.machine_key as string | null) ?? null;
      }
    }
    if (!bounds) continue;
    bytes += Buffer.byteLength(JSON.stringify(r));
    if (bytes >= bounds.bytes && i + 1 < rows.length) {
      rows.length = i + 1;
      return { keep: i + 1, stopped: { rows: i + 1, bytes: bounds.bytes } };
    }
  }
  return { keep: undefined, stopped: null };
}

/**
 * Dimensions that hold one value per session in the dataset: the ledger's and `tool_usage`'s rows of a session are all
 * made together from its one `sessions` row (ledger/allocate.ts), its profile, source and project (git root or cwd).
 */
const SESSION_FACTS: readonly Dimension[] = ['session', 'tree', 'profile', 'source', 'project'];

/**
 * Whether a grouping on the dataset is by session facts alone, so its rows part the sessions and a --top's rest holds
 * the sessions the kept rows do not (no second scan to count them). Not on the fleet store, whose rows of one session
 * may come in two batches.
 */
function bySessionFacts(by: readonly Dimension[], dialect: Dialect): boolean {
  return dialect.name === 'sqlite' && by.length > 0 && by.every((d) => SESSION_FACTS.includes(d));
}

/** The rest of a --top (or a bounded list), summed into one row: the totals less the rows kept. */
function* otherRow(rows: readonly ReportRow[], raw: readonly Record<string, unknown>[], n: number, keep: number, totals: UsageReport['totals'], g: Grouping): Plan<ReportRow> {
  const other: ReportRow = {};
  for (const k of g.shown) other[k.name] = null;
  if (g.sessionKey) other.title = null;
  if (g.treeKey) other.tree_title = null;
  const less = (m: string, all: number | null) => (all === null ? null : round(all - rows.reduce((t, r) => t + Number(r[m] ?? 0), 0)));
  // Sessions, or trees, alone part the sessions: each is in one row, so the rest holds those the kept rows do not.
  other.sessions = g.partsSessions ? Number(raw[0]!.all_sessions) - rows.reduce((t, r) => t + Number(r.sessions), 0)
    : Number((yield restSessions(g.grouped, g.rank, g.keys, keep, g))[0]?.n ?? 0);
  for (const m of USAGE_SUMS) other[m] = g.tools ? null : less(m, totals[m]);
  if (g.commands) {
    // The rest of the terminal calls: the figures that add up; the median of the rest is not one of them.
    const all = totals.commands!;
    for (const m of ['tool_calls', 'tool_errors', 'timed_calls'] as const) other[m] = all[m] - rows.reduce((t, r) => t + Number(r[m] ?? 0), 0);
    other.seconds = (Math.round(all.seconds * 1000) - rows.reduce((t, r) => t + Math.round(Number(r.seconds ?? 0) * 1000), 0)) / 1000;
    other.median_seconds = null;
  } else if (g.tools) {
    other.tool_calls = less('tool_calls', totals.tool_calls);
    other.tool_errors = less('tool_errors', totals.tool_errors);
  }
  other.other_rows = n - keep;
  return other;
}

/**
 * The rows in the report's order: by their time keys first (an hour by its cell — a repeated wall hour's two labels
 * differ only in their offsets —, a weekday and an hour of day by their number, a day or a week by its text), then
 * costliest first (most called, for tools), then by their keys; the "other" row last.
 */
function sortRows(rows: ReportRow[], raw: readonly Record<string, unknown>[], by: readonly Dimension[], g: Grouping): void {
  const costOf = (r: ReportRow) => (g.tools ? Number(r.tool_calls) : Number(r.cost_usd ?? 0));
  const keyTexts = new Map<ReportRow, string>(rows.map((r) => [r, g.shown.map((k) => String(r[k.name] ?? '')).join('\u0000')]));
  const timeKeys = by.filter((d) => TIME_DIMENSIONS.includes(d) || CYCLE_DIMENSIONS.includes(d));
  const numbered: Dimension[] = ['hour', ...CYCLE_DIMENSIONS];
  const numberedKeys = numbered.filter((d) => by.includes(d)).map((d) => [d, `k${g.keys.findIndex((k) => k.name === d)}`] as const);
  const numbers = new Map<ReportRow, Partial<Record<Dimension, number>>>();
  if (numberedKeys.length > 0) {
    raw.forEach((r, i) => {
      if (rows[i] && rows[i]!.other_rows === undefined) numbers.set(rows[i]!, Object.fromEntries(numberedKeys.map(([d, k]) => [d, Number(r[k])])));
    });
  }
  rows.sort((a, b) => {
    if (a.other_rows !== undefined) return 1;
    if (b.other_rows !== undefined) return -1;
    for (const t of timeKeys) {
      if (numbered.includes(t)) {
        const d = (numbers.get(a)?.[t] ?? 0) - (numbers.get(b)?.[t] ?? 0);
        if (d !== 0) return d;
        continue;
      }
      const x = String(a[t] ?? '');
      const y = String(b[t] ?? '');
      if (x !== y) return x < y ? -1 : 1;
    }
    const [x, y] = [keyTexts.get(a)!, keyTexts.get(b)!];
    return costOf(b) - costOf(a) || byText(x, y);
  });
}

/**
 * The distinct sessions of the rows a --top leaves out: those with a ledger (or tool_usage) row outside the groups
 * kept. Not the groups' session counts added up: a session in two groups (two models, two days) is one session.
 */
function restSessions(grouped: string, rank: string, keys: readonly Key[], top: number, q: { from: string; ctes: readonly string[]; where: string; params: Params; dialect: Dialect }): { sql: string; params: Params } {
  const same = keys.map((k, i) => `k.k${i} IS NOT DISTINCT FROM ${k.sql}`).join(' AND ');
  const session = q.dialect.sessionKeys.map((k) => k.sql).join(', ');
  return {
    // MATERIALIZED: computed once, not once per ledger row the NOT EXISTS looks at (an aggregation each).
    sql: `WITH ${q.ctes.length > 0 ? `RECURSIVE ${q.ctes.join(', ')}, ` : ''}kept AS MATERIALIZED (SELECT ${keys.map((_, i) => `k${i}`).join(', ')} FROM (${grouped}) x ORDER BY ${rank} LIMIT ${top})
      SELECT COUNT(*) AS n FROM (SELECT DISTINCT ${session} FROM ${q.from} WHERE ${q.where} AND NOT EXISTS (SELECT 1 FROM kept k WHERE ${same})) d`,
    params: q.params,
  };
}

/** The window as the report gives it: ISO times with the zone's offset. */
export function reportPeriod(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'utc'>): UsageReport['period'] {
  return periodIn(request.utc ? new Zone('UTC') : ledgerZone(db), request);
}

/**
 * Usage (and tool calls) in a window, grouped by any dimensions; the rows of any grouping sum to the totals.
 * @example usageReport(db, { since: Date.now() / 1000 - 7 * 86400, by: ['day', 'model'] })
 */
export function usageReport(db: Db, request: ReportRequest = {}, dialect: Dialect = sqliteDialect()): UsageReport {
  const zone = request.utc ? new Zone('UTC') : ledgerZone(db);
  return db.transaction((): UsageReport => runSqlite(db, planReport(request, zone, dialect), dialect)).deferred();
}

/**
 * The whole report: its period in `zone`, totals and rows. `known` is the window's totals when the caller already has
 * them from the same snapshot (the dashboard asks for many groupings of one window).
 */
export function* planReport(request: ReportRequest, zone: Zone, dialect: Dialect, known?: UsageReport['totals']): Plan<UsageReport> {
  const by = checkDimensions(request.by ?? []);
  const totals = known ?? (yield* planTotals(request, dialect));
  const { rows, stopped, commands } = yield* planBoundedRows(request, totals, dialect, zone);
  return { period: periodIn(zone, request), by, totals: commands ? { ...totals, commands } : totals, rows, ...(stopped ? { stopped } : {}) };
}

/** The window in a zone, as ISO times with its offset. */
export function periodIn(zone: Zone, request: Pick<ReportRequest, 'since' | 'until'>): UsageReport['period'] {
  const since = request.since ?? null;
  const until = request.until ?? null;
  return { since: since === null ? null : zone.iso(since), until: until === null ? null : zone.iso(until) };
}

/** A summed measure as the report gives it: counts as whole numbers (0 when nothing), costs rounded to 1e-10 (actual may be null). */
function measure(m: string, v: unknown): number | null {
  if (m === 'actual_cost_usd') return v === null || v === undefined ? null : round(Number(v));
  if (m.endsWith('_usd')) return round(Number(v ?? 0));
  return Number(v ?? 0);
}

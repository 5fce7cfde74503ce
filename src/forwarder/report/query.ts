// The one aggregation every face of usage reads (DESIGN habit 17): filters in, `{ period, by, totals, rows }` out,
// computed by SQL over `usage_ledger` (and `tool_usage` for tools) so it stays fast over years of history. The
// terminal report, its CSV/Markdown/JSON forms, and later the web dashboard all call `usageReport`.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import type { Db } from '../../shared/sqlite.js';
import { Zone } from '../ledger/zone.js';
import type { Window } from './window.js';

export const DIMENSIONS = ['day', 'week', 'month', 'model', 'provider', 'profile', 'source', 'project', 'task', 'session', 'tool'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const TIME_DIMENSIONS: readonly Dimension[] = ['day', 'week', 'month'];
/** Dimensions tool calls do not have (Hermes records usage per call, not per tool). */
const NOT_FOR_TOOLS: readonly Dimension[] = ['model', 'provider', 'task'];

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
}

export type Measures = Record<MeasureName, number | null>;
export type ReportRow = Record<string, string | number | null>;

export interface UsageReport {
  period: { since: string | null; until: string | null };
  by: Dimension[];
  totals: Measures & { tool_calls: number; tool_errors: number };
  rows: ReportRow[];
}

/** Keys each dimension adds to a row, and the SQL (over a ledger or tool_usage row `l`) for each. */
function keysOf(dim: Dimension, utc: boolean): { name: string; sql: string }[] {
  const day = utc ? 'l.day_utc' : 'l.day';
  switch (dim) {
    case 'day': return [{ name: 'day', sql: day }];
    // Monday of the ISO week.
    case 'week': return [{ name: 'week', sql: `date(${day}, '-6 days', 'weekday 1')` }];
    case 'month': return [{ name: 'month', sql: `substr(${day}, 1, 7)` }];
    case 'session': return [{ name: 'store', sql: 'l.store' }, { name: 'session_id', sql: 'l.session_id' }];
    case 'tool': return [{ name: 'tool', sql: 'l.tool_name' }];
    default: return [{ name: dim, sql: `l.${dim}` }];
  }
}

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
  if (out.includes('tool')) {
    const bad = out.filter((d) => NOT_FOR_TOOLS.includes(d));
    if (bad.length > 0) {
      throw new HermeticError('HERMETIC_REPORT_INVALID', `Tool calls cannot be grouped by ${bad.join(' or ')}: Hermes records usage per call, not per tool; group tools by ${DIMENSIONS.filter((d) => d !== 'tool' && !NOT_FOR_TOOLS.includes(d)).join(', ')}.`);
    }
  }
  return out;
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 1e10) / 1e10);

/** The zone the dataset's ledger was built in (dataset_meta), UTC when it says nothing. */
export function ledgerZone(db: Db): Zone {
  const row = db.prepare("SELECT value FROM dataset_meta WHERE key = 'ledger_time_zone'").get() as { value: string } | undefined;
  return new Zone(row?.value ?? 'UTC');
}

/**
 * Usage (and tool calls) in a window, grouped by any dimensions; the rows of any grouping sum to the totals.
 * @example usageReport(db, { since: Date.now() / 1000 - 7 * 86400, by: ['day', 'model'] })
 */
export function usageReport(db: Db, request: ReportRequest = {}): UsageReport {
  const by = checkDimensions(request.by ?? []);
  const since = request.since ?? null;
  const until = request.until ?? null;
  if (since !== null && until !== null && since > until) {
    throw new HermeticError('HERMETIC_REPORT_INVALID', `The window starts after it ends (since ${new Date(since * 1000).toISOString()}, until ${new Date(until * 1000).toISOString()}); swap them.`);
  }
  const top = request.top;
  if (top !== undefined && !(Number.isInteger(top) && top >= 1)) throw new HermeticError('HERMETIC_REPORT_INVALID', `top must be a whole number of rows, 1 or more; got ${top}.`);
  const zone = request.utc ? new Zone('UTC') : ledgerZone(db);
  const where = [since !== null ? 'l.at >= @since' : null, until !== null ? 'l.at < @until' : null].filter(Boolean).join(' AND ') || '1';
  const params = { ...(since !== null ? { since } : {}), ...(until !== null ? { until } : {}) };
  const tools = by.includes('tool');
  const keys = by.flatMap((d) => keysOf(d, request.utc === true));
  const table = tools ? 'tool_usage' : 'usage_ledger';
  const sums = tools ? ['SUM(l.calls) AS tool_calls', 'SUM(l.errors) AS tool_errors'] : USAGE_SUMS.map((m) => `SUM(l.${m}) AS ${m}`);
  const outer = tools ? ['SUM(g.tool_calls) AS tool_calls', 'SUM(g.tool_errors) AS tool_errors'] : USAGE_SUMS.map((m) => `SUM(g.${m}) AS ${m}`);
  // The tables are clustered by time, so a window is one range of them and no window one scan; grouped by a session's
  // columns as they are, SQLite would walk the per-session index instead, a lookup per row. A unary + (a no-op on any
  // value; SQLite's way to say "not through an index") keeps it to the scan. The PostgreSQL sink drops it.
  const keyList = keys.map((k, i) => `+${k.sql} AS k${i}`);
  const groupKeys = keys.map((_, i) => `k${i}`);
  // Sessions are counted per store (two profiles may hold the same id), then added up.
  const inner = `SELECT ${[...keyList, '+l.store AS st', 'COUNT(DISTINCT l.session_id) AS sessions', ...sums].join(', ')} FROM ${table} l WHERE ${where} GROUP BY ${[...groupKeys, 'st'].join(', ')}`;
  const sessionKey = by.includes('session');
  const sql = keys.length === 0
    ? `SELECT SUM(g.sessions) AS sessions, ${outer.join(', ')} FROM (${inner}) g`
    : `SELECT ${groupKeys.map((k) => `g.${k}`).join(', ')}, SUM(g.sessions) AS sessions, ${outer.join(', ')} FROM (${inner}) g GROUP BY ${groupKeys.join(', ')}`;
  const tx = db.transaction(() => {
    const raw = db.prepare(sql).all(params) as Record<string, unknown>[];
    const totals = db.prepare(`SELECT SUM(g.sessions) AS sessions, ${USAGE_SUMS.map((m) => `SUM(g.${m}) AS ${m}`).join(', ')} FROM (SELECT COUNT(DISTINCT l.session_id) AS sessions, ${USAGE_SUMS.map((m) => `SUM(l.${m}) AS ${m}`).join(', ')} FROM usage_ledger l WHERE ${where} GROUP BY +l.store) g`).get(params) as Record<string, number | null>;
    const toolTotals = db.prepare(`SELECT SUM(g.sessions) AS sessions, SUM(g.calls) AS calls, SUM(g.errors) AS errors FROM (SELECT COUNT(DISTINCT l.session_id) AS sessions, SUM(l.calls) AS calls, SUM(l.errors) AS errors FROM tool_usage l WHERE ${where} GROUP BY +l.store) g`).get(params) as { sessions: number | null; calls: number | null; errors: number | null };
    return { raw, totals, toolTotals };
  });
  const { raw, totals, toolTotals } = tx.deferred();

  // A session's store is part of its key (two profiles may share an id) but not shown; it is kept aside for its title.
  const storeOf = new Map<ReportRow, string>();
  let rows: ReportRow[] = raw.map((r) => {
    const row: ReportRow = {};
    keys.forEach((k, i) => {
      if (k.name === 'store') storeOf.set(row, r[`k${i}`] as string);
      else row[k.name] = (r[`k${i}`] as string | null) ?? null;
    });
    if (sessionKey) row.title = null;
    row.sessions = (r.sessions as number | null) ?? 0;
    for (const m of USAGE_SUMS) row[m] = tools ? null : measure(m, r[m]);
    if (tools) {
      row.tool_calls = (r.tool_calls as number | null) ?? 0;
      row.tool_errors = (r.tool_errors as number | null) ?? 0;
    }
    return row;
  });
  const costOf = (r: ReportRow) => (tools ? Number(r.tool_calls) : Number(r.cost_usd ?? 0));
  const keyText = (r: ReportRow) => keys.filter((k) => k.name !== 'store').map((k) => String(r[k.name] ?? '')).join('\u0000');
  if (top !== undefined && rows.length > top) {
    const ranked = [...rows].sort((a, b) => costOf(b) - costOf(a) || (keyText(a) < keyText(b) ? -1 : 1));
    const rest = ranked.slice(top);
    rows = ranked.slice(0, top);
    const other: ReportRow = {};
    for (const k of keys) if (k.name !== 'store') other[k.name] = null;
    if (sessionKey) other.title = null;
    for (const m of [...MEASURES, ...(tools ? ['tool_calls', 'tool_errors'] : [])]) {
      other[m] = tools && (USAGE_SUMS as readonly string[]).includes(m) ? null : round(rest.reduce((t, r) => t + Number(r[m] ?? 0), 0));
    }
    // Sessions are distinct per row, so the other row's count is a sum of counts (a session may be in two rows).
    if (!tools && rest.every((r) => r.actual_cost_usd === null)) other.actual_cost_usd = null;
    other.other_rows = rest.length;
    rows.push(other);
  }
  if (sessionKey) {
    // Titles for the rows kept only (after --top): one lookup each.
    const title = db.prepare('SELECT title FROM sessions WHERE store = ? AND session_id = ?').pluck();
    for (const r of rows) if (storeOf.has(r)) r.title = (title.get(storeOf.get(r), r.session_id) as string | null | undefined) ?? null;
  }
  const timeKeys = by.filter((d) => TIME_DIMENSIONS.includes(d));
  rows.sort((a, b) => {
    if (a.other_rows !== undefined) return 1;
    if (b.other_rows !== undefined) return -1;
    for (const t of timeKeys) {
      const x = String(a[t] ?? '');
      const y = String(b[t] ?? '');
      if (x !== y) return x < y ? -1 : 1;
    }
    return costOf(b) - costOf(a) || (keyText(a) < keyText(b) ? -1 : keyText(a) > keyText(b) ? 1 : 0);
  });

  const total = {} as UsageReport['totals'];
  total.sessions = totals.sessions ?? 0;
  for (const m of USAGE_SUMS) total[m] = measure(m, totals[m]);
  total.tool_calls = toolTotals.calls ?? 0;
  total.tool_errors = toolTotals.errors ?? 0;
  return {
    period: { since: since === null ? null : zone.iso(since), until: until === null ? null : zone.iso(until) },
    by, totals: total, rows,
  };
}

/** A summed measure as the report gives it: counts as whole numbers (0 when nothing), costs rounded to 1e-10 (actual may be null). */
function measure(m: string, v: unknown): number | null {
  if (m === 'actual_cost_usd') return v === null || v === undefined ? null : round(Number(v));
  if (m.endsWith('_usd')) return round(Number(v ?? 0));
  return Number(v ?? 0);
}

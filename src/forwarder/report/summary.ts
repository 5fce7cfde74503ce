// The default report (what `hermetic report` shows on a terminal, and what a dashboard's first page would): the
// window's totals, then by day (by month over long windows), by model, by source, and the costliest sessions — all
// from one plan, in one read transaction so every table sees the same dataset (or fleet store).
import type { Db } from '../../shared/sqlite.js';
import { Zone } from '../ledger/zone.js';
import { sqliteDialect, type Dialect } from './dialect.js';
import { windowDays, type Window } from './window.js';
import { checkDimensions, ledgerZone, periodIn, planRows, planTotals, runSqlite, type Plan, type ReportRequest, type UsageReport } from './query.js';

/**
 * Cache reads over all prompt tokens (input, cache read, cache write); null without any. The one definition of the
 * cache-hit rate, for the terminal summary and the dashboard.
 */
export function cacheHitRate(totals: UsageReport['totals']): number | null {
  const prompt = (totals.input_tokens ?? 0) + (totals.cache_read_tokens ?? 0) + (totals.cache_write_tokens ?? 0);
  return prompt > 0 ? (totals.cache_read_tokens ?? 0) / prompt : null;
}

/** More than 62 days (or no start) reads better by month than by day. */
const LONG = 62 * 86400;

export interface SummaryTables {
  totals: UsageReport;
  tables: { title: string; report: UsageReport; omitOther?: boolean }[];
  /** The dataset has no usage at all (not just none in this window). */
  emptyDataset: boolean;
  /** The window its trend compares with (window.ts previousWindow) and that window's totals; none: no trend. */
  previous?: { period: UsageReport['period']; totals: UsageReport['totals'] } | null;
  /** The window's length in days up to now (none without a start): what "a day" averages over. */
  days?: number | null;
}

/** What the summary is asked: a window, and the one its trend compares it with (none: no trend). */
export type SummaryRequest = Pick<ReportRequest, 'since' | 'until' | 'utc' | 'filter' | 'top'> & { before?: Window | null };

/** @example summaryTables(db, { since: now - 30 * 86400, until: now }, now) */
export function summaryTables(db: Db, request: SummaryRequest, now: number, dialect: Dialect = sqliteDialect()): SummaryTables {
  const zone = request.utc ? new Zone('UTC') : ledgerZone(db);
  return db.transaction((): SummaryTables => runSqlite(db, planSummary(request, now, zone, dialect), dialect)).deferred();
}

export function* planSummary(request: SummaryRequest, now: number, zone: Zone, dialect: Dialect): Plan<SummaryTables> {
  const since = request.since ?? null;
  const long = since === null || (request.until ?? now) - since > LONG;
  // The totals once; every table is a grouping of the same window, so they share them.
  const totals = yield* planTotals(request, dialect);
  const period = periodIn(zone, request);
  const report = function* (by: string[], top?: number): Plan<UsageReport> {
    return { period, by: checkDimensions(by), totals, rows: yield* planRows({ ...request, by, top }, totals, dialect, zone) };
  };
  const tables = [
    { title: long ? 'By month' : 'By day', report: yield* report([long ? 'month' : 'day']) },
    // --top sets how many rows each breakdown keeps (the days are all shown).
    { title: 'By model', report: yield* report(['model'], request.top ?? 8) },
    { title: 'By source', report: yield* report(['source'], request.top ?? 8) },
    { title: 'Most expensive sessions', report: yield* report(['session'], request.top ?? 5), omitOther: true },
  ];
  const any = yield { sql: 'SELECT 1 AS one FROM usage_ledger LIMIT 1', params: {} };
  // The trend: the window before (window.ts previousWindow), under the same filter.
  const before = request.before ?? null;
  const previous = before && { period: periodIn(zone, before), totals: yield* planTotals({ ...request, ...before }, dialect) };
  return { totals: yield* report([]), tables, emptyDataset: any.length === 0, previous, days: windowDays(request, now) };
}

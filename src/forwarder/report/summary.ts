// The default report (what `hermetic report` shows on a terminal, and what a dashboard's first page would): the
// window's totals, then by day (by month over long windows), by model, by source, and the costliest sessions — all
// from `usageReport`, in one read transaction so every table sees the same dataset.
import type { Db } from '../../shared/sqlite.js';
import { checkDimensions, reportPeriod, reportRows, reportTotals, type ReportRequest, type UsageReport } from './query.js';

/** More than 62 days (or no start) reads better by month than by day. */
const LONG = 62 * 86400;

export interface SummaryTables {
  totals: UsageReport;
  tables: { title: string; report: UsageReport; omitOther?: boolean }[];
  /** The dataset has no usage at all (not just none in this window). */
  emptyDataset: boolean;
}

/** @example summaryTables(db, { since: now - 30 * 86400, until: now }, now) */
export function summaryTables(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'utc' | 'filter'>, now: number): SummaryTables {
  const since = request.since ?? null;
  const long = since === null || (request.until ?? now) - since > LONG;
  return db.transaction((): SummaryTables => {
    // The totals once; every table is a grouping of the same window, so they share them.
    const totals = reportTotals(db, request);
    const period = reportPeriod(db, request);
    const report = (by: string[], top?: number): UsageReport => ({ period, by: checkDimensions(by), totals, rows: reportRows(db, { ...request, by, top }, totals) });
    return {
      totals: report([]),
      tables: [
        { title: long ? 'By month' : 'By day', report: report([long ? 'month' : 'day']) },
        { title: 'By model', report: report(['model'], 8) },
        { title: 'By source', report: report(['source'], 8) },
        { title: 'Most expensive sessions', report: report(['session'], 5), omitOther: true },
      ],
      emptyDataset: db.prepare('SELECT 1 FROM usage_ledger LIMIT 1').get() === undefined,
    };
  }).deferred();
}

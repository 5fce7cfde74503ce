// How many of the sessions a report counts have no cost at all from Hermes (neither an estimate nor a billed cost:
// a store from before Hermes kept costs, or usage it could not price), so the terminal report does not pass their
// $0.00 off as a measured cost. The embedded dataset only, as row-issues.ts.
import type { Db } from '../../shared/sqlite.js';
import { reportCondition, type ReportRequest } from './query.js';

/** @example uncostedIn(db, { since: now - 7 * 86400 }) // 10: sessions in the window with no cost recorded */
export function uncostedIn(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'filter'>): number {
  const { ledger, params } = reportCondition(request);
  const row = db.prepare(`SELECT COUNT(*) AS n FROM sessions s WHERE s.estimated_cost_usd IS NULL AND s.actual_cost_usd IS NULL
    AND EXISTS (SELECT 1 FROM usage_ledger l WHERE l.store = s.store AND l.session_id = s.session_id AND ${ledger})
    AND NOT EXISTS (SELECT 1 FROM usage_ledger c WHERE c.store = s.store AND c.session_id = s.session_id AND c.cost_usd <> 0)`).get(params) as { n: number };
  return row.n;
}

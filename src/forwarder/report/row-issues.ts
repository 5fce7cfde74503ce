// How many values the forwarder changed or left out (its `row_issues`) in the sessions a report counts, so the
// terminal report says when its figures rest on repaired rows. The embedded dataset only: the fleet store does not
// receive row issues.
import type { Db } from '../../shared/sqlite.js';
import { reportCondition, type ReportRequest } from './query.js';

export interface RowIssueCount {
  /** Values changed or left out. */
  entries: number;
  /** Sessions they are in. */
  sessions: number;
}

/** @example rowIssuesIn(db, { since: now - 7 * 86400 }) // { entries: 3, sessions: 2 } */
export function rowIssuesIn(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'filter'>): RowIssueCount {
  const { ledger, params } = reportCondition(request);
  const row = db.prepare(`SELECT COUNT(*) AS entries, COUNT(DISTINCT r.store || char(0) || r.session_id) AS sessions FROM row_issues r
    WHERE EXISTS (SELECT 1 FROM usage_ledger l WHERE l.store = r.store AND l.session_id = r.session_id AND ${ledger})`).get(params) as RowIssueCount;
  return row;
}

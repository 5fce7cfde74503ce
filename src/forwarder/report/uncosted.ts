// How many of the sessions a report counts have no cost from Hermes (the rule: dataset/uncosted.ts), so the terminal
// report does not pass their $0.00 off as a measured cost. One plan for the embedded dataset and the fleet store
// (decision 0090): a session is told apart by its keys in the dialect (the fleet adds its machine), the window and
// filter are the report's own.
import type { Db } from '../../shared/sqlite.js';
import { uncostedSession } from '../dataset/uncosted.js';
import { sameSession, sqliteDialect, type Dialect } from './dialect.js';
import { reportCondition, runSqlite, type Plan, type ReportRequest } from './query.js';

/**
 * The sessions the report counts in the request's window and filter (a ledger row `l` of theirs matches) with no cost
 * from Hermes (`uncostedSession`) and none of whose ledger rows, in the window or not, has a cost.
 */
export function* planUncosted(request: Pick<ReportRequest, 'since' | 'until' | 'filter'>, dialect: Dialect): Plan<number> {
  const { ledger, params } = reportCondition(request, dialect);
  // The same session as `s`: each key of the dialect on the ledger row equals the session's.
  const same = (alias: string) => sameSession(dialect, alias, 's');
  const [row] = yield {
    sql: `SELECT COUNT(*) AS n FROM sessions s WHERE ${uncostedSession('s')}
    AND EXISTS (SELECT 1 FROM usage_ledger l WHERE ${same('l')} AND ${ledger})
    AND NOT EXISTS (SELECT 1 FROM usage_ledger c WHERE ${same('c')} AND c.cost_usd <> 0)`,
    params,
  };
  // PostgreSQL's COUNT is a bigint, which its driver reads as text.
  return Number(row?.n ?? 0);
}

/** @example uncostedIn(db, { since: now - 7 * 86400 }) // 10: sessions in the window with no cost recorded */
export function uncostedIn(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'filter'>): number {
  const dialect = sqliteDialect();
  return runSqlite(db, planUncosted(request, dialect), dialect);
}

// How many values the forwarder changed or left out (its `row_issues`) in the sessions a report counts, so the
// terminal report and the dashboard say when their figures rest on repaired rows. One plan for the embedded dataset
// and the fleet store, which receives each machine's row issues (decision 0092): a session is its dialect's keys (the
// fleet adds its machine), the window and filter are the report's own.
import type pg from 'pg';
import type { Db } from '../../shared/sqlite.js';
import { fleetTable } from './fleet-table.js';
import { runPostgres } from './postgres.js';
import { sameSession, sessionKeysOn, sqliteDialect, type Dialect } from './dialect.js';
import { reportCondition, runSqlite, type Plan, type ReportRequest } from './query.js';

export interface RowIssueCount {
  /** Values changed or left out. */
  entries: number;
  /** Sessions they are in. */
  sessions: number;
}

/** The row issues of the sessions with a ledger row `l` in the request's window and filter, and how many sessions. */
export function* planRowIssues(request: Pick<ReportRequest, 'since' | 'until' | 'filter'>, dialect: Dialect): Plan<RowIssueCount> {
  const { ledger, params } = reportCondition(request, dialect);
  // One group per session (its keys in the dialect), so both counts come from one pass without gluing keys together.
  const [row] = yield {
    sql: `SELECT COALESCE(SUM(n), 0) AS entries, COUNT(*) AS sessions FROM (SELECT COUNT(*) AS n FROM row_issues r
    WHERE EXISTS (SELECT 1 FROM usage_ledger l WHERE ${sameSession(dialect, 'l', 'r')} AND ${ledger})
    GROUP BY ${sessionKeysOn(dialect, 'r').join(', ')}) g`,
    params,
  };
  // PostgreSQL's COUNT is a bigint and its SUM a numeric, which its driver may read as text.
  return { entries: Number(row?.entries ?? 0), sessions: Number(row?.sessions ?? 0) };
}

/** @example rowIssuesIn(db, { since: now - 7 * 86400 }) // { entries: 3, sessions: 2 } */
export function rowIssuesIn(db: Db, request: Pick<ReportRequest, 'since' | 'until' | 'filter'>, dialect: Dialect = sqliteDialect()): RowIssueCount {
  return runSqlite(db, planRowIssues(request, dialect), dialect);
}

/**
 * The count on the fleet store, in the caller's read transaction; null when the store has no row_issues table yet (no
 * forwarder that ships it has opened the store since it was made: each machine's `hermetic status` has them), or when
 * this role may not read it (`onDenied` gets the GRANT to run; decision 0102): the line is left out, the report stands.
 */
export async function fleetRowIssues(client: pg.PoolClient, request: Pick<ReportRequest, 'since' | 'until' | 'filter'>, dialect: Dialect & { readonly schema: string }, onDenied?: (table: string, grant: string) => void): Promise<RowIssueCount | null> {
  const table = await fleetTable(client, dialect.schema, 'row_issues');
  if (table.state === 'denied') onDenied?.('row_issues', table.grant);
  if (table.state !== 'readable') return null;
  return runPostgres(client, planRowIssues(request, dialect), dialect);
}

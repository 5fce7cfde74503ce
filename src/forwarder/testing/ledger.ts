// Test helpers for the usage ledger (decision 0031): the "adds up" rule checked on a dataset, session by session
// and in total, and the ledger and activity a from-scratch rebuild would write (to hold incremental writes to it).
import type { Db } from '../../shared/sqlite.js';
import { MEASURES, type Measure } from '../ledger/allocate.js';
import { recomputeActivity } from '../sinks/sqlite/activity.js';
import { datasetSetting, LedgerWriter } from '../sinks/sqlite/ledger.js';
import { recountRows } from '../sinks/sqlite/row-counts.js';
import { recomputeToolCalls } from '../sinks/sqlite/tool-calls.js';

const SOURCE: Record<Measure, string> = { api_calls: 'api_call_count', input_tokens: 'input_tokens', output_tokens: 'output_tokens', cache_read_tokens: 'cache_read_tokens', cache_write_tokens: 'cache_write_tokens', reasoning_tokens: 'reasoning_tokens', estimated_cost_usd: 'estimated_cost_usd', actual_cost_usd: 'actual_cost_usd' };
const positive = (c: string) => `MAX(COALESCE(${c}, 0), 0)`;
const isCost = (m: Measure) => m.endsWith('_usd');

/**
 * Every way the ledger fails to add up, as sentences (none when it is right): per session and in total, each
 * measure of `usage_ledger` against the session's counters plus its auxiliary `model_usage` rows (negative counters
 * as 0; an auxiliary billed cost only where Hermes recorded one). Costs compare within 1e-10 dollars a session.
 */
export function ledgerDiscrepancies(db: Db): string[] {
  const problems: string[] = [];
  const sessions = db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number;
  const aux = (m: Measure) => (m === 'actual_cost_usd'
    ? `CASE WHEN actual_cost_usd > 0 OR cost_status = 'actual' THEN ${positive('actual_cost_usd')} ELSE 0 END`
    : positive(SOURCE[m]));
  for (const m of MEASURES) {
    const rows = db.prepare(`
      WITH want AS (
        SELECT store, session_id, SUM(v) AS v FROM (
          SELECT store, session_id, ${positive(SOURCE[m])} AS v FROM sessions
          UNION ALL SELECT store, session_id, ${aux(m)} FROM model_usage WHERE in_session_totals = 0 AND EXISTS (SELECT 1 FROM sessions s WHERE s.store = model_usage.store AND s.session_id = model_usage.session_id)
        ) GROUP BY store, session_id),
      got AS (SELECT store, session_id, TOTAL(${m}) AS v FROM usage_ledger GROUP BY store, session_id)
      SELECT w.session_id AS id, w.v AS want, COALESCE(g.v, 0) AS got FROM want w LEFT JOIN got g USING (store, session_id)
      UNION ALL SELECT g.session_id, 0, g.v FROM got g WHERE NOT EXISTS (SELECT 1 FROM want w WHERE w.store = g.store AND w.session_id = g.session_id)`).all() as { id: string; want: number; got: number }[];
    let want = 0;
    let got = 0;
    for (const r of rows) {
      want += r.want;
      got += r.got;
      const off = isCost(m) ? Math.abs(r.want - r.got) > 1e-10 + 1e-12 * Math.abs(r.want) : r.want !== r.got;
      if (off) problems.push(`session ${r.id}: ${m} ${r.got} in the ledger, ${r.want} in the counters`);
    }
    if (isCost(m) ? Math.abs(want - got) > 1e-10 * (sessions + 1) + 1e-12 * Math.abs(want) : want !== got) problems.push(`total ${m}: ${got} in the ledger, ${want} in the counters`);
  }
  const orphans = db.prepare('SELECT COUNT(*) FROM usage_ledger l WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.store = l.store AND s.session_id = l.session_id)').pluck().get() as number;
  if (orphans > 0) problems.push(`${orphans} ledger rows of sessions the dataset does not have`);
  const missing = db.prepare('SELECT COUNT(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM usage_ledger l WHERE s.store = l.store AND s.session_id = l.session_id)').pluck().get() as number;
  if (missing > 0) problems.push(`${missing} sessions without a ledger row`);
  return problems;
}

const dump = (db: Db, table: string, order: string) => db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();

/**
 * The ledger, tool usage and activity tables, the kept tool calls and row counts, as they are and as a rebuild from
 * scratch makes them (rolled back): incremental writes must leave the first equal to the second.
 */
export function ledgerAgainstRebuild(db: Db): { now: unknown; rebuilt: unknown } {
  const read = () => ({
    ledger: dump(db, 'usage_ledger', 'store, session_id, at, task, basis, model, provider_key'),
    tools: dump(db, 'tool_usage', 'store, session_id, at, tool_name'),
    activity: dump(db, 'session_activity', 'store, session_id, quarter'),
    toolActivity: dump(db, 'tool_activity', 'store, session_id, quarter, tool_name'),
    toolCalls: dump(db, 'tool_calls', 'store, session_id, call_id'),
    rowCounts: dump(db, 'row_counts', 'tbl'),
  });
  const now = read();
  let rebuilt: unknown = null;
  const rollback = new Error('rollback');
  try {
    db.transaction(() => {
      recomputeActivity(db);
      recomputeToolCalls(db);
      new LedgerWriter(db, datasetSetting(db, 'ledger_time_zone') ?? 'UTC').rebuildAll();
      recountRows(db);
      rebuilt = read();
      throw rollback;
    })();
  } catch (e) {
    if (e !== rollback) throw e;
  }
  return { now, rebuilt };
}

// The report's plans (query.ts, summary.ts) driven on PostgreSQL: each statement of a plan run on a connection the
// caller opened (sinks/postgres/read.ts: a read-only transaction on the fleet schema), rows handed back to the plan.
import type pg from 'pg';
import type { Zone } from '../ledger/zone.js';
import { commandScratch } from './commands.js';
import type { Dialect } from './dialect.js';
import { planReport, type Plan, type ReportRequest, type UsageReport } from './query.js';

/** Runs a plan on PostgreSQL (inside the caller's transaction). */
export async function runPostgres<T>(client: pg.PoolClient, plan: Plan<T>, dialect: Dialect): Promise<T> {
  let step = plan.next();
  while (!step.done) {
    const { sql, values } = dialect.bind(step.value.sql, step.value.params);
    step = plan.next((await client.query(sql, values as unknown[])).rows as Record<string, unknown>[]);
  }
  return step.value;
}

/**
 * What a report asks of the fleet store's reader (sinks/postgres/read.ts `FleetReader`, which reports do not import):
 * one read in one transaction, with temporary tables of its own made before it turns read-only.
 */
export interface FleetReads {
  read<T>(fn: (client: pg.PoolClient, dialect: Dialect) => Promise<T>, options?: { scratch?: (dialect: Dialect) => readonly string[] }): Promise<T>;
}

/**
 * A usage report of the fleet store, read in one transaction of its own; by command, the read makes its table of the
 * window's terminal calls first (commands.ts `commandScratch`), so they are gathered once, not once per statement.
 */
export function fleetUsageReport(fleet: FleetReads, request: ReportRequest, zone: Zone): Promise<UsageReport> {
  const scratch = request.by?.includes('command') ? { scratch: commandScratch } : {};
  return fleet.read((c, d) => runPostgres(c, planReport(request, zone, d), d), scratch);
}

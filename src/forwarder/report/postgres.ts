// The report's plans (query.ts, summary.ts) driven on PostgreSQL: each statement of a plan run on a connection the
// caller opened (sinks/postgres/read.ts: a read-only transaction on the fleet schema), rows handed back to the plan.
import type pg from 'pg';
import type { Dialect } from './dialect.js';
import type { Plan } from './query.js';

/** Runs a plan on PostgreSQL (inside the caller's transaction). */
export async function runPostgres<T>(client: pg.PoolClient, plan: Plan<T>, dialect: Dialect): Promise<T> {
  let step = plan.next();
  while (!step.done) {
    const { sql, values } = dialect.bind(step.value.sql, step.value.params);
    step = plan.next((await client.query(sql, values as unknown[])).rows as Record<string, unknown>[]);
  }
  return step.value;
}

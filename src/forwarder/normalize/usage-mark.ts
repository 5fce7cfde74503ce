// A session's per-model usage in one short string: rows, then the sums of calls, the five token counters and both
// costs, then the newest last_seen. The reader computes it for every session in SQL, the projector from the rows it
// read, and the same rows give the same string: costs are summed in whole 1e-10 dollars (each row rounded as SQLite's
// ROUND does), so every sum is of integers and exact in either order.

/** The summed columns, in the mark's order. */
export const USAGE_MARK_SUMS = ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;
export const USAGE_MARK_COSTS = ['estimated_cost_usd', 'actual_cost_usd'] as const;
const UNITS = 1e10;

/**
 * Said after the mark of a store that has newer Hermes's per-call table (decision 0112): a session forwarded before
 * the forwarder read that table (or before Hermes wrote it) has a mark without it, and is read again once.
 */
export const CALLS_MARK = '+calls';

export function usageMark(rows: number, sums: readonly number[], lastSeen: number | null): string {
  return rows === 0 ? '' : `${rows}/${sums.join(',')}/${lastSeen ?? ''}`;
}

/** The SQL aggregates of the mark over `session_model_usage` (a column the store lacks sums to 0), before MAX(last_seen). */
export function usageMarkSql(has: (column: string) => boolean): string {
  const sums = USAGE_MARK_SUMS.map((c) => (has(c) ? `TOTAL("${c}")` : '0'));
  const costs = USAGE_MARK_COSTS.map((c) => (has(c) ? `TOTAL(ROUND("${c}" * ${UNITS}))` : '0'));
  return [...sums, ...costs].join(', ');
}

/** SQLite's ROUND(r) for |r| below 2^63: half away from zero. */
function sqliteRound(r: number): number {
  return r >= 0 ? Math.trunc(r + 0.5) : -Math.trunc(-r + 0.5);
}

/** The mark of a session's `session_model_usage` rows as read. */
export function usageMarkOf(usage: readonly Readonly<Record<string, unknown>>[]): string {
  const sums: number[] = new Array(USAGE_MARK_SUMS.length + USAGE_MARK_COSTS.length).fill(0);
  let last: number | null = null;
  for (const u of usage) {
    USAGE_MARK_SUMS.forEach((c, i) => {
      const v = u[c];
      if (typeof v === 'number') sums[i]! += v;
    });
    USAGE_MARK_COSTS.forEach((c, i) => {
      const v = u[c];
      if (typeof v === 'number') sums[USAGE_MARK_SUMS.length + i]! += sqliteRound(v * UNITS);
    });
    if (typeof u.last_seen === 'number' && (last === null || u.last_seen > last)) last = u.last_seen;
  }
  return usageMark(usage.length, sums, last);
}

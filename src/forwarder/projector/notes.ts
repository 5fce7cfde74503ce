// Problems with a session's own row and its usage rows (issue 16 §5): a BLOB where text belongs, a counter that is
// negative or not a number. Each is a row_issues entry with message_id 0; the value kept is said in the problem.
import type { RecordOf } from '../dataset/columns.js';
import { count, num, numOrNull, SESSION_TEXT_COLUMNS, textColumns, validDay, validEpoch, type Row, type TextProblem } from '../normalize/index.js';

/** Counters and costs of a session row, and of its usage rows. */
const SESSION_NUMBERS = ['message_count', 'tool_call_count', 'api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'rewind_count'] as const;
const USAGE_NUMBERS = ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'] as const;

/** A stored value as an issue's text names it: a short quoted text, a BLOB by its size, else as itself. */
export const shown = (v: unknown): string => (v instanceof Uint8Array ? `a ${v.length}-byte BLOB` : typeof v === 'string' ? JSON.stringify(v.length > 30 ? `${v.slice(0, 29)}…` : v) : String(v));

const COSTS = new Set(['estimated_cost_usd', 'actual_cost_usd']);
/** The most the usage ledger holds of a cost: 2^53 - 1 units of 1e-10 dollars (ledger/allocate.ts `units`). */
const MAX_COST = Number.MAX_SAFE_INTEGER / 1e10;

/**
 * A counter or cost as the usage ledger counts it (what counterProblem says of a value stored otherwise): whole tokens
 * within 2^53 − 1, costs up to what it holds in units of 1e-10 dollars; always finite.
 */
export const ledgerCount = (column: string, v: unknown): number => (COSTS.has(column) ? Math.max(-MAX_COST, Math.min(MAX_COST, num(v))) : count(v));

/**
 * A counter's problem: not a number (it counts as 0), below 0 (kept as stored), or a value the usage ledger cannot
 * count as stored — a fraction of a token (rounded), or more than it counts exactly (capped).
 */
function counterProblem(v: unknown, column: string): string | null {
  if (v === null || v === undefined) return null;
  const n = numOrNull(v);
  if (n === null || !Number.isFinite(n)) return `is ${shown(v)}, not a number; 0 is used`;
  if (n < 0) return `is ${n}, below 0; kept as stored (the usage ledger counts a drop as 0)`;
  if (COSTS.has(column)) {
    return Math.round(n * 1e10) > Number.MAX_SAFE_INTEGER ? `is ${n}, more than the usage ledger holds; it counts ${MAX_COST}` : null;
  }
  if (n > Number.MAX_SAFE_INTEGER) return `is ${n}, more than is counted exactly; the usage ledger counts ${Number.MAX_SAFE_INTEGER}`;
  if (!Number.isInteger(n)) return `is ${n}, not a whole number; the usage ledger counts ${Math.round(n)}`;
  return null;
}

/** The session row with BLOB text decoded, and every problem of it and of its usage rows. */
export function sessionNotes(session: Row, modelUsage: readonly Row[], dailyUsage: readonly Row[]): { session: Row; problems: TextProblem[] } {
  const { row, problems } = textColumns(session, SESSION_TEXT_COLUMNS);
  const out = [...problems];
  for (const c of SESSION_NUMBERS) {
    const p = counterProblem(session[c], c);
    if (p) out.push({ field: c, problem: `${c} ${p}` });
  }
  const rows = (table: string, list: readonly Row[], label: (r: Row) => string) => {
    for (const c of USAGE_NUMBERS) {
      const bad = list.flatMap((r) => { const p = counterProblem(r[c], c); return p ? [`${label(r)}: ${c} ${p}`] : []; });
      if (bad.length) out.push({ field: `${table}.${c}`, problem: bad.join('; ') });
    }
  };
  rows('session_model_usage', modelUsage, (r) => `model ${String(r.model)}${r.task ? `, task ${String(r.task)}` : ''}`);
  rows('session_daily_usage', dailyUsage, (r) => `day ${String(r.day)}`);
  const badDays = dailyUsage.filter((r) => !validDay(r.day)).map((r) => shown(r.day));
  if (badDays.length) out.push({ field: 'session_daily_usage.day', problem: `day ${badDays.join(', ')} is not a date; its usage is spread over the session's activity as usage without a day is` });
  const badTimes = modelUsage.flatMap((r) => (['first_seen', 'last_seen'] as const)
    .filter((c) => r[c] !== null && r[c] !== undefined && !validEpoch(r[c]))
    .map((c) => `model ${String(r.model)}${r.task ? `, task ${String(r.task)}` : ''}: ${c} ${shown(r[c])}`));
  if (badTimes.length) out.push({ field: 'session_model_usage.first_seen', problem: `${badTimes.join('; ')} is not a plausible time; the route is placed by its other time, else at the session's last activity` });
  return { session: row, problems: out };
}

/** Issue records, one per (message, field): problems of one field are joined (the table's key allows one). */
export function issueRecords(store: string, sessionId: string, issues: readonly { messageId: number | null; field: string; problem: string }[]): RecordOf[] {
  if (issues.length === 0) return [];
  const byKey = new Map<string, RecordOf>();
  for (const i of issues) {
    const messageId = i.messageId ?? 0;
    const key = `${messageId}\u0000${i.field}`;
    const had = byKey.get(key);
    if (had) had.problem = `${had.problem as string}; ${i.problem}`;
    else byKey.set(key, { store, session_id: sessionId, message_id: messageId, field: i.field, problem: i.problem });
  }
  return [...byKey.values()];
}

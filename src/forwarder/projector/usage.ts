// The usage ledger (spec forwarding §6.2 item 13): from the last counters the ledger saw and the session row now,
// the change as one `usage_events` record, and the ledger's next state. Pure; the same inputs give the same event.
import type { RecordOf } from '../dataset/columns.js';
import { ledgerCount } from './notes.js';

export const LEDGER_FIELDS = ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'] as const;
export type LedgerField = (typeof LEDGER_FIELDS)[number];

/** What the ledger last saw of a session: its cumulative counters and the last event's sequence number. */
export interface Ledger {
  seq: number;
  counters: Record<LedgerField, number>;
}

const round = (v: number) => Math.round(v * 1e12) / 1e12;

export interface UsageContext {
  store: string;
  sessionId: string;
  observedAt: number;
  model: string | null;
  provider: string;
  costStatus: string | null;
  costSource: string | null;
  billingMode: string | null;
  origin: 'backfill' | 'forward';
}

/**
 * @example usageEvent(null, { input_tokens: 10, output_tokens: 2 }, ctx) // one event of +10/+2, ledger seq 1
 */
export function usageEvent(prev: Ledger | null, session: Readonly<Record<string, unknown>>, ctx: UsageContext): { event: RecordOf | null; next: Ledger } {
  // What the ledger counts (notes.ts ledgerCount), so every event is finite.
  const now = Object.fromEntries(LEDGER_FIELDS.map((f) => [f, ledgerCount(f, session[f])])) as Record<LedgerField, number>;
  const before = prev?.counters ?? (Object.fromEntries(LEDGER_FIELDS.map((f) => [f, 0])) as Record<LedgerField, number>);
  let clamped = 0;
  let changed = false;
  const delta = {} as Record<LedgerField, number>;
  for (const f of LEDGER_FIELDS) {
    const d = round(now[f] - before[f]);
    if (d !== 0) changed = true;
    if (d < 0) clamped = 1;
    delta[f] = Math.max(0, d);
  }
  if (!changed) return { event: null, next: prev ?? { seq: 0, counters: now } };
  const seq = (prev?.seq ?? 0) + 1;
  const event: RecordOf = {
    store: ctx.store, session_id: ctx.sessionId, event_id: `hermes-${ctx.sessionId}-usage-${seq}`, seq, observed_at: ctx.observedAt,
    model: ctx.model, provider: ctx.provider, ...delta, cost_status: ctx.costStatus, cost_source: ctx.costSource,
    billing_mode: ctx.billingMode, clamped, origin: ctx.origin,
  };
  return { event, next: { seq, counters: now } };
}

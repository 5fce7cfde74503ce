// Token accounting (spec state-db §8): update_token_counts in delta and absolute modes, session_model_usage
// upserts per route and task, record_auxiliary_usage, and the post-v30 session_daily_usage ledger.
import type { StateDbWriter } from './index.js';
import { USAGE_EVENTS_TABLE } from '../schema/usage-events.js';
import { COUNTERS, type Usage } from './types.js';

const n = (v: number | undefined | null) => v ?? 0;

/** A usage write before create_session leaves a placeholder row (source 'unknown'), repaired on create. */
function ensureSession(w: StateDbWriter, sessionId: string): void {
  w.insert('sessions', { id: sessionId, source: 'unknown', started_at: w.now() }, 'INSERT OR IGNORE');
}

const COST_KEPT = ['cost_status', 'cost_source', 'pricing_version'] as const;
const BILLING_FIRST = ['billing_provider', 'billing_base_url', 'billing_mode'] as const;
/** A session's route: its model and billing fields. */
const ROUTE_COLUMNS = ['model', ...BILLING_FIRST];

/** The columns of `sessions` among `names` that this store has, for a SELECT list (`1` when none is there). */
function sessionColumns(w: StateDbWriter, names: readonly string[]): string {
  const have = w.columns('sessions');
  const kept = [...new Set(names)].filter((c) => have.has(c));
  return kept.length > 0 ? kept.join(', ') : '1 AS none';
}

/**
 * update_token_counts's UPDATE for the store's columns in one mode: which values it takes (in this order), and the
 * statement, whose SQL is built once per writer and mode (a generated store runs it for every API call).
 */
function countsUpdate(w: StateDbWriter, mode: 'delta' | 'absolute') {
  const cols = w.columns('sessions');
  const counters = COUNTERS.filter((c) => cols.has(c));
  const calls = cols.has('api_call_count');
  const cost = cols.has('estimated_cost_usd');
  const stmt = w.prepared(`\0update_token_counts ${mode}`, () => {
    const set = counters.map((c) => (mode === 'delta' ? `${c} = COALESCE(${c}, 0) + ?` : `${c} = ?`));
    if (calls) set.push(mode === 'delta' ? 'api_call_count = COALESCE(api_call_count, 0) + ?' : 'api_call_count = ?');
    if (cost) {
      if (mode === 'delta') {
        set.push('estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + ?');
        set.push('actual_cost_usd = CASE WHEN ? IS NULL THEN actual_cost_usd ELSE COALESCE(actual_cost_usd, 0) + ? END');
      } else {
        // Hermes's absolute UPDATE sets the estimate to COALESCE(?, 0): a report without one resets it to 0.
        set.push('estimated_cost_usd = COALESCE(?, 0)', 'actual_cost_usd = COALESCE(?, actual_cost_usd)');
      }
      for (const c of COST_KEPT) set.push(`${c} = COALESCE(?, ${c})`);
      for (const c of BILLING_FIRST) set.push(`${c} = COALESCE(${c}, ?)`);
    }
    set.push('model = COALESCE(model, ?)');
    return `UPDATE sessions SET ${set.join(', ')} WHERE id = ?`;
  });
  return { counters, calls, cost, stmt };
}

/**
 * update_token_counts. Delta (CLI per-call path) adds to the counters and upserts session_model_usage; absolute
 * (gateway path) overwrites with cumulative totals, which may go down after an agent restart. A `task` (newer Hermes:
 * `voice_chat`, a voice turn on its own route) counts in the session's counters like any delta, and its
 * session_model_usage row carries the task and never falls back to the session's model.
 */
export function updateTokenCounts(w: StateDbWriter, sessionId: string, u: Usage, mode: 'delta' | 'absolute' = 'delta', task = ''): void {
  w.tx(() => {
    ensureSession(w, sessionId);
    const { counters, calls: hasCalls, cost, stmt } = countsUpdate(w, mode);
    const calls = u.api_calls ?? (mode === 'delta' ? 1 : 0);
    // Absolute totals are compared with what the row held before them (the daily ledger takes the increase); the route
    // decides whether this call replaces it. Only those columns: a row's system prompt is kilobytes, read per API call.
    const before = (w.prepared(`\0usage before ${mode}`, () => `SELECT ${sessionColumns(w, [...(mode === 'absolute' ? [...counters, 'estimated_cost_usd', 'actual_cost_usd'] : []), 'api_call_count', 'model', 'billing_provider'])} FROM sessions WHERE id = ?`)
      .get(sessionId) ?? {}) as Record<string, number | null>;
    // Hermes fills the route and model only from a call that accounted something, and the first such call with a
    // model and a provider other than the row's replaces the route create_session recorded (a fallback took over).
    const accounted = counters.some((c) => n(u[c]) !== 0) || calls !== 0 || n(u.estimated_cost_usd) !== 0 || n(u.actual_cost_usd) !== 0;
    const route = (v: string | null | undefined) => (accounted ? v ?? null : null);
    if (accounted && u.model && u.billing_provider && hasCalls && w.has('sessions', 'billing_provider') && n(before.api_call_count) === 0
      && ((before.model as unknown) !== u.model || (before.billing_provider as unknown) !== u.billing_provider)) {
      w.stmt('UPDATE sessions SET model = ?, billing_provider = ?, billing_base_url = ?, billing_mode = ? WHERE id = ?')
        .run(u.model, u.billing_provider, u.billing_base_url ?? null, u.billing_mode ?? null, sessionId);
    }
    // In countsUpdate's order of clauses.
    const args: unknown[] = counters.map((c) => n(u[c]));
    if (hasCalls) args.push(calls);
    if (cost) {
      if (mode === 'delta') args.push(n(u.estimated_cost_usd), u.actual_cost_usd ?? null, u.actual_cost_usd ?? null);
      else args.push(u.estimated_cost_usd ?? null, u.actual_cost_usd ?? null);
      for (const c of COST_KEPT) args.push(u[c] ?? null);
      for (const c of BILLING_FIRST) args.push(route(u[c]));
    }
    args.push(route(u.model), sessionId);
    stmt.run(args);
    if (mode === 'delta') {
      if (!accounted) return;
      // Hermes reads the session's route after the UPDATE above, so a call's own route fills what it left empty (read
      // only when the call left a part of its route empty).
      const whole = u.model && u.billing_provider && u.billing_base_url && u.billing_mode;
      const after = task || whole ? null : w.prepared('\0usage route', () => `SELECT ${sessionColumns(w, ROUTE_COLUMNS)} FROM sessions WHERE id = ?`).get(sessionId) as SessionRoute;
      upsertModelUsage(w, sessionId, u, task, calls, after);
      addDailyUsage(w, sessionId, u, calls);
    } else {
      // The daily ledger only ever grows: absolute totals contribute their positive difference.
      const diff: Usage = {};
      for (const c of counters) diff[c] = Math.max(0, n(u[c]) - n(before[c]));
      const est = Math.max(0, n(u.estimated_cost_usd) - n(before.estimated_cost_usd));
      const act = Math.max(0, n(u.actual_cost_usd) - n(before.actual_cost_usd));
      addDailyUsage(w, sessionId, { ...diff, estimated_cost_usd: est, actual_cost_usd: act },
        Math.max(0, calls - n(before.api_call_count)));
    }
  });
}

/** record_auxiliary_usage: a side task's call (title_generation, compression, vision...) touches only the per-task rows. */
export function recordAuxiliaryUsage(w: StateDbWriter, sessionId: string, task: string, u: Usage): void {
  w.tx(() => {
    ensureSession(w, sessionId);
    upsertModelUsage(w, sessionId, u, task, u.api_calls ?? 1, null);
  });
}

type SessionRoute = { model?: string | null; billing_provider?: string | null; billing_base_url?: string | null; billing_mode?: string | null };

/**
 * A session_model_usage upsert. Route fields the call left empty come from `session` (the main loop: the session's
 * own route, as Hermes's `_record_model_usage` reads it) or stay empty (a task's row never borrows the session's
 * route); a model still missing is `unknown`.
 */
function upsertModelUsage(w: StateDbWriter, sessionId: string, u: Usage, task: string, calls: number, session: SessionRoute | null): void {
  if (!w.has('session_model_usage')) return;
  const hasTask = w.has('session_model_usage', 'task');
  if (task && !hasTask) return;
  const now = w.now();
  const key = ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', ...(hasTask ? ['task'] : [])];
  const route = (field: keyof SessionRoute, missing: string) => u[field] || session?.[field] || missing;
  const row: Record<string, unknown> = {
    session_id: sessionId, model: route('model', 'unknown'), billing_provider: route('billing_provider', ''),
    billing_base_url: route('billing_base_url', ''), billing_mode: route('billing_mode', ''), api_call_count: calls,
    input_tokens: n(u.input_tokens), output_tokens: n(u.output_tokens), cache_read_tokens: n(u.cache_read_tokens),
    cache_write_tokens: n(u.cache_write_tokens), reasoning_tokens: n(u.reasoning_tokens),
    estimated_cost_usd: n(u.estimated_cost_usd), actual_cost_usd: n(u.actual_cost_usd),
    cost_status: u.cost_status ?? null, cost_source: u.cost_source ?? null, first_seen: now, last_seen: now,
  };
  if (hasTask) row.task = task;
  const keys = Object.keys(row);
  const stmt = w.prepared('\0session_model_usage upsert', () => {
    const adds = ['api_call_count', ...COUNTERS, 'estimated_cost_usd', 'actual_cost_usd'];
    return `INSERT INTO session_model_usage (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})
    ON CONFLICT(${key.join(', ')}) DO UPDATE SET ${adds.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')},
    cost_status = COALESCE(excluded.cost_status, cost_status), cost_source = COALESCE(excluded.cost_source, cost_source),
    last_seen = excluded.last_seen`;
  });
  stmt.run(keys.map((k) => row[k]));
  addUsageEvent(w, row);
}

/**
 * Newer Hermes's per-call row (decision 0112): where the store has `session_model_usage_events`, each upsert above
 * also records the call with its time, on the same route and task.
 */
function addUsageEvent(w: StateDbWriter, row: Record<string, unknown>): void {
  if (!w.has(USAGE_EVENTS_TABLE)) return;
  const cols = ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task', 'api_call_count', ...COUNTERS, 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'cost_source'] as const;
  w.prepared('\0usage event', () => `INSERT INTO ${USAGE_EVENTS_TABLE} (recorded_at, ${cols.join(', ')}) VALUES (?, ${cols.map(() => '?').join(', ')})`)
    .run(row.last_seen, ...cols.map((c) => row[c] ?? (c === 'task' ? '' : null)));
}

function addDailyUsage(w: StateDbWriter, sessionId: string, u: Usage, calls: number): void {
  if (!w.has('session_daily_usage')) return;
  const vals = DAILY_ADDS.map((c) => (c === 'api_call_count' ? calls : n(u[c])));
  const stmt = w.prepared('\0session_daily_usage upsert', () => {
    const modifier = w.dayIn === 'localtime' ? ", 'localtime'" : '';
    return `INSERT INTO session_daily_usage (session_id, day, ${DAILY_ADDS.join(', ')})
    VALUES (?, date(?, 'unixepoch'${modifier}), ${DAILY_ADDS.map(() => '?').join(', ')})
    ON CONFLICT(session_id, day) DO UPDATE SET ${DAILY_ADDS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;
  });
  stmt.run(sessionId, w.now(), ...vals);
}

const DAILY_ADDS = [...COUNTERS, 'estimated_cost_usd', 'actual_cost_usd', 'api_call_count'] as const;

// Background subagent dispatches as Hermes's delegation tool keeps them in `async_delegations` (tools/async_delegation.py,
// as read in the research notes): one row per dispatch (`running`, delivery `pending`), the completion written over it,
// delivery claimed, released, dropped or done, owners that died recovered as `unknown`, and the ledger pruned after
// every dispatch (delivered rows older than 7 days, at most 50 finished rows delivered or dropped, at most 1,000
// finished rows still pending). Each call is one transaction; none touches `sessions` or `messages`.
import { dumps as pyJson } from '../../shared/python/index.js';
import type { StateDbWriter } from './index.js';
import { jsonObject, type JsonObject } from './json.js';

/** What dispatch_async_delegation(_batch) records: the task and where it came from. */
export interface DelegationInput {
  /** Default `deleg_` and 12 hex digits from the writer's id source. */
  delegation_id?: string;
  /** The parent agent's `sessions.id`. */
  parent_session_id?: string | null;
  /** The gateway routing key the result goes back to (`''` on the CLI). */
  origin_session?: string;
  origin_ui_session_id?: string;
  origin_session_id?: string;
  /** One goal, or several for a batch (the record's `goal` is then `<n> tasks`). */
  goals: string[];
  context?: string | null;
  toolsets?: string[];
  role?: string;
  model?: string | null;
  owner_pid?: number | null;
  owner_started_at?: number | null;
  /** Epoch seconds (default the writer's clock). */
  at?: number;
}

/** What a finished child reported (one per goal of a batch). */
export interface DelegationChild {
  status?: string;
  summary?: string | null;
  error?: string | null;
  api_calls?: number;
  duration_seconds?: number;
  exit_reason?: string | null;
}

export interface DelegationOutcome {
  /** `completed`, `error`, `interrupted`, `stalled`, `timeout`… (default `completed`). */
  status?: string;
  summary?: string | null;
  error?: string | null;
  api_calls?: number;
  exit_reason?: string | null;
  /** A batch's children (result_json `results`); a single task's result is its own fields. */
  results?: DelegationChild[];
  at?: number;
}

/** Delivery attempts after which a released claim drops the result (Hermes's _MAX_DELIVERY_ATTEMPTS). */
export const MAX_DELIVERY_ATTEMPTS = 8;
const WEEK = 7 * 86400;
const KEEP_FINISHED = 50;
const KEEP_PENDING = 1000;
/** States a row is still in flight in (prune and recovery leave them alone). */
const IN_FLIGHT = "('running', 'finalizing')";

type Json = JsonObject;

function table(w: StateDbWriter): void {
  if (!w.has('async_delegations')) throw new Error('this store has no async_delegations table (Hermes schema 24 added it)');
}

function row(w: StateDbWriter, id: string): Record<string, unknown> {
  const r = w.stmt('SELECT * FROM async_delegations WHERE delegation_id = ?').get(id) as Record<string, unknown> | undefined;
  if (!r) throw new Error(`no async delegation ${id}`);
  return r;
}

/** _persist_dispatch: the row Hermes writes when it hands a task to a background subagent, then the prune. */
export function dispatchDelegation(w: StateDbWriter, input: DelegationInput): string {
  table(w);
  return w.tx(() => {
    const at = input.at ?? w.now();
    const id = input.delegation_id ?? `deleg_${w.ids.uuid4Hex().slice(0, 12)}`;
    const goals = input.goals;
    const task: Json = {
      goal: goals.length === 1 ? goals[0]! : `${goals.length} tasks`, goals, context: input.context ?? null,
      toolsets: input.toolsets ?? ['terminal', 'file'], role: input.role ?? 'leaf', model: input.model ?? null, is_batch: goals.length > 1,
    };
    w.insert('async_delegations', {
      delegation_id: id, origin_session: input.origin_session ?? '', origin_ui_session_id: input.origin_ui_session_id ?? '',
      parent_session_id: input.parent_session_id ?? null, state: 'running', dispatched_at: at, updated_at: at,
      delivery_state: 'pending', delivery_attempts: 0, owner_pid: input.owner_pid ?? 4242, owner_started_at: input.owner_started_at ?? 123456,
      task_json: pyJson(task), origin_session_id: input.origin_session_id ?? '',
    }, 'INSERT OR REPLACE');
    pruneDelegations(w, at);
    return id;
  });
}

/** _persist_completion: the terminal state, the completion event and the raw result; delivery pending again. */
export function completeDelegation(w: StateDbWriter, id: string, outcome: DelegationOutcome = {}): void {
  table(w);
  w.tx(() => {
    const at = outcome.at ?? w.now();
    const r = row(w, id);
    const task = jsonObject(r.task_json);
    const status = outcome.status ?? 'completed';
    const dispatched = typeof r.dispatched_at === 'number' ? r.dispatched_at : at;
    const duration = Math.round((at - dispatched) * 100) / 100;
    const event: Json = {
      type: 'async_delegation', delegation_id: id, session_key: String(r.origin_session ?? ''),
      origin_ui_session_id: String(r.origin_ui_session_id ?? ''), origin_session_id: String(r.origin_session_id ?? ''),
      parent_session_id: (r.parent_session_id as string | null) ?? null, goal: task.goal ?? null, context: task.context ?? null,
      toolsets: task.toolsets ?? [], role: task.role ?? 'leaf', model: task.model ?? null, status,
      summary: outcome.summary ?? null, error: outcome.error ?? null, api_calls: outcome.api_calls ?? 0, duration_seconds: duration,
      dispatched_at: dispatched, completed_at: at, exit_reason: outcome.exit_reason ?? (status === 'completed' ? 'completed' : status),
    };
    let result: Json;
    if (outcome.results) {
      const results = outcome.results.map((c, i): Json => ({
        task_index: i, status: c.status ?? 'completed', summary: c.summary ?? null, error: c.error ?? null,
        exit_reason: c.exit_reason ?? 'completed', api_calls: c.api_calls ?? 0, duration_seconds: c.duration_seconds ?? duration,
      }));
      Object.assign(event, { is_batch: true, goals: task.goals ?? [], results });
      result = { results, total_duration_seconds: duration };
    } else {
      result = { status, summary: outcome.summary ?? null, error: outcome.error ?? null, exit_reason: event.exit_reason!, api_calls: outcome.api_calls ?? 0, duration_seconds: duration };
    }
    w.stmt("UPDATE async_delegations SET state = ?, completed_at = ?, updated_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending' WHERE delegation_id = ?")
      .run(status, at, at, pyJson(event), pyJson(result), id);
  });
}

/**
 * claim_completion_delivery: a consumer takes the pending result (a claim older than 5 minutes is taken over); one
 * attempt more. The claim's text (`<consumer>:<pid>:<uuid>`), or null when the row is not there to claim.
 */
export function claimDelegationDelivery(w: StateDbWriter, id: string, options: { consumer?: string; at?: number; token?: string } = {}): string | null {
  table(w);
  return w.tx(() => {
    const at = options.at ?? w.now();
    const claim = `${options.consumer ?? 'gateway'}:4242:${options.token ?? w.ids.uuid4Hex()}`;
    const claimed = w.has('async_delegations', 'delivery_claim')
      ? w.stmt("UPDATE async_delegations SET delivery_claim = ?, delivery_claimed_at = ?, delivery_attempts = delivery_attempts + 1, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending' AND (delivery_claim IS NULL OR delivery_claimed_at < ?)").run(claim, at, at, id, at - 300).changes
      : w.stmt("UPDATE async_delegations SET delivery_attempts = delivery_attempts + 1, updated_at = ? WHERE delegation_id = ? AND delivery_state = 'pending'").run(at, id).changes;
    return claimed > 0 ? claim : null;
  });
}

/** release_completion_delivery: the delivery failed; the claim goes, and past the attempts allowed the result is dropped. */
export function releaseDelegationDelivery(w: StateDbWriter, id: string): void {
  table(w);
  w.tx(() => {
    const claim = w.has('async_delegations', 'delivery_claim') ? ', delivery_claim = NULL, delivery_claimed_at = NULL' : '';
    w.stmt(`UPDATE async_delegations SET delivery_state = CASE WHEN delivery_attempts >= ? THEN 'dropped' ELSE delivery_state END${claim} WHERE delegation_id = ? AND delivery_state = 'pending'`).run(MAX_DELIVERY_ATTEMPTS, id);
  });
}

/** complete_completion_delivery: the result reached the parent's chat. */
export function markDelegationDelivered(w: StateDbWriter, id: string, at = w.now()): void {
  table(w);
  w.tx(() => {
    const claim = w.has('async_delegations', 'delivery_claim') ? ', delivery_claim = NULL, delivery_claimed_at = NULL' : '';
    w.stmt(`UPDATE async_delegations SET delivery_state = 'delivered', delivered_at = ?${claim} WHERE delegation_id = ?`).run(at, id);
  });
}

/** drop_completion_delivery: the result will never be delivered. */
export function dropDelegationDelivery(w: StateDbWriter, id: string): void {
  table(w);
  w.tx(() => {
    w.stmt("UPDATE async_delegations SET delivery_state = 'dropped' WHERE delegation_id = ?").run(id);
  });
}

/**
 * recover_abandoned_delegations (at process start): rows still in flight whose owner is gone become `unknown`, with
 * Hermes's synthetic event, and their delivery pending. Here every in-flight row's owner is taken for gone.
 */
export function recoverAbandonedDelegations(w: StateDbWriter): number {
  table(w);
  return w.tx(() => {
    const at = w.now();
    const ids = w.stmt(`SELECT delegation_id FROM async_delegations WHERE state IN ${IN_FLIGHT} ORDER BY delegation_id`).pluck().all() as string[];
    const error = 'Delegation owner exited before recording a terminal result; outcome unknown.';
    for (const id of ids) {
      const event: Json = { type: 'async_delegation', delegation_id: id, status: 'unknown', summary: null, error, completed_at: at };
      w.stmt("UPDATE async_delegations SET state = 'unknown', completed_at = ?, updated_at = ?, event_json = ?, result_json = ?, delivery_state = 'pending' WHERE delegation_id = ?")
        .run(at, at, pyJson(event), pyJson({ status: 'unknown', error }), id);
    }
    return ids.length;
  });
}

/**
 * _prune_durable_records: delivered rows not updated for 7 days go; of the finished rows, at most 50 delivered or
 * dropped ones stay (delivered ones go first, then the oldest) and at most 1,000 still pending (the oldest go).
 * Returns how many rows went.
 */
export function pruneDelegations(w: StateDbWriter, now = w.now()): number {
  table(w);
  return w.tx(() => {
    let gone = w.stmt("DELETE FROM async_delegations WHERE delivery_state = 'delivered' AND updated_at < ?").run(now - WEEK).changes;
    const cap = (where: string, order: string, keep: number) => {
      const n = w.stmt(`SELECT COUNT(*) FROM async_delegations WHERE state NOT IN ${IN_FLIGHT} AND ${where}`).pluck().get() as number;
      if (n <= keep) return;
      gone += w.stmt(`DELETE FROM async_delegations WHERE delegation_id IN (SELECT delegation_id FROM async_delegations WHERE state NOT IN ${IN_FLIGHT} AND ${where} ORDER BY ${order} LIMIT ?)`).run(n - keep).changes;
    };
    cap("delivery_state <> 'pending'", "delivery_state = 'delivered' DESC, updated_at, delegation_id", KEEP_FINISHED);
    cap("delivery_state = 'pending'", 'updated_at, delegation_id', KEEP_PENDING);
    return gone;
  });
}

// Per-run controls of the fake agent: progress events, approval requests, completion, failure, exceptions, interrupt,
// and its steer/stop policies. Each acts on a live run (admitted, not yet finished) in this gateway.
import { HermeticError } from '../../shared/errors.js';
import { isTerminal } from '../runs/lifecycle.js';
import type { LiveRun } from '../runs/registry.js';
import { statusOf } from '../runs/status.js';
import type { PyDict } from '../../shared/python/index.js';
import {
  approvalNotification,
  parseCallbackEvent,
  parseFailure,
  parseFinalAnswer,
  parseInterrupted,
  parseRaise,
  parseSteerPolicy,
  parseStopPolicy,
} from '../control/agent-events.js';
import { onlyKeys, type AdminContext } from './context.js';
import { DEFAULT_NAMESPACE } from '../namespaces/names.js';

/** " It is a run of namespace "x": …" when another namespace knows the run (a test's client and its admin calls apart). */
function elsewhere(runId: string, here: string, namespaces: AdminContext['deps']['namespaces']): string {
  const there = namespaces.holding(runId, here);
  if (there === null) return '';
  const path = there === DEFAULT_NAMESPACE ? '/__admin/…' : `/ns/${there}/__admin/…`;
  return ` It is a run of namespace "${there}", not of this one ("${here}"): ${path} reaches it.`;
}

/** The live run, or a clear error: unknown, finished, or (for most actions) not started yet. */
function liveRun({ params, deps: { registry, namespace, namespaces } }: AdminContext, mustBeStarted = true): LiveRun {
  const runId = params.run_id!;
  const run = registry.live.get(runId);
  if (!run) {
    const status = registry.statuses.get(runId);
    if (status && isTerminal(statusOf(status))) {
      throw new HermeticError('HERMETIC_RUN_TERMINAL', `Run ${runId} has already finished (${statusOf(status)}); its agent can no longer act.`);
    }
    throw new HermeticError('HERMETIC_RUN_UNKNOWN', `No live run ${runId} in this gateway (unknown id, or lost in a restart).${elsewhere(runId, namespace.name, namespaces)}`);
  }
  if (mustBeStarted && !run.started) {
    throw new HermeticError('HERMETIC_RUN_NOT_STARTED', `Run ${runId} is still queued; POST /__admin/runs/${runId}/start to start its agent now.`);
  }
  return run;
}

/** GET /__admin/runs/{run_id}: what the fake agent holds for a run (not part of Hermes's surface). */
export function runInfoHandler(ctx: AdminContext) {
  const runId = ctx.params.run_id!;
  const { registry } = ctx.deps;
  const run = registry.live.get(runId);
  const status = registry.statuses.get(runId);
  if (!run && !status) throw new HermeticError('HERMETIC_RUN_UNKNOWN', `No run ${runId} in this gateway's memory.`);
  return {
    run_id: runId,
    status: status ? statusOf(status) : null,
    live: Boolean(run),
    started: run?.started ?? false,
    stop_requested: run?.stopRequested ?? false,
    pending_approvals: run ? run.approvals.map((a) => a.get('request_id')) : [],
    pending_steer: run?.pendingSteer ?? [],
    accept_steer: run?.acceptSteer ?? null,
    steer_raises: run ? ctx.deps.agent.steerRaises(run) : null,
    acknowledge_stop: run?.acknowledgeStop ?? null,
    buffered_events: registry.buffers.get(runId)?.pending ?? null,
    scenario: ctx.deps.namespace.scenarios.playing(runId),
  };
}

/** GET /__admin/runs: every run this gateway holds in memory, oldest first. */
export function listRunsHandler({ deps: { registry } }: AdminContext) {
  return {
    runs: [...registry.statuses].map(([runId, dict]) => ({
      run_id: runId,
      status: statusOf(dict),
      live: registry.live.has(runId),
      keyed: registry.durable.has(runId),
      last_event: typeof dict.get('last_event') === 'string' ? dict.get('last_event') : null,
    })),
  };
}

export function startHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, [], 'start');
  const run = liveRun(ctx, false);
  ctx.deps.agent.startNow(run);
  return { run_id: run.runId, status: statusOf(ctx.deps.registry.statuses.get(run.runId)!) };
}

/**
 * POST /__admin/runs/{run_id}/event: one call of the agent's progress callback. Hermes forwards six names (adding
 * run_id and timestamp) and drops every other one without touching the status; the answer says which happened.
 */
export function eventHandler(ctx: AdminContext) {
  const run = liveRun(ctx);
  const parsed = parseCallbackEvent(ctx.body);
  if (parsed.kind === 'dropped') {
    const answer: { run_id: string; event: string; dropped: true; hint?: string } = { run_id: run.runId, event: parsed.name, dropped: true };
    if (parsed.hint) answer.hint = parsed.hint;
    return answer;
  }
  ctx.deps.agent.progress(run, parsed.event);
  const answer: { run_id: string; event: string; dropped: false; ignored_fields?: string[] } = { run_id: run.runId, event: parsed.event.event, dropped: false };
  if (parsed.ignoredFields.length) answer.ignored_fields = parsed.ignoredFields;
  return answer;
}

/**
 * POST /__admin/runs/{run_id}/approval-request: the approval subsystem notifies the gateway (spec §8.4). The body is
 * the notification dict, key for key, or `{"preset": "shell", …}` for the full dangerous-command dict.
 */
export function approvalRequestHandler(ctx: AdminContext): PyDict {
  const notification = approvalNotification(ctx.body);
  const run = liveRun(ctx);
  return ctx.deps.agent.requestApproval(run, notification);
}

function finishedStatus(ctx: AdminContext, run: LiveRun) {
  const status = ctx.deps.registry.statuses.get(run.runId);
  return { run_id: run.runId, status: status ? statusOf(status) : null };
}

/**
 * POST /__admin/runs/{run_id}/complete {"output", "usage", "pending_steer"}: the agent returns its final answer.
 * `pending_steer` is the result's field (null: none); without it, the steer text accepted since the last tool boundary.
 */
export function completeHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['output', 'usage', 'pending_steer'], 'complete');
  const run = liveRun(ctx);
  ctx.deps.agent.finish(run, { kind: 'completed', ...parseFinalAnswer(ctx.body) });
  return finishedStatus(ctx, run);
}

/**
 * POST /__admin/runs/{run_id}/fail {"error"}: the agent returns `failed: true`; Hermes shows str(error) redacted, or
 * "agent run failed" when it is falsy (absent, "", null, 0, …).
 */
export function failHandler(ctx: AdminContext) {
  const error = parseFailure(ctx.body);
  const run = liveRun(ctx);
  ctx.deps.agent.finish(run, { kind: 'failed', error });
  return finishedStatus(ctx, run);
}

/**
 * POST /__admin/runs/{run_id}/raise {"message", "kind"}: the agent raises instead of returning. `error` (default): the
 * run fails with str(exc) redacted; `provider_auth`: "⚠️ Provider authentication failed: <message>", unredacted (the
 * agent factory raises it, so a queued run starts first); `cancelled`: the task is cancelled.
 */
export function raiseHandler(ctx: AdminContext) {
  const exception = parseRaise(ctx.body);
  const run = liveRun(ctx, false);
  if (!run.started) ctx.deps.agent.startNow(run);
  if (ctx.deps.registry.live.get(run.runId) === run) ctx.deps.agent.raise(run, exception);
  return finishedStatus(ctx, run);
}

/**
 * POST /__admin/runs/{run_id}/cancel: the agent returns interrupted. After a stop that means `cancelled`; without
 * one Hermes treats the result as a completion (with `output`, default "").
 */
export function cancelHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['output', 'usage'], 'cancel');
  const run = liveRun(ctx, false);
  const result = parseInterrupted(ctx.body);
  if (!run.started) ctx.deps.agent.startNow(run);
  if (ctx.deps.registry.live.get(run.runId) === run) ctx.deps.agent.finish(run, { kind: 'interrupted', ...result });
  return finishedStatus(ctx, run);
}

/**
 * POST /__admin/runs/{run_id}/steer-policy {"accept": bool, "raise": string or null}: whether agent.steer() accepts
 * text, and whether it raises (with that exception text) instead — a raising steer answers 500 steer_failed.
 */
export function steerPolicyHandler(ctx: AdminContext) {
  const policy = parseSteerPolicy(ctx.body);
  const run = liveRun(ctx, false);
  ctx.deps.agent.setSteerPolicy(run, policy);
  return { run_id: run.runId, accept: run.acceptSteer, raise: ctx.deps.agent.steerRaises(run) };
}

/** POST /__admin/runs/{run_id}/stop-policy {"acknowledge": bool}: whether a stop's interrupt is honoured. */
export function stopPolicyHandler(ctx: AdminContext) {
  const acknowledge = parseStopPolicy(ctx.body);
  const run = liveRun(ctx, false);
  run.acknowledgeStop = acknowledge;
  return { run_id: run.runId, acknowledge: run.acknowledgeStop };
}

// Per-run controls of the fake agent: progress events, approval requests, completion, failure, interrupt,
// and its steer/stop policies. Each acts on a live run (admitted, not yet finished) in this gateway.
import { HermeticError } from '../../shared/errors.js';
import { zeroUsage, type ProgressEvent, type Usage } from '../runs/agent.js';
import { isTerminal } from '../runs/lifecycle.js';
import type { LiveRun } from '../runs/registry.js';
import { statusOf } from '../runs/status.js';
import type { PyDict, PyValue } from '../../shared/python/index.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/** The live run, or a clear error: unknown, finished, or (for most actions) not started yet. */
function liveRun({ params, deps: { registry } }: AdminContext, mustBeStarted = true): LiveRun {
  const runId = params.run_id!;
  const run = registry.live.get(runId);
  if (!run) {
    const status = registry.statuses.get(runId);
    if (status && isTerminal(statusOf(status))) {
      throw new HermeticError('HERMETIC_RUN_TERMINAL', `Run ${runId} has already finished (${statusOf(status)}); its agent can no longer act.`);
    }
    throw new HermeticError('HERMETIC_RUN_UNKNOWN', `No live run ${runId} in this gateway (unknown id, or lost in a restart).`);
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
    acknowledge_stop: run?.acknowledgeStop ?? null,
    buffered_events: registry.buffers.get(runId)?.pending ?? null,
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

const SUBAGENT_FIELDS = [
  'goal', 'task_count', 'task_index', 'subagent_id', 'child_session_id', 'parent_id', 'depth', 'model', 'tool_count',
  'status', 'summary', 'duration_seconds', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'api_calls',
  'cost_usd', 'files_read', 'files_written', 'output_tail',
];

function parseEvent(body: PyDict): ProgressEvent {
  const name = field.string(body, 'event');
  switch (name) {
    case 'tool.started':
      onlyKeys(body, ['event', 'tool', 'preview', 'arguments'], name);
      return {
        event: name,
        tool: field.string(body, 'tool'),
        preview: field.nullableString(body, 'preview', null),
        ...(body.has('arguments') ? { arguments: body.get('arguments')! } : {}),
      };
    case 'tool.completed':
      onlyKeys(body, ['event', 'tool', 'duration', 'error', 'result'], name);
      return {
        event: name,
        tool: field.string(body, 'tool'),
        duration: field.number(body, 'duration') ?? null,
        error: field.boolean(body, 'error', false),
        ...(body.has('result') ? { result: field.string(body, 'result') } : {}),
      };
    case 'reasoning.available':
      onlyKeys(body, ['event', 'text'], name);
      return { event: name, text: field.string(body, 'text', '') };
    case 'message.delta':
      onlyKeys(body, ['event', 'delta'], name);
      return { event: name, delta: field.string(body, 'delta') };
    case 'subagent.start':
    case 'subagent.complete': {
      onlyKeys(body, ['event', 'preview', ...SUBAGENT_FIELDS], name);
      const fields: Array<[string, PyValue]> = [];
      if (body.has('preview')) fields.push(['preview', body.get('preview')!]);
      // Hermes emits the non-null ones, always in this order (spec §8.3).
      for (const key of SUBAGENT_FIELDS) {
        const v = body.get(key);
        if (v !== undefined && v !== null) fields.push([key, v]);
      }
      return { event: name, fields };
    }
    default:
      throw new HermeticError(
        'HERMETIC_ADMIN_BAD_FIELD',
        `Field "event" must be one of tool.started, tool.completed, reasoning.available, message.delta, subagent.start, subagent.complete; got "${name}".`,
      );
  }
}

/** POST /__admin/runs/{run_id}/event: one progress event; the emulator adds run_id and timestamp. */
export function eventHandler(ctx: AdminContext) {
  const run = liveRun(ctx);
  const event = parseEvent(ctx.body);
  ctx.deps.agent.progress(run, event);
  return { run_id: run.runId, event: event.event };
}

/** POST /__admin/runs/{run_id}/approval-request: parks the run on an approval (spec §8.4). */
export function approvalRequestHandler(ctx: AdminContext): PyDict {
  const { body } = ctx;
  onlyKeys(body, ['command', 'pattern_key', 'pattern_keys', 'description', 'allow_permanent', 'allow_session', 'smart_denied', 'request_id'], 'an approval request');
  const run = liveRun(ctx);
  const patternKey = field.string(body, 'pattern_key', '');
  const patternKeys = body.get('pattern_keys') ?? (patternKey ? [patternKey] : []);
  if (!Array.isArray(patternKeys) || !patternKeys.every((k) => typeof k === 'string')) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "pattern_keys" must be an array of strings.');
  }
  // The approval subsystem's key order; request_id last (Hermes's uuid4().hex when not given).
  const notification: PyDict = new Map<string, PyValue>([
    ['command', field.string(body, 'command')],
    ['pattern_key', patternKey],
    ['pattern_keys', patternKeys],
    ['description', field.string(body, 'description', '')],
    ['allow_permanent', field.boolean(body, 'allow_permanent', true)],
    ['allow_session', field.boolean(body, 'allow_session', true)],
  ]);
  if (field.boolean(body, 'smart_denied', false)) notification.set('smart_denied', true);
  if (body.has('request_id')) {
    const id = field.string(body, 'request_id');
    if (!id) throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "request_id" must not be empty.');
    notification.set('request_id', id);
  }
  return ctx.deps.agent.requestApproval(run, notification);
}

function parseUsage(body: PyDict): Usage {
  const raw = body.get('usage');
  if (raw === undefined || raw === null) return zeroUsage();
  if (!(raw instanceof Map)) throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "usage" must be an object.');
  onlyKeys(raw, ['input_tokens', 'output_tokens', 'total_tokens'], 'usage');
  const input = field.integer(raw, 'input_tokens', 0);
  const output = field.integer(raw, 'output_tokens', 0);
  return { input_tokens: input, output_tokens: output, total_tokens: field.integer(raw, 'total_tokens', input + output) };
}

function finishedStatus(ctx: AdminContext, run: LiveRun) {
  const status = ctx.deps.registry.statuses.get(run.runId);
  return { run_id: run.runId, status: status ? statusOf(status) : null };
}

/** POST /__admin/runs/{run_id}/complete {"output", "usage"}: the agent returns its final answer. */
export function completeHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['output', 'usage'], 'complete');
  const run = liveRun(ctx);
  const output = ctx.body.has('output') ? ctx.body.get('output')! : '';
  if (output !== null && typeof output !== 'string') throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "output" must be a string or null.');
  ctx.deps.agent.finish(run, { kind: 'completed', output, usage: parseUsage(ctx.body) });
  return finishedStatus(ctx, run);
}

/** POST /__admin/runs/{run_id}/fail {"error"}: the agent returns failed (empty text → "agent run failed"). */
export function failHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['error'], 'fail');
  const run = liveRun(ctx);
  ctx.deps.agent.finish(run, { kind: 'failed', error: field.string(ctx.body, 'error', '') });
  return finishedStatus(ctx, run);
}

/**
 * POST /__admin/runs/{run_id}/cancel: the agent returns interrupted. After a stop that means `cancelled`; without
 * one Hermes treats the result as a completion (with `output`, default "").
 */
export function cancelHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['output', 'usage'], 'cancel');
  const run = liveRun(ctx, false);
  const output = field.nullableString(ctx.body, 'output', '');
  if (!run.started) ctx.deps.agent.startNow(run);
  if (ctx.deps.registry.live.get(run.runId) === run) {
    ctx.deps.agent.finish(run, { kind: 'interrupted', output, usage: parseUsage(ctx.body) });
  }
  return finishedStatus(ctx, run);
}

/** POST /__admin/runs/{run_id}/steer-policy {"accept": bool}: whether agent.steer() accepts text. */
export function steerPolicyHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['accept'], 'steer-policy');
  const run = liveRun(ctx, false);
  run.acceptSteer = field.boolean(ctx.body, 'accept');
  return { run_id: run.runId, accept: run.acceptSteer };
}

/** POST /__admin/runs/{run_id}/stop-policy {"acknowledge": bool}: whether a stop's interrupt is honoured. */
export function stopPolicyHandler(ctx: AdminContext) {
  onlyKeys(ctx.body, ['acknowledge'], 'stop-policy');
  const run = liveRun(ctx, false);
  run.acknowledgeStop = field.boolean(ctx.body, 'acknowledge');
  return { run_id: run.runId, acknowledge: run.acknowledgeStop };
}

// The run of a session chat stream's turn (decisions 0145, 0146): Hermes's `_handle_session_chat_stream` registers
// no task for it and no approval session, only the agent while one runs, and sets its statuses itself. What those
// statuses need is kept on the live run, so a checkpoint restored mid-turn puts the run back under the same rules.
import type { PyDict, PyValue } from '../../shared/python/index.js';
import type { AgentEnding, TurnTap } from './agent.js';
import { redactApiErrorText } from './hermes-errors.js';
import type { RunRegistry } from './registry.js';

/** What a stream turn's statuses are made of: its session and the runtime its usage reports. */
export interface StreamTurnRun {
  readonly sessionId: string;
  /** `_sanitize_runtime_metadata` of the agent's actual runtime: `usage["runtime"]` of a loop that returned. */
  readonly runtime: PyDict;
}

/**
 * `_run_agent`'s usage dict: the loop's tokens (zeros for a failed one) and `runtime`; an escaped provider-credential
 * failure is answered with zeros and no runtime; any other escaped exception gives none (null).
 */
export function turnUsage(ending: AgentEnding, runtime: PyDict): PyDict | null {
  const zeros: Array<[string, PyValue]> = [['input_tokens', 0], ['output_tokens', 0], ['total_tokens', 0]];
  if (ending.kind === 'raised') return ending.exception.kind === 'provider_auth' ? new Map(zeros) : null;
  const u = ending.result.kind === 'failed' ? null : ending.result.usage;
  const usage = new Map<string, PyValue>(u ? [['input_tokens', u.input_tokens], ['output_tokens', u.output_tokens], ['total_tokens', u.total_tokens]] : zeros);
  return usage.set('runtime', runtime);
}

/** What a turn that gave no reply says (the run's `error`, the `error` frame): the exception's text, redacted. */
export const failureText = (ending: AgentEnding): string => redactApiErrorText(ending.kind === 'raised' ? ending.exception.message : '');

/** Whether the task ended by cancellation (before its agent existed, or its await cancelled): no closing events. */
export const cancelled = (ending: AgentEnding | { kind: 'cancelled' }): boolean =>
  ending.kind === 'cancelled' || (ending.kind === 'raised' && ending.exception.kind === 'cancelled');

/**
 * `_run_and_signal`'s status writes: `running` with last_event `run.started` when the task starts; then `completed`
 * (session_id, usage, pending_steer when truthy) for any returned result, `failed` with the redacted text for an
 * exception, `cancelled` for cancellation. Progress touches no status.
 */
export function streamTurnStatuses(registry: RunRegistry, runId: string, turn: StreamTurnRun): TurnTap {
  return {
    started: () => void registry.update(runId, 'progress', [], [], 'run.started'),
    progress: () => {},
    ending(ending, pendingSteer) {
      if (cancelled(ending)) return void registry.update(runId, 'cancel');
      const usage = turnUsage(ending as AgentEnding, turn.runtime);
      if (!usage) return void registry.update(runId, 'fail', [['error', failureText(ending as AgentEnding)]]);
      const tail: Array<[string, PyValue]> = pendingSteer ? [['pending_steer', pendingSteer]] : [];
      registry.update(runId, 'complete', [['session_id', turn.sessionId], ['usage', usage]], tail);
    },
  };
}

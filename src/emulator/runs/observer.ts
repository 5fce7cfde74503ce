// A port for whatever wants to watch the fake agent work (the state.db recorder): the runs domain calls it at the
// moments Hermes's agent would touch its session store, and knows nothing of what it does.
import type { PyDict } from '../../shared/python/index.js';
import type { AgentResult, ProgressEvent } from './agent.js';
import type { LiveRun } from './registry.js';

export interface RunObserver {
  /** The task started and created its agent; `status` holds session_id and model. */
  started(run: LiveRun, status: PyDict): void;
  /** A progress event from the agent (with any recording-only fields the control plane gave). */
  progress(run: LiveRun, event: ProgressEvent): void;
  /**
   * Accepted steer text reached a tool boundary (a tool event, an approval): Hermes's agent appends it to the tool
   * result that ends the batch, before the next model call (decision 0029). Called before that boundary's progress.
   */
  steerDelivered?(run: LiveRun, text: string): void;
  /** A tool under way asked for approval (Hermes raises it from inside the tool call). Called before the event is sent. */
  approvalRequested?(run: LiveRun): void;
  /** The agent returned; `status` is the run's status after Hermes classified the result. */
  finished(run: LiveRun, result: AgentResult, status: PyDict): void;
  /** An emulated crash: whatever the agent had not flushed is lost. */
  reset(): void;
}

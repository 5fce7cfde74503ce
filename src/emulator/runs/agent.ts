// The fake agent that stands in for Hermes's AIAgent: it starts as Hermes's background task does, then does what
// the control plane tells it (progress events, approval requests, completion, failure, interrupt, steer policy).
import type { Clock } from '../../shared/clock.js';
import type { IdSource } from '../../shared/ids.js';
import { PyFloat, clonePy, type PyDict, type PyValue, pyRound, pyTruthy } from '../../shared/python/index.js';
import { HermeticError } from '../../shared/errors.js';
import { redactApiErrorText } from './hermes-errors.js';
import { redactUnforced } from '../../shared/redact/index.js';
import type { RunObserver } from './observer.js';
import type { LiveRun, LiveRunSnapshot, RunRegistry } from './registry.js';
import { streamTurnStatuses, type StreamTurnRun } from './stream-turn.js';

/** What a run was submitted with, for a scripted agent that chooses its behaviour by it (scenarios). */
export interface RunInput {
  /** The user turn, as the body gave it. */
  readonly userMessage: PyValue;
  /** The run's `model` and `session_id` as its status shows them. */
  readonly model: PyValue;
  readonly sessionId: PyValue;
  /** The body's `instructions` (undefined when absent). */
  readonly instructions: PyValue | undefined;
  /** The submission's request headers, by lower-case name. */
  header(name: string): string | undefined;
  /** The /p/<name>/ profile ('default' when absent). */
  readonly profile?: string;
  /** The validated X-Hermes-Session-Key (null or absent: none): the agent's gateway_session_key. */
  readonly sessionKey?: string | null;
  /** The model the agent runs when the status's `model` does not say it (a session chat stream's status keeps the body's). */
  readonly agentModel?: string;
  /** A session chat stream's turn (decision 0146). */
  readonly streamTurn?: StreamTurnRun;
}

/**
 * A script driving the agent (src/emulator/scenarios): told when a run is spawned (it may choose the run's start
 * delay), starts, has approvals resolved by a client, and ends. It acts through the agent's own methods.
 */
export interface AgentScript {
  /** A new run; returns its start delay in seconds, or undefined for the agent's default. */
  spawned(run: LiveRun, input: RunInput): number | undefined;
  started(run: LiveRun): void;
  /** A client's answer resolved these pending approvals (event dicts) with `choice`. */
  resolved(run: LiveRun, approvals: readonly PyDict[], choice: string): void;
  /** The run's task finished (completed, failed, cancelled). */
  ended(run: LiveRun): void;
}

export interface AgentDefaults {
  /** Seconds on the clock between admission and `running` (0: the next microtask, as Hermes's create_task). */
  startDelay: number;
  /** Whether the agent honours a stop's interrupt by returning interrupted (→ cancelled). */
  acknowledgeStop: boolean;
  /** Whether agent.steer() accepts text. */
  acceptSteer: boolean;
}

/**
 * The agent callback events Hermes forwards to the stream (decision 0015); `arguments` and `result` are for recorders
 * only (Hermes's events do not carry them). Values keep their Python type: `duration` is an int or a float as sent.
 */
export type ProgressEvent =
  | { event: 'tool.started'; tool: string; preview: string | null; arguments?: PyValue }
  | { event: 'tool.completed'; tool: string; duration: PyValue; error: boolean; result?: string }
  | { event: 'reasoning.available'; text: string }
  | { event: 'message.delta'; delta: string }
  | { event: 'subagent.start' | 'subagent.complete'; preview: PyValue; kwargs: PyDict };

/** What the agent returns when its loop ends (Hermes's result dict, reduced to what the runs module reads). */
export type AgentResult =
  | { kind: 'completed'; output: PyValue; usage: Usage; /** The result's pending_steer; absent: what steer left undelivered. */ pendingSteer?: string | null }
  | { kind: 'failed'; error: PyValue }
  | { kind: 'interrupted'; output: PyValue; usage: Usage };

/** How the agent's task ended: its loop returned a result, or an exception escaped it. */
export type AgentEnding = { kind: 'returned'; result: AgentResult } | { kind: 'raised'; exception: AgentException };

/** An exception escaping the agent (spec runs-api §7.3): a plain one, the provider-credential one, or cancellation. */
export interface AgentException {
  kind: 'error' | 'provider_auth' | 'cancelled';
  /** str(exc). */
  message: string;
}

/** The subagent keys Hermes forwards at the pin, in its order (spec §8.3; no `delegation_id` yet). */
export const SUBAGENT_KEYS = [
  'goal', 'task_count', 'task_index', 'subagent_id', 'child_session_id', 'parent_id', 'depth', 'model', 'tool_count',
  'status', 'summary', 'duration_seconds', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'api_calls',
  'cost_usd', 'files_read', 'files_written', 'output_tail',
] as const;
/** Free-text subagent keys Hermes force-redacts when they hold a string. */
const REDACTED_SUBAGENT_KEYS: ReadonlySet<string> = new Set(['goal', 'summary', 'output_tail']);

/** Python round(x, 3): an int stays the same int, a float is rounded and stays a float. */
function round3(x: PyValue): PyValue {
  if (x instanceof PyFloat) return new PyFloat(pyRound(x.value, 3));
  if (typeof x === 'number' && !Number.isInteger(x)) return new PyFloat(pyRound(x, 3));
  return x;
}

/** Hermes's progress callback: the SSE fields of a forwarded event (api_server_runs.py `_callback`). */
function progressFields(ev: ProgressEvent): Array<[string, PyValue]> {
  switch (ev.event) {
    case 'tool.started':
      return [['tool', ev.tool], ['preview', ev.preview]];
    case 'tool.completed':
      return [['tool', ev.tool], ['duration', round3(ev.duration)], ['error', ev.error]];
    case 'reasoning.available':
      return [['text', ev.text]];
    case 'message.delta':
      return [['delta', ev.delta]];
    default: {
      const fields: Array<[string, PyValue]> = [];
      if (ev.preview !== null) fields.push(['preview', redactApiErrorText(ev.preview)]);
      for (const key of SUBAGENT_KEYS) {
        const v = ev.kwargs.get(key);
        if (v === undefined || v === null) continue;
        fields.push([key, REDACTED_SUBAGENT_KEYS.has(key) && typeof v === 'string' ? redactApiErrorText(v) : v]);
      }
      return fields;
    }
  }
}

/**
 * A run whose turn a session chat stream plays (decision 0145): Hermes's `_handle_session_chat_stream` hands the agent
 * its own callbacks and sets the run's statuses itself, so the run's events go to the tap instead of the run's buffer
 * and its lifecycle updates are the tap's. The agent still delivers steer, records the turn and ends the task.
 */
export interface TurnTap {
  /** The task started (status `running`, as the agent's start sets it). */
  started(): void;
  /** A callback event (stream_delta_callback, tool_progress_callback). */
  progress(ev: ProgressEvent): void;
  /**
   * The agent's loop returned (with the steer text it leaves undelivered: the result's pending_steer, '' for none), or
   * it raised, or its task was cancelled before it started: the tap sets the status the ending leads to.
   */
  ending(ending: AgentEnding | { kind: 'cancelled' }, pendingSteer: string): void;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
}

const usageDict = (u: Usage): PyDict =>
  new Map<string, PyValue>([
    ['input_tokens', u.input_tokens],
    ['output_tokens', u.output_tokens],
    ['total_tokens', u.total_tokens],
  ]);

/**
 * An approval notification as the control plane or a scenario gives it, before the approval subsystem's own pass:
 * `redacts` names the keys that pass goes over (unforced, so HERMES_REDACT_SECRETS decides: requestApproval).
 */
export interface ApprovalNotice {
  dict: PyDict;
  redacts: readonly string[];
}

export class FakeAgent {
  /** Runs whose agent.steer() raises, with the exception text. */
  readonly #steerRaises = new WeakMap<LiveRun, string>();
  /** What drives runs besides the control plane (the namespace's scenarios); null: the control plane alone. */
  script: AgentScript | null = null;
  /** Callers waiting for a run's task to end, by run id (the sync session chat waits for its turn this way). */
  readonly #endings = new Map<string, (ending: AgentEnding) => void>();
  /** Runs whose callbacks and statuses a session chat stream holds, by run id (removed when the task ends). */
  readonly #taps = new Map<string, TurnTap>();

  constructor(
    private readonly registry: RunRegistry,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    public defaults: AgentDefaults,
    private readonly observer: RunObserver | null = null,
    /** HERMES_REDACT_SECRETS (the `redactSecrets` option): whether the approval subsystem's own unforced pass runs. */
    private readonly redactSecrets = true,
  ) {}

  /** Calls `fn` once when the run's task ends (completes, fails, raises, is cancelled); returns its removal. */
  whenEnded(runId: string, fn: (ending: AgentEnding) => void): () => void {
    this.#endings.set(runId, fn);
    return () => {
      if (this.#endings.get(runId) === fn) this.#endings.delete(runId);
    };
  }

  /** Hands the run's callbacks and status updates to `tap` until its task ends (a session chat stream's turn). */
  tap(runId: string, tap: TurnTap): void {
    this.#taps.set(runId, tap);
  }

  /** Takes `tap` back (its stream was cut by an emulated crash), if the run still has it. */
  untap(runId: string, tap: TurnTap): void {
    if (this.#taps.get(runId) === tap) this.#taps.delete(runId);
  }

  /** Creates the background task; it sets `running` on the next microtask (or after startDelay on the clock). */
  spawn(runId: string, userMessage: PyValue, input?: RunInput): LiveRun {
    const run: LiveRun = {
      runId,
      started: false,
      stopRequested: false,
      approvals: [],
      acceptSteer: this.defaults.acceptSteer,
      acknowledgeStop: this.defaults.acknowledgeStop,
      pendingSteer: [],
      startTimer: null,
      userMessage,
      profile: input?.profile ?? 'default',
      sessionKey: input?.sessionKey ?? null,
      ...(input?.agentModel === undefined ? {} : { agentModel: input.agentModel }),
      ...(input?.streamTurn === undefined ? {} : { streamTurn: input.streamTurn }),
    };
    this.registry.track(run);
    const startDelay = (input && this.script?.spawned(run, input)) ?? this.defaults.startDelay;
    if (startDelay > 0) run.startTimer = this.clock.schedule(startDelay, () => this.#start(run));
    else queueMicrotask(() => this.#start(run));
    return run;
  }

  /** Re-creates a live run from a checkpoint, its start timer re-armed at the time it was due. */
  revive(saved: LiveRunSnapshot): LiveRun {
    const run: LiveRun = {
      runId: saved.runId,
      started: saved.started,
      stopRequested: saved.stopRequested,
      approvals: saved.approvals.map((a) => clonePy(a)),
      acceptSteer: saved.acceptSteer,
      acknowledgeStop: saved.acknowledgeStop,
      pendingSteer: [...saved.pendingSteer],
      startTimer: null,
      userMessage: clonePy(saved.userMessage),
      profile: saved.profile ?? 'default',
      sessionKey: saved.sessionKey ?? null,
      ...(saved.agentModel === undefined ? {} : { agentModel: saved.agentModel }),
      ...(saved.streamTurn === undefined ? {} : { streamTurn: { sessionId: saved.streamTurn.sessionId, runtime: clonePy(saved.streamTurn.runtime) } }),
    };
    this.registry.track(run);
    // A stream turn's stream was cut by the restore; its run keeps the stream's status rules, with no frames.
    if (run.streamTurn) this.#taps.set(run.runId, streamTurnStatuses(this.registry, run.runId, run.streamTurn));
    if (saved.steerRaises !== null) this.#steerRaises.set(run, saved.steerRaises);
    if (saved.stopRequested && saved.started) this.releaseApprovalsOnStop(run);
    if (saved.startAt !== null) run.startTimer = this.clock.schedule(saved.startAt - this.clock.now(), () => this.#start(run));
    else if (!saved.started) queueMicrotask(() => this.#start(run));
    return run;
  }

  #start(run: LiveRun): void {
    if (this.registry.live.get(run.runId) !== run || run.started) return;
    run.startTimer = null;
    this.registry.update(run.runId, 'start');
    if (run.stopRequested) {
      // Stop arrived while queued: the task never creates its agent (spec §7.2).
      this.#cancel(run);
      return;
    }
    run.started = true;
    this.#taps.get(run.runId)?.started();
    this.observer?.started(run, this.registry.statuses.get(run.runId)!);
    this.script?.started(run);
  }

  /** Starts a queued run now (control plane), instead of waiting for its start delay. */
  startNow(run: LiveRun): void {
    run.startTimer?.cancel();
    this.#start(run);
  }

  progress(run: LiveRun, ev: ProgressEvent): void {
    const tap = this.#taps.get(run.runId);
    if (tap) tap.progress(ev);
    else this.registry.emit(run.runId, ev.event, progressFields(ev));
    // A tool boundary is where Hermes injects accepted steer text (into the tool's result: decision 0029); the
    // recorder hears it first, so a tool.completed's own result carries it (decision 0079).
    if (ev.event === 'tool.started' || ev.event === 'tool.completed') this.#deliverSteer(run);
    this.observer?.progress(run, ev);
    // message.delta never touches the status; the rest record last_event and keep the status (spec §6.1). A session
    // chat stream's callbacks only queue frames: its status keeps last_event `run.started` (decision 0145).
    if (ev.event !== 'message.delta' && !tap) this.registry.update(run.runId, 'progress', [], [], ev.event);
  }

  /** Hands the run's accepted steer text to the tool result under way (the recorder writes it there), and clears it. */
  #deliverSteer(run: LiveRun): void {
    if (run.pendingSteer.length > 0) this.observer?.steerDelivered?.(run, run.pendingSteer.join('\n'));
    run.pendingSteer = [];
  }

  /** Parks the run on a dangerous-command approval; returns the approval.request event dict. */
  requestApproval(run: LiveRun, notification: ApprovalNotice): PyDict {
    // Hermes's session chat stream registers no notifier: tools/approval.py answers the tool at once, pending
    // approval, and nothing waits (decision 0155). So no script can park such a run.
    if (run.streamTurn) {
      throw new HermeticError('HERMETIC_RUN_NO_APPROVAL', `Run ${run.runId} is a session chat stream's turn; Hermes's stream has no approval notifier, so its tools are answered at once as pending approval and the run never waits for one.`);
    }
    // An approval is raised from inside a tool call, so it is a tool boundary too: the steer text accepted before it
    // reaches the model with that tool's result, never as pending_steer (decision 0029). Steer is refused while parked.
    this.#deliverSteer(run);
    this.observer?.approvalRequested?.(run);
    const event: PyDict = new Map(notification.dict);
    // The approval subsystem's own pass when it built the dict (the shell preset's command and description): unforced,
    // so HERMES_REDACT_SECRETS decides (redaction.md §1.1, §3).
    for (const key of notification.redacts) {
      const value = event.get(key);
      if (typeof value === 'string') event.set(key, redactUnforced(value, this.redactSecrets));
    }
    // The approval entry's setdefault (uuid4().hex, after the given keys), then the gateway's copy: `command`
    // force-redacted in place when present (None → ""), the rest untouched (redaction.md §3).
    if (!event.has('request_id')) event.set('request_id', this.ids.uuid4Hex());
    if (event.has('command')) {
      const command = event.get('command')!;
      event.set('command', redactApiErrorText(pyTruthy(command) ? command : ''));
    }
    const smartDenied = pyTruthy(event.get('smart_denied'));
    const allowSession = event.get('allow_session') !== false;
    const allowPermanent = event.get('allow_permanent') !== false;
    const choices =
      smartDenied || !allowSession ? ['once', 'deny'] : allowPermanent ? ['once', 'session', 'always', 'deny'] : ['once', 'session', 'deny'];
    event.set('event', 'approval.request');
    event.set('run_id', run.runId);
    event.set('timestamp', new PyFloat(this.clock.now()));
    event.set('choices', choices);
    // Status first, then the event: the status `approval` and the SSE event are the same dict (spec §8.4).
    this.registry.update(run.runId, 'approvalRequest', [], [['approval', event]]);
    this.registry.emitDict(run.runId, event);
    run.approvals.push(event);
    // A wait that starts after a stop sees the interrupt flag at its first check: denied at once (decision 0076).
    if (run.stopRequested && run.started) queueMicrotask(() => this.#releaseApproval(run, event));
    return event;
  }

  /** Hermes's resolve_gateway_approval: exact request_id, else all, else the oldest. */
  resolveApprovals(run: LiveRun, choice: string, requestId: string | null, all: boolean): number {
    if (run.approvals.length === 0) return 0;
    let resolved: PyDict[];
    if (requestId !== null) {
      resolved = run.approvals.filter((a) => a.get('request_id') === requestId);
      run.approvals = run.approvals.filter((a) => a.get('request_id') !== requestId);
    } else if (all) {
      resolved = run.approvals;
      run.approvals = [];
    } else {
      resolved = [run.approvals.shift()!];
    }
    if (resolved.length > 0) {
      // A stopped cooperative agent woken by the answer sees its interrupt flag and returns (after the handler's
      // status update and approval.responded); otherwise the script goes on with the answer.
      if (this.#stoppedAndFree(run)) this.#returnInterrupted(run);
      else this.script?.resolved(run, resolved, choice);
    }
    return resolved.length;
  }

  /** agent.steer(text): accepted, declined, or an exception (its str()) under a raising steer policy. */
  steer(run: LiveRun, text: string): boolean | { raised: string } {
    const raised = this.#steerRaises.get(run);
    if (raised !== undefined) return { raised };
    if (!run.acceptSteer) return false;
    run.pendingSteer.push(text);
    return true;
  }

  /** The steer policy's exception text (null: agent.steer() does not raise). */
  steerRaises(run: LiveRun): string | null {
    return this.#steerRaises.get(run) ?? null;
  }

  /** The steer policy: `accept` sets whether steer() accepts text, `raise` its exception text (null: none). */
  setSteerPolicy(run: LiveRun, policy: { accept?: boolean; raise?: string | null }): void {
    if (policy.accept !== undefined) run.acceptSteer = policy.accept;
    if (policy.raise !== undefined) this.setSteerRaises(run, policy.raise);
  }

  setSteerRaises(run: LiveRun, message: string | null): void {
    if (message === null) this.#steerRaises.delete(run);
    else this.#steerRaises.set(run, message);
  }

  /**
   * A stop's hard interrupt: a cooperative agent returns interrupted (releasing any approval wait). One that holds the
   * stop keeps going, but its approval waits see the interrupt flag all the same (decision 0076).
   */
  interrupt(run: LiveRun): void {
    // A thread parked on an approval sees the flag only when its wait polls (or is answered): a cooperative agent
    // returns then, not before (decision 0076).
    if (!run.acknowledgeStop || run.approvals.length > 0) {
      this.releaseApprovalsOnStop(run);
      return;
    }
    this.#returnInterrupted(run);
  }

  /** The agent notices its interrupt flag and returns interrupted (on a microtask: after what woke it). */
  #returnInterrupted(run: LiveRun): void {
    queueMicrotask(() => {
      if (this.registry.live.get(run.runId) === run) this.finish(run, { kind: 'interrupted', output: '', usage: zeroUsage() });
    });
  }

  /** Whether the run's agent, stopped and cooperative, returns now that nothing holds it in an approval wait. */
  #stoppedAndFree(run: LiveRun): boolean {
    return run.stopRequested && run.started && run.acknowledgeStop && run.approvals.length === 0;
  }

  /**
   * tools/approval_gateway_wait.py `_poll_event`: a pending approval's wait checks is_interrupted() once a second from
   * the moment it started (its event's timestamp), so after a stop each pending approval is denied at its wait's next
   * poll, strictly after now; the status is left as it is (stopping) and no event is streamed (decision 0076). Also
   * re-armed for a run revived from a checkpoint.
   */
  releaseApprovalsOnStop(run: LiveRun): void {
    const now = this.clock.now();
    for (const entry of run.approvals) {
      const ts = entry.get('timestamp');
      const since = ts instanceof PyFloat ? ts.value : now;
      const due = since + Math.floor(now - since) + 1;
      this.clock.schedule(due - now, () => this.#releaseApproval(run, entry));
    }
  }

  /** The wait returned "interrupted": the entry is answered deny and leaves the queue; the agent goes on as denied. */
  #releaseApproval(run: LiveRun, entry: PyDict): void {
    if (this.registry.live.get(run.runId) !== run || !run.approvals.includes(entry)) return;
    run.approvals = run.approvals.filter((a) => a !== entry);
    if (this.#stoppedAndFree(run)) this.#returnInterrupted(run);
    else this.script?.resolved(run, [entry], 'deny');
  }

  /** The agent's loop returns: classify as Hermes does (spec §7.2) and end the task. */
  finish(run: LiveRun, result: AgentResult): void {
    const { registry } = this;
    const runId = run.runId;
    const tap = this.#taps.get(runId);
    if (tap) {
      // The stream's handler classifies no result: whatever the loop returned is a completed turn (decision 0145).
      const explicit = result.kind === 'completed' ? result.pendingSteer : undefined;
      tap.ending({ kind: 'returned', result }, (explicit === undefined ? run.pendingSteer.join('\n') : explicit) ?? '');
      this.observer?.finished(run, result, registry.statuses.get(runId)!);
      this.#end(run, { kind: 'returned', result });
      return;
    }
    if (result.kind === 'interrupted' && run.stopRequested) {
      this.#cancel(run, result);
      return;
    }
    if (result.kind === 'failed') {
      const error = redactApiErrorText(pyTruthy(result.error) ? result.error : 'agent run failed');
      registry.emit(runId, 'run.failed', [['error', error]]);
      registry.update(runId, 'fail', [['error', error]]);
    } else {
      // Completion (also an interrupted result without a stop mark) — the event precedes the status flip (§8.5).
      // pending_steer: undelivered steer texts joined by newlines (AIAgent.steer), only when truthy (redaction.md §5).
      const usage = usageDict(result.usage);
      const explicit = result.kind === 'completed' ? result.pendingSteer : undefined;
      const pending = explicit === undefined ? run.pendingSteer.join('\n') : explicit;
      const tail: Array<[string, PyValue]> = pending ? [['pending_steer', pending]] : [];
      registry.emit(runId, 'run.completed', [['output', result.output], ['usage', usage], ...tail]);
      registry.update(runId, 'complete', [['output', result.output], ['usage', usage]], tail);
    }
    this.observer?.finished(run, result, registry.statuses.get(runId)!);
    this.#end(run, { kind: 'returned', result });
  }

  /**
   * The agent raises instead of returning (decision 0002 §2c step 6): status first, then the event. A plain exception's
   * text is force-redacted with no fallback; the provider-credential one is not redacted; cancellation is `cancelled`.
   */
  raise(run: LiveRun, exc: AgentException): void {
    const { registry } = this;
    const runId = run.runId;
    const tap = this.#taps.get(runId);
    if (tap) {
      tap.ending({ kind: 'raised', exception: exc }, '');
      const error = exc.kind === 'provider_auth' ? `\u26a0\ufe0f Provider authentication failed: ${exc.message}` : redactApiErrorText(exc.message);
      const seen: AgentResult = exc.kind === 'cancelled' ? { kind: 'interrupted', output: null, usage: zeroUsage() } : { kind: 'failed', error };
      this.observer?.finished(run, seen, registry.statuses.get(runId)!);
      this.#end(run, { kind: 'raised', exception: exc });
      return;
    }
    if (exc.kind === 'cancelled') {
      registry.update(runId, 'cancel');
      registry.emit(runId, 'run.cancelled');
      this.observer?.finished(run, { kind: 'interrupted', output: null, usage: zeroUsage() }, registry.statuses.get(runId)!);
    } else {
      const error = exc.kind === 'provider_auth' ? `\u26a0\ufe0f Provider authentication failed: ${exc.message}` : redactApiErrorText(exc.message);
      registry.update(runId, 'fail', [['error', error]]);
      registry.emit(runId, 'run.failed', [['error', error]]);
      this.observer?.finished(run, { kind: 'failed', error }, registry.statuses.get(runId)!);
    }
    this.#end(run, { kind: 'raised', exception: exc });
  }

  #cancel(run: LiveRun, result: AgentResult = { kind: 'interrupted', output: null, usage: zeroUsage() }): void {
    const tap = this.#taps.get(run.runId);
    if (tap) tap.ending({ kind: 'cancelled' }, '');
    else {
      this.registry.emit(run.runId, 'run.cancelled');
      this.registry.update(run.runId, 'cancel');
    }
    if (run.started) this.observer?.finished(run, result, this.registry.statuses.get(run.runId)!);
    this.#end(run, { kind: 'returned', result });
  }

  /** The task is over: the script stops playing it, then the stream gets its sentinel and capacity is released. */
  #end(run: LiveRun, ending: AgentEnding): void {
    this.script?.ended(run);
    this.#taps.delete(run.runId);
    this.registry.finishTask(run.runId);
    const waiter = this.#endings.get(run.runId);
    if (waiter) {
      this.#endings.delete(run.runId);
      waiter(ending);
    }
  }
}

export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });

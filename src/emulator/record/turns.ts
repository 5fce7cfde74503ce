// A run's turn as Hermes's agent writes it into its session store, as it happens: the session when the agent starts,
// the user message before the first model call, a model response's tool calls before its tools run, each tool result
// as its tool returns, the activity heartbeat, then the final answer and the turn's usage when it returns. Built once
// per run and handed to every sink (the API server's sessions, the --state-db recorder), so both hold the same rows,
// ids and times. Decisions 0004 (shapes), 0026 (one session model for both halves), 0079 (content, steer text,
// creation times), 0133 (written as they happen; tool calls started back to back are one response), 0151 (what
// reasoning.available stands for in the rows; the heartbeat's texts), 0153 (a response's text as Hermes stores it).
import { PyFloat, pyStr, pyStrip, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { MessageInput, ToolCall } from '../../state-db/writer/types.js';
import type { AgentResult, ProgressEvent } from '../runs/agent.js';
import type { RunObserver } from '../runs/observer.js';
import type { LiveRun } from '../runs/registry.js';
import {
  activityDescription, argumentsText, assistantText, callId, callPrefix, failedToolResult, NO_ARGUMENTS, steerMarker,
  toolCall, toolCompletedActivity, userContent,
} from './messages.js';

import type { Beat, FinishedTurn, Opening, TurnSink, TurnStart, TurnUsage } from './turn-sink.js';


/**
 * agent/session_activity.py SESSION_ACTIVITY_HEARTBEAT_MIN_INTERVAL_SECONDS: an agent writes its heartbeat at most
 * once a minute (its first touch always). Hermes measures it on the monotonic clock; here, the namespace's clock.
 */
const HEARTBEAT_SECONDS = 60;

/** A model response under way: tool calls started back to back, written as one assistant row when it closes. */
interface Batch {
  readonly calls: ToolCall[];
  readonly at: number;
  /** The response's visible text, as its reasoning.available told it (null: none). */
  readonly text: string | null;
  /**
   * The batch's tool starts, when their heartbeat waits for the batch to close (null: written as they came). A batch
   * begun after its response had landed touches first "executing tool: X" or, for two calls or more, "executing N tools
   * concurrently: …" (tool_executor.py l.761): which one is known only once the batch closes.
   */
  readonly starts: Array<{ readonly at: number; readonly tool: string }> | null;
}

interface Turn {
  readonly start: TurnStart;
  /**
   * Open tool calls by tool name, oldest first (a tool.completed answers the oldest of its tool). This and the two
   * collections below are made by their first entry: a run that streams no tool call keeps none of them (every live
   * run holds its turn, and an empty Map or Set costs about 200 bytes of heap).
   */
  open: Map<string, ToolCall[]> | null;
  batch: Batch | null;
  /**
   * The visible text of the model response under way, as reasoning.available carries it (conversation_loop.py sends
   * the response's content, its reasoning tags stripped, cut to 500 characters): the content of the next assistant
   * row that asks for tool calls (decision 0151).
   */
  text: string | null;
  /** Steer text delivered and not yet written into a tool result (joined as AIAgent.steer joins it). */
  steer: string | null;
  /** Tool calls numbered so far: the next call id's position. */
  calls: number;
  /** The call ids' prefix (a SHA-256 of the run id), computed at the turn's first call. */
  prefix: string | null;
  /** Assistant rows the turn wrote: its model responses, hence its API calls. */
  responses: number;
  /** When the turn's heartbeat was last written (null: not yet). */
  beat: number | null;
  /**
   * Whether the model call under way has its response (a reasoning.available, a tool started): false from the agent's
   * start and again once a response's calls are all answered (the loop starts the next call at once).
   */
  landed: boolean;
  /** When the approval the agent waits for was asked (null: none): its wait touches the heartbeat every 10 s. */
  waiting: number | null;
  /** Subagents started and not yet complete, by child session id (their sessions are open). */
  children: Map<string, Child> | null;
  /** Child sessions this turn completed: ended and written once, so a repeated event for one writes nothing again. */
  ended: Set<string> | null;
}

/** A delegate subagent under way: its session and the goal it was given (its first user message). */
interface Child {
  readonly start: TurnStart;
  readonly goal: string;
}

/** The keywords of subagent.complete that report the child's spend. */
const SPEND_KEYS = ['input_tokens', 'output_tokens', 'reasoning_tokens', 'api_calls', 'cost_usd'] as const;

type SubagentEvent = Extract<ProgressEvent, { event: 'subagent.start' | 'subagent.complete' }>;

/** A subagent's numeric keyword (int or float as sent); anything else, or a negative or non-finite number: absent. */
function amount(v: PyValue | undefined): number | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v instanceof PyFloat ? v.value : typeof v === 'number' ? v : undefined;
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * A count (tokens, API calls): a whole number a session's INTEGER counter holds exactly, else absent. A fraction, or
 * 10**30, would turn the counter into a REAL no Hermes store has (and the API's integer into a float).
 */
function count(v: PyValue | undefined): number | undefined {
  const n = amount(v);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/** The run status a subagent's own status stands for (its session's end): Hermes reports completed, failed, interrupted, timeout, error. */
const childStatus = (status: PyValue | undefined, summary: string): string =>
  status === 'completed' || (status === undefined && summary !== '') ? 'completed' : status === 'interrupted' ? 'cancelled' : 'failed';

/** estimate_usage_cost's answer for the emulator's calls: a reported cost is an estimate, else no price is known. */
const costVerdict = (cost: number | undefined) =>
  cost !== undefined && cost > 0 ? { cost_status: 'estimated', cost_source: null } : { cost_status: 'unknown', cost_source: 'none' };

const newTurn = (start: TurnStart): Turn => ({
  start, open: null, batch: null, text: null, steer: null, calls: 0, prefix: null, responses: 0, beat: null, landed: false, waiting: null, children: null, ended: null,
});

/** What a checkpoint keeps of the recorder (copies: the recorder goes on changing its own). */
export interface TurnsState {
  /** Each session's last message time. */
  readonly times: ReadonlyMap<string, number>;
  /** The turns of runs under way, as far as they were written. */
  readonly turns: ReadonlyMap<string, Turn>;
}

/** A deep enough copy: the lists and maps a turn changes (tool calls themselves never change once made). */
const copyTurn = (t: Turn): Turn => ({
  ...t,
  open: t.open && new Map([...t.open].map(([name, calls]) => [name, [...calls]])),
  batch: t.batch && { ...t.batch, calls: [...t.batch.calls], starts: t.batch.starts && [...t.batch.starts] },
  children: t.children && new Map(t.children),
  ended: t.ended && new Set(t.ended),
});

/** Watches the fake agent (RunObserver) and hands each turn to the sinks as it happens. */
export class TurnRecorder implements RunObserver {
  #turns = new Map<string, Turn>();
  /**
   * The time of each session's last recorded message (by profile and session id): a later message comes after it, so
   * a session's messages never go back in time, even on a frozen clock. Saved with a checkpoint's core state.
   */
  #lastAt = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly modelName: () => string,
    private readonly sinks: readonly TurnSink[],
    private readonly agentModel: () => string | null = () => null,
    /** HERMES_REDACT_SECRETS (the `redactSecrets` option): whether the assistant text recorded is redacted. */
    private readonly redactSecrets = true,
  ) {}

  /**
   * The model the run's agent runs (api_server.py `_request_agent_overrides`): the run's own `model`, stripped, unless
   * it is empty, not text, or the advertised name, which all mean the gateway's default (`--agent-model`).
   */
  #agentModelOf(status: PyDict): string {
    const asked = status.get('model');
    const model = typeof asked === 'string' ? pyStrip(asked) : '';
    return model && model !== this.modelName() ? model : this.agentModel() ?? this.modelName();
  }

  started(run: LiveRun, status: PyDict): void {
    const start: TurnStart = {
      runId: run.runId,
      profile: run.profile,
      sessionId: pyStr(status.get('session_id') ?? run.runId),
      model: run.agentModel ?? this.#agentModelOf(status),
      at: this.now(),
      sessionKey: run.sessionKey ?? null,
    };
    const turn = newTurn(start);
    this.#turns.set(run.runId, turn);
    // Crash-resilience (agent/turn_context.py): the user message is persisted before the first model call.
    const opening: Opening = {
      messages: this.#stamp(start, [{ role: 'user', content: userContent(run.userMessage), timestamp: start.at }]),
      beat: this.#beat(turn, start.at, 'starting API call #1'),
    };
    for (const sink of this.sinks) sink.started(start, opening);
  }

  steerDelivered(run: LiveRun, text: string): void {
    const turn = this.#turns.get(run.runId);
    if (turn) turn.steer = turn.steer === null ? text : `${turn.steer}\n${text}`;
  }

  approvalRequested(run: LiveRun): void {
    // Asked from inside a running tool: the response that called it is over.
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    const at = this.now();
    this.#waited(turn, at);
    this.#append(turn.start, this.#close(turn));
    turn.waiting = at;
  }

  progress(run: LiveRun, event: ProgressEvent): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    const at = this.now();
    this.#waited(turn, at);
    switch (event.event) {
      case 'message.delta':
        // A chunk of the model's stream: each touches "receiving stream response" (chat_completion_helpers.py l.3148).
        // While no model call is under way (a response's tools run) a delta is a script's, and touches nothing.
        if (!turn.landed) this.#touch(turn, at, 'receiving stream response');
        return;
      case 'reasoning.available':
        this.#append(turn.start, this.#close(turn));
        // Sent once the response is in (conversation_loop.py l.5700), after its "API call #N completed".
        this.#land(turn, at);
        turn.text = event.text || turn.text;
        return;
      case 'tool.started': {
        const args = event.arguments;
        const call = this.#call(turn, event.tool, args === undefined ? NO_ARGUMENTS : typeof args === 'string' ? args : argumentsText(args));
        const open = (turn.open ??= new Map());
        const queue = open.get(event.tool);
        if (queue) queue.push(call);
        else open.set(event.tool, [call]);
        // Calls started back to back, nothing else between them, are one model response (decision 0133).
        if (turn.batch === null) {
          // The response that asks for them lands now, unless a reasoning.available already told it: then the
          // instant's first touch is "API call #N completed", and the tools' own come after it (never due with it).
          const landing = !turn.landed;
          this.#land(turn, at);
          turn.batch = { calls: [], at, text: this.#takeText(turn), starts: landing ? null : [] };
        }
        const batch = turn.batch;
        batch.calls.push(call);
        if (batch.starts) batch.starts.push({ at, tool: event.tool });
        else if (batch.calls.length > 1) this.#touch(turn, at, `executing tool: ${event.tool}`);
        return;
      }
      case 'tool.completed': {
        const rows = this.#close(turn);
        // A result no tool.started announced still answers a call: Hermes's agent only runs tools the model called, so
        // the call it answers is recorded first (no arguments), and the transcript keeps every result paired.
        let call = turn.open?.get(event.tool)?.shift();
        if (call === undefined) {
          // Its response lands now if no call had: then "API call #N completed" is the instant's first touch.
          this.#land(turn, at);
          call = this.#call(turn, event.tool, NO_ARGUMENTS);
          rows.push(this.#response(turn, [call], at, this.#takeText(turn)));
        }
        const result = event.result ?? (event.error ? failedToolResult(event.tool) : '');
        const content = turn.steer === null ? result : result + steerMarker(turn.steer);
        turn.steer = null;
        rows.push({ role: 'tool', content, tool_call_id: call.id, tool_name: event.tool, timestamp: at });
        this.#append(turn.start, rows);
        // "tool completed: …" comes first at this instant; when the response's calls are all answered, "tool results
        // posted, continuing iteration #N" and "starting API call #N+1" follow it at once (conversation_loop.py l.6484,
        // l.1426), never due with it: the next model call is under way.
        this.#touch(turn, at, toolCompletedActivity(event.tool, event.duration, event.error));
        if (turn.batch === null && ![...(turn.open?.values() ?? [])].some((q) => q.length > 0)) turn.landed = false;
        return;
      }
      case 'subagent.start':
      case 'subagent.complete':
        this.#append(turn.start, this.#close(turn));
        this.#subagent(turn, event);
        return;
    }
  }

  /** A new tool call of the turn, with the next id. */
  #call(turn: Turn, tool: string, args: string): ToolCall {
    turn.prefix ??= callPrefix(turn.start.runId);
    return toolCall(callId(turn.prefix, turn.calls++), tool, args);
  }

  #takeText(turn: Turn): string | null {
    const text = turn.text;
    turn.text = null;
    return text;
  }

  /**
   * An assistant row asking for tool calls: one model response, one API call. Its text is the one the response showed
   * (reasoning.available), stored as build_assistant_message stores a response with that content: think blocks
   * stripped, redacted, reasoning only from inline `<think>` blocks, which the event Hermes sends never carries
   * (decisions 0151, 0153). A response of calls alone has the empty text (flatten_message_text(None), decision 0146).
   */
  #response(turn: Turn, calls: ToolCall[], at: number, text: string | null): MessageInput {
    turn.responses++;
    const said = text === null ? { content: '', reasoning: null } : assistantText(text, this.redactSecrets);
    return { role: 'assistant', ...said, tool_calls: calls, finish_reason: 'tool_calls', timestamp: at };
  }

  /** Closes the model response under way: its assistant row, to be written now (none when no batch is open). */
  #close(turn: Turn): MessageInput[] {
    const batch = turn.batch;
    if (batch === null) return [];
    turn.batch = null;
    if (batch.starts) {
      // The heartbeat the batch's starts waited for, in their order: the batch's own first (tool_executor.py l.761 for
      // a concurrent one, else `_begin_tool_execution`'s l.571), then each later call's.
      const [first, ...rest] = batch.starts;
      const names = batch.calls.map((c) => c.function.name);
      this.#touch(turn, first!.at, names.length > 1 ? `executing ${names.length} tools concurrently: ${names.join(', ')}` : `executing tool: ${first!.tool}`);
      for (const s of rest) this.#touch(turn, s.at, `executing tool: ${s.tool}`);
    }
    return [this.#response(turn, batch.calls, batch.at, batch.text)];
  }

  /**
   * The model call under way has its response: "API call #N completed" (conversation_loop.py l.3467), the first touch
   * of that instant. N is the turn's next model response (its rows so far, plus this one).
   */
  #land(turn: Turn, at: number): void {
    if (turn.landed) return;
    turn.landed = true;
    this.#touch(turn, at, `API call #${turn.responses + 1} completed`);
  }

  /**
   * An approval the agent waited for is over (the next thing it does comes at `until`). tools/approval.py polls once a
   * second and touches "waiting for user approval (Ns elapsed)" every 10 s of the wait (`touch_activity_if_due`,
   * tools/environments/base.py), never at the moment it is answered; those touches meet the once-a-minute limit. Only
   * the last one written is handed to the sinks: each write replaces the one before (time and description).
   */
  #waited(turn: Turn, until: number): void {
    const since = turn.waiting;
    if (since === null) return;
    turn.waiting = null;
    let last: number | null = null;
    for (;;) {
      const due = turn.beat === null ? since : turn.beat + HEARTBEAT_SECONDS;
      const k = Math.max(1, Math.ceil((due - since) / 10 - 1e-9));
      const at = since + 10 * k;
      if (at >= until) break;
      turn.beat = at;
      last = k;
    }
    if (last !== null) this.#send(turn, { at: since + 10 * last, description: activityDescription(`waiting for user approval (${10 * last}s elapsed)`) });
  }

  /** touch_session_activity, at most once a minute per agent (its first touch always): the beat to write, if any. */
  #beat(turn: Turn, at: number, description: string): Beat | null {
    if (turn.beat !== null && at - turn.beat < HEARTBEAT_SECONDS) return null;
    turn.beat = at;
    return { at, description: activityDescription(description) };
  }

  #touch(turn: Turn, at: number, description: string): void {
    const beat = this.#beat(turn, at, description);
    if (beat) this.#send(turn, beat);
  }

  #send(turn: Turn, beat: Beat): void {
    for (const sink of this.sinks) sink.touched(turn.start, beat);
  }

  /**
   * A delegate subagent's own session, as Hermes's child agent keeps it in the parent's store: opened when it starts,
   * with its goal as the user message its turn persists first; its answer and spend written when it completes. An
   * event that names no `child_session_id` has no session to record, nor one naming the run's own session (a child
   * always has a session of its own: it would write into the parent's). A child Hermes ended is not run again: an event
   * for a child this turn already completed records nothing more. Decision 0004 (addenda on subagents).
   */
  #subagent(turn: Turn, event: SubagentEvent): void {
    const id = event.kwargs.get('child_session_id');
    if (typeof id !== 'string' || id === '' || id === turn.start.sessionId || turn.ended?.has(id)) return;
    let child = turn.children?.get(id);
    if (!child) {
      const model = event.kwargs.get('model');
      const goal = event.kwargs.get('goal') ?? event.preview;
      const start: TurnStart = {
        runId: turn.start.runId,
        profile: turn.start.profile,
        sessionId: id,
        model: typeof model === 'string' && model !== '' ? model : turn.start.model,
        at: this.now(),
        // A delegate child carries no routing key of its parent's (hermes_state's lineage backfill skips it).
        sessionKey: null,
        delegatedFrom: turn.start.sessionId,
      };
      child = { start, goal: typeof goal === 'string' ? goal : '' };
      (turn.children ??= new Map()).set(id, child);
      const opening: Opening = { messages: this.#stamp(start, [{ role: 'user', content: child.goal, timestamp: start.at }]), beat: null };
      for (const sink of this.sinks) sink.started(start, opening);
    }
    if (event.event === 'subagent.start') return;
    turn.children?.delete(id);
    (turn.ended ??= new Set()).add(id);
    const summary = event.kwargs.get('summary');
    const text = typeof summary === 'string' ? summary : '';
    // The child's final response, as its own agent stores it (build_assistant_message, decision 0153).
    const messages: MessageInput[] = text !== '' ? [{ role: 'assistant', ...assistantText(text, this.redactSecrets), finish_reason: 'stop' }] : [];
    // Its spend as reported; an event that reports none adds nothing (no call is invented).
    const [input, output, reasoning, calls, cost] = SPEND_KEYS.map((key) => (key === 'cost_usd' ? amount : count)(event.kwargs.get(key)));
    const reported = [input, output, reasoning, calls, cost].some((v) => v !== undefined);
    const usage: TurnUsage | null = !reported ? null : {
      input_tokens: input ?? 0,
      output_tokens: output ?? 0,
      ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
      api_calls: calls ?? 1,
      ...(cost !== undefined ? { estimated_cost_usd: cost } : {}),
      ...costVerdict(cost),
    };
    this.#finish(child.start, messages, usage, childStatus(event.kwargs.get('status'), text));
  }

  finished(run: LiveRun, result: AgentResult, status: PyDict): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    this.#turns.delete(run.runId);
    const at = this.now();
    this.#waited(turn, at);
    // Calls asked for and never answered: their row was persisted before their tools ran.
    this.#append(turn.start, this.#close(turn));
    const final = status.get('status');
    const messages: MessageInput[] = [];
    if (final === 'completed' && 'output' in result) {
      // The final response lands (unless a reasoning.available told it already); the turn's end clears the label after.
      this.#land(turn, at);
      turn.responses++;
      // The run's output is the agent's final_response: the response's content with its think blocks stripped,
      // `.strip()`ped, not redacted (conversation_loop.py l.6874), which is what the gateway sends. The row is the
      // response as build_assistant_message stores it, redacted (decision 0153). A reasoning.available before it told
      // the same text, and adds nothing (decision 0151).
      const said = typeof result.output === 'string' ? assistantText(result.output, this.redactSecrets) : { content: null, reasoning: null };
      messages.push({ role: 'assistant', ...said, finish_reason: 'stop' });
    }
    // Each model response is one API call; a result that reports usage made at least one.
    const usage: TurnUsage | null = 'usage' in result
      ? { input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens, api_calls: Math.max(1, turn.responses), ...costVerdict(undefined) }
      : null;
    this.#finish(turn.start, messages, usage, typeof final === 'string' ? final : 'failed');
  }

  /**
   * Times `messages` (rows this recorder just made, stamped in place) after the session's last message, the final ones
   * at now: equal or earlier times are nudged by 1 µs to keep the order (the writer's rule).
   */
  #stamp(start: TurnStart, messages: MessageInput[]): MessageInput[] {
    if (messages.length === 0) return messages;
    const session = `${start.profile}\0${start.sessionId}`;
    // A session this process has not recorded yet may have messages from an earlier process on the same store.
    let last = this.#lastAt.get(session) ?? this.#stored(start.profile, start.sessionId);
    let at: number | undefined;
    for (const m of messages) {
      let ts = m.timestamp ?? (at ??= this.now());
      if (ts <= last) ts = last + 1e-6;
      m.timestamp = last = ts;
    }
    this.#lastAt.set(session, last);
    return messages;
  }

  #append(start: TurnStart, all: MessageInput[]): void {
    if (all.length === 0) return;
    const messages = this.#stamp(start, all);
    for (const sink of this.sinks) sink.appended(start, messages);
  }

  #finish(start: TurnStart, all: MessageInput[], usage: TurnUsage | null, status: string): void {
    const done: FinishedTurn = { ...start, messages: this.#stamp(start, all), usage, status };
    for (const sink of this.sinks) sink.finished(done);
  }

  /** The newest message time the sinks hold for a session (-Infinity: none). */
  #stored(profile: string, sessionId: string): number {
    let last = -Infinity;
    for (const sink of this.sinks) {
      const t = sink.lastMessageAt?.(profile, sessionId);
      if (typeof t === 'number' && t > last) last = t;
    }
    return last;
  }

  /** The sessions' last message times and the turns under way, for a checkpoint (copies). */
  snapshot(): TurnsState {
    return { times: new Map(this.#lastAt), turns: new Map([...this.#turns].map(([id, t]) => [id, copyTurn(t)])) };
  }

  /**
   * Puts back snapshot(): a run restored mid-turn goes on from what its turn had written at the checkpoint (the API
   * server's sessions are restored to the same moment; the --state-db file, a record, is not rewound). An empty state
   * forgets every session's time and turn (a namespace reset).
   */
  restore(state: TurnsState): void {
    this.#lastAt = new Map(state.times);
    this.#turns = new Map([...state.turns].map(([id, t]) => [id, copyTurn(t)]));
  }

  /**
   * An emulated crash and restart: what the agents had persisted stays, and so does a response's tool calls (Hermes
   * writes them before its tools start); the turns under way are lost, as the process that ran them.
   */
  crash(): void {
    for (const turn of this.#turns.values()) this.#append(turn.start, this.#close(turn));
    this.reset();
  }

  /** Turns under way are dropped (a reset, or after a crash); the sessions' times stay (sessions outlive a restart). */
  reset(): void {
    this.#turns.clear();
    for (const sink of this.sinks) sink.reset();
  }
}

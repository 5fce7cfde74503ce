// A run's turn as Hermes's agent leaves it in its session store: the session opened when the agent starts, then the
// turn's messages when it returns (user, assistant tool calls, tool results, final answer), each stamped when it was
// created, with the token totals. Built once per run and handed to every sink (the API server's sessions, the
// --state-db recorder), so both show the same messages, ids and times. Decision 0004 (shapes), 0026 (one session model
// for both halves), 0079 (content as the agent flushes it, steer text, creation times).
import { createHash } from 'node:crypto';
import { isDict, PyFloat, pyStr, type PlainJson, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { MessageInput, ToolCall } from '../../state-db/writer/types.js';
import type { AgentResult, ProgressEvent } from '../runs/agent.js';
import type { RunObserver } from '../runs/observer.js';
import type { LiveRun } from '../runs/registry.js';

/** The agent has started: its session (created if missing, as Hermes's AIAgent does). */
export interface TurnStart {
  readonly runId: string;
  /** The /p/<name>/ profile the run was admitted under ('default' without a prefix). */
  readonly profile: string;
  /** str() of the run's session_id. */
  readonly sessionId: string;
  /** The run's model, or the gateway's model name when the run's is not a string. */
  readonly model: string;
  readonly at: number;
  /**
   * A delegate subagent's own session: the session that delegated to it. Hermes's child agent runs with platform
   * `subagent`, the parent's session store, `parent_session_id` and `model_config._delegate_from` set to the parent.
   */
  readonly delegatedFrom?: string;
}

/** What a turn's API calls used, added to its session's counters (Hermes's agent adds each call's usage). */
export interface TurnUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly reasoning_tokens?: number;
  /** The API calls it covers; absent: one per assistant message of the turn. */
  readonly api_calls?: number;
  readonly estimated_cost_usd?: number;
}

/** The agent returned: what it flushes in one transaction. */
export interface FinishedTurn extends TurnStart {
  /** In order, each with its timestamp (equal times nudged by 1 µs, as the writer does). */
  readonly messages: readonly MessageInput[];
  /** The turn's usage (a completed or interrupted result, or a subagent's reported spend); null: none. */
  readonly usage: TurnUsage | null;
  /** The run's status after Hermes classified the result (completed, failed, cancelled). */
  readonly status: string;
}

export interface TurnSink {
  started(turn: TurnStart): void;
  finished(turn: FinishedTurn): void;
  /** The time of the session's newest message already stored (another process may have written it); null: none. */
  lastMessageAt?(sessionId: string): number | null;
  /** An emulated crash: whatever the agent had not flushed is lost. */
  reset(): void;
}

/** PyValue → plain JSON (ints and floats both become numbers; bigints that fit stay exact as numbers). */
export function toJson(v: PyValue): PlainJson {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  return Object.fromEntries([...v].map(([k, x]) => [k, toJson(x)]));
}

/**
 * A tool call's arguments as the text the model would have sent: compact JSON, keys in the order given (a PyDict keeps
 * it), with Python's `Infinity`, `-Infinity` and `NaN` for the floats JSON has no word for (what `json.dumps` writes;
 * JSON.stringify wrote `null`).
 */
function argumentsText(v: PyValue): string {
  if (v instanceof PyFloat || typeof v === 'number') {
    const x = v instanceof PyFloat ? v.value : v;
    return Number.isFinite(x) ? JSON.stringify(toJson(v)) : Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  }
  if (typeof v === 'bigint') return v.toString();
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(argumentsText).join(',')}]`;
  return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${argumentsText(x)}`).join(',')}}`;
}

const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image']);

/**
 * The user message as the agent's flush writes it (agent/session_persistence.py `_durable_content`): a list of parts
 * becomes its text — each `text` part's `str(text)`, each image part `[screenshot]`, joined by newlines, other parts
 * dropped, NULL when nothing is left; SessionDB's `\x00json:` form is only for what is not a string or a list.
 */
function userContent(content: PyValue): MessageInput['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return toJson(content) as PlainJson[];
  const text: string[] = [];
  for (const part of content) {
    if (!isDict(part)) continue;
    const type = part.get('type');
    if (type === 'text') text.push(pyStr(part.has('text') ? part.get('text')! : ''));
    else if (typeof type === 'string' && IMAGE_PART_TYPES.has(type)) text.push('[screenshot]');
  }
  return text.length > 0 ? text.join('\n') : null;
}

/** What a turn remembers of one progress event: three slots of a flat list (no object per event). */
const TOOL_STARTED = 0;
const TOOL_COMPLETED = 1;
const REASONING = 2;
/** Steer text delivered at a tool boundary: it rides on the next tool result (Hermes appends it to the batch's last). */
const STEER = 3;
/** Slots per step: kind, tool or text, arguments or result, the time it happened. */
const STRIDE = 4;
/** apply_pending_steer_to_tool_results's marker (agent/agent_runtime_helpers.py, Hermes PR #12116). */
const steerMarker = (text: string): string => `\n\n[USER STEER (injected mid-run, not tool output): ${text}]`;
const NO_ARGUMENTS = '{}';

interface Turn {
  start: TurnStart;
  user: MessageInput;
  /**
   * [kind, tool or text, arguments or result, time, …]: a turn may stream thousands of events, so they are kept as
   * primitives (tool names shared through `names`) and the messages built once, when the agent returns. The time is
   * when the event happened: the agent stamps each live message when it is created (decision 0079).
   */
  steps: Array<number | string | null>;
  names: Map<string, string>;
  /** Subagents started and not yet complete, by child session id (their sessions are open). */
  children: Map<string, Child>;
  /** Child sessions this turn completed: ended and written once, so a repeated event for one writes nothing again. */
  ended: Set<string>;
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

/**
 * `call_` + 24 hex, derived from the run id (16 hex of its SHA-256, once per turn) and the call's position (8 hex):
 * the same on every sink and every replay of a seeded run, and drawn from no id stream (recording changes no other id).
 */
const callPrefix = (runId: string): string => `call_${createHash('sha256').update(runId).digest('hex').slice(0, 16)}`;
const callId = (prefix: string, n: number): string => prefix + n.toString(16).padStart(8, '0');

/** The turn's messages so far (user, tool calls, results), and the reasoning waiting for the final answer. */
function turnMessages(runId: string, turn: Turn): MessageInput[] & { reasoning: string | null } {
  const messages: MessageInput[] = [turn.user];
  /** Open tool calls by tool name, oldest first (tool.completed answers the oldest). */
  const open = new Map<string, ToolCall[]>();
  /** Interim assistant text (reasoning.available) waiting for the next assistant message. */
  let reasoning: string | null = null;
  let prefix: string | null = null;
  let n = 0;
  /** Steer text delivered and not yet written into a tool result (joined as AIAgent.steer joins it). */
  let steer: string | null = null;
  const { steps } = turn;
  for (let i = 0; i < steps.length; i += STRIDE) {
    const kind = steps[i];
    const a = steps[i + 1] as string;
    const b = steps[i + 2] as string;
    const timestamp = steps[i + 3] as number;
    if (kind === STEER) steer = steer === null ? a : `${steer}\n${a}`;
    else if (kind === REASONING) reasoning = a || reasoning;
    else if (kind === TOOL_STARTED) {
      const call: ToolCall = { id: callId((prefix ??= callPrefix(runId)), n++), type: 'function', function: { name: a, arguments: b } };
      messages.push({ role: 'assistant', content: null, tool_calls: [call], finish_reason: 'tool_calls', reasoning, timestamp });
      reasoning = null;
      const queue = open.get(a) ?? [];
      queue.push(call);
      open.set(a, queue);
    } else {
      // A result no tool.started announced still answers a call: Hermes's agent only runs tools the model called, so
      // the call it answers is recorded first (no arguments), and the transcript keeps every result paired.
      let call = open.get(a)?.shift();
      if (call === undefined) {
        call = { id: callId((prefix ??= callPrefix(runId)), n++), type: 'function', function: { name: a, arguments: NO_ARGUMENTS } };
        messages.push({ role: 'assistant', content: null, tool_calls: [call], finish_reason: 'tool_calls', reasoning, timestamp });
        reasoning = null;
      }
      messages.push({ role: 'tool', content: steer === null ? b : b + steerMarker(steer), tool_call_id: call.id, tool_name: a, timestamp });
      steer = null;
    }
  }
  return Object.assign(messages, { reasoning });
}

/** What a checkpoint keeps of the recorder (copies: the recorder goes on changing its own). */
export interface TurnsState {
  /** Each session's last message time. */
  readonly times: ReadonlyMap<string, number>;
  /** The turns of runs under way: what they will flush when their agent returns. */
  readonly turns: ReadonlyMap<string, Turn>;
}

const copyTurn = (t: Turn): Turn => ({ start: t.start, user: t.user, steps: [...t.steps], names: new Map(t.names), children: new Map(t.children), ended: new Set(t.ended) });

/** Watches the fake agent (RunObserver) and hands each turn to the sinks. */
export class TurnRecorder implements RunObserver {
  #turns = new Map<string, Turn>();
  /**
   * The time of each session's last recorded message (by profile and session id): a later turn's messages come after
   * it, so a session's messages never go back in time, even on a frozen clock. Saved with a checkpoint's core state.
   */
  #lastAt = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly modelName: () => string,
    private readonly sinks: readonly TurnSink[],
  ) {}

  started(run: LiveRun, status: PyDict): void {
    const model = status.get('model');
    const start: TurnStart = {
      runId: run.runId,
      profile: run.profile,
      sessionId: pyStr(status.get('session_id') ?? run.runId),
      model: typeof model === 'string' ? model : this.modelName(),
      at: this.now(),
    };
    const content = run.userMessage;
    // The agent appends (and stamps) the user message when it starts the turn.
    const user: MessageInput = { role: 'user', content: userContent(content), timestamp: start.at };
    this.#turns.set(run.runId, { start, user, steps: [], names: new Map(), children: new Map(), ended: new Set() });
    for (const sink of this.sinks) sink.started(start);
  }

  steerDelivered(run: LiveRun, text: string): void {
    this.#turns.get(run.runId)?.steps.push(STEER, text, null, this.now());
  }

  progress(run: LiveRun, event: ProgressEvent): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    const at = this.now();
    if (event.event === 'reasoning.available') turn.steps.push(REASONING, event.text, null, at);
    else if (event.event === 'tool.started' || event.event === 'tool.completed') {
      let tool = turn.names.get(event.tool);
      if (tool === undefined) turn.names.set(event.tool, (tool = event.tool));
      if (event.event === 'tool.started') {
        const args = event.arguments;
        turn.steps.push(TOOL_STARTED, tool, args === undefined ? NO_ARGUMENTS : typeof args === 'string' ? args : argumentsText(args), at);
      } else {
        turn.steps.push(TOOL_COMPLETED, tool, event.result ?? (event.error ? 'Error' : ''), at);
      }
    } else if (event.event === 'subagent.start' || event.event === 'subagent.complete') this.#subagent(turn, event);
  }

  /**
   * A delegate subagent's own session, as Hermes's child agent keeps it in the parent's store: opened when it starts,
   * its conversation (the goal, then its summary) and its spend written when it completes, before the parent's turn.
   * An event that names no `child_session_id` has no session to record, nor one naming the run's own session (a child
   * always has a session of its own: it would write into the parent's). A child Hermes ended is not run again: an event
   * for a child this turn already completed records nothing more. Decision 0004 (addenda on subagents).
   */
  #subagent(turn: Turn, event: SubagentEvent): void {
    const id = event.kwargs.get('child_session_id');
    if (typeof id !== 'string' || id === '' || id === turn.start.sessionId || turn.ended.has(id)) return;
    let child = turn.children.get(id);
    if (!child) {
      const model = event.kwargs.get('model');
      const goal = event.kwargs.get('goal') ?? event.preview;
      const start: TurnStart = {
        runId: turn.start.runId,
        profile: turn.start.profile,
        sessionId: id,
        model: typeof model === 'string' && model !== '' ? model : turn.start.model,
        at: this.now(),
        delegatedFrom: turn.start.sessionId,
      };
      child = { start, goal: typeof goal === 'string' ? goal : '' };
      turn.children.set(id, child);
      for (const sink of this.sinks) sink.started(start);
    }
    if (event.event === 'subagent.start') return;
    turn.children.delete(id);
    turn.ended.add(id);
    const summary = event.kwargs.get('summary');
    const text = typeof summary === 'string' ? summary : '';
    const messages: MessageInput[] = [{ role: 'user', content: child.goal, timestamp: child.start.at }];
    if (text !== '') messages.push({ role: 'assistant', content: text, finish_reason: 'stop' });
    // Its spend as reported; an event that reports none adds nothing (no call is invented).
    const [input, output, reasoning, calls, cost] = SPEND_KEYS.map((key) => (key === 'cost_usd' ? amount : count)(event.kwargs.get(key)));
    const reported = [input, output, reasoning, calls, cost].some((v) => v !== undefined);
    const usage: TurnUsage | null = !reported ? null : {
      input_tokens: input ?? 0,
      output_tokens: output ?? 0,
      ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
      ...(calls !== undefined ? { api_calls: calls } : {}),
      ...(cost !== undefined ? { estimated_cost_usd: cost } : {}),
    };
    this.#flush(child.start, messages, usage, childStatus(event.kwargs.get('status'), text));
  }

  finished(run: LiveRun, result: AgentResult, status: PyDict): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    this.#turns.delete(run.runId);
    const built = turnMessages(run.runId, turn);
    const all: MessageInput[] = [...built];
    const final = status.get('status');
    if (final === 'completed' && 'output' in result) {
      all.push({
        role: 'assistant',
        content: typeof result.output === 'string' ? result.output : null,
        finish_reason: 'stop',
        reasoning: built.reasoning,
      });
    }
    const usage = 'usage' in result ? { input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens } : null;
    this.#flush(turn.start, all, usage, typeof final === 'string' ? final : 'failed');
  }

  /** Hands a finished turn to the sinks: each message at the time it was created (the final answer at this flush). */
  #flush(start: TurnStart, all: readonly MessageInput[], usage: TurnUsage | null, status: string): void {
    // Equal or earlier times (than the turn's previous message, or the session's last one) are nudged by 1 µs to keep
    // the order (the writer's rule).
    const session = `${start.profile}\0${start.sessionId}`;
    // A session this process has not recorded yet may have messages from an earlier process on the same store.
    let last = this.#lastAt.get(session) ?? this.#stored(start.sessionId);
    const at = this.now();
    const messages = all.map((m) => {
      let ts = m.timestamp ?? at;
      if (ts <= last) ts = last + 1e-6;
      last = ts;
      return { ...m, timestamp: ts };
    });
    if (messages.length > 0) this.#lastAt.set(session, last);
    const done: FinishedTurn = { ...start, messages, usage, status };
    for (const sink of this.sinks) sink.finished(done);
  }

  /** The newest message time the sinks hold for a session (-Infinity: none). */
  #stored(sessionId: string): number {
    let last = -Infinity;
    for (const sink of this.sinks) {
      const t = sink.lastMessageAt?.(sessionId);
      if (typeof t === 'number' && t > last) last = t;
    }
    return last;
  }

  /** The sessions' last message times and the turns under way, for a checkpoint (copies). */
  snapshot(): TurnsState {
    return { times: new Map(this.#lastAt), turns: new Map([...this.#turns].map(([id, t]) => [id, copyTurn(t)])) };
  }

  /**
   * Puts back snapshot(): a run restored mid-turn flushes the turn it had then, once (not the steps it played after
   * the checkpoint, nor nothing). An empty state forgets every session's time and turn (a namespace reset).
   */
  restore(state: TurnsState): void {
    this.#lastAt = new Map(state.times);
    this.#turns = new Map([...state.turns].map(([id, t]) => [id, copyTurn(t)]));
  }

  /** Turns under way are lost (a restart or a reset); the sessions' times stay (sessions outlive a restart). */
  reset(): void {
    this.#turns.clear();
    for (const sink of this.sinks) sink.reset();
  }
}

// A run's turn as Hermes's agent leaves it in its session store: the session opened when the agent starts, then the
// turn's messages when it returns (user, assistant tool calls, tool results, final answer), with the token totals.
// Built once per run and handed to every sink (the API server's sessions, the --state-db recorder), so both show
// the same messages, ids and times. Decision 0004 (shapes), 0026 (one session model for both halves).
import { createHash } from 'node:crypto';
import { PyFloat, pyStr, type PlainJson, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { MessageInput, ToolCall } from '../../state-db/writer/index.js';
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
}

/** The agent returned: what it flushes in one transaction. */
export interface FinishedTurn extends TurnStart {
  /** In order, each with its timestamp (equal times nudged by 1 µs, as the writer does). */
  readonly messages: readonly MessageInput[];
  /** Absolute token totals of a completed or interrupted result; null for a failure. */
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number } | null;
  /** The run's status after Hermes classified the result (completed, failed, cancelled). */
  readonly status: string;
}

export interface TurnSink {
  started(turn: TurnStart): void;
  finished(turn: FinishedTurn): void;
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

interface Turn {
  start: TurnStart;
  messages: MessageInput[];
  /** Open tool calls by tool name, oldest first (tool.completed answers the oldest). */
  open: Map<string, ToolCall[]>;
  /** Interim assistant text (reasoning.available) waiting for the next assistant message. */
  reasoning: string | null;
  calls: number;
}

/**
 * `call_` + 24 hex, derived from the run id and the call's position: the same on every sink and every replay of a
 * seeded run, and drawn from no id stream (recording changes no other id).
 */
const callId = (runId: string, n: number): string => `call_${createHash('sha256').update(`${runId}\0${n}`).digest('hex').slice(0, 24)}`;

/** Watches the fake agent (RunObserver) and hands each turn to the sinks. */
export class TurnRecorder implements RunObserver {
  readonly #turns = new Map<string, Turn>();

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
    const user: MessageInput = { role: 'user', content: typeof content === 'string' ? content : (toJson(content) as PlainJson[]) };
    this.#turns.set(run.runId, { start, messages: [user], open: new Map(), reasoning: null, calls: 0 });
    for (const sink of this.sinks) sink.started(start);
  }

  progress(run: LiveRun, event: ProgressEvent): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    if (event.event === 'reasoning.available') turn.reasoning = event.text || turn.reasoning;
    if (event.event === 'tool.started') {
      const args = event.arguments === undefined ? {} : toJson(event.arguments);
      const call: ToolCall = {
        id: callId(run.runId, turn.calls++),
        type: 'function',
        function: { name: event.tool, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
      };
      turn.messages.push({ role: 'assistant', content: null, tool_calls: [call], finish_reason: 'tool_calls', reasoning: turn.reasoning });
      turn.reasoning = null;
      const queue = turn.open.get(event.tool) ?? [];
      queue.push(call);
      turn.open.set(event.tool, queue);
    }
    if (event.event === 'tool.completed') {
      const call = turn.open.get(event.tool)?.shift();
      turn.messages.push({
        role: 'tool',
        content: event.result ?? (event.error ? 'Error' : ''),
        tool_call_id: call?.id ?? null,
        tool_name: event.tool,
      });
    }
  }

  finished(run: LiveRun, result: AgentResult, status: PyDict): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    this.#turns.delete(run.runId);
    const final = status.get('status');
    if (final === 'completed' && 'output' in result) {
      turn.messages.push({
        role: 'assistant',
        content: typeof result.output === 'string' ? result.output : null,
        finish_reason: 'stop',
        reasoning: turn.reasoning,
      });
    }
    // One flush time for the turn; equal or earlier times are nudged by 1 µs to keep the order (the writer's rule).
    let last = -Infinity;
    const at = this.now();
    const messages = turn.messages.map((m) => {
      let ts = m.timestamp ?? at;
      if (ts <= last) ts = last + 1e-6;
      last = ts;
      return { ...m, timestamp: ts };
    });
    const usage = 'usage' in result ? { input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens } : null;
    const done: FinishedTurn = { ...turn.start, messages, usage, status: typeof final === 'string' ? final : 'failed' };
    for (const sink of this.sinks) sink.finished(done);
  }

  reset(): void {
    this.#turns.clear();
    for (const sink of this.sinks) sink.reset();
  }
}

// Records the runs the emulator plays into a Hermes-shaped state.db, as Hermes's API server does: the session
// (source api_server, the run's model) when the agent starts, the turn's messages flushed in one transaction when
// the agent returns (user, assistant tool calls, tool results, final answer), absolute-mode token counters, and the
// end stamp on a terminal status. Decision 0004 records the choices.
import { existsSync } from 'node:fs';
import type { IdSource } from '../../shared/ids.js';
import { openReadWrite, type Db } from '../../shared/sqlite.js';
import { type PlainJson as PyJson, pyStr, PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter, type MessageInput, type ToolCall } from '../../state-db/writer/index.js';
import type { AgentResult, ProgressEvent } from '../runs/agent.js';
import type { RunObserver } from '../runs/observer.js';
import type { LiveRun } from '../runs/registry.js';

/** What the agent has produced in this turn and not flushed yet. */
interface Turn {
  sessionId: string;
  messages: MessageInput[];
  /** Open tool calls by tool name, oldest first (tool.completed answers the oldest). */
  open: Map<string, ToolCall[]>;
  /** Interim assistant text (reasoning.available) waiting for the next assistant message. */
  reasoning: string | null;
}

const END_REASONS: Record<string, string> = { completed: 'done', failed: 'failed', cancelled: 'cancelled' };

/** PyValue → plain JSON (ints and floats both become numbers; bigints that fit stay exact as numbers). */
function toJson(v: PyValue): PyJson {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  return Object.fromEntries([...v].map(([k, x]) => [k, toJson(x)]));
}

/** Opens an existing store as it is, or creates one at the current schema (WAL). */
export function openStateDb(path: string): Db {
  return existsSync(path) ? openReadWrite(path) : createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
}

export class StateDbRecorder implements RunObserver {
  readonly #writer: StateDbWriter;
  readonly #ids: IdSource;
  readonly #turns = new Map<string, Turn>();
  readonly #modelName: () => string;

  constructor(path: string, options: { now: () => number; ids: IdSource; modelName: () => string }) {
    this.#writer = new StateDbWriter(openStateDb(path), { now: options.now, ids: options.ids });
    this.#ids = options.ids;
    this.#modelName = options.modelName;
  }

  started(run: LiveRun, status: PyDict): void {
    const sessionId = pyStr(status.get('session_id') ?? run.runId);
    const model = status.get('model');
    this.#writer.createSession({ id: sessionId, source: 'api_server', model: typeof model === 'string' ? model : this.#modelName() });
    const content = run.userMessage;
    const user: MessageInput = { role: 'user', content: typeof content === 'string' ? content : (toJson(content) as PyJson[]) };
    this.#turns.set(run.runId, { sessionId, messages: [user], open: new Map(), reasoning: null });
  }

  progress(run: LiveRun, event: ProgressEvent): void {
    const turn = this.#turns.get(run.runId);
    if (!turn) return;
    if (event.event === 'reasoning.available') turn.reasoning = event.text || turn.reasoning;
    if (event.event === 'tool.started') {
      const args = event.arguments === undefined ? {} : toJson(event.arguments);
      const call: ToolCall = {
        id: `call_${this.#ids.uuid4Hex().slice(0, 24)}`,
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
    this.#writer.tx(() => {
      this.#writer.appendMessages(turn.sessionId, turn.messages);
      if ('usage' in result) {
        const u = result.usage;
        this.#writer.updateTokenCounts(turn.sessionId, { input_tokens: u.input_tokens, output_tokens: u.output_tokens }, 'absolute');
      }
      const reason = typeof final === 'string' ? END_REASONS[final] : undefined;
      if (reason) this.#writer.endSession(turn.sessionId, reason);
    });
  }

  reset(): void {
    this.#turns.clear();
  }

  close(): void {
    if (this.#writer.db.open) this.#writer.db.close();
  }
}

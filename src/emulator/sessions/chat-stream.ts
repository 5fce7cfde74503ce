// POST /api/sessions/{id}/chat/stream (decision 0145): the sync chat's turn, played on the same fake agent, told as
// Hermes's `_handle_session_chat_stream` tells it — named SSE events (`run.started`, `message.started`, the agent's
// deltas and tool progress, `assistant.completed`, `run.completed` or `error`, then `done`), each numbered by `seq` and
// stamped with the session, the run and the time. Unlike the sync chat, the turn's run is the requesting client's:
// GET /v1/runs/{id} shows it (queued, running with last_event `run.started`, then completed, failed or cancelled), and
// its statuses are the stream's own, not the /v1/runs task's. Pure domain: api/sessions.ts writes the frames.
import { PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { MessageInput } from '../../state-db/writer/types.js';
import type { AgentEnding, ProgressEvent, TurnTap } from '../runs/agent.js';
import { EventBuffer } from '../runs/event-log.js';
import { cancelled, failureText, streamTurnStatuses } from '../runs/stream-turn.js';
import { displayArgs } from '../runs/tool-args.js';
import { chatTurnRun, replyRuntime, turnModel, turnReply, type ChatDeps, type ChatTurn } from './chat.js';
import { runtimeMetadata } from './runtime.js';

/** The messages each run's turn persists, as the agent persists them (the sessions recorder hands them over). */
export interface TurnMessages {
  /** Starts keeping the messages `runId`'s turn writes; returns them (filled as they are written) and a stop. */
  watch(runId: string): { messages: MessageInput[]; stop(): void };
}

export interface StreamTurn extends ChatTurn {
  /** The request's ownership scope: the run is its own, as `_run_owners[run_id]` makes it. */
  readonly scope: string;
  /** `body.get("model", self._model_name)`: the model the run's status shows. */
  readonly statusModel: PyValue;
  /** `msg_` + uuid4 hex, minted before the run id as Hermes mints it. */
  readonly messageId: string;
}

export interface StreamedChat {
  readonly runId: string;
  /** The stream's queue: named event dicts, then the end (Hermes's `None`). No other route can find it. */
  readonly buffer: EventBuffer;
  /**
   * The client went away (a write failed): `_drain_session_stream_task_on_disconnect` interrupts the live agent, or
   * cancels the task that has not created one yet. The turn then ends as it ends; no frame goes anywhere.
   */
  departed(): void;
}

/**
 * `_message_response`'s safe keys in their order, as far as an agent message can hold them: no row id, session id or
 * token count (the store adds those), no timestamp (not stamped when built at v0.20.0), no display kind on a plain turn.
 */
const TRANSCRIPT_KEYS = ['role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'finish_reason', 'reasoning', 'reasoning_content'] as const;

/**
 * This turn's assistant and tool messages in client-safe shape (`_turn_transcript_messages`): the agent's in-memory
 * message dicts after the user turn, the safe keys the dict has (decision 0146). The rows the agent persists are those
 * dicts as written: an assistant message always has its content, finish reason and reasoning (null when none), its
 * tool calls with `call_id` and `response_item_id`; a tool message its call id and tool name.
 */
export function transcriptMessages(rows: readonly MessageInput[]): PyValue[] {
  const out: PyValue[] = [];
  for (const row of rows) {
    if (row.role !== 'assistant' && row.role !== 'tool') continue;
    const dict: PyDict = new Map();
    const values = row as unknown as Record<string, unknown>;
    for (const key of TRANSCRIPT_KEYS) {
      if (values[key] !== undefined) dict.set(key, values[key] as PyValue);
    }
    out.push(dict);
  }
  return out;
}

/** Admits the turn's run, hands its callbacks to the stream, and returns the stream's queue. */
export function streamChat(deps: ChatDeps, turns: TurnMessages, turn: StreamTurn): StreamedChat {
  const { service, registry, agent } = deps;
  const { clock } = registry;
  const actual = turnModel(deps, turn);
  const lock = turn.runtime.requireLock;
  const buffer = new EventBuffer(clock.now());
  const streamTurn = { sessionId: turn.sessionId, runtime: replyRuntime(turn, actual) };
  const runId = service.admitChatTurn({ ...chatTurnRun(turn, actual.model), owner: turn.scope, statusModel: turn.statusModel, streamTurn });
  const statuses = streamTurnStatuses(registry, runId, streamTurn);
  const transcript = turns.watch(runId);
  let seq = 0;

  /** _event_payload: the event's own keys, then session_id, run_id, seq and ts where it has none. */
  const push = (name: string, entries: Array<[string, PyValue]>): void => {
    const payload: PyDict = new Map(entries);
    seq++;
    if (!payload.has('session_id')) payload.set('session_id', turn.sessionId);
    payload.set('run_id', runId).set('seq', seq).set('ts', new PyFloat(clock.now()));
    buffer.push({ kind: 'event', event: payload, name });
  };
  const messageId: [string, PyValue] = ['message_id', turn.messageId];

  /** The task's finally: `done`, then the end of the queue. */
  const close = (): void => {
    transcript.stop();
    push('done', []);
    buffer.push({ kind: 'end' });
  };

  const tap: TurnTap = {
    started() {
      // _run_and_signal: run.started queued, the status `running` with last_event run.started, then message.started.
      push('run.started', [
        ['user_message', new Map<string, PyValue>([['role', 'user'], ['content', turn.userMessage]])],
        ['runtime', runtimeMetadata(turn.runtime, { provider: '', model: '' }, lock ? 'accepted' : '')],
      ]);
      statuses.started();
      push('message.started', [['message', new Map<string, PyValue>([['id', turn.messageId], ['role', 'assistant']])]]);
    },
    progress(ev: ProgressEvent) {
      // _delta and _tool_progress: a delta only when non-empty; reasoning as tool.progress; tools by their event name.
      if (ev.event === 'message.delta') {
        if (ev.delta) push('assistant.delta', [messageId, ['delta', ev.delta]]);
      } else if (ev.event === 'reasoning.available') {
        push('tool.progress', [messageId, ['tool_name', '_thinking'], ['delta', ev.text]]);
      } else if (ev.event === 'tool.started') {
        // The agent's tool.started: the preview it built, and the call's arguments as shown (tool-args.ts).
        push('tool.started', [messageId, ['tool_name', ev.tool], ['preview', ev.preview], ['args', displayArgs(ev.tool, ev.arguments)]]);
      } else if (ev.event === 'tool.completed') {
        // The agent calls back `("tool.completed", name, None, None, duration=…, is_error=…)`: a failure is one too.
        push('tool.completed', [messageId, ['tool_name', ev.tool], ['preview', null], ['args', null]]);
      }
      // subagent.* are not among the events the stream's callback forwards; the agent never sends tool.failed.
    },
    ending: statuses.ending,
  };
  agent.tap(runId, tap);

  // The agent's task ended: its turn is persisted (the transcript is whole), so the closing events can be told.
  const forget = agent.whenEnded(runId, (ending) => {
    detach();
    if (cancelled(ending)) return close();
    const reply = turnReply(turn, ending, actual);
    if (!reply) {
      push('error', [['message', failureText(ending)]]);
      return close();
    }
    push('assistant.completed', [
      ['session_id', turn.sessionId], messageId, ['content', reply.content], ['completed', true], ['partial', false],
      ['interrupted', false], ['runtime', reply.runtime],
    ]);
    const status = registry.statuses.get(runId);
    const steer = status?.get('pending_steer');
    push('run.completed', [
      ['session_id', turn.sessionId], messageId, ['completed', true], ['messages', transcriptMessages(transcript.messages)],
      ['usage', reply.usage], ['runtime', reply.runtime], ...(typeof steer === 'string' && steer ? [['pending_steer', steer] as [string, PyValue]] : []),
    ]);
    close();
  });
  // An emulated crash takes the task with it: no closing events (the stream is cut by its writer). A checkpoint's
  // restore puts the run back with the stream's status rules and no frames (agent.ts `revive`, decision 0146).
  const detach = registry.onCrash(() => {
    detach();
    forget();
    agent.untap(runId, tap);
    transcript.stop();
  });

  return {
    runId,
    buffer,
    departed() {
      const run = registry.live.get(runId);
      if (!run) return;
      if (run.started) agent.interrupt(run);
      else agent.raise(run, { kind: 'cancelled', message: 'SSE client disconnected' });
    },
  };
}

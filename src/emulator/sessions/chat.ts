// POST /api/sessions/{id}/chat, the synchronous turn `hermes peer dm` sends (spec sessions-api §6, §9.6): the fake
// agent plays one turn in the session — driven by the control plane or a scenario, on the namespace's clock — and
// the request is answered when the agent returns. The turn is a run the registry holds (capacity counts it, the
// control plane and scenarios act on it by its id), owned by no client: GET /v1/runs never shows it, as Hermes's
// sync chat registers no run status.
import type { PyDict, PyValue } from '../../shared/python/index.js';
import type { GatewaySettings } from '../gateway.js';
import type { AgentEnding, FakeAgent } from '../runs/agent.js';
import type { RunRegistry } from '../runs/registry.js';
import { UNOWNED, type ChatTurnRun, type RunService } from '../runs/service.js';
import { turnUsage } from '../runs/stream-turn.js';
import { runtimeMetadata, type RuntimeRequest } from './runtime.js';

/** The owner stamp of a chat turn: no request's ownership scope (a SHA-256 hex) is ever empty. */
export const CHAT_OWNER = UNOWNED;

export interface ChatTurn {
  readonly profile: string;
  readonly sessionId: string;
  /** The normalized user turn (text, or text and image parts). */
  readonly userMessage: PyValue;
  /** system_message / instructions, when given. */
  readonly instructions: PyValue | undefined;
  readonly runtime: RuntimeRequest;
  /** The model the session row stores (null: none). */
  readonly storedModel: string | null;
  readonly header: (name: string) => string | undefined;
  /** The validated X-Hermes-Session-Key (null or absent: none). */
  readonly sessionKey?: string | null;
}

export type ChatOutcome =
  | { kind: 'answer'; body: PyDict }
  /** An exception escaped the agent: aiohttp's 500 page. */
  | { kind: 'raised' }
  /** The gateway crashed (an emulated restart or reset) while the turn ran: the connection is dropped. */
  | { kind: 'dropped' };

export interface ChatDeps {
  readonly service: RunService;
  readonly registry: RunRegistry;
  readonly agent: FakeAgent;
  readonly gateway: GatewaySettings;
}

/** The model and provider the agent runs a turn with: the lock's or the requested model, else the session's stored model, else the gateway's default. */
export function turnModel(deps: ChatDeps, turn: ChatTurn): { provider: string; model: string } {
  const { gateway } = deps;
  return {
    model: turn.runtime.route?.model ?? turn.storedModel ?? gateway.agentModel ?? gateway.modelName,
    provider: turn.runtime.route?.provider ?? '',
  };
}

/** What the run service admits for a chat turn (the sync chat's, a stream's), running `model`. */
export function chatTurnRun(turn: ChatTurn, model: string): ChatTurnRun {
  return {
    sessionId: turn.sessionId,
    model,
    userMessage: turn.userMessage,
    instructions: turn.instructions,
    header: turn.header,
    profile: turn.profile,
    sessionKey: turn.sessionKey ?? null,
  };
}

/** Plays one chat turn and resolves with the answer once the agent's task has ended. */
export function playChat(deps: ChatDeps, turn: ChatTurn): Promise<ChatOutcome> {
  const { service, registry, agent } = deps;
  const actual = turnModel(deps, turn);
  return new Promise<ChatOutcome>((resolve) => {
    let forget = (): void => {};
    const detach = registry.onCrash(() => {
      detach();
      forget();
      resolve({ kind: 'dropped' });
    });
    // The agent starts on a later microtask or timer, so the ending is awaited before it can come.
    const runId = service.admitChatTurn(chatTurnRun(turn, actual.model));
    forget = agent.whenEnded(runId, (ending) => {
      detach();
      resolve(answer(turn, ending, actual));
    });
  });
}

/** What a turn gave back: the reply, the usage (with its runtime) and the runtime, as Hermes reads `_run_agent`'s (result, usage). */
export interface TurnReply {
  readonly content: PyValue;
  readonly usage: PyDict;
  readonly runtime: PyDict;
}

/**
 * _run_agent's (result, usage) as the chat handlers read them, or null when an exception escapes it (only the
 * provider-credential failure becomes a reply).
 */
export function turnReply(turn: ChatTurn, ending: AgentEnding, actual: { provider: string; model: string }): TurnReply | null {
  const lock = turn.runtime.requireLock;
  if (ending.kind === 'raised') {
    if (ending.exception.kind !== 'provider_auth') return null;
    return {
      content: `\u26a0\ufe0f Provider authentication failed: ${ending.exception.message}`,
      usage: turnUsage(ending, new Map())!,
      runtime: runtimeMetadata(turn.runtime, { provider: '', model: '' }, lock ? 'accepted' : ''),
    };
  }
  const { result } = ending;
  // A completed or interrupted loop returns its final response; a failed one has none.
  const runtime = replyRuntime(turn, actual);
  return { content: result.kind === 'failed' ? null : result.output, usage: turnUsage(ending, runtime)!, runtime };
}

/** `_sanitize_runtime_metadata` of the runtime the agent ran a turn with (`confirmed` under a lock). */
export const replyRuntime = (turn: ChatTurn, actual: { provider: string; model: string }): PyDict =>
  runtimeMetadata(turn.runtime, actual, turn.runtime.requireLock ? 'confirmed' : '');

/** The answer Hermes builds from _run_agent's (result, usage): the reply, the usage with its runtime, the runtime. */
function answer(turn: ChatTurn, ending: AgentEnding, actual: { provider: string; model: string }): ChatOutcome {
  const reply = turnReply(turn, ending, actual);
  if (!reply) return { kind: 'raised' };
  return {
    kind: 'answer',
    body: new Map<string, PyValue>([
      ['object', 'hermes.session.chat.completion'],
      ['session_id', turn.sessionId],
      ['message', new Map<string, PyValue>([['role', 'assistant'], ['content', reply.content]])],
      ['usage', reply.usage],
      ['runtime', reply.runtime],
    ]),
  };
}

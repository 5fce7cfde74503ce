// The port between a run's turn and whatever records it (the API server's sessions, the --state-db recorder): what
// the agent writes as it starts, as the turn goes on, and when it returns (decision 0133). record/turns.ts builds the
// rows once and hands the same ones to every sink.
import type { MessageInput } from '../../state-db/writer/types.js';

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
  /** The X-Hermes-Session-Key the run came with (the agent's gateway_session_key); null without one. */
  readonly sessionKey: string | null;
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
  /** The API calls it covers: the turn's model responses (its assistant rows), or the count a subagent reported. */
  readonly api_calls: number;
  readonly estimated_cost_usd?: number;
  /**
   * usage_pricing.estimate_usage_cost's verdict: `unknown`/`none` for a model it cannot price (the emulator's), or
   * `estimated` for a cost the control plane reported (whose pricing source nobody told: null).
   */
  readonly cost_status: string;
  readonly cost_source: string | null;
}

/** The agent returned: what its last persist writes. */
export interface FinishedTurn extends TurnStart {
  /** Written now, each with its time: the final answer (a subagent's summary); empty when there is none. */
  readonly messages: readonly MessageInput[];
  /** The turn's usage (a result's, or a subagent's reported spend); null: nothing to account. */
  readonly usage: TurnUsage | null;
  /** The run's status after Hermes classified the result (completed, failed, cancelled). */
  readonly status: string;
}

/** The agent's activity heartbeat (SessionDB.touch_session_activity): last_activity_at moves forward to `at`. */
export interface Beat {
  readonly at: number;
  readonly description: string;
}

/** What the agent writes as it starts, before its first model call: its user message (a child's goal), a heartbeat. */
export interface Opening {
  readonly messages: readonly MessageInput[];
  readonly beat: Beat | null;
}

export interface TurnSink {
  /** The agent started: its session (created if missing, reopened), then what it writes before its first call. */
  started(turn: TurnStart, opening: Opening): void;
  /**
   * Messages the agent persisted mid-turn, in order, each with its time (nudged after the session's last): a model
   * response's tool calls, a tool result.
   */
  appended(turn: TurnStart, messages: readonly MessageInput[]): void;
  touched(turn: TurnStart, beat: Beat): void;
  finished(turn: FinishedTurn): void;
  /**
   * The time of the profile's session's newest message already stored (another process may have written it); null:
   * none.
   */
  lastMessageAt?(profile: string, sessionId: string): number | null;
  /** An emulated crash: whatever the agent had not persisted is lost. */
  reset(): void;
}

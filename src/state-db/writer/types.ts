// Inputs of the Hermes-like writer: sessions, messages (OpenAI-chat shaped) and usage, keeping Hermes's names.
import type { PlainJson as PyJson } from '../../shared/python/index.js';

/** An OpenAI-chat tool call; `arguments` is itself a JSON string (spec state-db §3). */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  call_id?: string;
  response_item_id?: string;
}

/** A session as create_session receives it; any other sessions column may be given by its own name. */
export interface SessionInput {
  id?: string;
  source: string;
  user_id?: string | null;
  model?: string | null;
  /** JSON-able runtime config; lineage markers `_delegate_from`, `_branched_from`, `_reset_from` live here. */
  model_config?: PyJson;
  system_prompt?: string | null;
  parent_session_id?: string | null;
  started_at?: number;
  [column: string]: unknown;
}

export interface MessageInput {
  role: string;
  /** Text, or a structured value stored as `\x00json:` + JSON (multimodal content). */
  content?: string | null | PyJson[] | { [k: string]: PyJson };
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  tool_name?: string | null;
  /** Defaults to the clock; equal or earlier times in one batch are nudged by 1 µs to keep order. */
  timestamp?: number;
  finish_reason?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  reasoning_details?: PyJson;
  codex_reasoning_items?: PyJson;
  codex_message_items?: PyJson;
  display_metadata?: PyJson;
  platform_message_id?: string | null;
  observed?: number;
  api_content?: string | null;
  display_kind?: string | null;
  token_count?: number | null;
  effect_disposition?: string | null;
  active?: number | null;
  compacted?: number;
  _compressed_summary?: number;
}

/** One LLM call's normalized usage (input is net of cache, spec §8) plus its route and cost. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  /** API calls this usage covers (default 1 in delta mode). */
  api_calls?: number;
  estimated_cost_usd?: number | null;
  actual_cost_usd?: number | null;
  cost_status?: string | null;
  cost_source?: string | null;
  pricing_version?: string | null;
  model?: string | null;
  billing_provider?: string | null;
  billing_base_url?: string | null;
  billing_mode?: string | null;
}

export const COUNTERS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;

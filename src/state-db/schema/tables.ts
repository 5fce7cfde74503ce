// Every table Hermes's state.db has had, columns in the declared (fresh-store) order, each tagged with its level.
// Levels before v12 come from the spec's version table; v12-v30 placements are inferred (decision 0010).
import type { ColumnDef, TableDef } from './types.js';

type Opts = Partial<Omit<ColumnDef, 'name' | 'type' | 'since'>>;
const col = (name: string, type: ColumnDef['type'], since: number, opts: Opts = {}): ColumnDef => ({
  name, type, since, ...opts,
});
const T = (n: string, s: number, o: Opts = {}) => col(n, 'TEXT', s, o);
const I = (n: string, s: number, o: Opts = {}) => col(n, 'INTEGER', s, o);
const R = (n: string, s: number, o: Opts = {}) => col(n, 'REAL', s, o);
const zero = { default: '0' };
const nn0 = { notNull: true, default: '0' };

export const SESSIONS: TableDef = {
  name: 'sessions',
  since: 1,
  foreignKeys: [['parent_session_id', 'sessions(id)'], ['system_prompt_hash', 'system_prompts(hash)']],
  columns: [
    T('id', 1, { pk: 'plain' }), T('source', 1, { notNull: true }), T('created_source', 30), T('user_id', 1),
    T('session_key', 16), T('chat_id', 16), T('chat_type', 16), T('thread_id', 16), T('display_name', 18),
    T('origin_json', 18), I('expiry_finalized', 18, zero), T('model', 1), T('model_config', 1),
    T('system_prompt', 1), T('system_prompt_hash', 25), T('parent_session_id', 1),
    R('started_at', 1, { notNull: true }), R('ended_at', 1), T('end_reason', 1), I('message_count', 1, zero),
    I('tool_call_count', 1, zero), I('input_tokens', 1, zero), I('output_tokens', 1, zero),
    I('cache_read_tokens', 5, zero), I('cache_write_tokens', 5, zero), I('reasoning_tokens', 5, zero),
    T('cwd', 12), T('git_branch', 17), T('git_repo_root', 17), I('git_metadata_generation', 27, nn0),
    T('billing_provider', 5), T('billing_base_url', 5), T('billing_mode', 5), R('estimated_cost_usd', 5),
    R('actual_cost_usd', 5), T('cost_status', 5), T('cost_source', 5), T('pricing_version', 5), T('title', 3),
    T('title_source', 27), R('last_activity_at', 26), T('last_activity_description', 26),
    T('last_activity_provenance', 26), I('api_call_count', 8, zero), T('handoff_state', 12),
    T('handoff_platform', 12), T('handoff_error', 12), R('compression_failure_cooldown_until', 17),
    T('compression_failure_error', 17), I('compression_fallback_streak', 19, nn0),
    I('compression_ineffective_count', 26, nn0), R('compression_recovery_deadline', 28),
    I('compression_overload_streak', 30, nn0), T('profile_name', 21), T('transport_profile', 28),
    I('rewind_count', 13, nn0), I('archived', 13, nn0), I('pinned', 27, nn0), I('hidden', 28, nn0),
    R('last_read_at', 28), T('tool_names', 28),
  ],
};

export const MESSAGES: TableDef = {
  name: 'messages',
  since: 1,
  columns: [
    I('id', 1, { pk: 'autoincrement' }), T('session_id', 1, { notNull: true, references: 'sessions(id)' }),
    T('role', 1, { notNull: true }), T('content', 1), T('tool_call_id', 1), T('tool_calls', 1), T('tool_name', 1),
    T('effect_disposition', 17), R('timestamp', 1, { notNull: true }), I('token_count', 1),
    T('finish_reason', 2), T('reasoning', 6), T('reasoning_content', 7), T('reasoning_details', 6),
    T('codex_reasoning_items', 6), T('codex_message_items', 9), T('platform_message_id', 12),
    I('observed', 12, zero), I('_compressed_summary', 24, nn0),
    I('active', 13, { notNull: true, default: '1', alterAs: { notNull: false } }), I('compacted', 13, nn0),
    T('api_content', 19), T('display_kind', 21), T('display_metadata', 21), col('display_identity', 'BLOB', 27),
    I('display_order', 27),
  ],
};

const usageCounters = (since: number): ColumnDef[] => [
  I('input_tokens', since, nn0), I('output_tokens', since, nn0), I('cache_read_tokens', since, nn0),
  I('cache_write_tokens', since, nn0), I('reasoning_tokens', since, nn0),
];

export const SESSION_MODEL_USAGE: TableDef = {
  name: 'session_model_usage',
  since: 20,
  primaryKey: ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'task'],
  rebuiltAt: 22,
  beforeRebuild: { omit: ['task'], primaryKey: ['session_id', 'model', 'billing_provider', 'billing_base_url', 'billing_mode'] },
  columns: [
    T('session_id', 20, { notNull: true, references: 'sessions(id) ON DELETE CASCADE' }),
    T('model', 20, { notNull: true }), T('billing_provider', 20, { notNull: true, default: "''" }),
    T('billing_base_url', 20, { notNull: true, default: "''" }), T('billing_mode', 20, { notNull: true, default: "''" }),
    T('task', 22, { notNull: true, default: "''" }), I('api_call_count', 20, nn0), ...usageCounters(20),
    R('estimated_cost_usd', 20, nn0), R('actual_cost_usd', 20, nn0), T('cost_status', 20), T('cost_source', 20),
    R('first_seen', 20), R('last_seen', 20),
  ],
};

export const SESSION_DAILY_USAGE: TableDef = {
  name: 'session_daily_usage',
  since: 31,
  primaryKey: ['session_id', 'day'],
  columns: [
    T('session_id', 31, { notNull: true, references: 'sessions(id) ON DELETE CASCADE' }), T('day', 31, { notNull: true }),
    ...usageCounters(31), R('estimated_cost_usd', 31, nn0), R('actual_cost_usd', 31, nn0), I('api_call_count', 31, nn0),
  ],
};

const ASYNC_COMMENT = '-- Mirrors the delegation tool\'s own CREATE TABLE; origin_session_id was once added lazily by the tool.';

/** All tables in the order a fresh store creates them (the order of sqlite_master in a fresh v30 store). */
export const TABLES: TableDef[] = [
  { name: 'schema_version', since: 1, columns: [I('version', 1, { notNull: true })] },
  { name: 'system_prompts', since: 25, columns: [T('hash', 25, { pk: 'plain' }), T('prompt', 25, { notNull: true })] },
  SESSIONS,
  MESSAGES,
  SESSION_MODEL_USAGE,
  { name: 'state_meta', since: 9, columns: [T('key', 9, { pk: 'plain' }), T('value', 9)] },
  {
    name: 'gateway_routing', since: 17, primaryKey: ['scope', 'session_key'],
    columns: [T('scope', 17, { notNull: true, default: "''" }), T('session_key', 17, { notNull: true }),
      T('entry_json', 17, { notNull: true }), R('updated_at', 17, { notNull: true })],
  },
  {
    name: 'gateway_hygiene_state', since: 18,
    columns: [T('session_key', 18, { pk: 'plain' }), I('failure_streak', 18, nn0)],
  },
  {
    name: 'conversation_generations', since: 19, primaryKey: ['source', 'session_key'],
    columns: [T('source', 19, { notNull: true }), T('session_key', 19, { notNull: true }), I('generation', 19, nn0)],
  },
  {
    name: 'gateway_heartbeats', since: 21,
    columns: [T('backend_id', 21, { pk: 'plain' }), I('pid', 21, { notNull: true }), R('started_at', 21, { notNull: true }),
      R('last_heartbeat', 21, { notNull: true }), T('profile', 21, { notNull: true, default: "''" }),
      T('host', 21, { notNull: true, default: "''" })],
  },
  {
    name: 'compression_locks', since: 19,
    columns: [T('session_id', 19, { pk: 'plain' }), T('holder', 19, { notNull: true }),
      R('acquired_at', 19, { notNull: true }), R('expires_at', 19, { notNull: true })],
  },
  {
    name: 'session_turn_leases', since: 26,
    columns: [T('conversation_id', 26, { pk: 'plain' }), T('holder', 26, { notNull: true }),
      R('acquired_at', 26, { notNull: true }), R('expires_at', 26, { notNull: true })],
  },
  {
    name: 'async_delegations', since: 24, comment: ASYNC_COMMENT,
    columns: [T('delegation_id', 24, { pk: 'plain' }), T('origin_session', 24, { notNull: true }),
      T('origin_ui_session_id', 24, { notNull: true, default: "''" }), T('parent_session_id', 24),
      T('state', 24, { notNull: true }), R('dispatched_at', 24, { notNull: true }), R('completed_at', 24),
      R('updated_at', 24, { notNull: true }), T('event_json', 24), T('result_json', 24),
      T('delivery_state', 24, { notNull: true, default: "'pending'" }), I('delivery_attempts', 24, nn0),
      R('delivered_at', 24), I('owner_pid', 24), I('owner_started_at', 24), T('task_json', 24),
      T('delivery_claim', 24), R('delivery_claimed_at', 24), T('origin_session_id', 28, { notNull: true, default: "''" })],
  },
  SESSION_DAILY_USAGE,
];

export function tableDef(name: string): TableDef | undefined {
  return TABLES.find((t) => t.name === name);
}

// Indexes and (non-FTS) triggers of state.db, each tagged with the level that introduced it (decision 0010).
import type { IndexDef, TriggerDef } from './types.js';

const ix = (name: string, since: number, sql: string): IndexDef => ({ name, since, sql });

/** In the order a fresh v30 store lists them in sqlite_master. */
export const INDEXES: IndexDef[] = [
  ix('idx_sessions_source', 1, 'CREATE INDEX idx_sessions_source ON sessions(source)'),
  ix('idx_sessions_source_id', 12, 'CREATE INDEX idx_sessions_source_id ON sessions(source, id)'),
  ix('idx_sessions_parent', 1, 'CREATE INDEX idx_sessions_parent ON sessions(parent_session_id)'),
  ix('idx_sessions_started', 1, 'CREATE INDEX idx_sessions_started ON sessions(started_at DESC)'),
  ix('idx_messages_session', 1, 'CREATE INDEX idx_messages_session ON messages(session_id, timestamp)'),
  ix('idx_messages_session_id', 12, 'CREATE INDEX idx_messages_session_id ON messages(session_id, id)'),
  ix('idx_messages_assistant_calls_by_session', 16, `CREATE INDEX idx_messages_assistant_calls_by_session
    ON messages(session_id)
    WHERE role = 'assistant' AND tool_calls IS NOT NULL`),
  ix('idx_compression_locks_expires', 19, 'CREATE INDEX idx_compression_locks_expires ON compression_locks(expires_at)'),
  ix('idx_session_turn_leases_expires', 26, 'CREATE INDEX idx_session_turn_leases_expires ON session_turn_leases(expires_at)'),
  ix('idx_session_model_usage_session', 20, 'CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id)'),
  ix('idx_session_model_usage_model', 20, 'CREATE INDEX idx_session_model_usage_model ON session_model_usage(model)'),
  ix('idx_async_delegations_delivery', 24, `CREATE INDEX idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at)`),
  ix('idx_messages_platform_msg_id', 12,
    'CREATE INDEX idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL'),
  ix('idx_messages_session_active', 13, `CREATE INDEX idx_messages_session_active
    ON messages(session_id, active, timestamp)`),
  ix('idx_messages_display_page', 27, `CREATE INDEX idx_messages_display_page
    ON messages(session_id, display_order, active DESC, id DESC)
    WHERE active = 1 OR compacted = 1`),
  ix('idx_messages_display_backfill', 27, `CREATE INDEX idx_messages_display_backfill
    ON messages(session_id) WHERE (display_order IS NULL OR display_identity IS NULL)
    AND (active = 1 OR compacted = 1)`),
  ix('idx_messages_display_identity', 27, `CREATE INDEX idx_messages_display_identity
    ON messages(session_id, display_identity, display_order)
    WHERE display_identity IS NOT NULL AND (active = 1 OR compacted = 1)`),
  ix('idx_messages_active_null', 15, `CREATE INDEX idx_messages_active_null
    ON messages(active) WHERE active IS NULL`),
  ix('idx_sessions_session_key', 16, `CREATE INDEX idx_sessions_session_key
    ON sessions(session_key, started_at DESC)`),
  ix('idx_sessions_gateway_peer', 16, `CREATE INDEX idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC)`),
  ix('idx_sessions_handoff_state', 12, `CREATE INDEX idx_sessions_handoff_state
    ON sessions(handoff_state, started_at)`),
  ix('idx_sessions_system_prompt_hash', 25, `CREATE INDEX idx_sessions_system_prompt_hash
    ON sessions(system_prompt_hash)`),
  ix('idx_sessions_tool_names', 28, `CREATE INDEX idx_sessions_tool_names
    ON sessions(tool_names)`),
  ix('idx_sessions_effective_activity', 26, `CREATE INDEX idx_sessions_effective_activity
    ON sessions(COALESCE(last_activity_at, started_at) DESC, started_at DESC)`),
  ix('idx_sessions_title_unique', 4, 'CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL'),
];

// The display-order triggers keep messages.display_order = first row id of a logical message (spec §5.1).
const peerOrder = (ref: 'new') => `SELECT display_order FROM messages
        WHERE session_id = ${ref}.session_id AND id <> ${ref}.id
          AND (active = 1 OR compacted = 1)
          AND display_identity = ${ref}.display_identity AND display_order IS NOT NULL
        ORDER BY display_order LIMIT 1`;
const minPeer = `SELECT MIN(peer.id) FROM messages AS peer
        WHERE peer.session_id = old.session_id AND (peer.active = 1 OR peer.compacted = 1)
          AND peer.display_identity = old.display_identity`;

export const TRIGGERS: TriggerDef[] = [
  { name: 'messages_display_order_insert', since: 27, sql: `CREATE TRIGGER messages_display_order_insert
AFTER INSERT ON messages WHEN new.display_order IS NULL
BEGIN
    UPDATE messages SET display_order = COALESCE((
        ${peerOrder('new')}
    ), new.id) WHERE id = new.id;
END` },
  { name: 'messages_display_visibility_update', since: 27, sql: `CREATE TRIGGER messages_display_visibility_update
AFTER UPDATE OF active, compacted ON messages
WHEN (new.active = 1 OR new.compacted = 1) <> (old.active = 1 OR old.compacted = 1)
BEGIN
    UPDATE messages SET display_order = MIN(new.id, COALESCE((
        ${peerOrder('new')}
    ), new.id)) WHERE id = new.id
      AND (new.active = 1 OR new.compacted = 1);
    UPDATE messages SET display_order = (SELECT display_order FROM messages WHERE id = new.id)
    WHERE session_id = new.session_id AND id <> new.id AND (active = 1 OR compacted = 1)
      AND display_identity = new.display_identity
      AND (new.active = 1 OR new.compacted = 1);
    UPDATE messages SET display_order = (
        ${minPeer}
    ) WHERE session_id = old.session_id AND (active = 1 OR compacted = 1)
      AND display_identity = old.display_identity
      AND NOT (new.active = 1 OR new.compacted = 1);
END` },
  { name: 'messages_display_identity_update', since: 27, sql: `CREATE TRIGGER messages_display_identity_update
AFTER UPDATE OF role, content, timestamp, tool_call_id, tool_calls, tool_name,
                display_kind ON messages
WHEN new.role IS NOT old.role
  OR new.content IS NOT old.content
  OR new.timestamp IS NOT old.timestamp
  OR new.tool_call_id IS NOT old.tool_call_id
  OR new.tool_calls IS NOT old.tool_calls
  OR new.tool_name IS NOT old.tool_name
  OR new.display_kind IS NOT old.display_kind
BEGIN
    UPDATE messages SET display_identity = NULL, display_order = NULL
    WHERE id = new.id OR (
        session_id = old.session_id AND display_identity = old.display_identity
        AND (active = 1 OR compacted = 1)
    );
END` },
  { name: 'messages_display_identity_delete', since: 27, sql: `CREATE TRIGGER messages_display_identity_delete
AFTER DELETE ON messages WHEN old.active = 1 OR old.compacted = 1
BEGIN
    UPDATE messages SET display_order = (
        ${minPeer}
    ) WHERE session_id = old.session_id AND (active = 1 OR compacted = 1)
      AND display_identity = old.display_identity;
END` },
];

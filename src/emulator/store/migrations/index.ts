// Ordered schema migrations for the emulator's own store; PRAGMA user_version records how many have run.

export const MIGRATIONS: readonly string[] = [
  // 001: the durable idempotency table, shaped as Hermes's runs_idempotency.db at v2026.8.31 (spec runs-api §12.4).
  `CREATE TABLE IF NOT EXISTS run_idempotency (
     scope TEXT NOT NULL,
     idempotency_key TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     run_id TEXT NOT NULL,
     status_json TEXT NOT NULL,
     owner_pid INTEGER NOT NULL DEFAULT 0,
     owner_started INTEGER NOT NULL DEFAULT 0,
     retention_until REAL NOT NULL DEFAULT 0,
     acknowledged_at REAL,
     created_at REAL NOT NULL,
     updated_at REAL NOT NULL,
     PRIMARY KEY (scope, idempotency_key)
   );
   CREATE UNIQUE INDEX IF NOT EXISTS idx_run_idempotency_run_id ON run_idempotency(run_id);
   -- Not in Hermes: lets the 24 h prune (run on every keyed admission) find old rows without a full scan.
   CREATE INDEX IF NOT EXISTS idx_run_idempotency_updated_at ON run_idempotency(updated_at);`,
  // 002 (not in Hermes): partial indexes so the room-retention clauses of the prune never scan the table.
  `CREATE INDEX IF NOT EXISTS idx_run_idempotency_retention ON run_idempotency(retention_until) WHERE retention_until > 0;
   CREATE INDEX IF NOT EXISTS idx_run_idempotency_acknowledged ON run_idempotency(acknowledged_at) WHERE acknowledged_at IS NOT NULL;`,
  // 003 (not in Hermes): the 24 h prune only ever deletes terminal rows, so index only those. Admission writes
  // (queued, running) then never touch this index.
  `DROP INDEX IF EXISTS idx_run_idempotency_updated_at;
   CREATE INDEX IF NOT EXISTS idx_run_idempotency_terminal_updated ON run_idempotency(updated_at)
     WHERE json_extract(status_json, '$.status') IN ('completed', 'failed', 'cancelled', 'interrupted');`,
  // 004 (not in Hermes): run ids are found through an in-memory map kept exact across processes (store/run-index.ts).
  // Hermes's unique index on run_id cost most of an admission's page writes (its leaves are in random order); run ids
  // are uuid4, so their uniqueness never rested on it.
  `DROP INDEX IF EXISTS idx_run_idempotency_run_id;`,
  // 005 (not in Hermes): back to a plain index on updated_at. Deciding membership of 003's partial index parsed
  // status_json on every insert and status write (json_extract), which cost more than keeping a plain index whose
  // new keys land at its end. The prune's bounds read min(updated_at) from it (store/prune.ts).
  `DROP INDEX IF EXISTS idx_run_idempotency_terminal_updated;
   CREATE INDEX IF NOT EXISTS idx_run_idempotency_updated_at ON run_idempotency(updated_at);`,
  // 006: the API server's sessions (spec sessions-api §3–§6), one set per profile: the columns of Hermes's state.db
  // `sessions` and `messages` that the session routes read, under their own names, plus the profile (Hermes keeps a
  // state.db per profile). Decision 0026.
  `CREATE TABLE IF NOT EXISTS api_sessions (
     profile TEXT NOT NULL,
     id TEXT NOT NULL,
     source TEXT NOT NULL,
     user_id TEXT,
     model TEXT,
     model_config TEXT,
     system_prompt TEXT,
     parent_session_id TEXT,
     started_at REAL NOT NULL,
     ended_at REAL,
     end_reason TEXT,
     message_count INTEGER NOT NULL DEFAULT 0,
     tool_call_count INTEGER NOT NULL DEFAULT 0,
     input_tokens INTEGER NOT NULL DEFAULT 0,
     output_tokens INTEGER NOT NULL DEFAULT 0,
     cache_read_tokens INTEGER NOT NULL DEFAULT 0,
     cache_write_tokens INTEGER NOT NULL DEFAULT 0,
     reasoning_tokens INTEGER NOT NULL DEFAULT 0,
     estimated_cost_usd REAL,
     actual_cost_usd REAL,
     api_call_count INTEGER NOT NULL DEFAULT 0,
     title TEXT,
     last_activity_at REAL,
     pinned INTEGER NOT NULL DEFAULT 0,
     archived INTEGER NOT NULL DEFAULT 0,
     hidden INTEGER NOT NULL DEFAULT 0,
     last_read_at REAL,
     PRIMARY KEY (profile, id)
   );
   -- Hermes's idx_sessions_title_unique, per profile.
   CREATE UNIQUE INDEX IF NOT EXISTS idx_api_sessions_title ON api_sessions(profile, title) WHERE title IS NOT NULL;
   CREATE TABLE IF NOT EXISTS api_session_messages (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     profile TEXT NOT NULL,
     session_id TEXT NOT NULL,
     role TEXT NOT NULL,
     content TEXT,
     tool_call_id TEXT,
     tool_calls TEXT,
     tool_name TEXT,
     timestamp REAL NOT NULL,
     token_count INTEGER,
     finish_reason TEXT,
     reasoning TEXT,
     reasoning_content TEXT,
     display_kind TEXT
   );
   CREATE INDEX IF NOT EXISTS idx_api_session_messages_session ON api_session_messages(profile, session_id, id);`,
  // 007: message ids per profile, as each profile's own state.db numbers them (decision 0051). The table is rebuilt
  // without AUTOINCREMENT, its key (profile, id), and each profile's counter kept in api_session_message_ids (what
  // sqlite_sequence held for the whole table). A store written before keeps its ids (a client may have seen them); each
  // profile it holds goes on counting past the table's old counter, so no profile hands out an id already given.
  `CREATE TABLE IF NOT EXISTS api_session_message_ids (
     profile TEXT PRIMARY KEY,
     seq INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO api_session_message_ids (profile, seq)
     SELECT profile, (SELECT seq FROM sqlite_sequence WHERE name = 'api_session_messages')
     FROM (SELECT profile FROM api_sessions UNION SELECT profile FROM api_session_messages)
     WHERE (SELECT seq FROM sqlite_sequence WHERE name = 'api_session_messages') > 0;
   CREATE TABLE api_session_messages_by_profile (
     id INTEGER NOT NULL,
     profile TEXT NOT NULL,
     session_id TEXT NOT NULL,
     role TEXT NOT NULL,
     content TEXT,
     tool_call_id TEXT,
     tool_calls TEXT,
     tool_name TEXT,
     timestamp REAL NOT NULL,
     token_count INTEGER,
     finish_reason TEXT,
     reasoning TEXT,
     reasoning_content TEXT,
     display_kind TEXT,
     PRIMARY KEY (profile, id)
   );
   INSERT INTO api_session_messages_by_profile
     SELECT id, profile, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count,
            finish_reason, reasoning, reasoning_content, display_kind
     FROM api_session_messages ORDER BY id;
   DROP TABLE api_session_messages;
   DELETE FROM sqlite_sequence WHERE name = 'api_session_messages';
   ALTER TABLE api_session_messages_by_profile RENAME TO api_session_messages;
   CREATE INDEX IF NOT EXISTS idx_api_session_messages_session ON api_session_messages(profile, session_id, id);`,
];

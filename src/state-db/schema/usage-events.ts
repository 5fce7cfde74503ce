// Newer Hermes's per-call usage table, `session_model_usage_events` (late 2026, after the pinned release; decision
// 0112): one row per API call, with its time, route, task and deltas, written beside the session_model_usage upsert.
// Hermes's DDL for it is not in the sources read: this shape is ours, its columns those of Hermes's INSERT (plus a
// row id). A store gets it only when asked (`addUsageEvents`, the generator's `usageEvents` option), so every level's
// store stays as Hermes's pinned release makes it.
import type { Db } from '../../shared/sqlite.js';

export const USAGE_EVENTS_TABLE = 'session_model_usage_events';

const DDL = [
  `CREATE TABLE IF NOT EXISTS ${USAGE_EVENTS_TABLE} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    recorded_at REAL NOT NULL,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    task TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT
  )`,
  `CREATE INDEX IF NOT EXISTS idx_session_model_usage_events_session ON ${USAGE_EVENTS_TABLE}(session_id, recorded_at)`,
];

/**
 * Adds the per-call usage table to a store (a StateDbWriter opened on it afterwards writes a row per call).
 * @example addUsageEvents(createStore({ path, level: 31 }))
 */
export function addUsageEvents(db: Db): void {
  for (const sql of DDL) db.exec(sql);
}

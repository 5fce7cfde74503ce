// Columns by name, never by position (spec forwarding §6.1 item 1): what this store has, introspected once per
// connection, and SELECT lists that name every column Hermes has ever had, `NULL AS col` for the missing ones.
import type { Db } from '../../shared/sqlite.js';
// tables.ts alone: the schema's face also loads store creation (DDL, migrations), which a reader never needs.
import { MESSAGES, SESSIONS, SESSION_MODEL_USAGE, tableDef } from '../../state-db/schema/tables.js';
import { quoteName } from '../../shared/sql-name.js';

export const SESSION_COLUMNS = SESSIONS.columns.map((c) => c.name);
export const MESSAGE_COLUMNS = MESSAGES.columns.map((c) => c.name);
/**
 * The message columns the normalizer reads: the large `codex_reasoning_items` and the bookkeeping-only
 * `display_identity` (looked up on its own when needed) are left in the store.
 */
export const MESSAGE_READ_COLUMNS = MESSAGE_COLUMNS.filter((c) => !['codex_reasoning_items', 'display_identity', 'session_id'].includes(c));
export const MODEL_USAGE_COLUMNS = SESSION_MODEL_USAGE.columns.map((c) => c.name);
/**
 * The `async_delegations` columns the forwarder reads (decision 0054): not the gateway's routing key
 * (`origin_session`, which names the chat), the owner process or the delivery claim, nor `origin_session_id`.
 */
export const DELEGATION_READ_COLUMNS = tableDef('async_delegations')!.columns.map((c) => c.name)
  .filter((c) => !['origin_session', 'owner_pid', 'owner_started_at', 'delivery_claim', 'delivery_claimed_at', 'origin_session_id'].includes(c));
/** Those whose values make a row's digest (the JSON documents by their length): a change of any is a change of the row. */
export const DELEGATION_MARK_COLUMNS = DELEGATION_READ_COLUMNS.filter((c) => c !== 'delegation_id');

/** The store's capability map: table → its columns. */
export function introspect(db: Db): Map<string, Set<string>> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const out = new Map<string, Set<string>>();
  for (const t of tables) {
    const cols = db.prepare(`PRAGMA table_info(${quoteName(t)})`).all() as { name: string }[];
    out.set(t, new Set(cols.map((c) => c.name)));
  }
  return out;
}

/** `a, b, NULL AS c`: every wanted column, whether the table has it or not. */
export function selectList(have: Set<string> | undefined, wanted: readonly string[], alias = ''): string {
  const prefix = alias ? `${alias}.` : '';
  return wanted.map((c) => (have?.has(c) ? `${prefix}${quoteName(c)}` : `NULL AS ${quoteName(c)}`)).join(', ');
}

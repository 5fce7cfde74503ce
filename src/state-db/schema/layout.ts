// Physical layout of a store: which columns a table has, in which order, for "fresh at N" or "created at N, migrated
// to M" (ALTER TABLE ADD COLUMN appends, so migrated stores differ in order; spec state-db §4.1, §9.3).
import { TABLES, tableDef } from './tables.js';
import { LATEST_LEVEL, type ColumnDef, type Level, type TableDef, type TableInfoRow } from './types.js';

/** Order in which the reconciler appended columns (spec §9.3); tables not listed append in declared order. */
const ADDITION_ORDER: Record<string, string[]> = {
  sessions: [
    'title', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'billing_provider', 'billing_base_url',
    'billing_mode', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'cost_source', 'pricing_version',
    'api_call_count', 'cwd', 'handoff_state', 'handoff_platform', 'handoff_error', 'rewind_count', 'archived',
    'session_key', 'chat_id', 'chat_type', 'thread_id', 'git_branch', 'git_repo_root',
    'compression_failure_cooldown_until', 'compression_failure_error', 'display_name', 'origin_json',
    'expiry_finalized', 'compression_fallback_streak', 'profile_name', 'system_prompt_hash', 'last_activity_at',
    'last_activity_description', 'last_activity_provenance', 'compression_ineffective_count', 'pinned',
    'git_metadata_generation', 'title_source', 'hidden', 'last_read_at', 'compression_recovery_deadline',
    'tool_names', 'transport_profile', 'created_source', 'compression_overload_streak',
  ],
  messages: [
    'finish_reason', 'reasoning', 'reasoning_details', 'codex_reasoning_items', 'reasoning_content',
    'codex_message_items', 'platform_message_id', 'observed', 'active', 'compacted', 'effect_disposition',
    'api_content', 'display_kind', 'display_metadata', '_compressed_summary', 'display_identity', 'display_order',
  ],
};

export function checkLevel(level: Level): void {
  if (!Number.isInteger(level) || level < 1 || level > LATEST_LEVEL) throw new RangeError(`Unknown schema level ${level}.`);
}

/** The value Hermes keeps in `schema_version` at this level (the post-v30 level still says 30). */
export function storedVersion(level: Level): number {
  return Math.min(level, 30);
}

/** Tables present at a level, in fresh-store creation order. */
export function tablesAt(level: Level): TableDef[] {
  return TABLES.filter((t) => t.since <= level);
}

/** The level at which this table got its current base shape in a store created at `createdAt`. */
export function baseLevel(table: TableDef, createdAt: Level, level: Level): Level {
  let base = Math.max(createdAt, table.since);
  if (table.rebuiltAt !== undefined && base < table.rebuiltAt && table.rebuiltAt <= level) base = table.rebuiltAt;
  return base;
}

/** Columns in the order the reconciler appended them. */
export function chronological(table: TableDef): ColumnDef[] {
  const order = ADDITION_ORDER[table.name];
  if (!order) return [...table.columns].sort((a, b) => a.since - b.since);
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  return order.map((n) => byName.get(n)!);
}

/** Columns a fresh store declares at `level` (pre-rebuild shape for rebuilt tables below their rebuild level). */
export function declaredColumns(table: TableDef, level: Level): ColumnDef[] {
  const omit = table.rebuiltAt !== undefined && level < table.rebuiltAt ? table.beforeRebuild?.omit ?? [] : [];
  return table.columns.filter((c) => c.since <= level && !omit.includes(c.name));
}

/** Columns in physical order for a store created at `createdAt` and migrated to `level`, appended ones as altered. */
export function physicalColumns(name: string, level: Level, createdAt: Level = level): ColumnDef[] {
  const table = tableDef(name);
  if (!table || table.since > level) return [];
  const base = baseLevel(table, createdAt, level);
  const cols = declaredColumns(table, base);
  const appended = chronological(table)
    .filter((c) => c.since > base && c.since <= level)
    .map((c) => (c.alterAs ? { ...c, notNull: c.alterAs.notNull, default: c.alterAs.default } : c));
  return [...cols, ...appended];
}

/** The primary key of a table as it stands at `level`. */
export function primaryKeyAt(table: TableDef, level: Level): string[] | undefined {
  if (table.rebuiltAt !== undefined && level < table.rebuiltAt) return table.beforeRebuild?.primaryKey ?? table.primaryKey;
  return table.primaryKey;
}

/** What `PRAGMA table_info(name)` must return for that layout. */
export function expectedTableInfo(name: string, level: Level, createdAt: Level = level): TableInfoRow[] {
  const table = tableDef(name)!;
  const pkCols = primaryKeyAt(table, Math.max(level, baseLevel(table, createdAt, level))) ?? [];
  return physicalColumns(name, level, createdAt).map((c, cid) => ({
    cid,
    name: c.name,
    type: c.type,
    notnull: c.notNull ? 1 : 0,
    dflt_value: c.default ?? null,
    pk: c.pk ? 1 : pkCols.indexOf(c.name) + 1,
  }));
}

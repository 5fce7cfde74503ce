// Named profiles: the fixture profiles and variants of spec state-db §10 as generator settings.
import type { JournalMode } from '../schema/create.js';

export interface ProfileSettings {
  level: number;
  createdAt?: number;
  journal?: JournalMode;
  /** Leave the newest sessions only in the -wal file. */
  walTail?: boolean;
  /** Write a few rows with active IS NULL (stores migrated across the reconciler quirk). */
  activeNull?: boolean;
  /** Write a profile config.yaml that points Hermes at PostgreSQL, next to a stale state.db. */
  postgres?: boolean;
  description: string;
}

export const PROFILES: Record<string, ProfileSettings> = {
  'v2-early': { level: 2, description: 'v1 tables plus finish_reason; no title, billing, reasoning or cwd' },
  v9: { level: 9, description: 'title, billing/cost, reasoning columns, api_call_count, codex_message_items, state_meta' },
  v11: { level: 11, description: 'v9 plus trigram FTS in the inline layout; no cwd' },
  mid: { level: 15, createdAt: 11, activeNull: true, description: '~v15 created at v11: cwd, handoff, rewind_count, archived, active/compacted (some active IS NULL)' },
  v22: { level: 22, description: 'gateway metadata, git fields, session_model_usage with task in the PK, display_kind/api_content' },
  v25: { level: 25, description: 'system_prompts, system_prompt_hash, system_prompt NULL' },
  v30: { level: 31, description: 'current: everything in spec §4-§6 plus session_daily_usage' },
  'v30-pre-daily': { level: 30, description: 'v30 before session_daily_usage existed' },
  'wal-tail': { level: 31, journal: 'wal', walTail: true, description: 'v30 in WAL mode whose newest sessions live only in state.db-wal' },
  'delete-journal': { level: 31, journal: 'delete', description: 'v30 in DELETE (rollback journal) mode, as on SQLite builds unsafe for WAL' },
  migrated: { level: 31, createdAt: 12, activeNull: true, description: 'created at v12 and migrated to v30: appended column order (spec §9.3)' },
  'postgres-stale': { level: 31, postgres: true, description: 'config.yaml selects the PostgreSQL backend; the state.db beside it is stale' },
};

export function profileNames(): string[] {
  return Object.keys(PROFILES);
}

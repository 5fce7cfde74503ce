// Hermes's columns the dataset has no column of its own for, kept by their Hermes names in `attributes` (spec
// forwarding §8: what Hermes recorded is not lost on the way) — except who the user and the chat are, which stay in
// the store (§6.4 item 29; decision 0018). The session's are made into a record by projector/session-attributes.ts.
// Decision 0050.
import type { Row } from './types.js';
import { parsed } from './values.js';

/** Session columns kept in `sessions.attributes` when set (not NULL, not 0). */
export const SESSION_EXTRA_COLUMNS = [
  'created_source', 'chat_type', 'title_source', 'profile_name', 'transport_profile', 'pricing_version', 'model_config',
  'tool_names', 'last_activity_description', 'last_activity_provenance', 'last_read_at', 'archived', 'pinned', 'hidden',
  'expiry_finalized', 'git_metadata_generation', 'handoff_state', 'handoff_platform', 'handoff_error',
  'compression_failure_cooldown_until', 'compression_failure_error', 'compression_fallback_streak',
  'compression_ineffective_count', 'compression_overload_streak', 'compression_recovery_deadline',
] as const;

/** Session columns that never leave the store: the user's and the chat's identity. */
export const SESSION_IDENTITY_COLUMNS = ['user_id', 'session_key', 'chat_id', 'thread_id', 'display_name', 'origin_json'] as const;

/** One message's extras (`platform_message_id`, `effect_disposition`, `observed` when set, reactions), or null. */
export function messageAttributes(row: Row): Record<string, unknown> | null {
  const platform = row.platform_message_id;
  const effect = row.effect_disposition;
  const observed = row.observed;
  const meta = row.display_metadata;
  // Nearly every row: none of them.
  if ((platform === null || platform === undefined) && (effect === null || effect === undefined) && !observed && (meta === null || meta === undefined)) return null;
  let out: Record<string, unknown> | null = null;
  if (platform !== null && platform !== undefined) (out ??= {}).platform_message_id = platform;
  if (effect !== null && effect !== undefined) (out ??= {}).effect_disposition = effect;
  if (observed !== null && observed !== undefined && observed !== 0) (out ??= {}).observed = observed;
  const reactions = typeof meta === 'string' ? reactionsOf(meta) : null;
  if (reactions) (out ??= {}).reactions = reactions;
  return out;
}

/** Who reacted, when it names a side of the conversation rather than a person. */
const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'agent', 'bot', 'system']);

/**
 * The reactions of `display_metadata` (`{"reactions": [{"emoji", "author", "at", "seen"}, …]}`), each with its emoji,
 * time and seen flag, and its author when that is a role (`user`, `assistant`, …); an author that names a person is
 * `other` (who the users are stays in the store). Null when the document has none (or is not JSON).
 */
function reactionsOf(meta: string): Record<string, unknown>[] | null {
  if (!meta.includes('reactions')) return null;
  const doc = parsed(meta) as { reactions?: unknown } | null;
  if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.reactions)) return null;
  const out: Record<string, unknown>[] = [];
  for (const r of doc.reactions as unknown[]) {
    if (r === null || typeof r !== 'object') continue;
    const { emoji, author, at, seen } = r as Record<string, unknown>;
    if (typeof emoji !== 'string' || emoji === '') continue;
    const reaction: Record<string, unknown> = { emoji };
    if (author !== undefined && author !== null) reaction.author = typeof author === 'string' && ROLES.has(author) ? author : 'other';
    if (typeof at === 'number') reaction.at = at;
    if (typeof seen === 'boolean') reaction.seen = seen;
    out.push(reaction);
  }
  return out.length > 0 ? out : null;
}

/**
 * The message columns Hermes updates on a row already written without touching the session row or adding a row: a
 * display kind and its metadata stamped just after the turn is saved (`set_latest_matching_message_display_kind`),
 * reactions and their `seen` flags, tool-retry marks (`display_metadata`), and `api_content` filled in later
 * (decision 0053). The reader reads them alone to notice such an edit (pipeline/edits.ts).
 */
export const EDITED_COLUMNS = ['display_kind', 'display_metadata', 'api_content'] as const;

// Rewrites of a transcript (spec state-db §8): compression split, in-place compaction (active/compacted),
// replace_messages (/retry, /undo), soft-archiving rewinds, and deletion with delegate cascade.
import type { StateDbWriter } from './index.js';
import type { MessageInput, SessionInput } from './types.js';

type StoredRow = Record<string, unknown> & { id: number; timestamp: number; tool_calls: string | null };

function recount(w: StateDbWriter, sessionId: string): void {
  const active = w.has('messages', 'active') ? 'AND (active = 1 OR active IS NULL)' : '';
  w.stmt(`UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ? ${active}) WHERE id = ?`)
    .run(sessionId, sessionId);
}

/** Compression split: the parent ends with 'compression'; a numbered child carries the summary onward. */
export function compressSplit(w: StateDbWriter, parentId: string, carried: MessageInput[], child: Partial<SessionInput> = {}): string {
  return w.tx(() => {
    const parent = w.stmt('SELECT * FROM sessions WHERE id = ?').get(parentId) as Record<string, unknown>;
    w.endSession(parentId, 'compression');
    const title = typeof parent.title === 'string' ? nextTitle(w, parent.title) : undefined;
    const id = w.createSession({
      source: parent.source as string, user_id: parent.user_id as string | null, model: parent.model as string | null,
      parent_session_id: parentId, title, cwd: parent.cwd, profile_name: parent.profile_name, ...child,
    });
    w.appendMessages(id, carried);
    return id;
  });
}

/** Lineage numbering of titles: `name #2`, `name #3`, ... (first free one). */
function nextTitle(w: StateDbWriter, title: string): string {
  const base = title.replace(/ #\d+$/, '');
  for (let i = 2; ; i++) {
    const candidate = `${base} #${i}`;
    if (!w.stmt('SELECT 1 FROM sessions WHERE title = ?').get(candidate)) return candidate;
  }
}

/**
 * In-place compaction under the same id: active rows become active=0, compacted=1; the compacted context is
 * inserted as new active rows; the last `carriedTail` rows are cloned byte-exact (new ids, timestamps carried) and
 * their originals flagged active=0, compacted=0.
 */
export function compactInPlace(w: StateDbWriter, sessionId: string, summary: MessageInput[], carriedTail: number): number[] {
  return w.tx(() => {
    const rows = w.stmt('SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id').all(sessionId) as StoredRow[];
    const tail = carriedTail > 0 ? rows.slice(-carriedTail) : [];
    w.stmt('UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND active = 1').run(sessionId);
    const firstTs = tail[0]?.timestamp ?? w.now();
    const ids = summary.map((m, i) => w.insertMessageRow(sessionId, m, m.timestamp ?? firstTs - 1e-3 + i * 1e-6));
    for (const r of tail) {
      const { id: _id, display_order: _o, ...rest } = r;
      const row: Record<string, unknown> = { ...rest, active: 1, compacted: 0 };
      ids.push(Number(w.insert('messages', row).lastInsertRowid));
      w.stmt('UPDATE messages SET active = 0, compacted = 0 WHERE id = ?').run(r.id);
    }
    recount(w, sessionId);
    return ids;
  });
}

/**
 * replace_messages's modes: by default every row of the session is deleted; `activeOnly` spares rows already archived
 * (compacted or rewound); `archiveDropped` soft-archives the live rows (active = 0, compacted = 0) instead, as newer
 * Hermes's /retry, /undo and edit do (a store without `active` deletes them).
 */
export interface ReplaceOptions { activeOnly?: boolean; archiveDropped?: boolean }

/** replace_messages: drop the session's rows (see ReplaceOptions) and insert the new set (new ids); counters recomputed. */
export function replaceMessages(w: StateDbWriter, sessionId: string, messages: MessageInput[], options: ReplaceOptions = {}): number[] {
  return w.tx(() => {
    if (options.archiveDropped && w.has('messages', 'active')) w.stmt('UPDATE messages SET active = 0 WHERE session_id = ? AND active = 1').run(sessionId);
    else w.stmt(`DELETE FROM messages WHERE session_id = ?${options.activeOnly ? ' AND active = 1' : ''}`).run(sessionId);
    w.stmt('UPDATE sessions SET message_count = 0, tool_call_count = 0 WHERE id = ?').run(sessionId);
    return w.appendMessages(sessionId, messages);
  });
}

/** Rewind/undo by soft-archive: rows after `keepThroughId` become active=0; rewind_count += 1. */
export function rewind(w: StateDbWriter, sessionId: string, keepThroughId: number): void {
  w.tx(() => {
    w.stmt('UPDATE messages SET active = 0 WHERE session_id = ? AND id > ? AND active = 1').run(sessionId, keepThroughId);
    if (w.has('sessions', 'rewind_count')) w.stmt('UPDATE sessions SET rewind_count = rewind_count + 1 WHERE id = ?').run(sessionId);
    recount(w, sessionId);
  });
}

/**
 * hermes sessions delete: removes the session, its messages and usage rows; delegate children are deleted too,
 * other children (compression, branch) lose their parent link.
 */
export function deleteSession(w: StateDbWriter, sessionId: string): void {
  w.tx(() => {
    const children = w.stmt('SELECT id, source, model_config FROM sessions WHERE parent_session_id = ?').all(sessionId) as
      { id: string; source: string; model_config: string | null }[];
    for (const c of children) {
      if (c.source === 'subagent' || (c.model_config ?? '').includes('"_delegate_from"')) deleteSession(w, c.id);
      else w.stmt('UPDATE sessions SET parent_session_id = NULL WHERE id = ?').run(c.id);
    }
    w.stmt('DELETE FROM messages WHERE session_id = ?').run(sessionId);
    for (const t of ['session_model_usage', 'session_daily_usage']) {
      if (w.has(t)) w.stmt(`DELETE FROM ${t} WHERE session_id = ?`).run(sessionId);
    }
    w.stmt('DELETE FROM sessions WHERE id = ?').run(sessionId);
  });
}

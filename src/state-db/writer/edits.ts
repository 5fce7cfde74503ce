// Edits Hermes makes in place to message rows it already wrote, each in a transaction of its own that touches neither
// the session row nor any other table (decision 0053): reactions (`set_message_reaction`, `take_unseen_reactions`),
// the display kind stamped just after a turn is saved (`set_latest_matching_message_display_kind`), and `api_content`
// filled in later (`set_message_api_content`).
import { dumps as pyJson } from '../../shared/python/index.js';
import type { StateDbWriter } from './index.js';
import { jsonObject, type JsonObject } from './json.js';

type Meta = JsonObject;

function metadataOf(w: StateDbWriter, messageId: number): Meta {
  return jsonObject(w.stmt('SELECT display_metadata FROM messages WHERE id = ?').pluck().get(messageId));
}

/** The metadata written back, NULL when nothing is left in it. */
function writeMetadata(w: StateDbWriter, messageId: number, meta: Meta): void {
  w.stmt('UPDATE messages SET display_metadata = ? WHERE id = ?').run(Object.keys(meta).length === 0 ? null : pyJson(meta), messageId);
}

/**
 * A reaction by `author` (`user` or `agent`), as a tapback: one per author, the same emoji again takes it back, another
 * replaces it.
 */
export function setMessageReaction(w: StateDbWriter, messageId: number, emoji: string, author: 'user' | 'agent'): void {
  w.tx(() => {
    const meta = metadataOf(w, messageId);
    const list = Array.isArray(meta.reactions) ? (meta.reactions as Meta[]) : [];
    const mine = list.find((r) => r.author === author);
    const others = list.filter((r) => r !== mine);
    const next = mine && mine.emoji === emoji ? others : [...others, { emoji, author, at: w.now() }];
    if (next.length > 0) meta.reactions = next;
    else delete meta.reactions;
    writeMetadata(w, messageId, meta);
  });
}

/** The next user turn marks every reaction by `author` not seen yet as seen, on the session's active rows. */
export function takeUnseenReactions(w: StateDbWriter, sessionId: string, author: 'user' | 'agent'): number {
  return w.tx(() => {
    const active = w.has('messages', 'active') ? 'AND (active = 1 OR active IS NULL)' : '';
    const ids = w.stmt(`SELECT id FROM messages WHERE session_id = ? AND display_metadata LIKE '%reactions%' ${active} ORDER BY id`).pluck().all(sessionId) as number[];
    let taken = 0;
    for (const id of ids) {
      const meta = metadataOf(w, id);
      if (!Array.isArray(meta.reactions)) continue;
      let changed = false;
      for (const r of meta.reactions as Meta[]) {
        if (r.author === author && r.seen !== true) {
          r.seen = true;
          changed = true;
          taken++;
        }
      }
      if (changed) writeMetadata(w, id, meta);
    }
    return taken;
  });
}

/**
 * The newest active row of the session with this role and content gets a display kind (and its metadata, which
 * replaces what the row had): what Hermes does right after it saved a turn. False when no row matches.
 */
export function stampDisplayKind(w: StateDbWriter, sessionId: string, role: string, content: string, kind: string, metadata: Meta | null = null): boolean {
  return w.tx(() => {
    const active = w.has('messages', 'active') ? 'AND (active = 1 OR active IS NULL)' : '';
    const id = w.stmt(`SELECT id FROM messages WHERE session_id = ? AND role = ? AND content = ? ${active} ORDER BY id DESC LIMIT 1`).pluck().get(sessionId, role, content);
    if (typeof id !== 'number') return false;
    w.stmt('UPDATE messages SET display_kind = ?, display_metadata = ? WHERE id = ?').run(kind, metadata === null ? null : pyJson(metadata), id);
    return true;
  });
}

/** The exact text sent to the model for a row, recorded after the row itself. */
export function setMessageApiContent(w: StateDbWriter, messageId: number, apiContent: string): void {
  w.tx(() => {
    w.stmt('UPDATE messages SET api_content = ? WHERE id = ?').run(apiContent, messageId);
  });
}

// Which sessions of a store a pass reads (spec forwarding §6.3 item 22): those whose mark moved, that have new message
// ids or whose usage moved, not waiting in quarantine, active inside the window; and those Hermes no longer has.
import { validEpoch } from '../normalize/index.js';
import type { StoreFacts, SessionMark, StoreReader } from '../reader/index.js';
import { REMOVED, type Cursors, type SessionCursor } from '../sinks/sink.js';
import { standingFingerprint } from './cursor-marks.js';
import { findEdits, NO_EDITS, type EditChecks, type EditsFound } from './edits.js';
import { stillWaiting } from './quarantine.js';

export interface PassPlan {
  facts: StoreFacts;
  /** The store's session_model_usage stamp now (null: no such table). */
  usage: { stamp: string; lastSeen: number } | null;
  /** The store is not the one the cursors were taken from (decision 0017 §8): every session is read whole. */
  replaced: boolean;
  /** The sessions to read, in mark order. */
  todo: SessionMark[];
  /** Sessions the cursors know that the store no longer has. */
  removed: string[];
  seen: number;
  unchanged: number;
  waiting: number;
  outsideWindow: number;
  /**
   * The sessions the window left unread (new, or changed since last read), as up to two spans: those active only
   * before it, those started after it. Each: how many, from the earliest start to the latest activity among them,
   * epoch seconds. Empty when the window left none (or there was no window). A report over a span is missing them
   * (stores.unread).
   */
  unread: UnreadSpan[];
  /**
   * Quarantined sessions whose cursor matches the store now (another process wrote them since they failed here, or a
   * race left them quarantined): nothing is wrong with them any more, and the pass clears them.
   */
  settled: string[];
  /** Sessions whose id is not valid UTF-8 (reader SessionMark.undecodable): set aside, never read, said by the pass. */
  undecodable: SessionMark[];
  /** Messages (newly committed, or all on a first pass) whose session has no row: not read until it has one. */
  orphans: Map<string, number>;
  /** Sessions compared for edits in place, and those found edited (read whole; decision 0053). */
  edits: EditsFound;
}

/** Sessions a window left unread: how many, from the earliest start to the latest activity among them. */
export interface UnreadSpan {
  sessions: number;
  from: number;
  to: number;
}

export interface PlanOptions {
  /** Epoch seconds; only sessions active inside it are read (by last activity, spec forwarding §6.4 item 25). */
  window?: { since?: number | undefined; until?: number | undefined } | undefined;
  now: number;
  /** Look for edits in place in recently active sessions (pipeline/edits.ts); without it, none is looked for. */
  checks?: EditChecks | undefined;
  /** Whether the usage policy still ignores a session of these scopes: one it no longer ignores is read again. */
  ignored?: ((scopes: string[]) => boolean) | undefined;
}

/**
 * Whether the file went back behind the cursors though its identity is the same: a backup copied over the store in
 * place keeps its inode and generation, and Hermes then gives the lost messages' ids to new ones (spec state-db:
 * AUTOINCREMENT ids are never reused in one file). Told by the file's id sequence below the newest id read, or by that
 * row now in another session, or at another time than the row read (a /undo that deleted it is not a sign). The time
 * is the tail's of the session holding that id: the only tail read here, so `status`'s cursors (sink.ts readCursors
 * with bodies off) carry that one and no other.
 */
function wentBack(reader: StoreReader, cursors: Cursors): boolean {
  const max = cursors.maxMessageId;
  if (max <= 0) return false;
  // Without AUTOINCREMENT (no sequence), SQLite may give a deleted newest id again: nothing is told by it.
  const seq = reader.messageSequence();
  if (seq === null) return false;
  if (seq < max) return true;
  const row = reader.messageAt(max);
  if (row === undefined || typeof row.session_id !== 'string') return false;
  // The session whose cursor holds that id. A session marked removed may hold it too: one of a file this store
  // replaced (Hermes reinstalled, its ids started again), whose ids say nothing of this file. It counts only when no
  // session still in the store holds the id.
  let holder: [string, SessionCursor] | undefined;
  for (const entry of cursors.sessions) {
    if (entry[1].maxMessageId !== max) continue;
    holder = entry;
    if (entry[1].fingerprint !== REMOVED) break;
  }
  if (holder === undefined) return false;
  const [id, c] = holder;
  if (id !== row.session_id) return true;
  const carry = c.tail?.rows;
  return carry !== undefined && carry.maxMessageId === max && carry.prevTime !== null && validEpoch(row.timestamp) && row.timestamp !== carry.prevTime;
}

/** Reads the store's marks in one read transaction and decides what the pass reads. */
export function planPass(reader: StoreReader, cursors: Cursors, options: PlanOptions): PassPlan {
  const { facts, replaced, marks, present, fresh, usage, usageChanged, orphans } = reader.snapshot(() => {
    const f = reader.facts();
    const replaced = cursors.identity !== null && (cursors.identity !== f.identity || wentBack(reader, cursors));
    const u = reader.usageStamp();
    // Auxiliary usage touches only session_model_usage. While its store-wide stamp is the one last committed,
    // no session's usage moved; else each session's usage mark is compared with its cursor's.
    const changed = u === null || (!replaced && cursors.usageStamp === u.stamp) ? null : reader.usageMarks();
    // With no cursor at all (a first backfill) every session is read anyway: no need to look for new ids.
    const newIds = cursors.sessions.size === 0 ? new Map<string, number>() : reader.newMessages(replaced ? 0 : cursors.maxMessageId);
    const marks = reader.marks();
    // Messages with no session row are not read (nothing says whose they are) but are said, once: on a first pass
    // all of them, later those above the cursor.
    const present = new Set(marks.map((m) => m.id));
    const orphans = cursors.sessions.size === 0 ? reader.orphans(present)
      : [...newIds.keys()].some((id) => !present.has(id)) ? reader.orphans(present, replaced ? 0 : cursors.maxMessageId) : new Map<string, number>();
    return { facts: f, replaced, marks, present, fresh: newIds, usage: u, usageChanged: changed, orphans };
  });
  const known = replaced ? new Map() : cursors.sessions;
  const plan: PassPlan = { facts, usage, replaced, todo: [], removed: [], seen: marks.length, unchanged: 0, waiting: 0, outsideWindow: 0, unread: [], undecodable: [], settled: [], orphans, edits: NO_EDITS };
  // Sessions the store no longer has (also across a replacement: a restored file may lack some).
  plan.removed = [...cursors.sessions].filter(([id, c]) => !present.has(id) && c.fingerprint !== REMOVED).map(([id]) => id);
  // A session whose own row changed also changes its descendants' lineage kind and scopes (a parent resumed is no
  // longer ended by compression): they are read again with it.
  // The fingerprint each cursor stands for (an ignored session's, while the policy still ignores it; else none).
  const standing = (c: { fingerprint: string } | undefined) => (c === undefined ? undefined : standingFingerprint(c.fingerprint, options.ignored));
  // A session whose id is not text it can be read by is set aside first: its id as read may be another session's
  // (a BLOB spelling a text id), whose marks it must not move.
  plan.undecodable = marks.filter((m) => m.undecodable !== undefined);
  const readable = plan.undecodable.length === 0 ? marks : marks.filter((m) => m.undecodable === undefined);
  const rowChanged = new Set(readable.filter((m) => standing(known.get(m.id)) !== m.fingerprint).map((m) => m.id));
  const children = new Map<string, string[]>();
  for (const m of readable) if (m.parent !== null) children.set(m.parent, [...(children.get(m.parent) ?? []), m.id]);
  const lineage = new Set<string>();
  const stack = [...rowChanged];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (lineage.has(child) || rowChanged.has(child)) continue;
      lineage.add(child);
      stack.push(child);
    }
  }
  let todo = readable.filter((m) => {
    const cur = known.get(m.id);
    const usageSame = usageChanged === null || (usageChanged.get(m.id) ?? '') === cur?.usageMark;
    if (cur && !rowChanged.has(m.id) && (fresh.get(m.id) ?? 0) <= cur.maxMessageId && usageSame && !lineage.has(m.id)) {
      plan.unchanged++;
      if (cursors.quarantine.has(m.id)) plan.settled.push(m.id);
      return false;
    }
    const q = cursors.quarantine.get(m.id);
    if (q && stillWaiting(q.retryAt, options.now)) {
      plan.waiting++;
      return false;
    }
    return true;
  });
  const w = options.window;
  if (w && (w.since !== undefined || w.until !== undefined)) {
    // A session is active in the window when its span (start to last activity) meets it: one started before `until`
    // and still active after it was active inside. Last activity includes the last message: a session without a
    // heartbeat is judged by it.
    const last = reader.lastMessageAt(todo.map((m) => m.id));
    const before: UnreadSpan = { sessions: 0, from: Infinity, to: -Infinity };
    const after: UnreadSpan = { sessions: 0, from: Infinity, to: -Infinity };
    todo = todo.filter((m) => {
      const activity = Math.max(m.activity, last.get(m.id) ?? 0);
      const inside = (w.since === undefined || activity >= w.since) && (w.until === undefined || m.started <= w.until);
      if (!inside) {
        plan.outsideWindow++;
        const side = w.since !== undefined && activity < w.since ? before : after;
        side.sessions++;
        side.from = Math.min(side.from, m.started);
        side.to = Math.max(side.to, activity);
      }
      return inside;
    });
    plan.unread = [before, after].filter((u) => u.sessions > 0);
  }
  if (options.checks && !replaced) {
    // Sessions whose rows Hermes may have edited in place, as far as the window reaches (a session outside it is
    // not the pass's to touch); those found edited join the sessions to read, read whole.
    const inWindow = (m: SessionMark) => !w || ((w.since === undefined || m.activity >= w.since) && (w.until === undefined || m.started <= w.until));
    const waiting = (m: SessionMark) => stillWaiting(cursors.quarantine.get(m.id)?.retryAt ?? 0, options.now);
    plan.edits = findEdits(reader, marks.filter((m) => inWindow(m) && !waiting(m)), cursors, options.checks, options.now);
    const reading = new Set(todo.map((m) => m.id));
    const edited = marks.filter((m) => plan.edits.edited.has(m.id) && !reading.has(m.id));
    plan.unchanged -= edited.length;
    todo = [...todo, ...edited];
  }
  plan.todo = todo;
  return plan;
}

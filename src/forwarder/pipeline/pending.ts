// What the dataset does not hold yet of one store (spec forwarding §6.3 item 23: "oldest unprocessed lag"), for
// `hermetic status`: the sessions the next pass would read (the same plan a pass makes), the messages it would add,
// and when the oldest of those changes happened. Read-only and cheap: marks, then one indexed count per session.
import { openStore, StoreReader, type StoreFacts } from '../reader/index.js';
import type { Cursors } from '../sinks/sink.js';
import { IGNORED } from './cursor-marks.js';
import { marksOf, pendingDelegations } from './delegations.js';
import { planPass } from './plan.js';

export interface Pending {
  /** Sessions the next pass would read: new ones, ones with new messages, ones whose row or usage changed. */
  sessions: number;
  /** Their messages that are not in the dataset yet. */
  messages: number;
  /** Sessions Hermes no longer has that the dataset still holds as present. */
  removed: number;
  /** Quarantined sessions whose retry time has not come (not counted in `sessions`). */
  waiting: number;
  /** Sessions whose id is not valid UTF-8: never read (not counted in `sessions`). */
  undecodable: number;
  /** Background delegations (`async_delegations`) the next pass would write or mark removed. */
  delegations: number;
  /** Messages whose session has no row in the store (and their sessions): not forwarded until Hermes writes the rows. */
  orphans: { sessions: number; messages: number };
  /**
   * Epoch seconds of the oldest change not read: a session's first unread message, else (a new session, or a row or
   * usage change with activity the dataset has not seen) its last recorded activity. Null when nothing is pending or
   * no pending change has a time.
   */
  oldestAt: number | null;
  /** The store as read now: schema version, journal mode, identity (device and inode, schema version, generation). */
  facts: StoreFacts;
  /** The file is not the one the dataset's cursors were taken from: the next pass reads it whole. */
  replaced: boolean;
}

/**
 * What a pass over the store at `path` would read now, judged against the dataset's committed cursors. `seen` is the
 * last activity the dataset holds per session: a session to read again with no activity after it (a field changed in
 * place, a settled cost, a new dataset version) is counted, but gives no time to the oldest change. `ignored` judges
 * whether the usage policy still ignores a session it ignored (one it no longer does is pending).
 */
export function pendingOf(path: string, cursors: Cursors, now: number, seen: ReadonlyMap<string, number> = new Map(), ignored?: (scopes: string[]) => boolean): Pending {
  const conn = openStore(path);
  try {
    const reader = new StoreReader(conn.db, path);
    const plan = planPass(reader, cursors, { now, ignored });
    // A replaced store is read whole, so every message of a session to read is unread; so is every message of a session
    // the usage policy ignored (its cursor kept the store's newest id, but none of its rows were written).
    const unreadAfter = (id: string) => {
      const c = cursors.sessions.get(id);
      return plan.replaced || !c || c.fingerprint.startsWith(IGNORED) ? 0 : c.maxMessageId;
    };
    const after = new Map(plan.todo.map((m) => [m.id, unreadAfter(m.id)]));
    const [unread, orphans] = reader.snapshot(() => [reader.pendingMessages(after), reader.orphanTotals()] as const);
    let messages = 0;
    let oldestAt: number | null = null;
    for (const m of plan.todo) {
      const u = unread.get(m.id);
      if (u) messages += u.count;
      const last = seen.get(m.id);
      if (!u && last !== undefined && m.activity <= last) continue;
      const at = u?.first ?? m.activity;
      if (Number.isFinite(at) && at > 0 && (oldestAt === null || at < oldestAt)) oldestAt = at;
    }
    const delegations = pendingDelegations(reader, plan.replaced ? null : marksOf(cursors.row));
    return { sessions: plan.todo.length, messages, removed: plan.removed.length, waiting: plan.waiting, undecodable: plan.undecodable.length, delegations, orphans, oldestAt, facts: plan.facts, replaced: plan.replaced };
  } finally {
    conn.close();
  }
}

// Edits in place (decision 0053): Hermes updates some columns of message rows it already wrote (a display kind
// stamped just after the turn, reactions, `api_content`) without touching the session row or adding a row, so no mark
// moves. A pass compares those columns of recently active sessions with the digest their cursor's tail kept, at a
// pace that slows as the session goes quiet and within a budget of rows; a session that differs is read whole and
// rewritten from the first message that changed.
import type { SessionMark, StoreReader } from '../reader/index.js';
import { editsDigest } from '../projector/tail.js';
import { TAIL_VERSION } from '../projector/index.js';
import { REMOVED, type Cursors } from '../sinks/sink.js';

/**
 * Sessions quiet for longer are settled: a backfill no longer looks at them, a forward pass once a day (a reaction on
 * an old reply, which moves nothing else, is then seen within a day).
 */
export const WATCH_SECONDS = 7 * 86400;
/** How often a forward pass looks at a settled session. */
export const SETTLED_INTERVAL = 86400;
/** How often a session is looked at: every minute while it is fresh, then less as it goes quiet, hourly at most. */
export const checkInterval = (quietSeconds: number): number => Math.min(3600, Math.max(60, quietSeconds / 24));

export interface EditChecks {
  /** When each session of the store was last compared (epoch seconds), kept between passes by the forwarder. */
  checkedAt: Map<string, number>;
  /**
   * Sessions owed a look: something committed to the store after their last one (a pass that did not compare them
   * ran on a commit), with when each is due. While one is due, a forward tick is not idle though nothing committed.
   */
  owed: Map<string, number>;
  /** Whether something committed to the store since the last complete pass (a backfill: always). */
  committed: boolean;
  /** Message rows a pass may compare (forward: a tick stays short; backfill: every due session). */
  budget: number;
  /** Whether settled sessions (quiet beyond WATCH_SECONDS) are looked at too, once a day: forward passes. */
  settled?: boolean;
  /**
   * Sessions known to be edited in place since their last look, due now whatever their pace: those a PostgreSQL
   * store's mirror copied edited rows of this pass (reader/postgres/mirror.ts), which paces its own looks.
   */
  nudged?: ReadonlySet<string>;
}

export interface EditsFound {
  /** Sessions whose rows differ from what their tail saw: read whole. */
  edited: Set<string>;
  /** Sessions compared (to be noted as checked once the pass completes). */
  checked: string[];
  /** Sessions due that the budget left for a later pass. */
  left: number;
  /** EditChecks.owed once the pass completes. */
  owed: Map<string, number>;
}

export const NO_EDITS: EditsFound = { edited: new Set(), checked: [], left: 0, owed: new Map() };

interface Watched { id: string; rows: number; fresh: boolean; last: number; quiet: number; dueAt: number; settled: boolean }

/**
 * The sessions edits are looked for in: known to the cursors with a tail; each with when it was last looked at and
 * when it is due again (its checkInterval after that, or SETTLED_INTERVAL once it is settled). A tail of another
 * format is looked at as due: it was written by an older build, and is read whole (its edits were never digested).
 */
function watched(marks: readonly SessionMark[], cursors: Cursors, checks: Pick<EditChecks, 'checkedAt'>, now: number): Watched[] {
  const out: Watched[] = [];
  for (const m of marks) {
    const c = cursors.sessions.get(m.id);
    if (!c || c.fingerprint === REMOVED || !c.tail) continue;
    const quiet = Math.max(0, now - Math.max(m.activity, c.tail.lastTime));
    const settled = quiet > WATCH_SECONDS;
    const last = checks.checkedAt.get(m.id) ?? 0;
    out.push({ id: m.id, rows: c.tail.rows?.rows ?? 0, fresh: c.tail.v === TAIL_VERSION, last, quiet, dueAt: last + (settled ? SETTLED_INTERVAL : checkInterval(quiet)), settled });
  }
  return out;
}

/**
 * The sessions due for a look, least recently looked at first: watched (settled ones only with `settled`), and either
 * nudged or not looked at for their checkInterval and — when nothing committed since the last pass — owed one.
 */
export function dueSessions(marks: readonly SessionMark[], cursors: Cursors, checks: Pick<EditChecks, 'checkedAt' | 'owed' | 'committed' | 'nudged' | 'settled'>, now: number): Watched[] {
  return watched(marks, cursors, checks, now)
    .filter((w) => !w.settled || checks.settled)
    .filter((w) => checks.nudged?.has(w.id) || (w.dueAt <= now && (checks.committed || checks.owed.has(w.id))))
    .sort((a, b) => a.last - b.last || a.quiet - b.quiet);
}

/**
 * Compares the due sessions' edited columns with their tails' digests, within the budget (at least one session), in
 * one read transaction; and says which sessions are owed a look after this pass.
 */
export function findEdits(reader: StoreReader, marks: readonly SessionMark[], cursors: Cursors, checks: EditChecks, now: number): EditsFound {
  const all = watched(marks, cursors, checks, now);
  const due = dueSessions(marks, cursors, checks, now);
  const found: EditsFound = { edited: new Set(), checked: [], left: 0, owed: new Map() };
  let rows = 0;
  if (due.length > 0) {
    reader.snapshot(() => {
      for (const d of due) {
        if (found.checked.length > 0 && rows + d.rows > checks.budget) {
          found.left++;
          continue;
        }
        rows += d.rows;
        found.checked.push(d.id);
        const tail = cursors.sessions.get(d.id)!.tail!;
        if (!d.fresh || editsDigest(reader.editedRows(d.id, tail.rows.maxMessageId)) !== tail.edits) found.edited.add(d.id);
      }
    });
  }
  // Owed: every watched session not looked at now, when something committed; else those already owed. One the budget
  // left is due at once. A settled session a pass without `settled` (a backfill) leaves keeps what it was owed.
  const looked = new Set(found.checked);
  for (const w of all) {
    if (looked.has(w.id)) continue;
    if (w.settled && !checks.settled) {
      const at = checks.owed.get(w.id);
      if (at !== undefined) found.owed.set(w.id, at);
      continue;
    }
    if (!(checks.committed || checks.owed.has(w.id))) continue;
    found.owed.set(w.id, Math.max(w.dueAt, 0));
  }
  return found;
}

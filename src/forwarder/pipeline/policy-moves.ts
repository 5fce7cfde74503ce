// A usage policy changed after sessions were forwarded (a `.hypignore` saying `local-only` written in a project, or
// removed; the machine-local list edited): the sessions it now classes otherwise move, without waiting for them to
// change in Hermes (spec forwarding §4: local-only is judged at export time, retroactive and reversible). Each pass
// judges every session of the dataset again by the scopes `forward` judged it by (dataset-scopes.ts) and rewrites the
// class of those that moved between `full` and `local-only`, with their delegations': the change log carries the move
// to every remote sink (a session that became local-only is deleted there, one that is full again is sent whole).
// `ignore` is not applied here: what was forwarded before a folder became `ignore` goes with `hermetic forget`.
import type { Db } from '../../shared/sqlite.js';
import type { PolicyResolver } from '../policy/index.js';
import { sessionsWithScopes } from './dataset-scopes.js';
import { judgeScopes } from './project.js';

export interface PolicyMove {
  store: string;
  sessionId: string;
  from: string;
  to: 'full' | 'local-only';
}

/**
 * The sessions whose class moved, rewritten in one transaction; none when nothing moved. A scope the policy cannot
 * judge now leaves its session as it was (a pass says why when it reads it).
 * @example applyPolicyMoves(sink.db, policy).length // sessions that moved
 */
export function applyPolicyMoves(db: Db, policy: PolicyResolver, judged?: Set<string>): PolicyMove[] {
  const moves: PolicyMove[] = [];
  for (const { row, scopes } of sessionsWithScopes(db)) {
    for (const s of scopes) judged?.add(s);
    const verdict = judgeScopes(scopes, policy);
    if ('error' in verdict || verdict.cls === 'ignore' || verdict.cls === row.policy) continue;
    moves.push({ store: row.store, sessionId: row.session_id, from: row.policy, to: verdict.cls });
  }
  // Nothing to write, and no write lock taken, when no session moved and every delegation follows its session.
  if (moves.length === 0 && db.prepare(`SELECT 1 FROM delegations d, sessions s WHERE ${FOLLOWS} LIMIT 1`).get() === undefined) return moves;
  const session = db.prepare('UPDATE sessions SET policy = ? WHERE store = ? AND session_id = ?');
  db.transaction(() => {
    for (const m of moves) session.run(m.to, m.store, m.sessionId);
    followSessions(db);
  }).immediate();
  return moves;
}

/**
 * Each delegation takes its delegating session's class, where that session is in the dataset and still in its store
 * (one Hermes deleted no longer vouches for it). Also after a pass that moved the session itself: a session rewritten
 * with something new in Hermes and a new `.hypignore` moved there, and its delegations, unchanged in Hermes, were not
 * written again (decision 0092's addendum). Set-based: a few thousand delegations cost about a millisecond.
 */
function followSessions(db: Db): void {
  db.prepare(`UPDATE delegations AS d SET policy = s.policy FROM sessions s WHERE ${FOLLOWS}`).run();
}

/** A delegation `d` whose class is not its session `s`'s, where the session decides it. */
const FOLLOWS = `s.store = d.store AND s.session_id = d.parent_session_id AND s.removed_from_store = 0
  AND s.policy IN ('full', 'local-only') AND d.policy <> s.policy`;

/** A full look at every session at least this often, whatever the scopes say (milliseconds). */
const FULL_EVERY_MS = 60_000;

/**
 * applyPolicyMoves for a forwarder that runs on: judging every session (~150 ms at 20,000 sessions) only when a scope
 * the dataset's sessions are judged by changed class since the last look, or a minute has passed. The scopes are few
 * (one per project, channel or source): judging them again costs next to nothing.
 */
export class PolicyMover {
  /** Each scope met in the last full look (and each scope of a session since), with its class then. */
  #classes: Map<string, string> | null = null;
  #fullAt = -Infinity;

  constructor(private readonly policy: PolicyResolver) {}

  /** The moves made now (none when nothing could have moved). */
  check(db: Db, nowMs: number): PolicyMove[] {
    const classOf = (scope: string) => {
      const v = judgeScopes([scope], this.policy);
      return 'error' in v ? 'error' : v.cls;
    };
    // A clock set back before the last full look (NTP, a VM resumed) makes one due now, not when the clock catches up.
    if (this.#classes !== null && nowMs >= this.#fullAt && nowMs - this.#fullAt < FULL_EVERY_MS) {
      let changed = false;
      const own = db.prepare('SELECT DISTINCT scope FROM sessions WHERE scope IS NOT NULL').pluck().all() as string[];
      for (const scope of new Set([...this.#classes.keys(), ...own])) {
        const now = classOf(scope);
        if (this.#classes.get(scope) !== now) changed = true;
        this.#classes.set(scope, now);
      }
      if (!changed) return [];
    }
    const judged = new Set<string>();
    const moves = applyPolicyMoves(db, this.policy, judged);
    this.#classes = new Map([...judged].map((scope) => [scope, classOf(scope)]));
    this.#fullAt = nowMs;
    return moves;
  }
}

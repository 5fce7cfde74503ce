// A session's end in the recording (decisions 0004, 0147). SessionDB's end keeps the first reason; but the end stamps
// this recorder adds when a run ends are its own annotation — Hermes's API server leaves its sessions open and never
// reopens one — so an end the emulated Hermes made on a row that was open there (PATCH's end_reason, a fork's
// `branched`) replaces such a stamp, and a later run clears only such a stamp. Any other end the file holds is kept.
import type { StateDbWriter } from '../../state-db/writer/index.js';

/** The end stamp the recorder writes when a run ends, by the run's terminal status (decision 0004). */
export const RUN_END_REASONS: Readonly<Record<string, string>> = { completed: 'done', failed: 'failed', cancelled: 'cancelled' };
const STAMPS = [...new Set(Object.values(RUN_END_REASONS))];

/**
 * end_session(id, reason) as the emulated Hermes made it. `wasOpen`: the emulated row was open, so the end took
 * effect there; false: it kept its end, and the file's row only takes `reason` if it has none (the first reason wins).
 */
export function endAsHermes(w: StateDbWriter, id: string, reason: string, at: number, wasOpen: boolean): void {
  // An early store's end_session has no guard: the last reason wins there anyway.
  if (!wasOpen || w.early) {
    w.endSession(id, reason, at);
    return;
  }
  w.stmt(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND (ended_at IS NULL OR end_reason IN (${STAMPS.map(() => '?').join(', ')}))`)
    .run(at, reason, id, ...STAMPS);
}

/**
 * A later run starting in the session (decision 0004: the end is the last run's): the recorder's own end stamp is
 * cleared; an end Hermes made (a fork's `branched`, PATCH's end_reason) stays, as the API server's agent leaves it. A
 * PATCH may name a stamp's reason (`done`): the recorder does not call this on a row the emulated Hermes ended (0150).
 */
export function reopenForRun(w: StateDbWriter, id: string): void {
  w.stmt(`UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ? AND end_reason IN (${STAMPS.map(() => '?').join(', ')})`)
    .run(id, ...STAMPS);
}

// What one pass over one store did (StepResult): counts for the summaries, `status` and reports, and the store's
// error when it could not be read. Built by step.ts alone, from what the other stages return.
import type { StoreRef } from '../reader/discover.js';
import type { SessionDelta } from '../dataset/delta.js';
import type { SessionWrite, Written } from '../sinks/sink.js';

/**
 * A session the usage policy kept out of a pass. `removed`: the dataset held it (forwarded before its folder became
 * `ignore`), and its rows were removed with this write (decision 0143); absent when it was not there.
 */
export interface PolicyDrop { sessionId: string; scope: string | null; reason: string; removed?: true }

export interface StepResult {
  store: string;
  profile: string;
  backend: 'sqlite' | 'postgres';
  warning: string | null;
  /** How the store was read: in place (read-only), or through a private copy (decision 0017). */
  read: 'in-place' | 'copy' | null;
  schemaVersion: number | null;
  journalMode: string | null;
  replaced: boolean;
  sessionsSeen: number;
  sessionsUnchanged: number;
  sessionsOutsideWindow: number;
  sessionsWritten: number;
  sessionsIgnored: number;
  sessionsRemoved: number;
  sessionsQuarantined: number;
  sessionsWaiting: number;
  /** Sessions compared for edits Hermes made in place, and of them those found edited (read whole; decision 0053). */
  sessionsChecked: number;
  sessionsEdited: number;
  /** How the written sessions' transcripts changed (decision 0032): appended to, rewritten from a message, or whole. */
  sessionsAppended: number;
  sessionsRewritten: number;
  sessionsReplaced: number;
  /** Of the sessions written whole, those the dataset held no cursor of: new to it, not rewritten. */
  sessionsNew: number;
  /**
   * Sessions longer than a chunk that the pass stopped in (a signal, between two of their chunks) after writing some of
   * their chunks: in the dataset in part, not counted as written; the next pass goes on from where this one stopped.
   */
  sessionsPartial: number;
  /** Rows added and removed in `messages` and `parts` (a rewrite removes some and adds them again). */
  messages: number;
  parts: number;
  messagesRemoved: number;
  partsRemoved: number;
  /** Of the rows removed, those written again in the same session (per session: min(added, removed)). */
  messagesRewritten: number;
  partsRewritten: number;
  /** row_issues rows written: each a value that was changed or left out (issue 16 §5). */
  rowIssues: number;
  /**
   * Usage events written with counters that went down in Hermes (absolute-mode counters after an agent restart): each
   * such drop is clamped to 0 in `usage_events` (`clamped` = 1) and said by the pass (forwarding.md §6.2, item 13).
   */
  usageClamped: number;
  /** Delegations written (new or changed in `async_delegations`), and marked removed because Hermes deleted them (decision 0054). */
  delegationsWritten: number;
  delegationsRemoved: number;
  /** Sessions the read worker read and projected (the rest were read on the calling thread); decision 0027. */
  readByWorker: number;
  /**
   * Sessions of this store already in the dataset that the usage policy moved after the pass (decisions 0063, 0143):
   * to `local-only` (left out of exports; remote sinks delete them), and back to `full`. Not counted as written.
   */
  sessionsToLocalOnly: number;
  sessionsToFull: number;
  policyDrops: PolicyDrop[];
  error: { code: string; message: string } | null;
}

export function emptyResult(ref: StoreRef): StepResult {
  return {
    store: ref.path, profile: ref.profile, backend: ref.backend, warning: ref.warning, read: null, schemaVersion: null,
    journalMode: null, replaced: false, sessionsSeen: 0, sessionsUnchanged: 0, sessionsOutsideWindow: 0, sessionsWritten: 0,
    sessionsIgnored: 0, sessionsRemoved: 0, sessionsQuarantined: 0, sessionsWaiting: 0, sessionsChecked: 0, sessionsEdited: 0, sessionsAppended: 0,
    sessionsRewritten: 0, sessionsReplaced: 0, sessionsNew: 0, sessionsPartial: 0, messages: 0, parts: 0, messagesRemoved: 0, partsRemoved: 0, messagesRewritten: 0, partsRewritten: 0, rowIssues: 0, usageClamped: 0,
    delegationsWritten: 0, delegationsRemoved: 0, readByWorker: 0, sessionsToLocalOnly: 0, sessionsToFull: 0, policyDrops: [], error: null,
  };
}

/**
 * Adds one session written to the result: how its transcript changed, and the row issues written with it. `fresh`: the
 * dataset held no cursor of it (its delta had no base, and the store file was not replaced): a whole write is new.
 */
export function countSession(result: StepResult, kind: SessionDelta['kind'], issues: number, fresh: boolean): void {
  result.sessionsWritten++;
  result.rowIssues += issues;
  if (kind === 'append') result.sessionsAppended++;
  else if (kind === 'rewrite') result.sessionsRewritten++;
  else {
    result.sessionsReplaced++;
    if (fresh && !result.replaced) result.sessionsNew++;
  }
}

/** Adds what a committed batch did to the result. */
export function countWritten(result: StepResult, landed: readonly SessionWrite[], written: Written): void {
  for (const w of landed) {
    const p = w.projection;
    if (!p) {
      result.sessionsIgnored++;
      continue;
    }
    countSession(result, p.delta.kind, p.issues.length, w.base === null);
    if (p.usageEvent?.clamped === 1) result.usageClamped++;
  }
  result.messages += written.messagesAdded;
  result.parts += written.partsAdded;
  result.messagesRemoved += written.messagesRemoved;
  result.partsRemoved += written.partsRemoved;
  result.messagesRewritten += written.messagesRewritten;
  result.partsRewritten += written.partsRewritten;
  result.delegationsWritten += written.delegationsWritten;
  result.delegationsRemoved += written.delegationsRemoved;
}

/** The usage policy's moves of one store (policy-moves.ts), per class they went to. */
export interface StoreMoves { store: string; toLocalOnly: number; toFull: number }

/**
 * Adds the usage policy's moves to the results of the stores they belong to; returns the moves of stores this pass
 * has no result of (a `--state-db` pass over one store moves the dataset's others too), one entry per store.
 */
export function countMoves(results: readonly StepResult[], moves: readonly { store: string; to: 'full' | 'local-only' }[]): StoreMoves[] {
  const elsewhere = new Map<string, StoreMoves>();
  for (const m of moves) {
    const r = results.find((x) => x.store === m.store);
    if (r) {
      if (m.to === 'local-only') r.sessionsToLocalOnly++;
      else r.sessionsToFull++;
      continue;
    }
    const e = elsewhere.get(m.store) ?? { store: m.store, toLocalOnly: 0, toFull: 0 };
    if (m.to === 'local-only') e.toLocalOnly++;
    else e.toFull++;
    elsewhere.set(m.store, e);
  }
  return [...elsewhere.values()];
}

// `hermetic forget`: what was forwarded before a folder became `ignore` is removed now (issue 16 §5), instead of
// when each session next changes. Only sessions the usage policy ignores now, judged by every scope as `forward`
// judges them, are removed — every row of them, in one transaction per store with their cursors — and nothing else.
// Their cursors become what a pass writes for a session it ignored (cursor-marks.ts IGNORED: the scopes that ignored
// it, then its fingerprint): an unchanged session is not read again while the policy still ignores it, and once the
// ignore is lifted the next pass reads it again and `status` counts it as pending.
import { dirname, isAbsolute, sep } from 'node:path';
import type { PolicyResolver } from '../policy/index.js';
import { NOTHING_WRITTEN, type SessionWrite, type Written } from '../sinks/sink.js';
import type { SqliteSink } from '../sinks/sqlite/sink.js';
import { scopesOf } from '../projector/scope.js';
import { judgeScopes } from './project.js';
import { ignoredFingerprint } from './cursor-marks.js';

export interface ForgetRequest {
  /** Session ids (in any store, or only those of `stores`). */
  sessions?: readonly string[];
  /** A folder: every session whose scope is it or under it. */
  scope?: string;
  /** Only sessions read from these stores (absolute paths). */
  stores?: readonly string[];
}

export interface ForgetMatch { store: string; sessionId: string; scope: string | null; reason: string }

export interface ForgetResult {
  forgotten: ForgetMatch[];
  /** Sessions that match but are not ignored now: kept, with why. */
  kept: ForgetMatch[];
  written: Written;
}

const under = (scope: string | null, dir: string) => scope !== null && (scope === dir || scope.startsWith(dir.endsWith(sep) ? dir : dir + sep));

interface DatasetSession {
  store: string;
  session_id: string;
  scope: string | null;
  source: string | null;
  cwd: string | null;
  parent_session_id: string | null;
  attributes: string | null;
}

/** Ancestors followed at most this far (a cycle in parent ids, or a chain longer than any Hermes makes, stops there). */
const MAX_PARENTS = 64;

/**
 * Every scope that governed the session when `forward` judged it (projector/scope.ts scopesOf, the same function): its
 * own, the channel it was handed off to, and for a delegate its parents' — rebuilt from the dataset's rows, under the
 * Hermes home the store's row names (the store's folder before dataset version 9).
 */
function datasetScopes(row: DatasetSession, bySession: Map<string, DatasetSession>, hermesHome: string, hermesRow: (r: DatasetSession) => Record<string, unknown>): string[] {
  const parents: Record<string, unknown>[] = [];
  const seen = new Set([row.session_id]);
  for (let p = row.parent_session_id; p !== null && !seen.has(p) && parents.length < MAX_PARENTS; ) {
    seen.add(p);
    const parent = bySession.get(p);
    if (!parent) break;
    parents.push(hermesRow(parent));
    p = parent.parent_session_id;
  }
  const scopes = scopesOf(hermesRow(row), parents, hermesHome);
  // A row written with a scope this rebuild does not give (rules of an older Hermetic) is judged by it too.
  return row.scope !== null && !scopes.includes(row.scope) ? [row.scope, ...scopes] : scopes;
}

/** The fields scopesOf reads, as Hermes's session row holds them (its attributes parsed once per session). */
function hermesRows(): (r: DatasetSession) => Record<string, unknown> {
  const made = new Map<DatasetSession, Record<string, unknown>>();
  return (r) => {
    let row = made.get(r);
    if (row) return row;
    let attributes: Record<string, unknown> = {};
    try {
      attributes = (r.attributes ? JSON.parse(r.attributes) : {}) as Record<string, unknown>;
    } catch {
      /* attributes the dataset could not have written: judged without them */
    }
    const config = attributes.model_config;
    row = { source: r.source, cwd: r.cwd, handoff_platform: attributes.handoff_platform ?? null, model_config: config === undefined ? null : JSON.stringify(config) };
    made.set(r, row);
    return row;
  };
}

/**
 * Removes the matching sessions that the policy ignores now, judged as `forward` judges them: by every scope that
 * governs them (their own folder, a handoff's channel, a delegate's parents), the strictest winning.
 * @example forgetSessions(sink, policy, { scope: '/home/u/secret' }).forgotten.length
 */
export function forgetSessions(sink: SqliteSink, policy: PolicyResolver, request: ForgetRequest): ForgetResult {
  const rows = sink.db.prepare('SELECT store, session_id, scope, source, cwd, parent_session_id, attributes FROM sessions ORDER BY store, session_id').all() as DatasetSession[];
  const homes = new Map((sink.db.prepare('SELECT store, hermes_home FROM stores').all() as { store: string; hermes_home: string | null }[]).map((r) => [r.store, r.hermes_home]));
  const byStore = new Map<string, Map<string, DatasetSession>>();
  for (const r of rows) {
    let m = byStore.get(r.store);
    if (!m) byStore.set(r.store, (m = new Map()));
    m.set(r.session_id, r);
  }
  const hermesRow = hermesRows();
  const ids = request.sessions ? new Set(request.sessions) : null;
  const stores = request.stores ? new Set(request.stores) : null;
  const out: ForgetResult = { forgotten: [], kept: [], written: { ...NOTHING_WRITTEN } };
  /** The scopes each forgotten session was judged by, kept in its cursor. */
  const judgedBy = new Map<ForgetMatch, string[]>();
  for (const r of rows) {
    if (stores && !stores.has(r.store)) continue;
    if (ids && !ids.has(r.session_id)) continue;
    // The Hermes home the store's row names; before dataset version 9 a state.db's folder. A PostgreSQL store's key
    // is no path: until its row names its home, the session is judged by the scope the dataset recorded.
    const home = homes.get(r.store) ?? (isAbsolute(r.store) ? dirname(r.store) : null);
    const scopes = home === null ? (r.scope === null ? [] : [r.scope]) : datasetScopes(r, byStore.get(r.store)!, home, hermesRow);
    if (request.scope !== undefined && !scopes.some((s) => under(s, request.scope!))) continue;
    const verdict = judgeScopes(scopes, policy);
    const reason = 'error' in verdict ? `its usage policy cannot be judged (${verdict.error})`
      : verdict.why || (scopes[0] !== undefined ? policy.resolve(scopes[0]).reason : 'no folder governs it: full');
    const match = { store: r.store, sessionId: r.session_id, scope: r.scope, reason };
    const ignored = !('error' in verdict) && verdict.cls === 'ignore';
    (ignored ? out.forgotten : out.kept).push(match);
    if (ignored) judgedBy.set(match, scopes);
  }
  const forgotten = new Map<string, ForgetMatch[]>();
  for (const m of out.forgotten) forgotten.set(m.store, [...(forgotten.get(m.store) ?? []), m]);
  for (const [store, matches] of forgotten) {
    const cursors = sink.cursors(store);
    const writes: SessionWrite[] = matches.map((m) => {
      const c = cursors.sessions.get(m.sessionId);
      const fingerprint = ignoredFingerprint(judgedBy.get(m)!, c?.fingerprint ?? '');
      return { sessionId: m.sessionId, projection: null, policy: 'full', fingerprint, maxMessageId: c?.maxMessageId ?? 0, usageMark: c?.usageMark ?? '', ledger: null, base: null };
    });
    const w = sink.write({
      store: cursors.row ?? { store, profile: '?', max_message_id: 0 }, reset: false, writes, removed: [],
      quarantine: { failed: [], cleared: matches.map((m) => m.sessionId) },
    });
    out.written = { ...out.written, messagesRemoved: out.written.messagesRemoved + w.messagesRemoved, partsRemoved: out.written.partsRemoved + w.partsRemoved };
  }
  return out;
}

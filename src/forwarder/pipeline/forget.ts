// `hermetic forget`: what was forwarded before a folder became `ignore` is removed now (issue 16 §5), instead of
// when each session next changes. Only sessions the usage policy ignores now are removed — every row of them, in one
// transaction per store with their cursors — and nothing else. Their cursors keep their fingerprints, so an
// unchanged session is not read again; one that changes is read, judged `ignore` again, and not written.
import { sep } from 'node:path';
import type { PolicyResolver } from '../policy/index.js';
import { NOTHING_WRITTEN, type SessionWrite, type Written } from '../sinks/sink.js';
import type { SqliteSink } from '../sinks/sqlite/sink.js';

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

/**
 * Removes the matching sessions that the policy ignores now.
 * @example forgetSessions(sink, policy, { scope: '/home/u/secret' }).forgotten.length
 */
export function forgetSessions(sink: SqliteSink, policy: PolicyResolver, request: ForgetRequest): ForgetResult {
  const rows = sink.db.prepare('SELECT store, session_id, scope FROM sessions ORDER BY store, session_id').all() as { store: string; session_id: string; scope: string | null }[];
  const ids = request.sessions ? new Set(request.sessions) : null;
  const stores = request.stores ? new Set(request.stores) : null;
  const out: ForgetResult = { forgotten: [], kept: [], written: { ...NOTHING_WRITTEN } };
  for (const r of rows) {
    if (stores && !stores.has(r.store)) continue;
    if (ids && !ids.has(r.session_id)) continue;
    if (request.scope !== undefined && !under(r.scope, request.scope)) continue;
    const verdict = policy.resolve(r.scope);
    const match = { store: r.store, sessionId: r.session_id, scope: r.scope, reason: verdict.reason };
    (verdict.class === 'ignore' ? out.forgotten : out.kept).push(match);
  }
  const byStore = new Map<string, ForgetMatch[]>();
  for (const m of out.forgotten) byStore.set(m.store, [...(byStore.get(m.store) ?? []), m]);
  for (const [store, matches] of byStore) {
    const cursors = sink.cursors(store);
    const writes: SessionWrite[] = matches.map((m) => {
      const c = cursors.sessions.get(m.sessionId);
      return { sessionId: m.sessionId, projection: null, policy: 'full', fingerprint: c?.fingerprint ?? '', maxMessageId: c?.maxMessageId ?? 0, usageMark: c?.usageMark ?? '', ledger: null, base: null };
    });
    const w = sink.write({
      store: cursors.row ?? { store, profile: '?', max_message_id: 0 }, reset: false, writes, removed: [],
      quarantine: { failed: [], cleared: matches.map((m) => m.sessionId) },
    });
    out.written = { ...out.written, messagesRemoved: out.written.messagesRemoved + w.messagesRemoved, partsRemoved: out.written.partsRemoved + w.partsRemoved };
  }
  return out;
}

// A session's records judged by the usage policy: the write for its batch (and, when a scope says ignore, the drop
// to report), or the reason it failed.
import { HermeticError } from '../../shared/errors.js';
import { strictest, type PolicyClass, type PolicyResolver } from '../policy/index.js';
import type { CursorBase, SessionRecords, SessionWrite } from '../sinks/sink.js';
import { ignoredFingerprint } from './cursor-marks.js';
import type { PolicyDrop } from './result.js';

export type Judged = { write: SessionWrite; drop: PolicyDrop | null } | { error: string };

/**
 * The strictest class of the scopes (`full` for none) and why; a scope the resolver cannot judge is returned as the
 * error, except an unreadable local list, which is thrown (HERMETIC_POLICY_LIST: fail closed).
 */
export function judgeScopes(scopes: readonly string[], policy: PolicyResolver): { cls: PolicyClass; why: string } | { error: string } {
  let cls: PolicyClass = 'full';
  let why = '';
  for (const scope of scopes) {
    let v;
    try {
      v = policy.resolve(scope);
    } catch (e) {
      if (e instanceof HermeticError && e.code !== 'HERMETIC_POLICY_LIST') return { error: e.message };
      throw e;
    }
    if (cls !== strictest(cls, v.class)) why = v.reason;
    cls = strictest(cls, v.class);
  }
  return { cls, why };
}

/**
 * Whether the policy still ignores a session of these scopes, for a pass's plan (an ignored session's cursor keeps its
 * scopes: cursor-marks.ts). A scope it cannot judge, or an unreadable local list, leaves the session as it was.
 */
export function stillIgnored(policy: PolicyResolver): (scopes: string[]) => boolean {
  return (scopes) => {
    try {
      const v = judgeScopes(scopes, policy);
      return 'error' in v || v.cls === 'ignore';
    } catch (e) {
      if (e instanceof HermeticError && e.code === 'HERMETIC_POLICY_LIST') return true;
      throw e;
    }
  };
}

/**
 * The write for one session read (read-session.ts): its records under the strictest class of its scopes, or none when
 * a scope says ignore. `base` is the cursor the records' delta was computed against. A scope the resolver cannot
 * judge is returned (for quarantine), except an unreadable local list, which stops the pass (HERMETIC_POLICY_LIST:
 * fail closed). Anything else thrown is a bug and is not caught.
 */
export function judge(id: string, fingerprint: string, projection: SessionRecords, policy: PolicyResolver, base: CursorBase | null): Judged {
  const verdict = judgeScopes(projection.scopes, policy);
  if ('error' in verdict) return verdict;
  const { cls, why } = verdict;
  const cursor = { sessionId: id, fingerprint, maxMessageId: projection.maxMessageId, usageMark: projection.usageMark };
  if (cls === 'ignore') {
    // Its cursor keeps the scopes that ignored it: a pass reads it again once the policy no longer does (plan.ts).
    return { write: { ...cursor, fingerprint: ignoredFingerprint(projection.scopes, fingerprint), projection: null, policy: 'full', ledger: null, base: null }, drop: { sessionId: id, scope: projection.session.scope as string | null, reason: why } };
  }
  return { write: { ...cursor, projection, policy: cls, ledger: projection.ledger, base: projection.delta.kind === 'replace' ? null : base }, drop: null };
}

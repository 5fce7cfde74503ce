// A session's records judged by the usage policy: the write for its batch, or the reason it failed.
import { HermeticError } from '../../shared/errors.js';
import { strictest, type PolicyClass, type PolicyResolver } from '../policy/index.js';
import type { SessionRecords, SessionWrite } from '../sinks/sink.js';
import type { StepResult } from './step.js';

/**
 * The write for one session read (read-session.ts): its records under the strictest class of its scopes, or none when
 * a scope says ignore. A policy failure is returned (for quarantine), except an unreadable local list, which stops
 * the pass (HERMETIC_POLICY_LIST: fail closed).
 */
export function judge(id: string, fingerprint: string, projection: SessionRecords, policy: PolicyResolver, result: StepResult): SessionWrite | { error: string } {
  try {
    let cls: PolicyClass = 'full';
    let why = '';
    for (const scope of projection.scopes) {
      const v = policy.resolve(scope);
      if (cls !== strictest(cls, v.class)) why = v.reason;
      cls = strictest(cls, v.class);
    }
    if (cls === 'ignore') {
      result.policyDrops.push({ sessionId: id, scope: projection.session.scope as string | null, reason: why });
      return { sessionId: id, projection: null, policy: 'full', fingerprint, maxMessageId: projection.maxMessageId, usageMark: projection.usageMark, ledger: null };
    }
    return { sessionId: id, projection, policy: cls, fingerprint, maxMessageId: projection.maxMessageId, usageMark: projection.usageMark, ledger: projection.ledger };
  } catch (e) {
    if (e instanceof HermeticError && e.code === 'HERMETIC_POLICY_LIST') throw e;
    return { error: (e as Error).message };
  }
}

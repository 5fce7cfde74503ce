// One session read, projected and judged by the usage policy: the write for its batch, or the reason it failed.
import { HermeticError } from '../../shared/errors.js';
import { strictest, type PolicyClass } from '../policy/index.js';
import { projectSession } from '../projector/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { StoreReader } from '../reader/index.js';
import type { Cursors, SessionWrite } from '../sinks/sink.js';
import type { StepOptions, StepResult } from './step.js';

/** Reads, projects and judges one session; a failure is returned (for quarantine), never thrown. */
export function projectOne(reader: StoreReader, ref: StoreRef, id: string, fingerprint: string, options: StepOptions, result: StepResult, cursors: Cursors): SessionWrite | { error: string } | null {
  try {
    const session = reader.session(id);
    if (!session) return null;
    const projection = projectSession({
      store: ref.path, profile: ref.profile, hermesHome: ref.hermesHome, session, messages: reader.messages(id),
      modelUsage: reader.modelUsage(id), parents: reader.parents(session), systemPrompt: reader.systemPrompt(session),
      dailyUsage: reader.dailyUsage(id), ledger: cursors.sessions.get(id)?.ledger ?? null, redact: options.redact, origin: options.origin,
    });
    let cls: PolicyClass = 'full';
    let why = '';
    for (const scope of projection.scopes) {
      const v = options.policy.resolve(scope);
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

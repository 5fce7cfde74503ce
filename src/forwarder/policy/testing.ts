// For the policy tests' child processes, which are given plain data only (src/shared/testing/unprivileged.ts).
import { createPolicyResolver, type Verdict } from './resolve.js';

/**
 * The verdict a new resolver gives `scope`, on a clock that stands at 0.
 * @example resolveOnce('/home/u/.hermetic', '/home/u/project') // { class: 'full', … }
 */
export function resolveOnce(stateDir: string, scope: string): Verdict {
  return createPolicyResolver({ stateDir, now: () => 0 }).resolve(scope);
}

// The `async_delegations` rows a delegating session leaves in a generated store (schema 24 on): the dispatch when the
// child starts, its completion (mostly completed, some errors, interruptions and stalls), the delivery (mostly done,
// some dropped after every attempt failed, a few still pending) and Hermes's prune after each dispatch. Everything
// random comes from `ctx.side` and no pause moves the clock, so the sessions and messages of a seed are unchanged.
import type { GenContext } from './session.js';

const SUMMARIES = [
  'Found 3 candidate libraries; fast-json is maintained and has no native deps.',
  'The test suite passes on Node 20; two flaky tests skip on CI only.',
  'Read the changelog: the breaking change is the renamed `parse` option.',
  'Benchmarked both: the streaming parser is 2.4x faster on 10 MB inputs.',
];
const ERRORS = [
  'RuntimeError: child agent exceeded its iteration budget',
  'TimeoutError: no progress for 600s',
];

/**
 * A background delegation of `parentId` for `goal`, dispatched at `from` and done by now (the child session's end).
 * @example if (level >= 24) delegated(ctx, parent.id, 'research lib 0', startedAt);
 */
export function delegated(ctx: GenContext, parentId: string, goal: string, from: number): void {
  const { w, side } = ctx;
  const done = Math.max(from, ctx.time.t);
  // A quarter are batches of two goals (one row, the children's results in result_json).
  const goals = side.chance(0.25) ? [goal, `${goal}: check the licence`] : [goal];
  const id = w.dispatchDelegation({
    delegation_id: `deleg_${side.hex(12)}`, parent_session_id: parentId, goals, context: 'Parent is refactoring the JSON layer.',
    toolsets: side.pick([['web'], ['terminal', 'file'], ['web', 'file']]), model: side.pick(['google/gemini-2.5-flash', null]), at: from,
  });
  const roll = side.next();
  const status = roll < 0.8 ? 'completed' : roll < 0.9 ? 'error' : roll < 0.95 ? 'interrupted' : 'stalled';
  const summary = () => (status === 'completed' ? side.pick(SUMMARIES) : null);
  const error = () => (status === 'error' ? side.pick(ERRORS) : null);
  w.completeDelegation(id, goals.length > 1
    ? { status, at: done, results: goals.map(() => ({ status, summary: summary(), error: error(), api_calls: side.int(1, 6) })) }
    : { status, at: done, api_calls: side.int(1, 12), summary: summary(), error: error() });
  const delivery = side.next();
  const token = () => side.hex(32);
  if (delivery < 0.85) {
    const at = done + side.int(1, 30000) / 1000;
    w.claimDelegationDelivery(id, { at, token: token() });
    w.markDelegationDelivered(id, at);
  } else if (delivery < 0.95) {
    for (let i = 0; i < 8; i++) {
      w.claimDelegationDelivery(id, { at: done + i * 30, token: token() });
      w.releaseDelegationDelivery(id);
    }
  } else {
    w.claimDelegationDelivery(id, { at: done + 1, token: token() });
    w.releaseDelegationDelivery(id);
  }
}

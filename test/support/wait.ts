// Waiting for a condition instead of sleeping a fixed time and hoping it holds by then: a test that can fail by timing
// is a bug. The deadline only turns a condition that never comes into a failure; a slow, busy machine is not one.
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a condition may take before the test fails: generous, since it only ever ends a test that would hang. */
export const DEADLINE_MS = 60_000;

/**
 * Resolves with the first truthy value `check` returns, polling every `everyMs`; rejects, naming `what`, after the
 * deadline.
 * @example const runId = await waitFor(async () => (await h.admin.runs()).runs.find((r) => r.live)?.run_id, 'a live run');
 */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, { everyMs = 10, deadlineMs = DEADLINE_MS } = {}): Promise<NonNullable<T>> {
  const start = performance.now();
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() - start > deadlineMs) throw new Error(`waited ${Math.round(deadlineMs / 1000)} s for ${what}`);
    await sleep(everyMs);
  }
}

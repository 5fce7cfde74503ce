// When another connection holds the write lock: classify SQLite's errors, and wait for the lock without blocking the
// event loop. Hermes blocks its loop for up to 30 s (sqlite3.connect(timeout=30)) and then raises; here only the
// requests that need the store wait, on wall time (a lock is held by a real process, not by the virtual clock).
import { isLockedOut } from '../../shared/sqlite-errors.js';
import { lockBackoff, StoreUnavailable, type LockWait } from '../runs/run-table.js';

export type { LockWait } from '../runs/run-table.js';

export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export function realLockWait(timeoutMs = DEFAULT_LOCK_TIMEOUT_MS): LockWait {
  return {
    timeoutMs,
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/** How long a statement itself may block the event loop on a held lock before it gives up and retries later (ms). */
export const STATEMENT_BUSY_MS = 10;

export { lockBackoff as backoff } from '../runs/run-table.js';

/** SQLITE_BUSY / SQLITE_LOCKED and their extended codes: someone else holds a lock; trying later may work. */
export const isBusy: (e: unknown) => boolean = isLockedOut;

/** Any failure of a statement, as the domain sees it. */
export function unavailable(e: unknown, what: string): StoreUnavailable {
  if (e instanceof StoreUnavailable) return e;
  const detail = e instanceof Error ? e.message : String(e);
  return isBusy(e)
    ? new StoreUnavailable('busy', `The store is locked by another connection (${what}): ${detail}`, { cause: e })
    : new StoreUnavailable('failed', `The store failed (${what}): ${detail}`, { cause: e });
}

/** `attempt()`'s result, or its failure as the domain sees it (StoreUnavailable naming `what`): one try, no waiting. */
export function orUnavailable<T>(what: string, attempt: () => T): T {
  try {
    return attempt();
  } catch (e) {
    throw unavailable(e, what);
  }
}

/** Runs `attempt` until it stops failing with a held lock, or the deadline passes (then StoreUnavailable 'busy'). */
export async function whileBusy<T>(wait: LockWait, what: string, attempt: () => T): Promise<T> {
  const deadline = wait.now() + wait.timeoutMs;
  for (let i = 0; ; i++) {
    try {
      return attempt();
    } catch (e) {
      if (!isBusy(e) || wait.now() >= deadline) throw unavailable(e, what);
    }
    await wait.sleep(Math.min(lockBackoff(i), Math.max(0, deadline - wait.now())));
  }
}

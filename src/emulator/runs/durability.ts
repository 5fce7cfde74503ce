// The durability barrier: before the runs domain answers anything that reveals a run's state, the status writes it
// made are committed to the store (decision 0016). Nothing a client has seen can then be lost by a crash.
import { lockBackoff, StoreUnavailable, type LockWait, type RunTable } from './run-table.js';

/**
 * Commits the held status writes (of `runId`, or of every run) before an answer leaves. null when nothing is held
 * (the common case costs no promise); otherwise resolves once committed, retrying off the event loop while another
 * connection holds the lock, and rejects with StoreUnavailable when the wait's deadline passes.
 */
export function settle(store: RunTable, wait: LockWait, runId?: string): Promise<void> | null {
  if (!store.hasPending(runId)) return null;
  let last: unknown = null;
  try {
    store.commit();
  } catch (e) {
    last = e;
  }
  if (!store.hasPending(runId)) return null;
  return retry(store, wait, runId, last);
}

async function retry(store: RunTable, wait: LockWait, runId: string | undefined, first: unknown): Promise<void> {
  const deadline = wait.now() + wait.timeoutMs;
  let last = first;
  for (let attempt = 0; store.hasPending(runId); attempt++) {
    if (wait.now() >= deadline) {
      if (last instanceof StoreUnavailable) throw last;
      throw new StoreUnavailable('failed', `A status write could not be committed within ${wait.timeoutMs} ms.`, { cause: last });
    }
    await wait.sleep(Math.min(lockBackoff(attempt), Math.max(0, deadline - wait.now())));
    try {
      store.commit();
    } catch (e) {
      last = e;
    }
  }
}

// Says on stderr why a request was answered aiohttp's 500 page because the store failed (its disk full, an I/O error,
// another process's lock held past --lock-timeout). Hermes's aiohttp logs such an exception with its traceback; the
// emulator answers the same page and says the cause in one line, at most one line every 10 s (with how many it left
// out), so a store that keeps failing under load does not flood the log.
import type { StoreUnavailable } from '../runs/run-table.js';

/** One line at most this often (ms). */
export const STORE_FAILURE_EVERY_MS = 10_000;

export type StoreFailureReporter = (request: string, error: StoreUnavailable) => void;

/**
 * @param say where the line goes (console.warn by default); `now` in ms, injected for tests.
 * @example const report = storeFailureReporter(); report('POST /v1/runs', e);
 */
export function storeFailureReporter(say: (line: string) => void = (l) => console.warn(l), now: () => number = () => performance.now()): StoreFailureReporter {
  let last = -Infinity;
  let left = 0;
  return (request, error) => {
    if (now() - last < STORE_FAILURE_EVERY_MS) {
      left++;
      return;
    }
    last = now();
    const more = left > 0 ? ` (${left} more such answer${left === 1 ? '' : 's'} since the last line)` : '';
    left = 0;
    say(`hermetic: ${request} answered aiohttp's 500 page, as Hermes does when its store raises: ${error.message}${more}`);
  };
}

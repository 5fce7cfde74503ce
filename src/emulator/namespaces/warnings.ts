// What the emulator could not do, said on stderr: a request its store failed (answered aiohttp's 500 page, as Hermes
// answers when its store raises; Hermes's aiohttp logs the traceback), a turn or a --state-db row it could not record,
// held status writes it keeps retrying. A store that keeps failing under load could fail every request, so each kind
// of line is said at most once every 10 s, with how many of that kind were left out since.
import type { StoreUnavailable } from '../runs/run-table.js';

/** One line of a kind at most this often (ms). */
export const WARNING_EVERY_MS = 10_000;

/** Says `line` (after "hermetic: ") unless a line of the same `kind` was said less than 10 s ago. */
export type Warn = (kind: WarningKind, line: string) => void;

/** The kinds: a fixed few, so what is remembered of them stays bounded. */
export type WarningKind = 'request' | 'turns' | 'state-db' | 'held-writes';

/**
 * @param say where the lines go (console.warn by default); `now` in ms, injected for tests.
 * @example const warn = limitedWarnings(); warn('request', storeFailureLine('POST /v1/runs', e));
 */
export function limitedWarnings(say: (line: string) => void = (l) => console.warn(l), now: () => number = () => performance.now()): Warn {
  const kinds = new Map<WarningKind, { last: number; left: number }>();
  return (kind, line) => {
    let k = kinds.get(kind);
    if (!k) kinds.set(kind, (k = { last: -Infinity, left: 0 }));
    if (now() - k.last < WARNING_EVERY_MS) {
      k.left++;
      return;
    }
    k.last = now();
    const more = k.left > 0 ? ` (and ${k.left} more such line${k.left === 1 ? '' : 's'} left out since the last)` : '';
    k.left = 0;
    say(`hermetic: ${line}${more}`);
  };
}

/** A request the store failed. */
export const storeFailureLine = (request: string, error: StoreUnavailable): string =>
  `${request} answered aiohttp's 500 page, as Hermes does when its store raises: ${error.message}`;

/** A write made after the request it belongs to was answered. */
export const backgroundFailureLine = (what: string, error: unknown): string => `${what} failed: ${(error as Error)?.message ?? String(error)}`;

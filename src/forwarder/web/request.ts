// The dashboard's query string → a report request, read the way `hermetic report` reads its flags: `period` is one of
// the picker's (today, week, 7d, 30d, month, all) or custom `since`/`until` (the report's own grammar: 2026-07-01, 7d, an
// ISO time); each filter column may repeat (`model=a&model=b`). `?period=7d&model=x` asks exactly what
// `hermetic report --since 7d --filter model=x --json` asks. Unknown parameters are refused, never ignored.
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import type { Zone } from '../ledger/zone.js';
import { FILTERS, resolveWindow, windowOrderProblem, type ReportFilter, type ReportRequest } from '../report/index.js';

export const WEB_PERIODS = ['today', 'week', '7d', '30d', 'month', 'all'] as const;
const WINDOW_PARAMS = ['period', 'since', 'until'] as const;
/** Parameters every usage endpoint takes: the window and the filter. */
export const USAGE_PARAMS: readonly string[] = [...WINDOW_PARAMS, ...FILTERS];

const invalid = (message: string): never => {
  throw new HermeticError('HERMETIC_WEB_INVALID', message);
};

/** Refuses a parameter the endpoint does not take (with a suggestion when one is close). */
export function checkParams(query: URLSearchParams, allowed: readonly string[]): void {
  for (const name of new Set(query.keys())) {
    if (allowed.includes(name)) continue;
    const hint = suggest(name, allowed);
    invalid(`"${name}" is not a parameter of this endpoint${hint ? `; did you mean "${hint}"?` : allowed.length ? `; it takes ${allowed.join(', ')}.` : '; it takes none.'}`);
  }
}

/** One value of a parameter that may not repeat; undefined when absent. */
export function single(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) invalid(`"${name}" was given ${all.length} times; give it once.`);
  return all[0];
}

/** A whole number parameter between min and max, or its default. */
export function wholeParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) invalid(`"${name}" must be a whole number from ${min} to ${max}; got "${raw}".`);
  return Number(raw);
}

/** The window and filter of a usage request, resolved against `now` (epoch seconds) in the ledger's zone. */
export function usageRequest(query: URLSearchParams, now: number, zone: Zone): ReportRequest {
  const period = single(query, 'period');
  const since = single(query, 'since');
  const until = single(query, 'until');
  if (period !== undefined && period !== 'custom' && !(WEB_PERIODS as readonly string[]).includes(period)) {
    invalid(`"period" must be one of ${WEB_PERIODS.join(', ')} or custom; got "${period}".`);
  }
  if (period !== undefined && period !== 'custom' && (since !== undefined || until !== undefined)) invalid('"period" sets the window; give it, or since/until (with period=custom), not both.');
  if (period === 'custom' && since === undefined && until === undefined) invalid('A custom period needs since, until or both.');
  let window;
  try {
    window = period === '7d' ? resolveWindow({ since: '7d' }, now, zone)
      : period !== undefined && period !== 'custom' ? resolveWindow({ period }, now, zone)
        : resolveWindow({ since, until }, now, zone);
  } catch (e) {
    // The report's sentences name its flags (--since); here they are parameters.
    if (isHermeticError(e) && e.code === 'HERMETIC_CLI_USAGE') invalid(e.message.replace(/--(since|until|period)\b/g, '"$1"'));
    throw e;
  }
  // Without an end the window ends now: a start after it is in the future, and there is nothing to swap (as report).
  const order = period === undefined || period === 'custom' ? windowOrderProblem(window, { since, until }) : null;
  if (order !== null) invalid(/swap them/.test(order) ? `The window starts after it ends (since ${since}, until ${until}); swap them.` : order.replace(/--(since|until)\b/g, '"$1"'));
  const filter: Record<string, string[]> = {};
  for (const name of FILTERS) {
    const values = query.getAll(name);
    if (values.length > 0) filter[name] = values;
  }
  return { since: window.since, until: window.until, ...(Object.keys(filter).length > 0 ? { filter: filter as ReportFilter } : {}) };
}

// The request journal's filters as a query string (GET /__admin/requests?operation=submit&status=4xx&run_id=…):
// parsed once, unknown names refused with a suggestion, bad values with the rule they break.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { OPERATIONS } from '../api/routes.js';
import type { JournalFilter } from './journal.js';

/** Operations a journal entry can have (control-plane requests are not journaled). */
export const JOURNAL_OPERATIONS: readonly string[] = [...OPERATIONS, 'other'];

export const FILTER_NAMES = ['operation', 'status', 'run_id', 'method', 'since', 'after', 'limit'] as const;

function bad(message: string): never {
  throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', message);
}

/** Every value of a parameter, repeated or comma-separated, empty pieces dropped. */
function listOf(params: URLSearchParams, name: string): string[] {
  return params.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

function single(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  if (values.length > 1) bad(`Query parameter "${name}" is given ${values.length} times; give it once.`);
  return values[0] ?? null;
}

function wholeNumber(params: URLSearchParams, name: string): number | null {
  const raw = single(params, name);
  if (raw === null) return null;
  if (!/^\d{1,15}$/.test(raw)) bad(`Query parameter "${name}" must be a whole number, 0 or more; got "${raw}".`);
  return Number(raw);
}

/**
 * @example parseJournalFilter('operation=submit,get&status=4xx&limit=10')
 */
export function parseJournalFilter(query: string): JournalFilter {
  const params = new URLSearchParams(query);
  for (const name of new Set(params.keys())) {
    if ((FILTER_NAMES as readonly string[]).includes(name)) continue;
    const hint = suggest(name, FILTER_NAMES);
    bad(`Unknown query parameter "${name}" for the request journal.${hint ? ` Did you mean "${hint}"?` : ` Known: ${FILTER_NAMES.join(', ')}.`}`);
  }
  const operations = new Set<string>();
  for (const op of listOf(params, 'operation')) {
    if (!JOURNAL_OPERATIONS.includes(op)) {
      const hint = suggest(op, JOURNAL_OPERATIONS);
      bad(`Query parameter "operation" must be one of ${JOURNAL_OPERATIONS.join(', ')}; got "${op}".${hint ? ` Did you mean "${hint}"?` : ''}`);
    }
    operations.add(op);
  }
  const statuses = new Set<number>();
  const classes = new Set<number>();
  for (const s of listOf(params, 'status')) {
    if (/^[1-5]\d\d$/.test(s) || s === '0') statuses.add(Number(s));
    else if (/^[1-5]xx$/i.test(s)) classes.add(Number(s[0]));
    else bad(`Query parameter "status" must be an HTTP status (404), a class (4xx), or 0 (a dropped connection); got "${s}".`);
  }
  const sinceRaw = single(params, 'since');
  const since = sinceRaw === null ? null : Number(sinceRaw);
  if (sinceRaw !== null && (sinceRaw.trim() === '' || !Number.isFinite(since))) {
    bad(`Query parameter "since" must be a time in epoch seconds on the namespace's clock; got "${sinceRaw}".`);
  }
  const method = single(params, 'method');
  return {
    operations: operations.size ? operations : null,
    statuses: statuses.size ? statuses : null,
    classes: classes.size ? classes : null,
    runId: single(params, 'run_id'),
    method: method === null ? null : method.toUpperCase(),
    since,
    after: wholeNumber(params, 'after'),
    limit: wholeNumber(params, 'limit'),
  };
}

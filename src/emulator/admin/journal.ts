// The request journal's control routes: list what clients sent this namespace (filtered), count it, forget it.
import { parseJournalFilter } from '../journal/filter.js';
import type { AdminContext } from './context.js';

/** GET /__admin/requests?operation=&status=&run_id=&method=&since=&after=&limit= — oldest first. */
export function listRequestsHandler({ req, deps }: AdminContext) {
  const journal = deps.namespace.journal;
  return { requests: journal.query(parseJournalFilter(req.query)), capacity: journal.capacity, evicted: journal.evicted };
}

/** GET /__admin/requests/count?… — how many entries the same query would list. */
export function countRequestsHandler({ req, deps }: AdminContext) {
  return { count: deps.namespace.journal.count(parseJournalFilter(req.query)) };
}

/** DELETE /__admin/requests — forgets every entry (numbering goes on). */
export function clearRequestsHandler({ deps }: AdminContext) {
  return { deleted: deps.namespace.journal.clear() };
}

// The page's state lives in its URL (shareable; the back button works): the view is the path, the period and the
// filters are the query, in the same words as the API's (?period=7d&model=a&model=b, /session?id=…&page=2).
export const FILTERS = ['model', 'provider', 'profile', 'source', 'project', 'task'];
export const PERIODS = [['today', 'Today'], ['week', 'Week'], ['7d', '7 d'], ['30d', '30 d'], ['month', 'Month'], ['all', 'All'], ['custom', 'Custom']];

export function read(location = window.location) {
  const q = new URLSearchParams(location.search);
  const view = location.pathname === '/session' ? 'session' : location.pathname === '/tools' ? 'tools' : location.pathname === '/report' ? 'report' : 'overview';
  const filters = {};
  for (const f of FILTERS) if (q.getAll(f).length) filters[f] = q.getAll(f);
  return { view, period: q.get('period') ?? '30d', since: q.get('since') ?? '', until: q.get('until') ?? '', filters, id: q.get('id'), store: q.get('store'), machine: q.get('machine'), page: Number(q.get('page') ?? '1'), pageSize: q.get('page_size'), from: q.get('from'), by: q.getAll('by'), top: q.get('top') };
}

/** The API's query for the window and filters of a state. */
export function usageParams(s) {
  const q = new URLSearchParams();
  if (s.period === 'custom') {
    q.set('period', 'custom');
    if (s.since) q.set('since', s.since);
    if (s.until) q.set('until', s.until);
  } else if (s.period !== '30d') q.set('period', s.period);
  for (const f of FILTERS) for (const v of s.filters[f] ?? []) q.append(f, v);
  return q;
}

/** The URL of a state (the window and filters are kept across views). */
export function href(s) {
  const q = usageParams(s);
  if (s.view === 'session') {
    const own = new URLSearchParams({ id: s.id });
    if (s.store) own.set('store', s.store);
    if (s.machine) own.set('machine', s.machine);
    if (s.page > 1) own.set('page', String(s.page));
    if (s.pageSize) own.set('page_size', s.pageSize);
    if (s.from !== null && s.from !== undefined) own.set('from', String(s.from));
    for (const [k, v] of q) own.append(k, v);
    return `/session?${own}`;
  }
  if (s.view === 'report') {
    // The report's grouping (none asked: the view's own default), kept beside the period and the filters.
    for (const d of s.by ?? []) q.append('by', d);
    if (s.top !== null && s.top !== undefined) q.set('top', s.top);
    return q.toString() ? `/report?${q}` : '/report';
  }
  const path = s.view === 'tools' ? '/tools' : '/';
  return q.toString() ? `${path}?${q}` : path;
}

/** The page of the session a report row names by `id` (its own id, or a tree's first session), on its store and machine. */
export function sessionHref(state, row, id) {
  return href({ ...state, view: 'session', id, store: row.store ?? null, machine: row.machine_id ?? null, page: 1, pageSize: null });
}

export function go(s, replace = false) {
  const url = href(s);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event('hermetic:navigate'));
}

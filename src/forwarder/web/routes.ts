// The dashboard's one route table, as data (DESIGN habits 2 and 18): each endpoint's name, path and the query
// parameters it takes. Handlers are bound to the names in handlers.ts; the server (server.ts) dispatches by path.
import { USAGE_PARAMS } from './request.js';

export interface WebRoute {
  name: string;
  path: string;
  /** Query parameters it takes; anything else is refused (HERMETIC_WEB_INVALID). */
  params: readonly string[];
  /** What it answers, for the reader of this table and decision 0041. */
  text: string;
}

export const API_ROUTES = [
  { name: 'overview', path: '/api/overview', params: USAGE_PARAMS, text: 'The window\'s totals (`usageReport` with no grouping), the cache-hit rate, the values the forwarder repaired (`row_issues`, `planRowIssues`, on the fleet store too: decision 0092), how many of the sessions counted Hermes recorded no cost for (`uncosted`, `planUncosted`: their $0.00 is not measured; decision 0090) and the sessions a windowed backfill left unread (`unread`; on the fleet store each machine\'s added up: decision 0102; null when none, or where not kept); on the fleet store, `unread_unknown` says how many of the fleet\'s machines do not say what they left unread (`{machines, of, names}`: their forwarder is older than dataset version 13, so `unread` is the others\'; `names` holds the host names of the first three by name; null where not known; decision 0105), and `withheld` lists the notes this role may not read (`{table, grant}`: the GRANT the schema\'s owner runs; decisions 0102, 0105).' },
  { name: 'daily', path: '/api/daily', params: USAGE_PARAMS, text: 'Spend per day by model (`usageReport` by day and model); for a window of two days or less, per hour (by hour and model: `by` says which), and then `hours` names every hour of the window, the quiet ones too (decision 0110).' },
  { name: 'breakdown', path: '/api/breakdown', params: [...USAGE_PARAMS, 'by', 'top'], text: 'One breakdown: by=model|provider|profile|source|project|task|machine|weekday|hour_of_day (the last two the overview\'s "when" charts; decision 0116), the top N rows and the rest summed.' },
  { name: 'sessions', path: '/api/sessions', params: [...USAGE_PARAMS, 'top'], text: 'The most expensive sessions (`usageReport` by session, top N, at most 1,000,000). Each title is cut at 256 characters (`cut.title` gives its whole length), and the rows stop once their JSON reaches 2 MiB, the rest summed into the "other" row (`stopped`; decision 0094).' },
  { name: 'trees', path: '/api/trees', params: [...USAGE_PARAMS, 'top'], text: 'The most expensive trees: each session with the subagents, continuations after compression and branches it started, and theirs (`usageReport` by tree, top N; `tree` and `tree_title` name its first session, `sessions` counts those with usage in the window; a reset starts a new tree; decision 0114), bounded as /api/sessions is (`cut.tree_title`).' },
  { name: 'tools', path: '/api/tools', params: [...USAGE_PARAMS, 'limit'], text: 'Tool calls and failed results by tool (`usageReport` by tool), and the slowest calls where both times are known.' },
  { name: 'report', path: '/api/report', params: [...USAGE_PARAMS, 'by', 'top'], text: 'Any grouping: the same JSON as `hermetic report --json` with the same window, --by, --top and --filter; grouped by session or tree, bounded as /api/sessions is (titles cut, rows stopped at 2 MiB; decision 0094).' },
  { name: 'report-csv', path: '/api/report.csv', params: [...USAGE_PARAMS, 'by', 'top'], text: 'The same rows as CSV, as `hermetic report --csv` writes them, saved as a file (`Content-Disposition: attachment`): at most 200,000 rows, the rest summed into the "other" row; by session or tree, titles past 256 characters cut and ending in "…", and the rows stopped at 32 MiB (decision 0116).' },
  { name: 'options', path: '/api/options', params: USAGE_PARAMS, text: 'The values each filter can take in the window (from `usageReport` by each column), the zone and the window.' },
  { name: 'session', path: '/api/session', params: ['id', 'store', 'machine', 'page', 'page_size', 'from'], text: 'One session: its row, parent and children, model changes, usage, what it cost with its descendants (`lineage_usage`: subagents, continuations and theirs, null without children; decision 0110), and a page of its live transcript (`machine`: the fleet\'s machine id, when two machines hold the id). Page `page` holds messages from seq (page - 1) × page_size on, page_size of them (default 100, at most 500); each text is cut at `transcript.limits.text_characters` (`cut` gives its whole length; the session\'s own texts, its lineage\'s and its delegations\' are cut too, and each list holds `limits.list_rows`: decision 0094), and the page stops once its messages reach `limits.page_bytes` of JSON: `next_from` is then the seq the rest of that page starts at, asked for with `from` (decision 0088). On the fleet store, a role that may not read `delegations` gets the rest of the page with `delegations: null` and `withheld: [{table, grant}]` naming the GRANT (decision 0105).' },
  { name: 'message-text', path: '/api/message-text', params: ['id', 'store', 'machine', 'seq', 'field', 'call'], text: 'One text of a message whole, as text/plain (UTF-8, its Content-Length exact), read and sent a chunk at a time: field=content|reasoning|tool_calls (the calls\' JSON)|attributes, or field=arguments&call=N (the Nth call\'s arguments, from 0) (decisions 0088, 0094).' },
  { name: 'session-text', path: '/api/session-text', params: ['id', 'store', 'machine', 'field'], text: 'One text of the session\'s own row whole, as /api/message-text gives a message\'s: field=title, cwd, git_repo_root, … (the texts `/api/session` cuts), system_prompt (which it does not send) or attributes (its JSON) (decision 0094).' },
  { name: 'version', path: '/api/version', params: [], text: 'Whether the data changed, for the page to follow it live: `version`, a token that changes when a forwarder commits, the dataset is built again in its place or a machine ships to the fleet store (null where nothing tells: the fleet store without `progress`, or a role that may not read it), and `refresh_ms`, how often the page asks (`hermetic web --refresh`; null: it does not; decision 0119).' },
] as const satisfies readonly WebRoute[];

export type ApiName = (typeof API_ROUTES)[number]['name'];

/** Paths that answer the page itself (the app routes them in the browser). */
export const PAGE_PATHS = ['/', '/session', '/tools', '/report'] as const;

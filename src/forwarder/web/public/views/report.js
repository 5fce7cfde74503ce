// The report view: any grouping of the period's usage, one or two dimensions deep, as `hermetic report --by … --by …`
// gives it (the same /api/report, so the same rows), with the command that prints it in a terminal. The grouping is in
// the URL (/report?by=weekday&by=model&top=20), beside the period and the filters every view keeps.
import { get } from '../api.js';
import { h, table } from '../dom.js';
import { cost, count, seconds, sessionTitle, short, size } from '../format.js';
import { FILTERS, go, sessionHref, usageParams } from '../state.js';

/** The dimensions offered, in the order `hermetic report --help` lists them (machine only on the fleet store). */
const DIMENSIONS = [
  ['day', 'Day'], ['week', 'Week'], ['month', 'Month'], ['hour', 'Hour'], ['weekday', 'Weekday'], ['hour_of_day', 'Hour of the day'],
  ['model', 'Model'], ['provider', 'Provider'], ['profile', 'Profile'], ['source', 'Source'], ['project', 'Project'], ['task', 'Task'],
  ['session', 'Session'], ['tree', 'Session with all it started'], ['tool', 'Tool'], ['command', 'Command'], ['machine', 'Machine'],
];
const LABEL = Object.fromEntries(DIMENSIONS);
/** The most rows the API keeps (the report's MAX_TOP). */
const MAX_TOP = 1_000_000;
/** How many rows a table keeps before the rest are summed into one. */
const TOPS = [['10', '10 rows'], ['50', '50 rows'], ['200', '200 rows'], ['all', 'every row']];

/** A key cell: a session or tree links to its page; a missing value is named as the terminal names it. */
function keyCell(state, dim, row) {
  if (row.other_rows !== undefined) return null;
  if (dim === 'session') return h('a', { href: sessionHref(state, row, row.session_id), dataset: { nav: '' } }, sessionTitle(row));
  if (dim === 'tree') return h('a', { href: sessionHref(state, row, row.tree), dataset: { nav: '' } }, sessionTitle({ session_id: row.tree, title: row.tree_title, cut: { title: row.cut?.tree_title } }));
  const v = row[dim];
  if (v === null || v === undefined) return dim === 'project' ? '(none)' : '(unknown)';
  if (v === '') return dim === 'task' ? 'main' : '(unknown)';
  return String(v);
}

/** The rows by command that name no program, and what each holds: render.ts COMMAND_LABELS, held equal by page.test.ts. */
const NAMELESS = [
  ['(no command)', 'holds calls whose arguments have no command text'],
  ['(empty)', 'holds command lines that run no program (blank, a comment, only assignments)'],
  ['(no call)', 'holds failed results whose call is not in the dataset'],
];

/** Under a table by command, what its rows that name no program hold; null when it shows none. */
function nameless(rows) {
  const shown = new Set(rows.map((row) => row.command));
  const said = NAMELESS.filter(([label]) => shown.has(label)).map(([label, what]) => `${label} ${what}`);
  return said.length === 0 ? null : h('p', { class: 'muted nameless' }, `${said.join('; ')}.`);
}

/**
 * The terminal command that prints the same rows: the store, the period, the filters, the grouping and the zone, each
 * value quoted for a shell (a custom `since` may hold a space: `2026-07-01 10:00`). On the fleet store it reads the
 * fleet (its URL is not the page's to show: it may hold a password); in UTC (`hermetic web --utc`) it says --utc, which
 * changes nothing where the ledger's zone is UTC already (decision 0117).
 */
function command(state, by, top, options) {
  const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
  const args = ['hermetic', 'report'];
  if (options?.fleet === true) args.push('--from', 'postgres://…');
  if (state.period === 'custom') {
    if (state.since) args.push('--since', quote(state.since));
    if (state.until) args.push('--until', quote(state.until));
  } else args.push('--period', state.period);
  for (const f of FILTERS) for (const v of state.filters[f] ?? []) args.push('--filter', quote(`${f}=${v}`));
  for (const d of by) args.push('--by', d);
  if (top !== 'all') args.push('--top', top);
  if (options?.zone === 'UTC') args.push('--utc');
  return args.join(' ');
}

export async function report(state, pending) {
  const options = await pending;
  const fleet = options?.fleet === true;
  const by = state.by.length > 0 ? state.by : ['day'];
  // A URL may ask for any number of rows up to the API's cap (MAX_TOP, as --top's); the menu gains it. Past the cap,
  // or not a number, it is the menu's first.
  const top = state.top === 'all' || (/^[1-9]\d{0,6}$/.test(state.top ?? '') && Number(state.top) <= MAX_TOP) ? state.top : '10';
  const tops = TOPS.some(([t]) => t === top) ? TOPS : [[top, `${count(Number(top))} rows`], ...TOPS];
  const q = usageParams(state);
  for (const d of by) q.append('by', d);
  if (top !== 'all') q.set('top', top);
  const r = await get('/api/report', q);
  const commands = r.by.includes('command');
  const tools = commands || r.by.includes('tool');
  const choose = (name, value, choices) => h('select', { name }, choices.map(([v, label]) => h('option', { value: v, selected: v === value }, label)));
  const offered = DIMENSIONS.filter(([d]) => (d === 'machine' ? fleet : true));
  const form = h('form', {
    class: 'grouping', 'aria-label': 'Grouping',
    onsubmit: (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      const chosen = [f.get('by'), f.get('then')].filter((d) => d);
      go({ ...state, by: [...new Set(chosen)], top: f.get('top') });
    },
  },
  h('label', {}, 'Group by ', choose('by', by[0], offered)),
  h('label', {}, 'then by ', choose('then', by[1] ?? '', [['', '(nothing)'], ...offered])),
  h('label', {}, 'Keep ', choose('top', top, tops)),
  h('button', { type: 'submit' }, 'Show'));
  const keys = r.by.map((d) => ({ label: LABEL[d] ?? d, value: (row) => keyCell(state, d, row) }));
  // The first key column names the "other" row.
  if (keys.length > 0) {
    const first = keys[0].value;
    keys[0] = { ...keys[0], value: (row) => (row.other_rows !== undefined ? `${count(row.other_rows)} more` : first(row)) };
  }
  const measure = (label, key, format) => ({ label, num: true, key, raw: (x) => x[key], value: (x) => format(x[key]) });
  // Commands (decision 0149): also the time from call to result, added up, and a typical call's (empty on the rest row).
  const figures = commands
    ? [measure('Calls', 'tool_calls', count), measure('Failed', 'tool_errors', count), measure('Time', 'seconds', seconds),
      measure('Median', 'median_seconds', seconds), measure('Sessions', 'sessions', count)]
    : tools
    ? [measure('Calls', 'tool_calls', count), measure('Failed', 'tool_errors', count), measure('Sessions', 'sessions', count)]
    : [measure('Cost', 'cost_usd', cost), measure('Sessions', 'sessions', count), measure('API calls', 'api_calls', count), measure('Input', 'input_tokens', short),
      measure('Output', 'output_tokens', short), measure('Cache read', 'cache_read_tokens', short), measure('Cache write', 'cache_write_tokens', short)];
  const title = `By ${r.by.map((d) => (LABEL[d] ?? d).toLowerCase()).join(' and ')}`;
  // The page is the table: shown whole, not in the scrolling box of the overview's tables.
  // What adds up: the measures; a session counts in every row it has usage (or calls) in.
  const rows = table(`${title}: ${commands ? 'terminal calls by the program each runs, their failures and time from call to result (calls, failures and time add up to the period\'s totals' : tools ? 'tool calls (the rows\' calls and failures add up to the period\'s totals' : 'cost, sessions and tokens (the rows\' cost and tokens add up to the period\'s totals'}; a session counts in each row it is in)`, [...keys, ...figures], r.rows, { id: 'report-table' });
  rows.classList.add('whole');
  return [
    h('h1', {}, 'Report'),
    form,
    h('p', { class: 'muted' }, 'In a terminal: ', h('code', { class: 'command' }, command(state, r.by, top, options)), ' · ',
      // The same rows as a file (a plain link: the browser saves it).
      h('a', { href: `/api/report.csv?${q}`, download: '', class: 'csv' }, 'Download as CSV')),
    r.rows.length === 0 ? h('p', { class: 'notice' }, 'No usage in this period.') : null,
    rows,
    commands ? nameless(r.rows) : null,
    // A list stopped at its bytes (decision 0120): the rest is in its last row; the terminal and the CSV have them all.
    r.stopped ? h('p', { class: 'muted list-stopped' }, `The page stops at ${count(r.stopped.rows)} rows: their rows reached the ${size(r.stopped.bytes)} a page carries. The rest are summed in the last row; the command above, or the CSV, lists more.`) : null,
  ];
}

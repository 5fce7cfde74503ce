// The overview: the period's totals, spend per day stacked by model, tokens by kind, spend by hour of the day and
// weekday, the breakdowns and the most expensive sessions. Each figure carries its raw value (data-figure/data-value) exactly as the API gave it.
import { get } from '../api.js';
import { chart, colour } from '../charts.js';
import { h, table } from '../dom.js';
import { cost, count, percent, sessionTitle, short, size } from '../format.js';
import { FILTERS, go, href, sessionHref, usageParams } from '../state.js';
import { withheldNotes } from './withheld.js';

const KINDS = [['input_tokens', 'Input'], ['output_tokens', 'Output'], ['cache_read_tokens', 'Cache read'], ['cache_write_tokens', 'Cache write'], ['reasoning_tokens', 'Reasoning']];
const TITLES = { model: 'By model', provider: 'By provider', profile: 'By profile', source: 'By source', project: 'By project', task: 'By task', machine: 'By machine' };

function card(label, figure, value, text, note = null) {
  return h('div', { class: 'card' }, h('div', { class: 'label' }, label), h('div', { class: 'figure', dataset: { figure, value: value === null ? 'null' : String(value) } }, text),
    note ? h('div', { class: 'note' }, note) : null);
}

function totalsCards(o) {
  const t = o.totals;
  return h('section', { class: 'cards', 'aria-label': 'Totals for the period' },
    // Which cost is shown, as the terminal report says it beside its figure.
    card('Cost', 'cost_usd', t.cost_usd, cost(t.cost_usd), 'billed where Hermes recorded it, else estimated'),
    card('Input tokens', 'input_tokens', t.input_tokens, count(t.input_tokens)),
    card('Output tokens', 'output_tokens', t.output_tokens, count(t.output_tokens)),
    card('Cache-hit rate', 'cache_hit_rate', o.cache_hit_rate, percent(o.cache_hit_rate)),
    card('Sessions', 'sessions', t.sessions, count(t.sessions)),
    card('API calls', 'api_calls', t.api_calls, count(t.api_calls)),
    card('Tool calls', 'tool_calls', t.tool_calls, count(t.tool_calls)),
    card('Estimated cost', 'estimated_cost_usd', t.estimated_cost_usd, cost(t.estimated_cost_usd), 'Hermes\'s estimate of it all'));
}

/**
 * The period's sessions Hermes recorded no cost for at all (decision 0090), under the cost as the terminal report says
 * it: their $0.00 is not a measured cost. Nothing when there are none.
 */
function uncosted(n, sessions) {
  if (!n) return null;
  return h('p', { class: 'muted uncosted', dataset: { figure: 'uncosted', value: String(n) } },
    `Hermes recorded no cost for ${n !== sessions ? `${count(n)} of these ${count(sessions)} ${sessions === 1 ? 'session' : 'sessions'}`
      : n === 1 ? 'this session' : `any of these ${count(n)} sessions`}: ${n === 1 ? 'its' : 'their'} $0.00 is not a measured cost.`);
}

/** Values the forwarder changed or left out in the period's sessions (the embedded dataset keeps them), as `hermetic report` says it. */
function repaired(issues) {
  if (!issues || issues.entries === 0) return null;
  const n = (x, one, many) => `${count(x)} ${x === 1 ? one : many}`;
  return h('p', { class: 'muted repaired', dataset: { figure: 'row_issues', value: String(issues.entries) } },
    `${n(issues.entries, 'value', 'values')} changed or left out while forwarding, in ${n(issues.sessions, 'session', 'sessions')} of this period (hermetic status says more; the dataset's row_issues table lists them).`);
}

/** Sessions a windowed backfill left unread that reach into the period, as `hermetic report` says it. */
function unread(u) {
  if (!u) return null;
  const one = u.sessions === 1;
  const days = u.from === u.to ? `on ${u.from}` : `between ${u.from} and ${u.to}`;
  return h('p', { class: 'notice unread', dataset: { figure: 'unread', value: String(u.sessions) } },
    `${count(u.sessions)} ${one ? 'session' : 'sessions'} active ${days} ${one ? 'is' : 'are'} not counted: a backfill's window (--since/--until) left ${one ? 'it' : 'them'} unread (hermetic forward, or a backfill without a window, reads ${one ? 'it' : 'them'}).`);
}

/** `a`, `a and b`, `a, b and c`, `a, b, c and 2 more`: the silent machines' names, as the report says them. */
function namesText(names, all) {
  const shown = names.slice(0, 3);
  const more = all - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${count(more)} more`;
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/**
 * The fleet's machines that do not say what windowed backfills left unread (decision 0105), as `hermetic report --from`
 * says it: the unread note above is the other machines' (or, with none, they left none unread). Nothing when every one says.
 */
function unreadUnknown(u, counted) {
  if (!u || !u.machines) return null;
  const rest = u.of - u.machines;
  const names = u.names?.length ? ` (${namesText(u.names, u.machines)})` : '';
  const who = rest === 0
    ? (u.of === 1 ? 'The fleet\'s one machine does not say' : `None of the fleet's ${count(u.of)} machines says`)
    : `${count(u.machines)} of the fleet's ${count(u.of)} machines${names} ${u.machines === 1 ? 'does' : 'do'} not say`;
  const others = rest === 1 ? 'the other machine' : `the other ${count(rest)}`;
  const tail = rest === 0 ? '' : counted ? `; the count is of ${others}` : `; ${others} left none unread in this window`;
  return h('p', { class: 'notice unread-unknown', dataset: { figure: 'unread_unknown', value: String(u.machines) } },
    `${who} which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it)${tail}.`);
}

/** Models drawn in the daily chart before the rest are stacked as one. */
const CHART_MODELS = 8;

function dailyChart(daily) {
  // By day, or by hour for a short window (the answer's `by` says which; decision 0110).
  const unit = daily.by?.[0] === 'hour' ? 'hour' : 'day';
  // By hour, the axis is every hour of the window (`hours`), the quiet ones empty.
  const days = unit === 'hour' && Array.isArray(daily.hours)
    ? [...new Set([...daily.hours, ...daily.rows.map((r) => r.hour)])].sort()
    : [...new Set(daily.rows.map((r) => r[unit]))];
  const models = [...new Set(daily.rows.map((r) => r.model ?? ''))];
  const at = new Map(daily.rows.map((r) => [`${r[unit]}\u0000${r.model ?? ''}`, r.cost_usd]));
  // Hours of one day are labelled by their time alone (`14:00`), hours of two days in full.
  const oneDay = unit === 'hour' && new Set(days.map((d) => String(d).slice(0, 10))).size === 1;
  const label = (d) => (oneDay ? String(d).slice(11) : d);
  // The bars: the CHART_MODELS costliest models, the rest stacked as one (a legend of dozens leaves the bars no room);
  // the table under the chart has every model.
  const spent = new Map(models.map((m) => [m, days.reduce((t, d) => t + (at.get(`${d}\u0000${m}`) ?? 0), 0)]));
  const ranked = [...models].sort((a, b) => spent.get(b) - spent.get(a) || (a < b ? -1 : 1));
  const shown = ranked.length > CHART_MODELS + 1 ? ranked.slice(0, CHART_MODELS) : ranked;
  const rest = ranked.slice(shown.length);
  const datasets = shown.map((m, i) => ({ label: m || '(no model)', data: days.map((d) => at.get(`${d}\u0000${m}`) ?? 0), backgroundColor: colour(i), stack: 'cost' }));
  if (rest.length) datasets.push({ label: `${rest.length} other models`, data: days.map((d) => rest.reduce((t, m) => t + (at.get(`${d}\u0000${m}`) ?? 0), 0)), backgroundColor: '#9aa0a6', stack: 'cost' });
  // The table lists the hours (or days) with spend; the chart's axis has the quiet hours too. Its columns are the
  // legend's order (the costliest model first), then the rest.
  const rows = days.filter((d) => models.some((m) => at.has(`${d}\u0000${m}`))).map((d) => ({ day: d, cells: ranked.map((m) => at.get(`${d}\u0000${m}`) ?? null) }));
  const columns = [{ label: unit === 'hour' ? 'Hour' : 'Day', value: (r) => r.day }, ...ranked.map((m, i) => ({ label: m || '(no model)', num: true, key: `cost_usd:${m}`, raw: (r) => r.cells[i], value: (r) => (r.cells[i] === null ? '' : cost(r.cells[i])) }))];
  return chart(`Spend per ${unit} by model`, {
    type: 'bar',
    data: { labels: days.map(label), datasets },
    // Days are labelled level (as many as fit), the legend under the bars with small keys: rotated dates and eight
    // models above them left the bars no room on a phone.
    options: { scales: { x: { stacked: true, ticks: { maxRotation: 0, autoSkipPadding: 12 } }, y: { stacked: true, ticks: { callback: (v) => cost(v) } } }, plugins: { legend: { position: 'bottom', labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } }, tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${cost(c.raw)}` } } } },
  }, table(`Spend per ${unit} by model (US dollars)`, columns, rows, { id: 'daily-table' }));
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const HOURS = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);

/**
 * When the period's money went: every hour of the day, or every weekday, of the period together (decision 0116), the
 * quiet ones empty on the axis. The table lists those with usage.
 */
function whenChart(report, dim) {
  const all = dim === 'hour_of_day' ? HOURS : WEEKDAYS;
  const at = new Map(report.rows.map((r) => [r[dim], r.cost_usd]));
  const title = dim === 'hour_of_day' ? 'Spend by hour of the day' : 'Spend by weekday';
  return chart(title, {
    type: 'bar',
    data: { labels: dim === 'weekday' ? all.map((d) => d.slice(0, 3)) : all, datasets: [{ label: 'Cost', data: all.map((k) => at.get(k) ?? 0), backgroundColor: colour(0) }] },
    options: { scales: { x: { ticks: { maxRotation: 0, autoSkipPadding: 8 } }, y: { ticks: { callback: (v) => cost(v) } } }, plugins: { legend: { display: false }, tooltip: { callbacks: { label: (c) => cost(c.raw) } } } },
  }, table(`${title} (US dollars)`, [
    { label: dim === 'hour_of_day' ? 'Hour' : 'Weekday', value: (r) => r[dim] },
    { label: 'Cost', num: true, key: 'cost_usd', raw: (r) => r.cost_usd, value: (r) => cost(r.cost_usd) },
    { label: 'Sessions', num: true, key: 'sessions', raw: (r) => r.sessions, value: (r) => count(r.sessions) },
  ], report.rows, { id: `${dim.replace(/_/g, '-')}-table` }));
}

function tokensChart(t) {
  return chart('Tokens by kind', {
    type: 'bar',
    data: { labels: KINDS.map(([, l]) => l), datasets: [{ label: 'Tokens', data: KINDS.map(([k]) => t[k] ?? 0), backgroundColor: KINDS.map((_, i) => colour(i)) }] },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { ticks: { callback: (v) => short(v) } } } },
  }, table('Tokens by kind', [{ label: 'Kind', value: (r) => r[1] }, { label: 'Tokens', num: true, key: 'tokens', raw: (r) => t[r[0]], value: (r) => count(t[r[0]]) }], KINDS, { id: 'tokens-table' }));
}

function breakdown(dim, report, state) {
  const name = (r) => (r.other_rows !== undefined ? `${r.other_rows} more` : r[dim] === null || r[dim] === '' ? '(none)' : r[dim]);
  const key = (r) => {
    // A machine is not a report filter: its row names it, nothing to narrow to.
    if (r.other_rows !== undefined || !FILTERS.includes(dim)) return name(r);
    const v = r[dim] ?? '';
    const next = { ...state, filters: { ...state.filters, [dim]: [...new Set([...(state.filters[dim] ?? []), v])] } };
    return h('a', { href: href(next), dataset: { nav: '' }, title: `Only ${dim} ${name(r)}` }, name(r));
  };
  return h('section', { class: 'breakdown', 'aria-labelledby': `by-${dim}` },
    h('h3', { id: `by-${dim}` }, TITLES[dim]),
    table(`${TITLES[dim]}: cost, tokens and sessions`, [
      { label: dim[0].toUpperCase() + dim.slice(1), value: key },
      { label: 'Cost', num: true, key: 'cost_usd', raw: (r) => r.cost_usd, value: (r) => cost(r.cost_usd) },
      { label: 'Input', num: true, key: 'input_tokens', raw: (r) => r.input_tokens, value: (r) => short(r.input_tokens ?? 0) },
      { label: 'Output', num: true, key: 'output_tokens', raw: (r) => r.output_tokens, value: (r) => short(r.output_tokens ?? 0) },
      { label: 'Sessions', num: true, key: 'sessions', raw: (r) => r.sessions, value: (r) => count(r.sessions) },
    ], report.rows, { id: `breakdown-${dim}` }));
}

/** The most rows the sessions table asks for: the API's cap on `top`, as `hermetic report --top` has it. */
const MAX_TOP = 1_000_000;

/**
 * A list of the period's costliest rows (sessions, or trees of them), ten first; while some are left (the "N more" row
 * sums them), a button asks for five times as many, the same report cut later (decision 0069). Not kept in the URL: a
 * reload shows ten again. `list` names its endpoint, headings, table and columns.
 */
function costliest(report, state, list) {
  const section = h('section', { class: list.classes, 'aria-labelledby': list.id });
  const fill = (r) => {
    const shown = r.rows.filter((x) => x.other_rows === undefined).length;
    const rest = r.rows.find((x) => x.other_rows !== undefined)?.other_rows ?? 0;
    const next = Math.min(Math.max(shown, 10) * 5, MAX_TOP);
    const more = async (e) => {
      const button = e.currentTarget;
      button.disabled = true;
      const q = usageParams(state);
      q.set('top', String(next));
      try {
        fill(await get(list.path, q));
        // Lengthened here, not in the URL: a live redraw would show ten again, so it waits (live.js).
        section.dataset.extended = '';
      } catch (err) {
        button.disabled = false;
        button.replaceChildren(`Could not load more: ${err.message} (try again)`);
      }
    };
    // replaceChildren writes a null as the text "null": the parts a list may lack are left out first.
    section.replaceChildren(...[
      h('h2', { id: list.id }, list.heading),
      list.intro ? h('p', { class: 'muted' }, list.intro) : null,
      table(list.caption, list.columns, r.rows, { id: list.table }),
      // A list stopped at its bytes (decision 0094) says so; asking for more would bring the same rows.
      r.stopped ? h('p', { class: 'muted list-stopped' }, `The list stops at ${count(r.stopped.rows)} ${list.noun}: their rows reached the ${size(r.stopped.bytes)} a list carries. The rest are summed in its last row.`)
        : rest > 0 && next > shown ? h('button', { type: 'button', class: 'more', dataset: { more: list.more }, onclick: more }, `Show ${count(Math.min(next - shown, rest))} more`) : null,
    ].filter(Boolean));
  };
  fill(report);
  return section;
}

/** The period's costliest sessions. */
function topSessions(report, state) {
  return costliest(report, state, {
    id: 'top-sessions', classes: 'sessions', heading: 'Most expensive sessions', caption: 'The most expensive sessions of the period',
    path: '/api/sessions', table: 'sessions-table', more: 'sessions', noun: 'sessions',
    columns: [
      { label: 'Session', value: (x) => (x.other_rows !== undefined ? `${x.other_rows} more sessions` : h('a', { href: sessionHref(state, x, x.session_id), dataset: { nav: '' } }, sessionTitle(x))) },
      { label: 'Cost', num: true, key: 'cost_usd', raw: (x) => x.cost_usd, value: (x) => cost(x.cost_usd) },
      { label: 'Input', num: true, key: 'input_tokens', raw: (x) => x.input_tokens, value: (x) => short(x.input_tokens ?? 0) },
      { label: 'Output', num: true, key: 'output_tokens', raw: (x) => x.output_tokens, value: (x) => short(x.output_tokens ?? 0) },
      { label: 'API calls', num: true, key: 'api_calls', raw: (x) => x.api_calls, value: (x) => count(x.api_calls) },
    ],
  });
}

/**
 * The period's costliest pieces of work: each session with the subagents, continuations and branches it started (a
 * tree, decision 0114), named by its first session, whose page says what the rest cost. Shown only when some tree of
 * the ten holds more than one session: else it would repeat the sessions above.
 */
function topTrees(report, state) {
  if (!report.rows.some((x) => x.other_rows === undefined && x.sessions > 1)) return null;
  const title = (x) => sessionTitle({ session_id: x.tree, title: x.tree_title, cut: { title: x.cut?.tree_title } });
  return costliest(report, state, {
    id: 'top-trees', classes: 'sessions trees', heading: 'Most expensive work, with what it started',
    intro: 'Each session with its subagents, its continuations after compression and its branches, and theirs; a /reset starts anew.',
    caption: 'The most expensive sessions of the period with everything they started',
    path: '/api/trees', table: 'trees-table', more: 'trees', noun: 'rows',
    columns: [
      { label: 'First session', value: (x) => (x.other_rows !== undefined ? `${x.other_rows} more` : h('a', { href: sessionHref(state, x, x.tree), dataset: { nav: '' } }, title(x))) },
      { label: 'Cost', num: true, key: 'cost_usd', raw: (x) => x.cost_usd, value: (x) => cost(x.cost_usd) },
      { label: 'Sessions', num: true, key: 'sessions', raw: (x) => x.sessions, value: (x) => count(x.sessions) },
      { label: 'Input', num: true, key: 'input_tokens', raw: (x) => x.input_tokens, value: (x) => short(x.input_tokens ?? 0) },
      { label: 'Output', num: true, key: 'output_tokens', raw: (x) => x.output_tokens, value: (x) => short(x.output_tokens ?? 0) },
      { label: 'API calls', num: true, key: 'api_calls', raw: (x) => x.api_calls, value: (x) => count(x.api_calls) },
    ],
  });
}

export async function overview(state, options) {
  const q = usageParams(state);
  const withBy = (by, top) => { const p = new URLSearchParams(q); p.set('by', by); if (top) p.set('top', String(top)); return p; };
  // The fleet store (hermetic web --from postgres://…) adds the breakdown by machine: asked for only there.
  const machine = options.then(({ fleet }) => (fleet ? get('/api/breakdown', withBy('machine')) : null));
  const asked = get('/api/daily', q);
  // When in the day and the week the money went: asked for only when the spend chart is by day (more than two days).
  const when = asked.then((d) => (d.by?.[0] === 'hour' ? [null, null]
    : Promise.all([get('/api/breakdown', withBy('hour_of_day', 24)), get('/api/breakdown', withBy('weekday', 7))])));
  const [o, daily, sessions, trees, byMachine, [byHourOfDay, byWeekday], ...breakdowns] = await Promise.all([
    get('/api/overview', q), asked, get('/api/sessions', q), get('/api/trees', q), machine, when,
    ...FILTERS.map((f) => get('/api/breakdown', withBy(f))),
  ]);
  const shown = [...FILTERS.map((f, i) => [f, breakdowns[i]]), ...(byMachine ? [['machine', byMachine]] : [])];
  const empty = o.totals.sessions === 0 ? h('p', { class: 'notice' }, 'No usage in this period. Choose a longer one, or run "hermetic backfill" to read Hermes\'s stores.') : null;
  return [
    h('h1', {}, 'Usage'),
    empty,
    unread(o.unread),
    unreadUnknown(o.unread_unknown, Boolean(o.unread)),
    totalsCards(o),
    uncosted(o.uncosted, o.totals.sessions),
    repaired(o.row_issues),
    ...withheldNotes(o.withheld),
    h('div', { class: 'grid two' }, dailyChart(daily), tokensChart(o.totals)),
    // Over more than two days (the spend chart is by day), when in the day and the week it went.
    daily.by?.[0] === 'hour' ? null : h('div', { class: 'grid two when' }, whenChart(byHourOfDay, 'hour_of_day'), whenChart(byWeekday, 'weekday')),
    topSessions(sessions, state),
    topTrees(trees, state),
    h('h2', {}, 'Breakdowns'),
    h('div', { class: 'grid three' }, shown.map(([f, report]) => breakdown(f, report, state))),
  ];
}

export { go };

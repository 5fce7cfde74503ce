// The tool view: calls and failed results by tool (the report by tool), and the slowest calls where both the call's
// and its result's times are known.
import { get } from '../api.js';
import { chart, colour } from '../charts.js';
import { h, table } from '../dom.js';
import { count, percent, seconds, time } from '../format.js';
import { sessionHref, usageParams } from '../state.js';

export async function tools(state) {
  const r = await get('/api/tools', usageParams(state));
  const rows = r.rows.filter((x) => x.other_rows === undefined);
  const name = (x) => x.tool || '(unknown)';
  // A period (or filter) with no tool call at all says so, instead of an empty chart and a table of headers.
  const none = rows.length === 0 && !r.totals.tool_calls && !r.totals.tool_errors;
  return [
    h('h1', {}, 'Tools'),
    h('section', { class: 'cards', 'aria-label': 'Tool totals for the period' },
      h('div', { class: 'card' }, h('div', { class: 'label' }, 'Tool calls'), h('div', { class: 'figure', dataset: { figure: 'tool_calls', value: String(r.totals.tool_calls) } }, count(r.totals.tool_calls))),
      h('div', { class: 'card' }, h('div', { class: 'label' }, 'Failed results'), h('div', { class: 'figure', dataset: { figure: 'tool_errors', value: String(r.totals.tool_errors) } }, count(r.totals.tool_errors)))),
    none ? h('p', { class: 'muted empty' }, 'No tool calls in this period: a longer period, or fewer filters, may have some.') : chart('Calls by tool', {
      type: 'bar',
      data: { labels: rows.map(name), datasets: [
        { label: 'Calls', data: rows.map((x) => x.tool_calls), backgroundColor: colour(0) },
        { label: 'Failed', data: rows.map((x) => x.tool_errors), backgroundColor: colour(3) },
      ] },
      options: { indexAxis: 'y' },
    }, table('Calls and failed results by tool', [
      { label: 'Tool', value: name },
      { label: 'Calls', num: true, key: 'tool_calls', raw: (x) => x.tool_calls, value: (x) => count(x.tool_calls) },
      { label: 'Failed', num: true, key: 'tool_errors', raw: (x) => x.tool_errors, value: (x) => count(x.tool_errors) },
      { label: 'Failure rate', num: true, value: (x) => percent(x.tool_calls ? x.tool_errors / x.tool_calls : null) },
      { label: 'Sessions', num: true, key: 'sessions', raw: (x) => x.sessions, value: (x) => count(x.sessions) },
    ], rows, { id: 'tools-table' })),
    h('h2', {}, 'Slowest calls'),
    r.slowest.length === 0 ? h('p', { class: 'muted' }, none ? 'None: no tool calls in this period.' : 'No call in this period has both its own and its result\'s time.') :
      table('The slowest tool calls (from the call to its result)', [
        { label: 'Tool', value: (x) => x.tool || '(unknown)' },
        { label: 'Took', num: true, key: 'seconds', raw: (x) => x.seconds, value: (x) => seconds(x.seconds) },
        { label: 'When', value: (x) => time(x.started_at) },
        { label: 'Session', value: (x) => h('a', { href: sessionHref(state, x, x.session_id), dataset: { nav: '' } }, x.session_id) },
      ], r.slowest, { id: 'slowest-table' }),
  ];
}

// The period picker and the filters, drawn from the URL's state; every change is a new URL (so back undoes it).
import { h } from './dom.js';
import { FILTERS, PERIODS, go } from './state.js';

const LABELS = { model: 'Model', provider: 'Provider', profile: 'Profile', source: 'Source', project: 'Project', task: 'Task' };
const shown = (f, v) => (v === '' ? '(none)' : f === 'project' ? v.split('/').filter(Boolean).slice(-2).join('/') || v : v);

let customOpen = false;
window.addEventListener('hermetic:navigate', () => { customOpen = false; });
window.addEventListener('popstate', () => { customOpen = false; });

export function renderControls(el, state, options) {
  const periods = h('div', { class: 'periods', role: 'group', 'aria-label': 'Period' },
    PERIODS.map(([value, label]) => h('button', {
      type: 'button', class: 'period', 'aria-pressed': String(value === 'custom' ? state.period === 'custom' || customOpen : state.period === value && !customOpen), dataset: { period: value },
      onclick: () => {
        // Custom first opens its form; the window changes when its dates are applied.
        if (value === 'custom') {
          customOpen = true;
          renderControls(el, state, options);
          el.querySelector('input[name="since"]')?.focus();
        } else go({ ...state, period: value, since: '', until: '', page: 1 });
      },
    }, label)));
  const custom = state.period === 'custom' || customOpen
    ? h('form', { class: 'custom', onsubmit: (e) => {
      e.preventDefault();
      const data = new FormData(e.target);
      go({ ...state, period: 'custom', since: data.get('since') || '', until: data.get('until') || '', page: 1 });
    } },
    h('label', {}, 'From ', h('input', { type: 'date', name: 'since', value: state.since })),
    h('label', {}, 'to ', h('input', { type: 'date', name: 'until', value: state.until })),
    h('button', { type: 'submit' }, 'Apply'))
    : null;
  const selects = h('div', { class: 'filters' }, FILTERS.map((f) => {
    const values = (options?.values?.[f] ?? []).map((v) => (v === null ? '' : v)).filter((v) => !(state.filters[f] ?? []).includes(v));
    return h('label', { class: 'filter' }, `${LABELS[f]} `, h('select', {
      name: f, dataset: { filter: f },
      onchange: (e) => {
        if (e.target.value === '\u0000') return;
        go({ ...state, filters: { ...state.filters, [f]: [...(state.filters[f] ?? []), e.target.value] }, page: 1 });
      },
    }, h('option', { value: '\u0000' }, (state.filters[f] ?? []).length ? 'add…' : 'all'), values.map((v) => h('option', { value: v }, shown(f, v)))));
  }));
  const chips = FILTERS.flatMap((f) => (state.filters[f] ?? []).map((v) => h('li', {},
    h('button', {
      type: 'button', class: 'chip', dataset: { chip: `${f}=${v}` }, 'aria-label': `Remove the filter ${LABELS[f]} ${shown(f, v)}`,
      onclick: () => {
        const rest = (state.filters[f] ?? []).filter((x) => x !== v);
        const filters = { ...state.filters };
        if (rest.length) filters[f] = rest; else delete filters[f];
        go({ ...state, filters, page: 1 });
      },
    }, `${LABELS[f]}: `, h('bdi', {}, shown(f, v)), ' ✕')))); // bdi: a right-to-left value keeps the ✕ where it is
  const period = options?.period;
  el.replaceChildren(
    h('div', { class: 'row' }, periods, custom,
      h('p', { class: 'window muted', 'aria-live': 'polite' }, period ? `${period.since ? period.since.slice(0, 16).replace('T', ' ') : 'the beginning'} → ${period.until ? period.until.slice(0, 16).replace('T', ' ') : 'now'} (${options.zone})` : '')),
    h('div', { class: 'row' }, selects, chips.length ? h('ul', { class: 'chips', 'aria-label': 'Active filters' }, chips) : null),
  );
}

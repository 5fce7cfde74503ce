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
    const apply = (value) => {
      if (value === '\u0000') return;
      go({ ...state, filters: { ...state.filters, [f]: [...(state.filters[f] ?? []), value] }, page: 1 });
    };
    // A pick with the mouse applies at once; arrow keys on a closed list only browse it, and Enter (or leaving the
    // list) applies what they reached, so a keyboard can look through the values.
    let browsing = false;
    return h('label', { class: 'filter' }, `${LABELS[f]} `, h('select', {
      name: f, dataset: { filter: f },
      onkeydown: (e) => {
        if (BROWSE_KEYS.has(e.key) && !e.altKey) browsing = true;
        else if (e.key === 'Enter' && browsing) {
          browsing = false;
          apply(e.target.value);
        }
      },
      onchange: (e) => { if (!browsing) apply(e.target.value); },
      onblur: (e) => {
        if (!browsing) return;
        browsing = false;
        apply(e.target.value);
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
  // The control in use keeps the focus across the redraw (a keyboard goes on from where it was); a chip that went
  // hands it to its filter's list.
  const again = focusAgain(el);
  el.replaceChildren(
    h('div', { class: 'row' }, periods, custom,
      h('p', { class: 'window muted', 'aria-live': 'polite' }, period ? `${period.since ? period.since.slice(0, 16).replace('T', ' ') : 'the beginning'} → ${period.until ? period.until.slice(0, 16).replace('T', ' ') : 'now'} (${options.zone})` : '')),
    h('div', { class: 'row' }, selects, chips.length ? h('ul', { class: 'chips', 'aria-label': 'Active filters' }, chips) : null),
  );
  if (again) el.querySelector(again)?.focus();
}

/** Keys that move through a closed list without choosing. */
const BROWSE_KEYS = new Set(['ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']);

/** A selector for the control in `el` that has the focus now, to find its redrawn self; null when none has it. */
function focusAgain(el) {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !el.contains(active)) return null;
  if (active.dataset.period) return `[data-period="${CSS.escape(active.dataset.period)}"]`;
  if (active.dataset.filter) return `select[data-filter="${CSS.escape(active.dataset.filter)}"]`;
  if (active.dataset.chip) return `select[data-filter="${CSS.escape(active.dataset.chip.split('=')[0])}"]`;
  if (active.name === 'since' || active.name === 'until') return `input[name="${active.name}"]`;
  if (active.closest('form.custom')) return 'form.custom button[type="submit"]';
  return null;
}

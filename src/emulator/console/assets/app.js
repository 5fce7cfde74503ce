// The console's shell: keys, the namespace picker, the section tabs, the URL (#/<namespace>/<section>[/<run_id>]),
// and one poll loop that refreshes what is on screen every second (no manual refresh; decision 0042).
import { ApiError, call, keys } from './api.js';
import { fill, h, when } from './dom.js';
import { faultsView, journalView, namespacesView, scenariosView, timeView } from './panels.js';
import { runsView } from './runs.js';

const SECTIONS = [
  ['runs', 'Runs', runsView],
  ['journal', 'Journal', journalView],
  ['faults', 'Faults', faultsView],
  ['scenarios', 'Scenarios', scenariosView],
  ['time', 'Clock & checkpoints', timeView],
  ['namespaces', 'Namespaces', namespacesView],
];
const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

let place = { ns: 'default', section: 'runs', run: null };
let view = null;
let keyRequired = false;
let pollTimer = null;

/** Whether the address names a place in the console (`#/…`, or none): another fragment (the skip link's #main) does not. */
const atPlace = () => location.hash === '' || location.hash.startsWith('#/');

function readHash() {
  if (!atPlace()) return place;
  const [ns, section, run] = location.hash.replace(/^#\/?/, '').split('/').map((p) => decodeURIComponent(p));
  return {
    ns: ns || 'default',
    section: SECTIONS.some(([id]) => id === section) ? section : 'runs',
    run: run || null,
  };
}

function hashOf(p) {
  return `#/${encodeURIComponent(p.ns)}/${p.section}${p.run ? `/${encodeURIComponent(p.run)}` : ''}`;
}

function notify(message) {
  fill($('problem'));
  fill($('notice'), message);
}

/** The problem shown came from the poll (not from a user's action): the next poll that succeeds takes it away. */
let polledProblem = false;

function problem(error, polled = false) {
  polledProblem = polled;
  const text = error instanceof ApiError ? `${error.message}${error.code ? ` (${error.code}, HTTP ${error.status})` : ` (HTTP ${error.status})`}` : String(error?.message ?? error);
  fill($('notice'));
  fill($('problem'), text);
  if (error instanceof ApiError && error.status === 401 && error.code === 'HERMETIC_ADMIN_UNAUTHORIZED') showKeys(true);
}

const ctx = {
  get ns() { return place.ns; },
  get run() { return place.run; },
  call: (name, options) => call(name, place.ns, options),
  /** Where a link goes: the same namespace, another section or run. */
  href: (section, run = null, ns = place.ns) => hashOf({ ns, section, run }),
  notify,
  problem,
  /** Runs a user's action: its outcome in the live region, then an immediate refresh. */
  async act(label, action) {
    try {
      const result = await action();
      notify(`${label}: done.`);
      await refresh();
      return result;
    } catch (e) {
      problem(e);
      return undefined;
    }
  },
};

function renderTabs() {
  fill($('tabs'), h('ul', {}, SECTIONS.map(([id, label]) =>
    h('li', {}, h('a', { href: hashOf({ ns: place.ns, section: id, run: null }), 'aria-current': id === place.section ? 'page' : false }, label)))));
}

async function refreshNamespaces() {
  const select = $('namespace');
  const { namespaces } = await call('namespaces', place.ns);
  const names = namespaces.map((n) => n.name);
  if (!names.includes(place.ns)) names.push(place.ns);
  const current = [...select.options].map((o) => o.value).join('\n');
  if (current !== names.join('\n')) fill(select, names.map((n) => h('option', { value: n }, n)));
  select.value = place.ns;
  const clock = await call('getClock', place.ns);
  fill($('clock'), `${when(clock.now)}${clock.frozen ? ' (frozen)' : ''}`);
}

async function refresh() {
  if (keyRequired && !keys.admin()) return;
  try {
    await refreshNamespaces();
    if (view) await view.refresh();
    if (polledProblem) fill($('problem'));
    polledProblem = false;
  } catch (e) {
    problem(e, true);
  }
}

function schedule() {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(async () => {
    if (!document.hidden) await refresh();
    schedule();
  }, POLL_MS);
}

function mount(focus) {
  const next = readHash();
  const sameView = view && next.ns === place.ns && next.section === place.section;
  // Another section or run: what went wrong on the last one is not this one's.
  if (!sameView || next.run !== place.run) fill($('problem'));
  place = next;
  renderTabs();
  if (sameView && view.select) {
    view.select(place.run);
  } else {
    view?.destroy?.();
    const main = $('main');
    main.replaceChildren();
    const [, label, make] = SECTIONS.find(([id]) => id === place.section);
    const heading = h('h2', { tabindex: '-1', id: 'section-title' }, `${label} — ${place.ns}`);
    main.append(heading);
    document.title = `${label} · ${place.ns} · Hermetic console`;
    view = make(main, ctx);
    if (focus) heading.focus();
  }
  void refresh();
}

function showKeys(show) {
  $('keys').hidden = !show;
  if (show) $('admin-key').focus();
}

const THEMES = ['auto', 'light', 'dark'];
function applyTheme(theme) {
  if (theme === 'auto') delete document.documentElement.dataset.theme; else document.documentElement.dataset.theme = theme;
  $('theme').textContent = `Theme: ${theme}`;
  $('theme').setAttribute('aria-label', `Colour theme: ${theme === 'auto' ? 'automatic' : theme}`);
}

async function start() {
  applyTheme(localStorage.getItem('hermetic.console.theme') ?? 'auto');
  $('theme').addEventListener('click', () => {
    const theme = THEMES[(THEMES.indexOf(document.documentElement.dataset.theme ?? 'auto') + 1) % THEMES.length];
    localStorage.setItem('hermetic.console.theme', theme);
    applyTheme(theme);
  });
  $('show-keys').addEventListener('click', () => showKeys($('keys').hidden));
  $('keys-form').addEventListener('submit', (event) => {
    event.preventDefault();
    keys.set($('admin-key').value, $('api-key').value);
    $('admin-key').value = '';
    $('api-key').value = '';
    showKeys(false);
    notify('Keys saved for this tab.');
    if (!view) mount(true); else void refresh();
  });
  $('forget-keys').addEventListener('click', () => {
    keys.set(null, null);
    notify('Keys forgotten.');
    if (keyRequired) showKeys(true);
  });
  $('namespace').addEventListener('change', (event) => {
    location.hash = hashOf({ ns: event.target.value, section: place.section, run: null });
  });
  window.addEventListener('hashchange', () => { if (atPlace()) mount(true); });
  // The skip link moves the focus to the section, and leaves the address (a place in the console) as it is.
  document.querySelector('a.skip')?.addEventListener('click', (event) => {
    event.preventDefault();
    $('main').focus();
  });
  const health = await call('health', 'default').catch((e) => { problem(e); return null; });
  keyRequired = !!health?.admin_key_required;
  if (keyRequired && !keys.admin()) {
    renderTabs();
    showKeys(true);
    notify('This server has an admin key: enter it to use the console.');
  } else {
    mount(false);
  }
  schedule();
}

void start();

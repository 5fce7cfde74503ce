// The dashboard's single page: reads its state from the URL, draws the controls and the view, and follows links
// inside the app with history.pushState (so back and forward work, and every state has a URL to share).
import { get } from './api.js';
import { drawnAgain, follow } from './live.js';
import { pruneCharts } from './charts.js';
import { renderControls } from './controls.js';
import { h } from './dom.js';
import { setZone } from './format.js';
import { read, usageParams } from './state.js';
import { overview } from './views/overview.js';
import { report } from './views/report.js';
import { session } from './views/session.js';
import { tools } from './views/tools.js';

const VIEWS = { overview, session, tools, report };
const TITLES = { overview: 'Usage', session: 'Session', tools: 'Tools', report: 'Report' };
let generation = 0;
/** The ledger's time zone once the server has said it (null before): every time on every page is in it. */
let zone = null;
/** The filter values and zone last answered: the controls are drawn with them when a page fails. */
let lastOptions = null;

/** The URL the page last finished drawing: drawing it again (a live redraw, the theme) keeps where the reader was. */
let drawn = null;

async function render() {
  const mine = ++generation;
  const state = read();
  const again = drawn === location.pathname + location.search;
  const main = document.getElementById('main');
  const root = document.documentElement;
  root.dataset.ready = '';
  document.querySelectorAll('[data-view-link]').forEach((a) => {
    if (a.dataset.viewLink === state.view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  try {
    // The window's filter values, the zone and whether this is the fleet store; the overview reads it too. A session
    // page opened directly asks only for the zone (once), before it formats a time.
    if (state.view === 'session' && zone === null) zone = (await get('/api/options', new URLSearchParams({ period: 'today' }))).zone; // the zone only: any window will do
    if (zone !== null) setZone(zone);
    const asked = state.view === 'session' ? Promise.resolve(null) : get('/api/options', usageParams(state));
    const [options, nodes] = await Promise.all([asked, VIEWS[state.view](state, asked)]);
    if (mine !== generation) return;
    if (options) setZone((zone = options.zone));
    const controls = document.getElementById('controls');
    controls.hidden = state.view === 'session';
    if (options) renderControls(controls, state, (lastOptions = options));
    const scrolled = window.scrollY;
    main.replaceChildren(...nodes.flat().filter(Boolean));
    if (again) window.scrollTo(0, scrolled);
    pruneCharts();
    document.title = `${TITLES[state.view]} — Hermetic`;
  } catch (e) {
    if (mine !== generation) return;
    // The controls are drawn for the state asked for (its window unknown), so the window or filter can be mended here.
    const controls = document.getElementById('controls');
    controls.hidden = state.view === 'session';
    if (state.view !== 'session') renderControls(controls, state, { ...(lastOptions ?? {}), period: null });
    main.replaceChildren(h('div', { class: 'error', role: 'alert' }, h('strong', {}, 'This page could not be shown. '), e.message, ' ', h('code', {}, e.code ?? '')));
    pruneCharts();
  }
  // Ready once the charts have drawn (Chart.js draws a canvas when it is attached): two frames later.
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  if (mine !== generation) return;
  drawnAgain();
  root.dataset.ready = drawn = location.pathname + location.search;
}

// Links inside the app change the URL without a reload.
document.addEventListener('click', (e) => {
  const a = e.target.closest?.('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  if (a.getAttribute('href') !== location.pathname + location.search) history.pushState(null, '', a.getAttribute('href'));
  window.dispatchEvent(new Event('hermetic:navigate'));
  document.getElementById('main').focus({ preventScroll: false });
});
window.addEventListener('popstate', render);
window.addEventListener('hermetic:navigate', render);

// Light and dark: the system's choice unless the toggle says otherwise (remembered on this browser).
const themeButton = document.getElementById('theme');
function applyTheme() {
  const chosen = localStorage.getItem('hermetic-theme');
  const dark = chosen ? chosen === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  themeButton.setAttribute('aria-pressed', String(dark));
}
themeButton.addEventListener('click', () => {
  localStorage.setItem('hermetic-theme', document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark');
  applyTheme();
  render();
});
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { applyTheme(); render(); });
applyTheme();

// Chart.js is a deferred classic script; module scripts run after it, so window.Chart is there. The data's version is
// asked first, so the first drawing reads data at least as new as the version live.js compares with.
follow(render).catch(() => undefined).finally(render);

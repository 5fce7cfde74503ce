// The dashboard's single page: reads its state from the URL, draws the controls and the view, and follows links
// inside the app with history.pushState (so back and forward work, and every state has a URL to share).
import { get } from './api.js';
import { drawnAgain, follow } from './live.js';
import { chartFigures, pruneCharts } from './charts.js';
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

/**
 * Where the next page drawn is scrolled to: the top for a link followed, where the reader was for back and forward
 * (kept in the history entry), null to leave it (the first page, a redraw). The browser's own restoration would act
 * before the page is drawn, so it is turned off.
 */
let scrollNext = null;
history.scrollRestoration = 'manual';

/** The view's answers fetched and its nodes built, off the page. */
async function build(state) {
  // The window's filter values, the zone and whether this is the fleet store; the overview reads it too. A session
  // page opened directly asks only for the zone (once), before it formats a time.
  if (state.view === 'session' && zone === null) zone = (await get('/api/options', new URLSearchParams({ period: 'today' }))).zone; // the zone only: any window will do
  if (zone !== null) setZone(zone);
  const asked = state.view === 'session' ? Promise.resolve(null) : get('/api/options', usageParams(state));
  const [options, nodes] = await Promise.all([asked, VIEWS[state.view](state, asked)]);
  return { options, nodes: nodes.flat().filter(Boolean) };
}

/** A built view put on the page: the controls, the view (the scroll kept when it is the same URL drawn again), the title. */
function put(state, { options, nodes }, again) {
  const main = document.getElementById('main');
  if (options) setZone((zone = options.zone));
  const controls = document.getElementById('controls');
  controls.hidden = state.view === 'session';
  if (options) renderControls(controls, state, (lastOptions = options));
  const scrolled = window.scrollY;
  main.replaceChildren(...nodes);
  if (again) window.scrollTo(0, scrolled);
  else if (scrollNext !== null) window.scrollTo(0, scrollNext);
  scrollNext = null;
  pruneCharts();
  document.title = `${TITLES[state.view]} — Hermetic`;
}

/** Ready once the charts have drawn (Chart.js draws a canvas when it is attached): two frames later. */
async function ready(mine) {
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  if (mine !== generation) return;
  drawnAgain();
  document.documentElement.dataset.ready = drawn = location.pathname + location.search;
}

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
    const built = await build(state);
    if (mine !== generation) return;
    put(state, built, again);
  } catch (e) {
    if (mine !== generation) return;
    // The controls are drawn for the state asked for (its window unknown), so the window or filter can be mended here.
    const controls = document.getElementById('controls');
    controls.hidden = state.view === 'session';
    if (state.view !== 'session') renderControls(controls, state, { ...(lastOptions ?? {}), period: null });
    main.replaceChildren(h('div', { class: 'error', role: 'alert' }, h('strong', {}, 'This page could not be shown. '), e.message, ' ', h('code', {}, e.code ?? '')));
    pruneCharts();
  }
  await ready(mine);
}

/**
 * A live look (live.js, decision 0120's addendum): the view built again off the page from the server's answers, and
 * compared with what is shown. 'same' when it reads the same (a commit that changed nothing this view shows, such as
 * a forwarder's once-a-minute heartbeat): the page is left alone. 'held' when it differs but `holds()` says the reader
 * holds something a redraw would take. 'drawn' when it was put on the page (always, with `force`). 'moved' when the
 * page was not drawn, or went elsewhere meanwhile. A failure to read is thrown.
 */
async function look(options) {
  const outcome = await lookOnce(options);
  // What the last look found, and how many there were (for a reader of the page's state, and its tests).
  document.documentElement.dataset.looked = `${++looks} ${outcome}`;
  return outcome;
}
let looks = 0;

async function lookOnce({ holds, force }) {
  const url = location.pathname + location.search;
  if (drawn !== url) return 'moved';
  const mine = generation;
  const state = read();
  const built = await build(state);
  const discard = (outcome) => {
    pruneCharts(); // the charts built off the page
    return outcome;
  };
  if (mine !== generation || url !== location.pathname + location.search) return discard('moved');
  // What the view reads as: its text and its charts' figures (a chart may show what its table leaves out).
  const reads = (el) => `${el.textContent}\u0000${chartFigures(el)}`;
  const shown = reads(document.getElementById('main'));
  const box = document.createElement('div');
  box.append(...built.nodes);
  if (!force && reads(box) === shown) return discard('same');
  if (!force && holds()) return discard('held');
  const drawing = ++generation;
  document.documentElement.dataset.ready = '';
  put(state, { ...built, nodes: [...box.childNodes] }, true);
  await ready(drawing);
  return 'drawn';
}

// Links inside the app change the URL without a reload.
document.addEventListener('click', (e) => {
  const a = e.target.closest?.('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  if (a.getAttribute('href') !== location.pathname + location.search) {
    // Where the reader was on this page, for coming back to it; the new page opens at its top.
    history.replaceState({ ...(history.state ?? {}), scrollY: window.scrollY }, '');
    history.pushState(null, '', a.getAttribute('href'));
    scrollNext = 0;
  }
  window.dispatchEvent(new Event('hermetic:navigate'));
  document.getElementById('main').focus({ preventScroll: true });
});
window.addEventListener('popstate', (e) => {
  // A move within the page drawn (the skip link's #main) changes no view: nothing to draw again. Unless a drawing is
  // under way (back from a link just followed): then the page it left is drawn again, and that drawing is dropped.
  if (location.pathname + location.search === drawn && document.documentElement.dataset.ready === drawn) return;
  scrollNext = typeof e.state?.scrollY === 'number' ? e.state.scrollY : 0;
  render();
});
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
follow(look).catch(() => undefined).finally(render);

// The page follows the data (decision 0119): while the tab is visible it asks /api/version every refresh_ms, and when
// the data changed (a forwarder committed, a machine shipped) it redraws the view it shows. A redraw never takes what
// the reader did: while focus is on a control or link, a fold is open, a list was lengthened, a chart's series was
// hidden from its legend or a field holds an unapplied value, the header offers "Show new data" instead and redraws
// once the reader lets go. "Live updates" pauses and resumes following (remembered on this browser).
import { get } from './api.js';

const PAUSED_KEY = 'hermetic-live';

/** The parts of the page a redraw replaces: the view and the controls (not the header). */
const redrawn = () => [document.getElementById('main'), document.getElementById('controls')];

/** Whether a field of the redrawn parts took input since they were last drawn (typed, not yet applied). */
let touched = false;
for (const type of ['input', 'change']) {
  document.addEventListener(type, (e) => {
    if (redrawn().some((el) => el.contains(e.target))) touched = true;
  }, true);
}

/** Called by app.js each time it has drawn the page: what was typed in the fields before is gone or applied. */
export function drawnAgain() {
  touched = false;
}

/**
 * Whether a redraw now would take something the reader did on the page: focus inside what it replaces, an open fold,
 * a lengthened list or a chart with a series hidden (both marked data-extended), or a field holding what was typed but
 * not applied. Focus on "Show new data" waits for its press too: a redraw on its own would take the button from under
 * the reader.
 */
function readerHolds() {
  const [main, controls] = redrawn();
  const active = document.activeElement;
  if (active?.id === 'live-show') return true;
  if (active && active !== main && (main.contains(active) || controls.contains(active))) return true;
  return touched || main.querySelector('details[open], [data-extended]') !== null;
}

/**
 * Starts following. `redraw()` draws the view again and resolves when it has. Resolves once the data's first version
 * is known (or known not to be told), so the first drawing reads data at least as new as it.
 */
export async function follow(redraw) {
  const toggle = document.getElementById('live');
  const show = document.getElementById('live-show');
  const note = document.getElementById('live-note');
  const said = document.getElementById('live-said');
  let version;
  let refreshMs = null;
  let timer = null;
  let pending = false;
  let drawing = false;
  let paused = localStorage.getItem(PAUSED_KEY) === 'paused';

  const say = (text) => { note.textContent = text; };
  // Told to a screen reader (a polite status): only what asks for the reader — new data waiting, updates failing. A
  // redraw is not told: with a busy forwarder it would be every few seconds; "updated …" is in the header to read.
  const tell = (text) => { if (said.textContent !== text) said.textContent = text; };
  const clock = () => new Date().toLocaleTimeString('en-GB');

  async function apply() {
    pending = false;
    // Pressed from the keyboard, the button is about to vanish: focus goes to the view it redraws, not to the page.
    if (document.activeElement === show) document.getElementById('main').focus({ preventScroll: true });
    show.hidden = true;
    tell('');
    drawing = true;
    try {
      await redraw();
      say(`updated ${clock()}`);
    } finally {
      drawing = false;
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (!paused && refreshMs !== null && document.visibilityState === 'visible') timer = setTimeout(() => void check(), refreshMs);
  }

  async function check() {
    try {
      const answer = await get('/api/version', new URLSearchParams());
      refreshMs = answer.refresh_ms;
      if (answer.version === null || refreshMs === null) {
        // The server does not tell (--refresh off, or a fleet store without progress): nothing to follow.
        toggle.hidden = true;
        say('');
        tell('');
        return;
      }
      toggle.hidden = false;
      if (note.dataset.failed !== undefined) {
        delete note.dataset.failed;
        say('');
        tell('');
      }
      if (version === undefined) version = answer.version;
      else if (answer.version !== version) {
        version = answer.version; // what the redraw reads is at least this new
        pending = true;
      }
      if (pending && !paused) {
        if (drawing || readerHolds()) {
          show.hidden = false;
          tell('New data: "Show new data" in the header draws it.');
        } else await apply();
      }
    } catch (e) {
      note.dataset.failed = '';
      say(`not updating: ${e.message}`);
      tell(`Not updating: ${e.message}`);
      refreshMs ??= 5000;
    } finally {
      schedule();
    }
  }

  const letGo = () => setTimeout(() => {
    if (pending && !paused && !drawing && !readerHolds()) void apply();
  }, 0);
  document.addEventListener('focusout', letGo);
  document.addEventListener('toggle', letGo, true);
  document.addEventListener('visibilitychange', () => {
    // Shown again: asked at once, unless paused (paused, nothing is asked).
    if (document.visibilityState === 'visible') {
      if (!paused) void check();
    } else schedule();
  });
  toggle.setAttribute('aria-pressed', String(!paused));
  toggle.addEventListener('click', () => {
    paused = !paused;
    localStorage.setItem(PAUSED_KEY, paused ? 'paused' : 'live');
    toggle.setAttribute('aria-pressed', String(!paused));
    if (paused) {
      show.hidden = true;
      tell('');
      say('paused');
      schedule();
    } else {
      say('');
      void check();
    }
  });
  show.addEventListener('click', () => void apply());
  if (paused) say('paused');
  await check();
}

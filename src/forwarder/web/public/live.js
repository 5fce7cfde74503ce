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
 * Starts following. `look({ holds, force })` builds the view again off the page and answers 'same' (it reads as what
 * is shown: left alone), 'held' (it differs, but `holds()`: not drawn), 'drawn' or 'moved' (app.js). Resolves once
 * the data's first version is known (or known not to be told), so the first drawing reads data at least as new as it.
 */
export async function follow(look) {
  const toggle = document.getElementById('live');
  const show = document.getElementById('live-show');
  const note = document.getElementById('live-note');
  const said = document.getElementById('live-said');
  let version;
  let refreshMs = null;
  let timer = null;
  /** The data moved since the view was last drawn or found the same. */
  let pending = false;
  /** The version a look found different while the reader held something: not looked at again until it moves. */
  let heldAt;
  let drawing = false;
  let paused = localStorage.getItem(PAUSED_KEY) === 'paused';

  const say = (text) => { note.textContent = text; };
  // Told to a screen reader (a polite status): only what asks for the reader — new data waiting, updates failing. A
  // redraw is not told: with a busy forwarder it would be every few seconds; "updated …" is in the header to read.
  const tell = (text) => { if (said.textContent !== text) said.textContent = text; };
  const clock = () => new Date().toLocaleTimeString('en-GB');

  /** Looks at the view again; `force` (the reader asked, or let go of what held it) draws it whatever it reads as. */
  async function lookAgain(force) {
    // Pressed from the keyboard, the button is about to vanish: focus goes to the view it redraws, not to the page.
    if (force && document.activeElement === show) document.getElementById('main').focus({ preventScroll: true });
    const at = version;
    drawing = true;
    try {
      const outcome = await look({ holds: readerHolds, force });
      if (outcome === 'moved') return;
      if (outcome === 'held') {
        heldAt = at;
        show.hidden = false;
        tell('New data: the "Show new data" button draws it.');
        return;
      }
      pending = at !== version; // a version that came while it looked is looked at next
      heldAt = undefined;
      show.hidden = true;
      tell('');
      if (outcome === 'drawn') say(`updated ${clock()}`);
    } finally {
      drawing = false;
    }
  }

  function failed(e) {
    note.dataset.failed = '';
    say(`not updating: ${e.message}`);
    tell(`Not updating: ${e.message}`);
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
      if (pending && !paused && !drawing && heldAt !== version) await lookAgain(false);
    } catch (e) {
      failed(e);
      refreshMs ??= 5000;
    } finally {
      schedule();
    }
  }

  // Let go of what held a redraw: what was found different is drawn.
  const letGo = () => setTimeout(() => {
    if (pending && heldAt !== undefined && !paused && !drawing && !readerHolds()) void lookAgain(true).catch(failed);
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
      heldAt = undefined; // what was held is looked at again
      void check();
    }
  });
  show.addEventListener('click', () => void lookAgain(true).catch(failed));
  if (paused) say('paused');
  await check();
}

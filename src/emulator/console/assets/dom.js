// Small DOM helpers: build elements without innerHTML (every server value goes in as text, never as markup).

/**
 * h('button', { type: 'button', onclick }, 'Complete') → <button>. Attributes starting with "on" are listeners;
 * `false`/null/undefined attributes and children are left out.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces an element's children. The poll redraws every second: a control that had the focus in them has it again
 * after the redraw (a keyboard user would lose it every second). The children are always the new ones: a caller may
 * keep references to them.
 */
export function fill(el, ...children) {
  const focused = focusKey(el);
  el.replaceChildren();
  append(el, children);
  if (focused !== null) [...el.querySelectorAll('a, button, input, select, textarea, [tabindex]')].find((c) => keyOf(c) === focused)?.focus();
  return el;
}

/** What names a control across a redraw: its id, else what it is, where it leads and what it says. */
const keyOf = (c) => c.id || `${c.tagName}|${c.getAttribute('href') ?? ''}|${c.getAttribute('aria-label') ?? ''}|${c.textContent}`;

/** The focused control inside `el`, as keyOf names it; null when the focus is elsewhere. */
function focusKey(el) {
  const active = document.activeElement;
  return active instanceof HTMLElement && active !== el && el.contains(active) ? keyOf(active) : null;
}

/** A labelled form control: <label for>text</label><control id>. */
export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  control.id = id;
  const hintEl = hint ? h('span', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A table with a caption and a header row; `rows` are arrays of cells (nodes or text). */
export function table(caption, headings, rows, empty = 'Nothing yet.') {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  // In a box of its own that scrolls sideways: a wide table on a phone scrolls, not the page.
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, headings.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c) => h('td', {}, c)))))));
}

/** Epoch seconds → "2026-09-11 14:56:40 UTC". */
export function when(seconds) {
  if (typeof seconds !== 'number') return '';
  return `${new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`;
}

/** A status badge: its text is the status, its class gives the colour (text carries the meaning, not colour). */
export function badge(status) {
  return h('span', { class: `badge badge-${status ?? 'none'}` }, status ?? '—');
}

/** JSON as people read it. */
export const pretty = (value) => JSON.stringify(value, null, 2);

// A tiny element builder: h('a', { href: '/' }, 'text', child). Text is always text (never parsed as HTML).

/** The explicit bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
/** Attributes a reader sees as text (a tooltip, what a screen reader says). */
const SHOWN_ATTRIBUTES = new Set(['title', 'aria-label']);

/**
 * Text as the page shows it: a bidi control from the store (a U+202E in a model name) is written `\u202e`, as the
 * terminal shows it (decision 0075), instead of reversing whatever follows it on the line — the message's time, a
 * call's id, a figure (decision 0081). The page's own words hold none; values sent back to the API (links, option
 * values, data-*) are left exact.
 */
export function shown(text) {
  return String(text).replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : SHOWN_ATTRIBUTES.has(k) ? shown(v) : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(shown(c)));
  }
  return el;
}

/** A table: columns [{ label, value(row) → text | Node, num?: boolean, raw?(row) }], a caption for screen readers. */
export function table(caption, columns, rows, attrs = {}) {
  return h('div', { class: 'table-wrap' },
    h('table', attrs,
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c, i) => {
        const raw = c.raw ? c.raw(r) : undefined;
        return h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: c.num ? 'num' : null, dataset: raw === undefined ? undefined : { value: raw === null ? 'null' : String(raw), column: c.key ?? c.label } }, c.value(r));
      })))),
    ));
}

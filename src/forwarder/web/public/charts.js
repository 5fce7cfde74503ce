// Charts with Chart.js (served from node_modules by our own server: /vendor/chart.umd.js), in the theme's colours.
// Every chart is drawn beside a table of the same figures (for screen readers and copy-paste); the canvas is an image
// whose label says so.
import { h, shown } from './dom.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const live = new Set();
/** The data each chart was given, by canvas: its figures are what a live look compares besides the text. */
const given = new WeakMap();

export const colour = (i) => PALETTE[i % PALETTE.length];

function themeColours() {
  const css = getComputedStyle(document.documentElement);
  return { text: css.getPropertyValue('--fg-muted').trim(), grid: css.getPropertyValue('--grid').trim() };
}

/** Destroys the charts no longer on the page (the page left, or a render overtaken by a newer one). */
export function pruneCharts() {
  for (const c of live) {
    if (c.canvas?.isConnected) continue;
    c.destroy();
    live.delete(c);
  }
}

/**
 * The figures of the charts in `root`, as one string: a live look compares it with the view built again, since a
 * chart can change where its table does not (the hourly axis lists the quiet hours too; decision 0119's addendum).
 */
export function chartFigures(root) {
  // Written out only here, when a look asks (not at every drawing): the labels and each series' label and values.
  const figures = (data) => (data ? JSON.stringify([data.labels ?? [], data.datasets.map((d) => [d.label ?? null, d.data])]) : '');
  return [...root.querySelectorAll('canvas')].map((c) => figures(given.get(c))).join('\u0000');
}

/**
 * A chart in a figure: `config` is Chart.js's (type, data, options); `label` names it for screen readers, who are
 * pointed at the table that follows.
 */
export function chart(label, config, tableNode) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${label} (chart; the table below has the same figures)` });
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, label), h('div', { class: 'canvas-box' }, canvas), tableNode);
  given.set(canvas, config.data);
  const { text, grid } = themeColours();
  if (window.Chart) {
    const Chart = window.Chart;
    Chart.defaults.color = text;
    Chart.defaults.borderColor = grid;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    // Labels from the store (models, tools) drawn as the tables show them: a bidi control would reverse the figure a
    // tooltip writes after the label.
    const data = { ...config.data, labels: config.data.labels?.map(shown), datasets: config.data.datasets.map((d) => ({ ...d, label: d.label === undefined ? undefined : shown(d.label) })) };
    const c = new Chart(canvas, {
      ...config,
      data,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
    });
    live.add(c);
    // A series hidden from the legend is the reader's doing: marked as a lengthened list is, so a live redraw (which
    // would show it again) waits (live.js, decision 0120).
    canvas.addEventListener('click', () => setTimeout(() => {
      const hidden = c.data.datasets.some((_, i) => !c.isDatasetVisible(i)) || (c.data.labels ?? []).some((_, i) => !c.getDataVisibility(i));
      if (hidden) canvas.dataset.extended = '';
      else delete canvas.dataset.extended;
    }, 0));
  }
  return figure;
}

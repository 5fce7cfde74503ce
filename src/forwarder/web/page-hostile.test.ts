// The dashboard in a real Chromium over store text that carries bidi controls (decision 0081): a title, a model, a
// tool name and a message that start with U+202E (RIGHT-TO-LEFT OVERRIDE) or hold an isolate. The page shows each
// control as `\u202e`, as the terminal does (decision 0075), so it reverses nothing around it: not the message's number
// and time beside a model, not a call's id beside its tool, not a chart's figures beside a label. And numbers where
// times belong that no date can hold (a reaction's `at` in microseconds) are shown as numbers, not a failed page.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { dashboardInBrowser } from './page-harness.js';
import { DASHBOARD_NOW } from './testing.js';

const RLO = '\u202e';
const SESSION = '20260714_101500_b1d1b1';
/** A session whose other fields hold numbers no Date can hold where times belong (a platform's microseconds). */
const TIMES_SESSION = '20260714_103000_71e5e5';
const NOT_A_TIME = 1.7e16;

/** One session whose title, model, tool and messages carry bidi controls, with usage so every view lists it. */
function bidiStore(dir: string): string {
  const path = join(dir, 'profiles', 'bidi', 'state.db');
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal', fts: false });
  let t = DASHBOARD_NOW - 86_400;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('dashboard-bidi') });
  try {
    const id = w.createSession({ id: SESSION, source: 'cli', started_at: t, model: `${RLO}gpt-5` });
    w.updateSession(id, { title: `${RLO}Invoice \u2066paid\u2069 2026` });
    w.appendMessages(id, [
      { role: 'user', content: `${RLO}please pay 100` },
      { role: 'assistant', content: null, model: `${RLO}gpt-5`, tool_calls: [{ id: 'call-1', type: 'function', function: { name: `${RLO}terminal`, arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call-1', tool_name: `${RLO}terminal`, content: 'ok' },
      { role: 'assistant', content: 'done', model: `${RLO}gpt-5`, finish_reason: 'stop' },
    ] as never);
    w.updateTokenCounts(id, { input_tokens: 1000, output_tokens: 10, estimated_cost_usd: 0.5, model: `${RLO}gpt-5` });
    w.endSession(id, 'user_exit');
    const times = w.createSession({ id: TIMES_SESSION, source: 'telegram', model: 'gpt-5' });
    w.updateSession(times, { compression_failure_cooldown_until: NOT_A_TIME, compression_fallback_streak: 1 });
    w.appendMessages(times, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi', finish_reason: 'stop', display_metadata: { reactions: [{ emoji: '👍', author: 'user', at: NOT_A_TIME }] } },
    ] as never);
  } finally {
    db.close();
  }
  return path;
}

const dash = dashboardInBrowser({ fixtures: [], extraStores: (dir) => [bidiStore(dir)] });

/** Every raw explicit embedding, override or isolate the page shows: in text, in a tooltip, in a chart's labels. */
const RAW_CONTROLS = `(() => {
  const raw = /[\\u202a-\\u202e\\u2066-\\u2069]/;
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if (raw.test(n.data)) found.push('text: ' + n.data);
  document.querySelectorAll('[title], [aria-label]').forEach((el) => {
    for (const a of ['title', 'aria-label']) if (raw.test(el.getAttribute(a) ?? '')) found.push(a + ': ' + el.getAttribute(a));
  });
  for (const c of Object.values(window.Chart?.instances ?? {})) {
    for (const l of [...(c.data.labels ?? []), ...c.data.datasets.map((d) => d.label)]) if (raw.test(String(l))) found.push('chart: ' + l);
  }
  return found;
})()`;

/** For each element matching `selector`, its children's left edges in document order (a line of LTR boxes grows). */
const LEFT_EDGES = (selector: string) => `[...document.querySelectorAll(${JSON.stringify(selector)})].map((el) => [...el.children].map((c) => Math.round(c.getBoundingClientRect().left)))`;

describe('bidi controls in store text', () => {
  it('the session page shows them as \\u202e; the message\'s number and time stay after its model, a call\'s id after its tool', async () => {
    const v = await dash.visit(`/session?id=${SESSION}`);
    try {
      const heads = await v.page.evaluate(LEFT_EDGES('.msg-head')) as number[][];
      const calls = await v.page.evaluate(LEFT_EDGES('.tool-call > div:first-child')) as number[][];
      assert.ok(heads.length === 4 && calls.length === 1);
      for (const line of [...heads, ...calls]) assert.deepEqual(line, [...line].sort((a, b) => a - b), `boxes in reading order: ${line.join(' ')}`);
      assert.deepEqual(await v.page.evaluate(RAW_CONTROLS), []);
      const text = await v.page.evaluate('document.body.innerText') as string;
      for (const shown of ['\\u202eInvoice \\u2066paid\\u2069 2026', '\\u202egpt-5', '\\u202eterminal', '\\u202eplease pay 100']) assert.ok(text.includes(shown), shown);
    } finally {
      await v.done();
    }
  });

  it('the overview and the tool view show them as \\u202e, in tables, tooltips and the charts\' labels', async () => {
    for (const path of ['/?period=all', '/tools?period=all']) {
      const v = await dash.visit(path);
      try {
        assert.deepEqual(await v.page.evaluate(RAW_CONTROLS), [], path);
        const text = await v.page.evaluate('document.body.innerText') as string;
        assert.ok(text.includes(path === '/tools?period=all' ? '\\u202eterminal' : '\\u202eInvoice'), path);
      } finally {
        await v.done();
      }
    }
  });
});

describe('numbers where times belong', () => {
  it('a reaction\'s time and a cooldown past what a date can hold are shown as the numbers they are; the session page is still shown', async () => {
    const v = await dash.visit(`/session?id=${TIMES_SESSION}`);
    try {
      assert.equal(await v.page.locator('.error').count(), 0, await v.page.locator('main').innerText());
      assert.match(await v.page.locator('.reaction').getAttribute('title') ?? '', /^👍 by user, 17000000000000000\b/);
      assert.match(await v.page.locator('main').innerText(), /paused until 17000000000000000/);
    } finally {
      await v.done();
    }
  });
});

// The dashboard in a real Chromium, second part (page.test.ts has the overview and the filters): a session's
// transcript pages on the server, its usage equals the report's, lineage links both ways; the keyboard reaches and
// works the controls; the themes switch and are remembered; a narrow window does not scroll sideways.
// Every test also holds that the page logged no error and asked no other origin for anything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { closeSharedBrowser, sharedBrowser } from '../../shared/testing/browser.js';
import { Zone } from '../ledger/zone.js';
import { resolveWindow, usageReport, type ReportRequest, type UsageReport } from '../report/index.js';
import { dashboardRig, type DashboardRig } from './testing.js';

let app: DashboardRig;
before(async () => {
  app = await dashboardRig({ sessions: 80, messages: 1600 }); // enough for lineage, tool calls and top sessions
});
after(async () => {
  await closeSharedBrowser();
  await app.close();
});

interface Visit {
  page: Page;
  context: BrowserContext;
  /** Ends the visit: no console error, no page error, no request to another origin. */
  done(): Promise<void>;
}

async function visit(path: string, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Visit> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 800 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  const origin = new URL(app.url).origin;
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (new URL(r.url()).origin !== origin) problems.push(`request to another origin: ${r.url()}`); });
  await page.goto(new URL(path, app.url).href);
  await settled(page);
  return {
    page, context,
    done: async () => {
      await context.close();
      assert.deepEqual(problems, []);
    },
  };
}

/** Waits until the page has drawn the state its URL names. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.ready === location.pathname + location.search);
}

const windowOf = (flags: Parameters<typeof resolveWindow>[0]): ReportRequest => {
  const w = resolveWindow(flags, app.now, new Zone('Europe/Berlin'));
  return { since: w.since, until: w.until };
};

/** The raw figures on the page: the cards, and every table's cells by table id, row label and column. */
async function figures(page: Page): Promise<{ cards: Record<string, number | null>; tables: Record<string, [string, string, number | null][]> }> {
  // A string, not a function: tsx's transform would name the inner arrows with a helper the page does not have.
  return page.evaluate(`(() => {
    const num = (v) => (v === undefined || v === 'null' ? null : Number(v));
    const cards = {};
    document.querySelectorAll('[data-figure]').forEach((el) => { cards[el.dataset.figure] = num(el.dataset.value); });
    const tables = {};
    document.querySelectorAll('table[id]').forEach((t) => {
      tables[t.id] = [...t.querySelectorAll('tbody [data-column]')].map((cell) => [cell.closest('tr').querySelector('th').textContent, cell.dataset.column, num(cell.dataset.value)]);
    });
    return { cards, tables };
  })()`);
}

/** The page's figures equal the report's for this request (cards, the daily table, the model breakdown, top sessions). */
async function equalsReport(page: Page, request: ReportRequest): Promise<void> {
  const { cards, tables } = await figures(page);
  const totals = usageReport(app.db, request).totals;
  for (const k of ['cost_usd', 'estimated_cost_usd', 'input_tokens', 'output_tokens', 'sessions', 'api_calls', 'tool_calls'] as const) assert.equal(cards[k], totals[k], k);
  const prompt = totals.input_tokens! + totals.cache_read_tokens! + totals.cache_write_tokens!;
  assert.equal(cards.cache_hit_rate, prompt ? totals.cache_read_tokens! / prompt : null);
  const daily = usageReport(app.db, { ...request, by: ['day', 'model'] });
  const dailyCells = tables['daily-table']!.filter(([, , v]) => v !== null).map(([day, col, v]) => [day, col.replace(/^cost_usd:/, ''), v]);
  assert.deepEqual(dailyCells.sort(), daily.rows.map((r) => [r.day, r.model ?? '', r.cost_usd]).sort());
  const byModel = usageReport(app.db, { ...request, by: ['model'], top: 10 });
  assert.deepEqual(tables['breakdown-model']!.filter(([, c]) => c === 'cost_usd').map(([, , v]) => v), byModel.rows.map((r) => r.cost_usd));
  const top = usageReport(app.db, { ...request, by: ['session'], top: 10 });
  assert.deepEqual(tables['sessions-table']!.filter(([, c]) => c === 'cost_usd').map(([, , v]) => v), top.rows.map((r) => r.cost_usd));
  const kinds = tables['tokens-table']!.map(([, , v]) => v);
  assert.deepEqual(kinds, [totals.input_tokens, totals.output_tokens, totals.cache_read_tokens, totals.cache_write_tokens, totals.reasoning_tokens]);
}

describe('the dashboard in Chromium: sessions, keyboard, themes, sizes', () => {
  it('a session: from the costliest session\'s link to its transcript, paged, with reasoning collapsed and bookkeeping marked', async () => {
    const v = await visit('/?period=all');
    const { page } = v;
    await page.click('#sessions-table tbody tr:first-child a');
    await settled(page);
    const id = new URL(page.url()).searchParams.get('id')!;
    const top = usageReport(app.db, { by: ['session'], top: 10 }).rows[0]!;
    assert.equal(id, top.session_id);
    const total = app.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ?').pluck().get(id) as number;
    const onPage = await page.$$eval('.transcript > li', (els) => els.map((e) => [Number((e as HTMLElement).dataset.seq), (e as HTMLElement).dataset.kind]));
    const want = (app.db.prepare('SELECT seq, kind FROM messages WHERE session_id = ? ORDER BY seq LIMIT 100').all(id) as { seq: number; kind: string }[]).map((m) => [m.seq, m.kind]);
    assert.deepEqual(onPage, want);
    assert.equal(await page.$$eval('.transcript > li.bookkeeping', (els) => els.length), want.filter(([, k]) => k !== 'message').length);
    assert.ok(await page.$$eval('details.reasoning', (els) => els.every((d) => !(d as HTMLDetailsElement).open)));
    const cost = await page.$$eval('#session-usage [data-column="cost_usd"]', (els) => els.map((e) => Number((e as HTMLElement).dataset.value)));
    assert.deepEqual(cost, usageReport(app.db, { filter: { session: [id] }, by: ['model', 'task'] }).rows.map((r) => r.cost_usd));
    assert.ok(total > 0);
    // A long transcript pages on the server: open one with more than a page and follow "Later".
    await page.goto(new URL(`/session?id=${id}&page_size=5`, app.url).href);
    await settled(page);
    await page.click('.pager a[rel="next"] >> nth=0');
    await settled(page);
    assert.deepEqual([new URL(page.url()).searchParams.get('page'), new URL(page.url()).searchParams.get('page_size')], ['2', '5']);
    assert.deepEqual(await page.$$eval('.transcript > li', (els) => els.map((e) => Number((e as HTMLElement).dataset.seq))), [5, 6, 7, 8, 9].filter((n) => n < total));
    await page.goBack();
    await settled(page);
    assert.equal(await page.$eval('.transcript > li', (e) => (e as HTMLElement).dataset.seq), '0');
    // Lineage: a child's page links to its parent.
    const child = app.db.prepare('SELECT session_id, parent_session_id FROM sessions WHERE parent_session_id IN (SELECT session_id FROM sessions) LIMIT 1').get() as { session_id: string; parent_session_id: string };
    await page.goto(new URL(`/session?id=${child.session_id}`, app.url).href);
    await settled(page);
    await page.click('.lineage li:first-child a');
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('id'), child.parent_session_id);
    assert.ok(await page.$(`.lineage a[href*="${child.session_id}"]`), 'the parent lists the child');
    await page.goBack();
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('id'), child.session_id);
    await v.done();
  });

  it('the keyboard reaches and works the controls: skip link, period buttons, a filter, a session link', async () => {
    const v = await visit('/');
    const { page } = v;
    const focused = () => page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return el.dataset.period ?? el.dataset.filter ?? el.textContent?.trim() ?? el.tagName;
    });
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Skip to content');
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.push(await focused());
    }
    assert.deepEqual(seen.slice(0, 12), ['Hermetic usage', 'Overview', 'Tools', 'Dark theme', 'today', '7d', '30d', 'month', 'all', 'custom', 'model', 'provider']);
    // Back to "7 d" and press Enter: the period changes.
    await page.focus('button[data-period="7d"]');
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=7d');
    // A session link, reached by Tab from the sessions table's caption onwards, opens with Enter.
    await page.focus('#sessions-table tbody tr:first-child a');
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(new URL(page.url()).pathname, '/session');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'focus moves to the new content');
    await v.done();
  });

  it('light and dark: the system\'s choice, and the toggle (remembered across a reload)', async () => {
    const v = await visit('/', { colorScheme: 'dark' });
    const { page } = v;
    const theme = () => page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]);
    assert.deepEqual(await theme(), ['dark', 'rgb(21, 23, 27)']);
    await page.click('#theme');
    await settled(page);
    assert.deepEqual(await theme(), ['light', 'rgb(247, 247, 245)']);
    assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'false');
    await page.reload();
    await settled(page);
    assert.deepEqual(await theme(), ['light', 'rgb(247, 247, 245)']);
    await v.done();
  });

  it('usable on a narrow window and at 1280×800: nothing scrolls sideways', async () => {
    for (const width of [380, 1280]) {
      const v = await visit('/?period=all', { width, height: 800 });
      const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${width}px wide`);
      await v.done();
    }
  });

  it('an error from the server is shown as its sentence and code, not a blank page', async () => {
    const v = await visit('/session?id=no-such-session');
    assert.equal(await v.page.textContent('[role="alert"]'), 'This page could not be shown. The dataset has no session "no-such-session". HERMETIC_WEB_NOT_FOUND');
    await v.context.close();
  });
});

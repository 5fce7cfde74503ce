// The dashboard in a real Chromium (Debian's, through playwright-core), against a real `hermetic web` server over a
// generated month of history with `now` fixed: the figures read off the page equal `usageReport` for the same window
// and filter; filters and the period live in the URL (a reload keeps them, back undoes them); the tool view
// (page-session.test.ts: a session, the keyboard, the themes, window sizes).
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
  app = await dashboardRig();
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

describe('the dashboard in Chromium', () => {
  it('the overview\'s figures equal the report\'s JSON; the charts are drawn', async () => {
    const v = await visit('/');
    await equalsReport(v.page, windowOf({ period: '30d' }));
    const canvases = await v.page.$$eval('canvas', (cs) => cs.map((c) => (c as HTMLCanvasElement).width > 300 && c.getAttribute('role') === 'img'));
    assert.deepEqual(canvases, [true, true]);
    await v.done();
  });

  it('period and filters combine, live in the URL, survive a reload, and back undoes them one by one', async () => {
    const v = await visit('/');
    const { page } = v;
    await page.click('button[data-period="7d"]');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=7d');
    await equalsReport(page, windowOf({ since: '7d' }));
    const model = await page.$eval('select[data-filter="model"] option:nth-child(2)', (o) => (o as HTMLOptionElement).value);
    await page.selectOption('select[data-filter="model"]', model);
    await settled(page);
    await page.selectOption('select[data-filter="source"]', 'cli');
    await settled(page);
    const filtered: ReportRequest = { ...windowOf({ since: '7d' }), filter: { model: [model], source: ['cli'] } };
    assert.equal(new URL(page.url()).search, `?period=7d&model=${encodeURIComponent(model)}&source=cli`);
    await equalsReport(page, filtered);
    await page.reload();
    await settled(page);
    await equalsReport(page, filtered);
    assert.equal(await page.getAttribute('button[data-period="7d"]', 'aria-pressed'), 'true');
    assert.deepEqual(await page.$$eval('[data-chip]', (els) => els.map((e) => (e as HTMLElement).dataset.chip)), [`model=${model}`, 'source=cli']);
    await page.goBack();
    await settled(page);
    await equalsReport(page, { ...windowOf({ since: '7d' }), filter: { model: [model] } });
    await page.goBack();
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=7d');
    await page.goBack();
    await settled(page);
    await equalsReport(page, windowOf({ period: '30d' }));
    // A custom window: two dates and Apply.
    await page.click('button[data-period="custom"]');
    await page.fill('input[name="since"]', '2026-07-01');
    await page.fill('input[name="until"]', '2026-07-07');
    await page.click('form.custom button[type="submit"]');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=custom&since=2026-07-01&until=2026-07-07');
    await equalsReport(page, windowOf({ since: '2026-07-01', until: '2026-07-07' }));
    await v.done();
  });

  it('the tool view\'s figures equal the report by tool', async () => {
    const v = await visit('/tools?period=all');
    const r = usageReport(app.db, { by: ['tool'] });
    const { cards, tables } = await figures(v.page);
    assert.deepEqual([cards.tool_calls, cards.tool_errors], [r.totals.tool_calls, r.totals.tool_errors]);
    assert.deepEqual(tables['tools-table']!.filter(([, c]) => c === 'tool_calls').map(([, , x]) => x), r.rows.map((x) => x.tool_calls));
    assert.ok(tables['slowest-table']!.length > 0);
    await v.done();
  });

});

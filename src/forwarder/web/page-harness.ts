// The dashboard in a real Chromium for the page tests (page.test.ts, page-session.test.ts): a `hermetic web` server over
// generated history started before a file's tests and stopped after them with the shared browser, a visit that fails
// on any console error, page error or request to another origin, and the page's figures read against usageReport.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { BrowserContext, ConsoleMessage, Page, Request } from 'playwright-core';
import { closeSharedBrowser, sharedBrowser } from '../../shared/testing/browser.js';
import { Zone } from '../ledger/zone.js';
import { resolveWindow, rowIssuesIn, uncostedIn, usageReport, type ReportRequest } from '../report/index.js';
import { spendUnit } from './handlers.js';
import { dashboardRig, type DashboardRig } from './testing.js';

export interface Visit {
  page: Page;
  /** What the page asked its server for: path and query of every request, in order. */
  requests: string[];
  /** Ends the visit: no console error, no page error, no request to another origin. */
  done(): Promise<void>;
  /** Ends the visit without that check: for a page that is meant to log an error (a failed request). */
  discard(): Promise<void>;
}

interface Tab { context: BrowserContext; page: Page; busy: boolean }

/** Registers the file's before/after hooks; `app` is the running dashboard once `before` has run. */
export function dashboardInBrowser(options?: Parameters<typeof dashboardRig>[0]) {
  let app!: DashboardRig;
  before(async () => {
    app = await dashboardRig(options);
  });
  after(async () => {
    await closeSharedBrowser();
    await app.close();
  });

  // One tab for the file's visits, one after another: a new page costs Chromium about a second of CPU (a renderer
  // process, a cold cache), a navigation in a tab that is there a third of it (decision 0085). Each visit starts
  // clean all the same: the page is loaded anew, its size and colour scheme set, and the origin's storage (the
  // theme chosen) cleared. A visit while another is open gets a tab of its own.
  let tab: Tab | null = null;

  async function openTab(): Promise<Tab> {
    const context = await (await sharedBrowser()).newContext();
    return { context, page: await context.newPage(), busy: false };
  }

  async function visit(path: string, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Visit> {
    const own = tab === null || tab.busy ? await openTab() : tab;
    if (tab === null) tab = own;
    own.busy = true;
    const { page } = own;
    const origin = new URL(app.url).origin;
    if (page.url().startsWith(origin + '/')) await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
    await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 800 });
    await page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
    const problems: string[] = [];
    const onConsole = (m: ConsoleMessage) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); };
    const onError = (e: Error) => problems.push(`page error: ${e.message}`);
    const requests: string[] = [];
    const onRequest = (r: Request) => {
      const url = new URL(r.url());
      if (url.origin !== origin) problems.push(`request to another origin: ${r.url()}`);
      else requests.push(url.pathname + url.search);
    };
    page.on('console', onConsole);
    page.on('pageerror', onError);
    page.on('request', onRequest);
    const end = async () => {
      page.off('console', onConsole);
      page.off('pageerror', onError);
      page.off('request', onRequest);
      if (own === tab) own.busy = false;
      else await own.context.close();
    };
    await page.goto(new URL(path, app.url).href);
    await settled(page);
    return {
      page, requests,
      done: async () => {
        await end();
        assert.deepEqual(problems, []);
      },
      discard: end,
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
    // Spend by day, or by hour for a window of two days or less (decision 0110).
    const unit = spendUnit(request);
    const daily = usageReport(app.db, { ...request, by: [unit, 'model'] });
    const dailyCells = tables['daily-table']!.filter(([, , v]) => v !== null).map(([day, col, v]) => [day, col.replace(/^cost_usd:/, ''), v]);
    assert.deepEqual(dailyCells.sort(), daily.rows.map((r) => [r[unit], r.model ?? '', r.cost_usd]).sort());
    // When in the day and the week (decision 0116): shown when the spend chart is by day.
    for (const [dim, id] of [['hour_of_day', 'hour-of-day-table'], ['weekday', 'weekday-table']] as const) {
      const cells = tables[id]?.filter(([, c]) => c === 'cost_usd').map(([k, , v]) => [k, v]);
      assert.deepEqual(cells, unit === 'day' ? usageReport(app.db, { ...request, by: [dim] }).rows.map((r) => [r[dim], r.cost_usd]) : undefined, dim);
    }
    const byModel = usageReport(app.db, { ...request, by: ['model'], top: 10 });
    assert.deepEqual(tables['breakdown-model']!.filter(([, c]) => c === 'cost_usd').map(([, , v]) => v), byModel.rows.map((r) => r.cost_usd));
    const top = usageReport(app.db, { ...request, by: ['session'], top: 10 });
    assert.deepEqual(tables['sessions-table']!.filter(([, c]) => c === 'cost_usd').map(([, , v]) => v), top.rows.map((r) => r.cost_usd));
    // The costliest trees (decision 0114): shown when one of the ten holds more than one session.
    const trees = usageReport(app.db, { ...request, by: ['tree'], top: 10 });
    const treesShown = trees.rows.some((r) => r.other_rows === undefined && Number(r.sessions) > 1);
    const column = (c: string) => tables['trees-table']?.filter(([, k]) => k === c).map(([, , v]) => v);
    assert.deepEqual([column('cost_usd'), column('sessions')], treesShown ? [trees.rows.map((r) => r.cost_usd), trees.rows.map((r) => r.sessions)] : [undefined, undefined], 'trees');
    // The values the forwarder repaired in the period's sessions: said under the cards when there are any.
    const issues = rowIssuesIn(app.db, request);
    assert.equal(cards.row_issues, issues.entries > 0 ? issues.entries : undefined, 'row_issues');
    // The sessions Hermes recorded no cost for (decision 0090): said under the cards when there are any.
    const uncosted = uncostedIn(app.db, request);
    assert.equal(cards.uncosted, uncosted > 0 ? uncosted : undefined, 'uncosted');
    const kinds = tables['tokens-table']!.map(([, , v]) => v);
    assert.deepEqual(kinds, [totals.input_tokens, totals.output_tokens, totals.cache_read_tokens, totals.cache_write_tokens, totals.reasoning_tokens]);
  }

  return { get app() { return app; }, visit, settled, windowOf, figures, equalsReport };
}

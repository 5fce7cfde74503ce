// The dashboard in a real Chromium for the page tests (page.test.ts, page-session.test.ts): a `hermetic web` server over
// generated history started before a file's tests and stopped after them with the shared browser, a visit that fails
// on any console error, page error or request to another origin, and the page's figures read against usageReport.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { closeSharedBrowser, sharedBrowser } from '../../shared/testing/browser.js';
import { Zone } from '../ledger/zone.js';
import { resolveWindow, rowIssuesIn, usageReport, type ReportRequest } from '../report/index.js';
import { dashboardRig, type DashboardRig } from './testing.js';

export interface Visit {
  page: Page;
  context: BrowserContext;
  /** What the page asked its server for: path and query of every request, in order. */
  requests: string[];
  /** Ends the visit: no console error, no page error, no request to another origin. */
  done(): Promise<void>;
}

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

  async function visit(path: string, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<Visit> {
    const browser = await sharedBrowser();
    const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 800 }, colorScheme: options.colorScheme ?? 'light' });
    const page = await context.newPage();
    const problems: string[] = [];
    const origin = new URL(app.url).origin;
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const requests: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.origin !== origin) problems.push(`request to another origin: ${r.url()}`);
      else requests.push(url.pathname + url.search);
    });
    await page.goto(new URL(path, app.url).href);
    await settled(page);
    return {
      page, context, requests,
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
    // The values the forwarder repaired in the period's sessions: said under the cards when there are any.
    const issues = rowIssuesIn(app.db, request);
    assert.equal(cards.row_issues, issues.entries > 0 ? issues.entries : undefined, 'row_issues');
    const kinds = tables['tokens-table']!.map(([, , v]) => v);
    assert.deepEqual(kinds, [totals.input_tokens, totals.output_tokens, totals.cache_read_tokens, totals.cache_write_tokens, totals.reasoning_tokens]);
  }

  return { get app() { return app; }, visit, settled, windowOf, figures, equalsReport };
}

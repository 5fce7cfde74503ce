// The dashboard in a real Chromium (Debian's, through playwright-core), against a real `hermetic web` server over a
// generated month of history with `now` fixed: the figures read off the page equal `usageReport` for the same window
// and filter (the sessions Hermes recorded no cost for said under the cards); filters and the period live in the URL (a reload keeps them, back undoes them); the tool view
// (page-session.test.ts: a session, the keyboard, the themes, window sizes).
// Every test also holds that the page logged no error and asked no other origin for anything.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { usageReport, type ReportRequest } from '../report/index.js';
import { dashboardInBrowser } from './page-harness.js';
import { uncostSessions } from './testing.js';
import { createIdSource } from '../../shared/ids.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer, type WebServerOptions } from './server.js';
import type { UsageSource } from './data/source.js';
import type { Page } from 'playwright-core';
import { TITLE_CAP } from './data/rows.js';
import { sharedBrowser } from '../../shared/testing/browser.js';
import { NO_COMMAND } from '../dataset/program.js';
import { COMMAND_LABELS } from '../report/render.js';

/** Sessions of 20 to 10 days back have no cost recorded (decision 0090): counted in 30 days, not in 7. */
const UNCOSTED = 4;
// The page asks whether the data changed every 200 ms (decision 0119): the live test's redraws come at once.
const h = dashboardInBrowser({ refreshMs: 200, prepare: (home) => { uncostSessions(join(home, 'hermetic.db'), UNCOSTED); } });
const { visit, settled, windowOf, figures, equalsReport } = h;

/**
 * `fn` on a page of `path` served by a server of its own over the rig's dataset: its source wrapped by `wrap`, the
 * server started with `options` (its own clock, say); all of it closed after.
 */
async function onOwnServer(path: string, fn: (page: Page) => Promise<void>, { wrap = (s) => s, ...options }: { wrap?: (source: UsageSource) => UsageSource } & Partial<WebServerOptions> = {}): Promise<void> {
  const served = new Database(join(h.app.home, 'hermetic.db'), { readonly: true });
  const server = await startWebServer({ source: wrap(sqliteSource(served)), port: 0, now: () => h.app.now * 1000, onError: (e) => { throw e; }, ...options });
  const context = await (await sharedBrowser()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(new URL(path, server.url).href);
    await settled(page);
    await fn(page);
  } finally {
    await context.close();
    await server.close();
    served.close();
  }
}

describe('the dashboard in Chromium', () => {
  it('the overview\'s figures equal the report\'s JSON; the charts are drawn', async () => {
    const v = await visit('/');
    await equalsReport(v.page, windowOf({ period: '30d' }));
    // The spend-per-day table's models in the legend's order: the costliest first.
    const daily = (await figures(v.page)).tables['daily-table']!;
    const spent = new Map<string, number>();
    for (const [, column, x] of daily) spent.set(column, (spent.get(column) ?? 0) + (x ?? 0));
    const order = [...spent.values()];
    assert.ok(order.length > 2 && order.every((x, i) => i === 0 || x <= order[i - 1]! + 1e-9), JSON.stringify([...spent]));
    // Under the cards, as the terminal report says it: the sessions whose $0.00 is not a measured cost.
    const sessions = usageReport(h.app.db, windowOf({ period: '30d' })).totals.sessions!;
    assert.deepEqual(await v.page.$eval('.uncosted', (e) => [e.getAttribute('data-value'), e.textContent]),
      [String(UNCOSTED), `Hermes recorded no cost for ${UNCOSTED} of these ${sessions} sessions: their $0.00 is not a measured cost.`]);
    // One machine's own dataset: no breakdown by machine, not even asked for (the fleet store's page has one:
    // fleet.test.ts); the other breakdowns were.
    assert.equal((await figures(v.page)).tables['breakdown-machine'], undefined);
    const breakdowns = v.requests.filter((r) => r.startsWith('/api/breakdown?')).map((r) => new URLSearchParams(r.split('?')[1]).get('by')).sort();
    // With the hours of the day and the weekdays (decision 0116), each asked for whole.
    assert.deepEqual(breakdowns, ['hour_of_day', 'model', 'profile', 'project', 'provider', 'source', 'task', 'weekday']);
    // The costliest work with what it started: the month has subagents, so the list is there, each row leading to its
    // first session's page.
    const trees = usageReport(h.app.db, { ...windowOf({ period: '30d' }), by: ['tree'], top: 10 }).rows;
    assert.ok((await figures(v.page)).tables['trees-table'], 'the trees are listed');
    const link = await v.page.$eval('#trees-table tbody tr:first-child a', (a) => a.getAttribute('href'));
    assert.equal(new URLSearchParams(link!.split('?')[1]).get('id'), trees[0]!.tree);
    const canvases = await v.page.$$eval('canvas', (cs) => cs.map((c) => (c as HTMLCanvasElement).width > 300 && c.getAttribute('role') === 'img'));
    // Spend by day, tokens by kind, spend by hour of the day and by weekday.
    assert.deepEqual(canvases, [true, true, true, true]);
    await v.done();
  });

  it('today\'s spend is drawn by hour, labelled by the time alone; its table and figures equal the report by hour (decision 0110)', async () => {
    const v = await visit('/?period=today');
    await equalsReport(v.page, windowOf({ period: 'today' }));
    const hours = usageReport(h.app.db, { ...windowOf({ period: 'today' }), by: ['hour'] }).rows.map((r) => String(r.hour));
    assert.ok(hours.length > 0, 'the generated history has usage today');
    assert.deepEqual(await v.page.$eval('#daily-table caption', (e) => e.textContent), 'Spend per hour by model (US dollars)');
    assert.deepEqual(await v.page.$$eval('#daily-table thead th', (ths) => ths[0]?.textContent), 'Hour');
    // The charts of when in the day and the week are not drawn by hour, so not asked for either (decision 0117).
    const breakdowns = v.requests.filter((r) => r.startsWith('/api/breakdown?')).map((r) => new URLSearchParams(r.split('?')[1]).get('by')).sort();
    assert.deepEqual(breakdowns, ['model', 'profile', 'project', 'provider', 'source', 'task']);
    await v.done();
  });

  it('the overview says how many sessions a windowed backfill left unread in the period, and only then', async () => {
    // As a backfill with --since leaves it: the sessions active only before its window, in the dataset's stores row.
    const from = h.app.now - 20 * 86400;
    const to = h.app.now - 10 * 86400;
    const db = new Database(join(h.app.home, 'hermetic.db'));
    db.prepare('UPDATE stores SET unread = ?').run(JSON.stringify([{ sessions: 7, from, to }]));
    try {
      const v = await visit('/');
      const notice = await v.page.$eval('.unread', (e) => [e.getAttribute('data-value'), e.textContent]);
      const day = (t: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date(t * 1000));
      assert.deepEqual(notice, ['7', `7 sessions active between ${day(from)} and ${day(to)} are not counted: a backfill's window (--since/--until) left them unread (hermetic forward, or a backfill without a window, reads them).`]);
      await v.done();
      const week = await visit('/?period=7d');
      assert.equal(await week.page.$('.unread'), null, 'a period after them says nothing');
      await week.done();
    } finally {
      db.prepare('UPDATE stores SET unread = NULL').run();
      db.close();
    }
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

  it('the costliest sessions (and trees) show ten, then five times as many at each "show more", the report\'s rows cut later each time', async () => {
    const v = await visit('/?period=all');
    const { page } = v;
    const costs = async () => (await figures(page)).tables['sessions-table']!.filter(([, c]) => c === 'cost_usd').map(([, , x]) => x);
    const rows = (top: number) => usageReport(h.app.db, { by: ['session'], top }).rows;
    const all = usageReport(h.app.db, {}).totals.sessions!;
    assert.ok(all > 50, `${all} sessions`);
    assert.deepEqual(await costs(), rows(10).map((r) => r.cost_usd));
    assert.equal(await page.textContent('button[data-more="sessions"]'), 'Show 40 more');
    await page.click('button[data-more="sessions"]');
    await page.waitForFunction(() => document.querySelectorAll('#sessions-table tbody tr').length > 11);
    assert.deepEqual(await costs(), rows(50).map((r) => r.cost_usd));
    assert.equal(await page.$eval('#sessions-table tbody tr:last-child th', (e) => e.textContent), `${all - 50} more sessions`);
    assert.ok(v.requests.includes('/api/sessions?period=all&top=50'), v.requests.join(' '));
    // Past the last session: every one listed, nothing summed, no button.
    await page.click('button[data-more="sessions"]');
    await page.waitForFunction((n) => document.querySelectorAll('#sessions-table tbody tr').length === n, all);
    assert.deepEqual(await costs(), rows(250).map((r) => r.cost_usd));
    assert.equal(await page.$('button[data-more="sessions"]'), null);
    // The costliest trees the same way (decision 0114): ten, then fifty, from /api/trees.
    const treeCosts = async () => (await figures(page)).tables['trees-table']!.filter(([, c]) => c === 'cost_usd').map(([, , x]) => x);
    const trees = (top: number) => usageReport(h.app.db, { by: ['tree'], top }).rows;
    const allTrees = usageReport(h.app.db, { by: ['tree'] }).rows.length;
    assert.ok(allTrees > 50, `${allTrees} trees`);
    assert.deepEqual(await treeCosts(), trees(10).map((r) => r.cost_usd));
    await page.click('button[data-more="trees"]');
    await page.waitForFunction(() => document.querySelectorAll('#trees-table tbody tr').length > 11);
    assert.deepEqual(await treeCosts(), trees(50).map((r) => r.cost_usd));
    assert.equal(await page.$eval('#trees-table tbody tr:last-child th', (e) => e.textContent), `${allTrees - 50} more`);
    assert.ok(v.requests.includes('/api/trees?period=all&top=50'), v.requests.join(' '));
    await v.done();
  });

  it('the report view: any grouping the form picks, its rows those of usageReport (the rest summed), kept in the URL with the period and filters', async () => {
    const v = await visit('/report?period=all&by=weekday&by=model&top=10');
    const { page } = v;
    const cells = async (key: string) => (await figures(page)).tables['report-table']!.filter(([, c]) => c === key).map(([label, , x]) => [label, x]);
    const want = (request: ReportRequest, key: string, label: (r: Record<string, unknown>) => string) => usageReport(h.app.db, request).rows.map((r) => [r.other_rows !== undefined ? `${r.other_rows as number} more` : label(r), r[key]]);
    const all = windowOf({ period: 'all' });
    assert.deepEqual(await cells('cost_usd'), want({ ...all, by: ['weekday', 'model'], top: 10 }, 'cost_usd', (r) => String(r.weekday)));
    assert.equal(await page.$eval('code.command', (c) => c.textContent), 'hermetic report --period all --by weekday --by model --top 10');
    // The same rows as a file: what /api/report.csv answers for the same query.
    assert.equal(await page.$eval('a.csv', (a) => a.getAttribute('href')), '/api/report.csv?period=all&by=weekday&by=model&top=10');
    // Another grouping through the form, with a filter from the controls: the URL keeps all three.
    await page.selectOption('select[name="by"]', 'hour_of_day');
    await page.selectOption('select[name="then"]', '');
    await page.selectOption('select[name="top"]', 'all');
    await page.click('form.grouping button[type="submit"]');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=all&by=hour_of_day&top=all');
    assert.deepEqual(await cells('sessions'), want({ ...all, by: ['hour_of_day'] }, 'sessions', (r) => String(r.hour_of_day)));
    await page.selectOption('select[data-filter="source"]', 'cli');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=all&source=cli&by=hour_of_day&top=all');
    assert.deepEqual(await cells('cost_usd'), want({ ...all, by: ['hour_of_day'], filter: { source: ['cli'] } }, 'cost_usd', (r) => String(r.hour_of_day)));
    assert.equal(await page.$eval('code.command', (c) => c.textContent), 'hermetic report --period all --filter source=cli --by hour_of_day');
    // Sessions link to their pages; tools have their own columns.
    const sessions = await visit('/report?period=all&by=session&top=5');
    const first = usageReport(h.app.db, { ...all, by: ['session'], top: 5 }).rows[0]!;
    const link = await sessions.page.$eval('#report-table tbody tr:first-child a', (a) => a.getAttribute('href'));
    assert.equal(new URLSearchParams(link!.split('?')[1]).get('id'), first.session_id);
    // A number of rows the menu does not list, from the URL, is kept and offered.
    assert.equal(await sessions.page.$eval('select[name="top"]', (e) => (e as HTMLSelectElement).value), '5');
    await sessions.done();
    const tools = await visit('/report?period=all&by=tool&by=day');
    assert.deepEqual((await figures(tools.page)).tables['report-table']!.filter(([, c]) => c === 'tool_calls').map(([, , x]) => x), usageReport(h.app.db, { ...all, by: ['tool', 'day'], top: 10 }).rows.map((r) => r.tool_calls));
    await tools.done();
    // By command (decision 0149): the calls, failures and times of usageReport's rows.
    const commands = await visit('/report?period=all&by=command');
    const commandRows = usageReport(h.app.db, { ...all, by: ['command'], top: 10 }).rows;
    assert.ok(commandRows.length > 0 && commandRows.some((r) => Number(r.tool_calls) > 0), 'the fixture has terminal calls');
    const shown = (await figures(commands.page)).tables['report-table']!;
    for (const key of ['tool_calls', 'tool_errors', 'seconds', 'median_seconds']) {
      assert.deepEqual(shown.filter(([, c]) => c === key).map(([, , x]) => x), commandRows.map((r) => r[key as keyof typeof r] ?? null), key);
    }
    assert.equal(await commands.page.$eval('code.command', (c) => c.textContent), 'hermetic report --period all --by command --top 10');
    assert.equal(await commands.page.$('p.nameless'), null, 'every row names a program: no note');
    await commands.done();
    // A call whose arguments hold no command text: its row says what it holds, as the terminal's note does.
    const db = new Database(join(h.app.home, 'hermetic.db'));
    const call = db.prepare("SELECT store, session_id, part_id, program FROM parts WHERE tool_name = 'terminal' AND part_type = 'tool_call' LIMIT 1").get() as Record<string, string>;
    const setProgram = db.prepare('UPDATE parts SET program = ? WHERE store = ? AND session_id = ? AND part_id = ?');
    setProgram.run(NO_COMMAND, call.store, call.session_id, call.part_id);
    try {
      const nameless = await visit('/report?period=all&by=command');
      assert.ok(usageReport(h.app.db, { ...all, by: ['command'], top: 10 }).rows.some((r) => r.command === NO_COMMAND));
      assert.equal(await nameless.page.$eval('p.nameless', (p) => p.textContent), `${NO_COMMAND} ${COMMAND_LABELS.find(([label]) => label === NO_COMMAND)![1]}.`);
      await nameless.done();
    } finally {
      setProgram.run(call.program, call.store, call.session_id, call.part_id);
      db.close();
    }
    await v.done();
  });

  it('the report view names the rows that name no program as the terminal does (the page cannot import render.ts)', () => {
    const page = readFileSync(new URL('./public/views/report.js', import.meta.url), 'utf8');
    for (const [label, what] of COMMAND_LABELS) assert.ok(page.includes(`[${JSON.stringify(label).replaceAll('"', "'")}, '${what}']`), label);
  });

  it('the report view\'s command prints its rows: a custom since with a space quoted, a top past the cap the menu\'s first; on the fleet store --from, in UTC --utc (decision 0117)', async () => {
    const custom = await visit('/report?period=custom&since=2026-07-01%2010:00&by=day&top=2000000');
    assert.equal(await custom.page.$eval('code.command', (c) => c.textContent), "hermetic report --since '2026-07-01 10:00' --by day --top 10");
    assert.equal(await custom.page.$eval('select[name="top"]', (e) => (e as HTMLSelectElement).value), '10');
    await custom.done();
    // \`hermetic web --utc\` over the fleet store (here: the same dataset, its source saying it is the fleet's).
    await onOwnServer('/report?period=all&by=weekday', async (page) => {
      assert.equal(await page.$eval('code.command', (c) => c.textContent), 'hermetic report --from postgres://… --period all --by weekday --top 10 --utc');
    }, { wrap: (source) => ({ ...source, fleet: true }), utc: true });
  });

  it('the report view says where a list stopped at its bytes: its rows those of the bounded report, the rest in the last row (decision 0120)', async () => {
    // The server's own bound is 2 MiB, more than this dataset's rows; the same source with a bound of 3,000 bytes
    // stops where a large dataset's list would.
    const bounded = (request: ReportRequest) => ({ ...request, bounds: request.bounds && { ...request.bounds, bytes: 3000 } });
    await onOwnServer('/report?period=all&by=weekday&by=model&top=all', async (page) => {
      const want = usageReport(h.app.db, bounded({ ...windowOf({ period: 'all' }), by: ['weekday', 'model'], top: 1_000_000, bounds: { titleCharacters: TITLE_CAP, bytes: 2 ** 21 } }));
      assert.ok(want.stopped && want.stopped.rows >= 2, 'the bounded report stopped');
      const note = await page.$eval('.list-stopped', (p) => p.textContent);
      assert.equal(note, `The page stops at ${want.stopped!.rows} rows: their rows reached the 3 KB a page carries. The rest are summed in the last row; the command above, or the CSV, lists more.`);
      const costs = (await figures(page)).tables['report-table']!.filter(([, c]) => c === 'cost_usd').map(([label, , x]) => [label, x]);
      assert.deepEqual(costs, want.rows.map((r) => [r.other_rows !== undefined ? `${r.other_rows as number} more` : String(r.weekday), r.cost_usd]));
    }, { wrap: (source) => ({ ...source, report: (request) => source.report(bounded(request)) }) });
  });

  it('an open page of today is drawn again when its clock enters the next hour (the chart\'s axis) and the next day, with no new data (decision 0119 addendum)', async () => {
    let now = h.app.now;
    await onOwnServer('/?period=today', async (page) => {
      const cost = () => page.$eval('[data-figure="cost_usd"]', (e) => Number(e.getAttribute('data-value')));
      assert.ok(await cost() > 0, 'the generated history has spend today');
      // The hourly chart's axis: every hour of today up to the clock's, the quiet ones too (the table lists only hours
      // with spend).
      const hours = () => page.evaluate(() => {
        const canvas = [...document.querySelectorAll('figure')].find((f) => f.querySelector('figcaption')?.textContent === 'Spend per hour by model')!.querySelector('canvas')!;
        return (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { data: { labels: string[] } } } }).Chart.getChart(canvas).data.labels;
      });
      const before = await hours();
      const table = await page.textContent('#daily-table');
      // The next hour alone: the page looks again, and draws the quiet hour the axis gained though no text changed.
      now += 3600;
      await page.waitForFunction(() => document.documentElement.dataset.looked === '1 drawn');
      assert.deepEqual(await hours(), [...before, `${String((Number(before.at(-1)!.slice(0, 2)) + 1) % 24).padStart(2, '0')}:00`]);
      assert.equal(await page.textContent('#daily-table'), table);
      // The next day: today is another day, with no spend yet.
      now += 86400;
      await page.waitForFunction(() => document.documentElement.dataset.looked === '2 drawn');
      assert.equal(await cost(), 0);
    }, { now: () => now * 1000, refreshMs: 200 });
  });

  it('the tool view\'s figures equal the report by tool', async () => {
    const v = await visit('/tools?period=all');
    const r = usageReport(h.app.db, { by: ['tool'] });
    const { cards, tables } = await figures(v.page);
    assert.deepEqual([cards.tool_calls, cards.tool_errors], [r.totals.tool_calls, r.totals.tool_errors]);
    assert.deepEqual(tables['tools-table']!.filter(([, c]) => c === 'tool_calls').map(([, , x]) => x), r.rows.map((x) => x.tool_calls));
    assert.ok(tables['slowest-table']!.length > 0);
    await v.done();
    // A window with no tool call says so, instead of an empty chart and a table of headers.
    const none = await visit('/tools?period=custom&since=2001-01-01&until=2001-01-02');
    assert.deepEqual([await none.page.textContent('p.empty'), await none.page.$('#tools-table'), await none.page.$('canvas')],
      ['No tool calls in this period: a longer period, or fewer filters, may have some.', null, null]);
    await none.done();
  });

  // Last: it adds sessions to the store, which the tests above do not expect.
  it('the page follows the data: a forward pass redraws it in place; a reader in a control is not interrupted until they let go; paused, it stays as drawn (decision 0119)', async () => {
    const all = windowOf({ period: 'all' });
    const v = await visit('/?period=all');
    const shown = () => v.page.$eval('[data-figure="cost_usd"]', (e) => Number(e.getAttribute('data-value')));
    // Drawn, with what a forward pass of `dollars` more spend makes the report say.
    const drawn = (dollars: number) => v.page.waitForFunction((c) => document.querySelector('[data-figure="cost_usd"]')?.getAttribute('data-value') === String(c)
      && document.documentElement.dataset.ready === location.pathname + location.search, dollars);
    const spend = (dollars: number) => {
      const db = new Database(h.app.stores[0]!);
      try {
        let t = h.app.now - 3600;
        const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource(`live-${dollars}`) });
        const id = w.createSession({ source: 'cli', model: 'gpt-5' });
        w.appendMessages(id, [{ role: 'user', content: 'one more' }, { role: 'assistant', content: 'done', finish_reason: 'stop' }]);
        w.updateTokenCounts(id, { input_tokens: 1000, output_tokens: 100, api_calls: 1, estimated_cost_usd: dollars, model: 'gpt-5' });
      } finally {
        db.close();
      }
      h.app.forwardOnce();
      return usageReport(h.app.db, all).totals.cost_usd!;
    };
    await v.page.evaluate('window.sameDocument = true');
    assert.deepEqual(await v.page.$eval('#live', (b) => [(b as HTMLButtonElement).hidden, b.getAttribute('aria-pressed')]), [false, 'true']);
    // Its name as a screen reader reads it: the drawn mark ("●") is not part of it (decision 0120).
    const cdp = await v.page.context().newCDPSession(v.page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree') as { nodes: { role?: { value: string }; name?: { value: string } }[] };
    assert.deepEqual(nodes.filter((n) => n.role?.value === 'button' && /Live/.test(n.name?.value ?? '')).map((n) => n.name!.value), ['Live updates']);
    await cdp.detach();

    // Nothing held: redrawn in place (the same document), every figure the report's.
    const first = spend(1.25);
    await drawn(first);
    await equalsReport(v.page, all);
    assert.equal(await v.page.evaluate('window.sameDocument'), true);
    assert.match((await v.page.textContent('#live-note'))!, /^updated \d\d:\d\d:\d\d$/);

    // A reader in a filter's list keeps it: "Show new data" is offered instead, and the page is drawn once they leave.
    await v.page.focus('#controls select');
    const second = spend(2.5);
    await v.page.waitForSelector('#live-show:not([hidden])');
    assert.equal(await shown(), first);
    assert.equal(await v.page.evaluate('document.activeElement.tagName'), 'SELECT');
    // Said once to a screen reader (a polite status), not at each redraw (decision 0120).
    assert.equal(await v.page.textContent('[role="status"]#live-said'), 'New data: the "Show new data" button draws it.');
    // Offered where the reader is: at the window's foot, however far down the page they read.
    await v.page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    const at = await v.page.$eval('#live-show', (b) => { const r = b.getBoundingClientRect(); return [r.top >= 0, r.bottom <= window.innerHeight, getComputedStyle(b).position]; });
    assert.deepEqual(at, [true, true, 'fixed']);
    await v.page.evaluate('window.scrollTo(0, 0)');
    await v.page.evaluate('document.activeElement.blur()');
    await drawn(second);
    assert.equal(await v.page.isHidden('#live-show'), true);
    assert.equal(await v.page.textContent('#live-said'), '');

    // Reached by the keyboard, "Show new data" waits for its press; pressed, the view is drawn and focus is on it, not
    // lost with the button (decision 0120). On a 375 px window, the header with all it says fits.
    await v.page.setViewportSize({ width: 375, height: 800 });
    await v.page.focus('#controls select');
    const pressed = spend(3);
    await v.page.waitForSelector('#live-show:not([hidden])');
    await v.page.focus('#live-show');
    await v.page.waitForTimeout(600); // three of the page's questions
    assert.equal(await shown(), second);
    assert.equal(await v.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
    await v.page.keyboard.press('Enter');
    await drawn(pressed);
    assert.equal(await v.page.evaluate('document.activeElement.id'), 'main');
    await v.page.setViewportSize({ width: 1280, height: 800 });

    // A model hidden from the daily chart's legend stays hidden: the redraw waits, "Show new data" offered (decision 0120).
    await settled(v.page);
    // The chart resizes itself to the wider window a frame or more later (a ResizeObserver): its legend is where it
    // will be clicked only once it has.
    await v.page.waitForFunction(() => {
      const canvas = document.querySelector('canvas')!;
      const chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { width: number } | undefined } }).Chart.getChart(canvas);
      return chart !== undefined && Math.round(chart.width) === Math.round(canvas.parentElement!.clientWidth);
    });
    const legend = await v.page.evaluate(() => {
      const canvas = document.querySelector('canvas')!;
      const box = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { legend: { legendHitBoxes: { left: number; top: number; width: number; height: number }[] } } } }).Chart.getChart(canvas).legend.legendHitBoxes[0]!;
      const at = canvas.getBoundingClientRect();
      return { x: at.left + box.left + box.width / 2, y: at.top + box.top + box.height / 2 };
    });
    await v.page.mouse.click(legend.x, legend.y);
    await v.page.waitForSelector('canvas[data-extended]');
    const hidden = spend(0.5);
    await v.page.waitForSelector('#live-show:not([hidden])');
    assert.equal(await shown(), pressed);
    await v.page.click('#live-show');
    await drawn(hidden);

    // A commit that changes nothing the view shows (a forwarder's once-a-minute heartbeat: the store's last_tick_at)
    // moves the version: the page builds the view again off the page, finds it the same and leaves it alone — not
    // redrawn, no "Show new data", "updated …" as it was (decision 0120's addendum).
    const looks = async () => Number(((await v.page.getAttribute('html', 'data-looked')) ?? '0').split(' ')[0]);
    const seen = await looks();
    const note = await v.page.textContent('#live-note');
    await v.page.evaluate('document.querySelector("#main > *").setAttribute("data-kept", "")');
    const writer = new Database(join(h.app.home, 'hermetic.db'));
    writer.prepare('UPDATE stores SET last_tick_at = COALESCE(last_tick_at, 0) + 60').run();
    writer.close();
    await v.page.waitForFunction((n) => Number((document.documentElement.dataset.looked ?? '0').split(' ')[0]) > n, seen);
    assert.equal(await v.page.getAttribute('html', 'data-looked'), `${seen + 1} same`);
    assert.equal(await v.page.$$eval('#main > [data-kept]', (els) => els.length), 1);
    assert.equal(await v.page.isHidden('#live-show'), true);
    assert.equal(await v.page.textContent('#live-note'), note);
    assert.equal(await shown(), hidden);

    // Paused (remembered on this browser): no question asked, nothing redrawn; resumed, drawn.
    await v.page.click('#live');
    assert.equal(await v.page.getAttribute('#live', 'aria-pressed'), 'false');
    const asked = v.requests.filter((r) => r === '/api/version').length;
    const third = spend(4);
    await v.page.evaluate(() => document.dispatchEvent(new Event('visibilitychange'))); // shown again: still nothing asked
    await v.page.waitForTimeout(1000); // five of the page's questions, had it asked
    assert.equal(await shown(), hidden);
    assert.equal(v.requests.filter((r) => r === '/api/version').length, asked);
    assert.equal(await v.page.evaluate('localStorage.getItem("hermetic-live")'), 'paused');
    await v.page.click('#live');
    await drawn(third);
    await v.done();
  });

  it('a link followed opens its page at the top and back returns to where the reader was; the skip link draws nothing again; no list says "null"', async () => {
    const v = await visit('/', { height: 500 });
    const { page } = v;
    // A list with nothing to add (no intro, no button) once wrote its missing parts as the text "null".
    assert.deepEqual(await page.$$eval('section.sessions', (els) => els.flatMap((e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent))), []);
    const link = page.locator('section.sessions a[data-nav]').first();
    await link.scrollIntoViewIfNeeded();
    const before = await page.evaluate(() => window.scrollY);
    assert.ok(before > 300, `scrolled to ${before}`);
    await link.click();
    await settled(page);
    assert.match(new URL(page.url()).pathname, /^\/session/);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the session page opens at its top');
    await page.goBack();
    await settled(page);
    assert.equal(await page.evaluate(() => window.scrollY), before, 'back to where the reader was');
    // The skip link moves to #main: a move within the page, which asks for nothing and draws nothing.
    // (The page's own question whether the data changed, every 200 ms here, is not a drawing's.)
    const drawing = () => v.requests.filter((r) => r !== '/api/version').length;
    const asked = drawing();
    await page.focus('a.skip');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash === '#main');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), '/', 'not drawn again');
    assert.equal(drawing(), asked);
    await v.done();
  });
});

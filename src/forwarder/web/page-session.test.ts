// The dashboard in a real Chromium, second part (page.test.ts has the overview and the filters): a session's
// transcript pages on the server, its usage equals the report's, lineage links both ways; the keyboard reaches and
// works the controls; the themes switch and are remembered; a narrow window does not scroll sideways.
// Every test also holds that the page logged no error and asked no other origin for anything.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { usageReport } from '../report/index.js';
import { dashboardInBrowser } from './page-harness.js';

const h = dashboardInBrowser({ sessions: 80, messages: 1600 }); // enough for lineage, tool calls and top sessions
const { visit, settled } = h;

describe('the dashboard in Chromium: sessions, keyboard, themes, sizes', () => {
  it('a session: from the costliest session\'s link to its transcript, paged, with reasoning collapsed and bookkeeping marked', async () => {
    const v = await visit('/?period=all');
    const { page } = v;
    await page.click('#sessions-table tbody tr:first-child a');
    await settled(page);
    const id = new URL(page.url()).searchParams.get('id')!;
    const top = usageReport(h.app.db, { by: ['session'], top: 10 }).rows[0]!;
    assert.equal(id, top.session_id);
    // The link names the session's store too: another profile's session with the same id would not be asked about.
    assert.equal(new URL(page.url()).searchParams.get('store'), h.app.db.prepare('SELECT store FROM sessions WHERE session_id = ?').pluck().get(id));
    const total = h.app.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ?').pluck().get(id) as number;
    const onPage = await page.$$eval('.transcript > li', (els) => els.map((e) => [Number((e as HTMLElement).dataset.seq), (e as HTMLElement).dataset.kind]));
    const want = (h.app.db.prepare('SELECT seq, kind FROM messages WHERE session_id = ? ORDER BY seq LIMIT 100').all(id) as { seq: number; kind: string }[]).map((m) => [m.seq, m.kind]);
    assert.deepEqual(onPage, want);
    assert.equal(await page.$$eval('.transcript > li.bookkeeping', (els) => els.length), want.filter(([, k]) => k !== 'message').length);
    assert.ok(await page.$$eval('details.reasoning', (els) => els.every((d) => !(d as HTMLDetailsElement).open)));
    const cost = await page.$$eval('#session-usage [data-column="cost_usd"]', (els) => els.map((e) => Number((e as HTMLElement).dataset.value)));
    assert.deepEqual(cost, usageReport(h.app.db, { filter: { session: [id] }, by: ['model', 'task'] }).rows.map((r) => r.cost_usd));
    assert.ok(total > 0);
    // A long transcript pages on the server: open one with more than a page and follow "Later".
    await page.goto(new URL(`/session?id=${id}&page_size=5`, h.app.url).href);
    await settled(page);
    await page.click('.pager a[rel="next"] >> nth=0');
    await settled(page);
    assert.deepEqual([new URL(page.url()).searchParams.get('page'), new URL(page.url()).searchParams.get('page_size')], ['2', '5']);
    assert.deepEqual(await page.$$eval('.transcript > li', (els) => els.map((e) => Number((e as HTMLElement).dataset.seq))), [5, 6, 7, 8, 9].filter((n) => n < total));
    await page.goBack();
    await settled(page);
    assert.equal(await page.$eval('.transcript > li', (e) => (e as HTMLElement).dataset.seq), '0');
    // Lineage: a child's page links to its parent.
    const child = h.app.db.prepare('SELECT session_id, parent_session_id FROM sessions WHERE parent_session_id IN (SELECT session_id FROM sessions) LIMIT 1').get() as { session_id: string; parent_session_id: string };
    await page.goto(new URL(`/session?id=${child.session_id}`, h.app.url).href);
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

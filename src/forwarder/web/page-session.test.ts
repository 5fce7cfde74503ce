// The dashboard in a real Chromium, second part (page.test.ts has the overview and the filters): a session's
// transcript pages on the server, its usage equals the report's, lineage links both ways; a session's details and its
// messages' reactions, observed input and platform ids (Hermes's other fields) are shown as text; its background
// delegations are listed (long goals cut, pruned ones marked), and none is no section; a text past the server's cap
// is marked where it is cut and its whole opens from a link, a page past its budget links to its rest (decision
// 0088); the keyboard reaches
// and works the controls; the themes switch and are remembered; a narrow window does not scroll sideways.
// Every test also holds that the page logged no error and asked no other origin for anything.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { usageReport } from '../report/index.js';
import { dashboardInBrowser } from './page-harness.js';
import { ATTRIBUTES_SESSION, HUGE_RESULT_SESSION, LONG_WORDS_SESSION, MANY_BIG_SESSION, MANY_CALLS_SESSION, PLAIN_SESSION, attributesStore, bigTextsStore, inflateBigTexts } from './testing.js';

// Enough for lineage, tool calls and top sessions; a session with Hermes's other fields set; and sessions of big texts
// (a 20 MB tool result; 500 messages of 100 KB each, decision 0088).
const h = dashboardInBrowser({ sessions: 80, messages: 1600, extraStores: (dir) => [attributesStore(dir), bigTextsStore(dir)], prepare: (home) => inflateBigTexts(home, 40_000) });
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
    const child = h.app.db.prepare("SELECT session_id, parent_session_id FROM sessions WHERE parent_session_id IN (SELECT session_id FROM sessions) AND (lineage_kind IS NULL OR lineage_kind <> 'reset') LIMIT 1").get() as { session_id: string; parent_session_id: string };
    await page.goto(new URL(`/session?id=${child.session_id}`, h.app.url).href);
    await settled(page);
    await page.click('.lineage li:first-child a');
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('id'), child.parent_session_id);
    assert.ok(await page.$(`.lineage a[href*="${child.session_id}"]`), 'the parent lists the child');
    // And says what it cost with its descendants (decision 0110), the figure the API gives.
    const [figure, said] = await page.$eval('.lineage-usage', (e) => [(e as HTMLElement).dataset.value, e.textContent]);
    const api = await (await fetch(new URL(`/api/session?id=${child.parent_session_id}`, h.app.url))).json() as { lineage_usage: { totals: { cost_usd: number }; descendants: number } };
    assert.equal(Number(figure), api.lineage_usage.totals.cost_usd);
    assert.match(said!, new RegExp(`^With its ${api.lineage_usage.descendants} descendants?: \\$`));
    await page.goBack();
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('id'), child.session_id);
    await v.done();
  });

  it('a session with messages compacted away gives one account of them: the facts and the pager agree with the transcript', async () => {
    const s = h.app.db.prepare(`SELECT s.store, s.session_id AS id, s.live_messages AS live, COUNT(*) AS total, SUM(m.compacted) AS compacted
      FROM sessions s JOIN messages m ON m.store = s.store AND m.session_id = s.session_id
      GROUP BY s.store, s.session_id HAVING SUM(m.compacted) > 0 ORDER BY COUNT(*) DESC LIMIT 1`).get() as { store: string; id: string; live: number; total: number; compacted: number };
    assert.ok(s, 'the generated history has a session with messages compacted away');
    assert.equal(s.live + s.compacted, s.total);
    const v = await visit(`/session?id=${encodeURIComponent(s.id)}&store=${encodeURIComponent(s.store)}&page_size=5`);
    const facts = await v.page.$$eval('.facts dt', (els) => els.map((e) => [e.textContent, e.nextElementSibling?.textContent]));
    const n = (x: number) => x.toLocaleString('en-US');
    assert.deepEqual(facts.find(([k]) => k === 'Messages'), ['Messages', `${n(s.live)} live, and ${n(s.compacted)} compacted away (kept in the transcript, marked)`]);
    assert.equal(await v.page.textContent('.pager [aria-current="page"] >> nth=0'), `Page 1 of ${n(Math.ceil(s.total / 5))} (${n(s.total)} messages, ${n(s.compacted)} of them compacted away)`);
    await v.done();
  });

  it('a session page opened directly shows its times in the ledger\'s zone, as one reached from the overview does', async () => {
    const { session_id: id, store } = h.app.db.prepare('SELECT session_id, store FROM sessions ORDER BY started_at LIMIT 1').get() as { session_id: string; store: string };
    const first = h.app.db.prepare('SELECT created_at FROM messages WHERE session_id = ? AND store = ? ORDER BY seq LIMIT 1').pluck().get(id, store) as number;
    // The harness builds the ledger in Europe/Berlin; the browser runs in UTC.
    const berlin = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).format(new Date(first * 1000));
    const v = await visit(`/session?id=${encodeURIComponent(id)}&store=${encodeURIComponent(store)}`);
    assert.equal(await v.page.$eval('.transcript > li .seq', (e) => e.textContent), `#0 · ${berlin}`);
    await v.done();
  });

  it('a title and a model that are each one long word wrap: the page never scrolls sideways, and the markup in them is text', async () => {
    for (const width of [1280, 380]) {
      const v = await visit(`/session?id=${LONG_WORDS_SESSION}`, { width });
      const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${width}px wide`);
      assert.equal(await v.page.$$eval('main img', (els) => els.length), 0, 'the model\'s markup is text');
      // The title of 3,000 characters comes cut at 256 (decision 0094): shown with an ellipsis, and the mark links to it whole.
      assert.equal(await v.page.textContent('h1'), `${'A'.repeat(256)}…`);
      assert.equal(await v.page.textContent('.cut[data-field="title"]'), 'Cut: the first 256 of the title\'s 3,000 characters are shown. Show all (3 KB)');
      assert.deepEqual(await v.page.$eval('.cut[data-field="title"] a', async (a) => {
        const r = await fetch((a as HTMLAnchorElement).href);
        return [new URL((a as HTMLAnchorElement).href).pathname, (await r.text()).length];
      }), ['/api/session-text', 3000]);
      await v.done();
    }
  });

  it('a session\'s details: the attributes set, in words; reactions, observed input and the platform\'s id beside each message', async () => {
    // A field this page has no words for yet (a newer Hermetic's) is shown by its name.
    const writer = new Database(join(h.app.home, 'hermetic.db'));
    writer.prepare("UPDATE sessions SET attributes = json_set(attributes, '$.queue_position', 3) WHERE session_id = ?").run(ATTRIBUTES_SESSION);
    writer.close();
    for (const width of [1280, 380]) {
      const v = await visit(`/session?id=${ATTRIBUTES_SESSION}`, { width });
      const { page } = v;
      const lines = await page.$$eval('.details-list > li', (els) => els.map((e) => e.textContent));
      const activity = lines.findIndex((l) => l!.startsWith('Last activity: '));
      assert.match(lines[activity]!, /^Last activity: running terminal \(2026-\d\d-\d\d \d\d:\d\d\)$/);
      assert.deepEqual(lines.filter((_, i) => i !== activity), [
        'Title: by the model (llm)', 'Chat: dm', 'Pinned', 'Archived', 'Tools offered: terminal, web_search', 'Handed off to telegram: done',
        'Compression: 2 failures in a row, last error: context window exceeded <img src=x onerror=alert(1)>', 'Pricing table 2026-06-01', 'queue_position: 3',
      ]);
      // Stored text is text: the markup in the error made no element.
      assert.equal(await page.$$eval('main img', (els) => els.length), 0);
      assert.equal(await page.getAttribute('.details-list > li[data-attribute="title_source"]', 'title'), 'title_source');
      // model_config folded, its JSON (credentials masked, the URL its host) inside.
      assert.equal(await page.$eval('details.model-config', (d) => (d as HTMLDetailsElement).open), false);
      assert.deepEqual(JSON.parse(await page.textContent('details.model-config pre') ?? ''), { provider: 'openrouter', base_url: 'openrouter.ai', temperature: 0.2 });
      // The messages: the platform's id on the first, observed on the second, the reply's reactions grouped by emoji.
      const msg = (seq: number) => `.transcript > li[data-seq="${seq}"]`;
      assert.equal(await page.textContent(`${msg(0)} .platform-id`), 'id 991');
      assert.match((await page.getAttribute(`${msg(0)} .platform-id`, 'title'))!, /messaging platform's id/);
      assert.deepEqual(await page.$$eval(`${msg(1)} .badge`, (els) => els.map((e) => e.textContent)), ['observed']);
      assert.equal(await page.$(`${msg(1)} .platform-id`), null);
      const reactions = await page.$$eval(`${msg(2)} .reaction`, (els) => els.map((e) => [(e as HTMLElement).dataset.emoji, e.querySelector('.count')?.textContent ?? null, e.getAttribute('title')]));
      assert.deepEqual(reactions.map(([emoji, n]) => [emoji, n]), [['👍', '2'], ['🎉', null]]);
      assert.match(reactions[0]![2]!, /^👍 by user, 2026-\d\d-\d\d \d\d:\d\d, seen\n👍 by other, 2026-\d\d-\d\d \d\d:\d\d$/);
      assert.match(reactions[1]![2]!, /^🎉 by assistant, /);
      assert.equal(await page.getAttribute(`${msg(2)} .reactions`, 'aria-label'), 'Reactions: 👍 ×2 🎉');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${width}px wide`);
      await v.done();
    }
    // A session with none of them set: no details, no marks.
    const v = await visit(`/session?id=${PLAIN_SESSION}`);
    assert.deepEqual(await v.page.$$eval('.facts dt', (els) => els.map((e) => e.textContent)), ['Model', 'Provider', 'Profile', 'Source', 'Started', 'Ended', 'Project', 'Messages', 'Cost']);
    // The session's own total, as the report gives it, also where it has no descendants to be summed with.
    const own = usageReport(h.app.db, { filter: { session: [PLAIN_SESSION] } }).totals;
    const n = (x: number) => x.toLocaleString('en-US');
    assert.match(await v.page.$eval('.facts dt:last-of-type + dd', (e) => e.textContent!),
      new RegExp(`^\\$[\\d.,]+: ${n(own.api_calls!)} API calls?, ${n(own.input_tokens!)} input and ${n(own.output_tokens!)} output tokens?$`));
    assert.equal(await v.page.$$eval('.reactions, .platform-id, .badge.observed, details.model-config', (els) => els.length), 0);
    await v.done();
  });

  it('a session\'s background delegations: state, delivery, dispatch time in the ledger\'s zone, goal cut with its whole on hover and opened, pruned ones marked', async () => {
    const parent = h.app.db.prepare('SELECT store, parent_session_id AS id FROM delegations WHERE parent_session_id IN (SELECT session_id FROM sessions) GROUP BY store, parent_session_id ORDER BY COUNT(*) DESC, parent_session_id LIMIT 1').get() as { store: string; id: string };
    type Row = { delegation_id: string; state: string; delivery_state: string; delivery_attempts: number; dispatched_at: number; goal: string; summary: string | null; error: string | null };
    const rows = () => h.app.db.prepare('SELECT * FROM delegations WHERE store = ? AND parent_session_id = ? ORDER BY dispatched_at, delegation_id').all(parent.store, parent.id) as Row[];
    assert.ok(rows().length > 0, 'the generated history has delegations');
    // The first: pruned by Hermes (kept in the dataset), and a goal too long for a line, holding markup.
    const long = `Research the licensing of every dependency <img src=x onerror=alert(1)> ${'and check each transitive one '.repeat(8)}\nthen report.`;
    const writer = new Database(join(h.app.home, 'hermetic.db'));
    writer.prepare('UPDATE delegations SET removed_from_store = 1, goal = ? WHERE delegation_id = ?').run(long, rows()[0]!.delegation_id);
    writer.close();
    const want = rows();
    const berlin = (s: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).format(new Date(s * 1000));
    for (const width of [1280, 380]) {
      const v = await visit(`/session?id=${encodeURIComponent(parent.id)}&store=${encodeURIComponent(parent.store)}`, { width });
      const { page } = v;
      assert.equal(await page.textContent('#delegations'), `Background delegations (${want.length})`);
      const items = await page.$$eval('.delegation-list > li', (els) => els.map((e) => [(e as HTMLElement).dataset.delegation, e.querySelector('.delegation-state')!.textContent, e.querySelector('.delivery')?.textContent ?? null, e.querySelector('.seq')!.textContent, e.classList.contains('pruned'), e.querySelector('.pruned-mark')?.textContent ?? null]));
      assert.deepEqual(items, want.map((d, i) => [d.delegation_id, d.state, `delivery: ${d.delivery_state}${d.delivery_attempts > 0 ? ` (${d.delivery_attempts} attempt${d.delivery_attempts === 1 ? '' : 's'})` : ''}`,
        items[i]![3], i === 0, i === 0 ? 'pruned by Hermes' : null]));
      want.forEach((d, i) => assert.ok(String(items[i]![3]).startsWith(`dispatched ${berlin(d.dispatched_at)} · ran `), String(items[i]![3])));
      // The long goal: its first line cut, the whole in the title and inside, closed; markup made no element.
      const first = '.delegation-list > li:first-child details.goal';
      assert.equal(await page.$eval(first, (d) => (d as HTMLDetailsElement).open), false);
      assert.equal(await page.getAttribute(`${first} summary`, 'title'), long);
      assert.match((await page.textContent(`${first} summary`))!, /^Research the licensing of every dependency <img src=x onerror=alert\(1\)> and check .*…$/);
      await page.click(`${first} summary`);
      assert.equal(await page.textContent(`${first} .content`), long);
      assert.equal(await page.$$eval('main img', (els) => els.length), 0);
      // The others' goals fit a line: shown whole; what came back beside them.
      for (const [i, d] of want.entries()) {
        if (i === 0) continue;
        const li = `.delegation-list > li:nth-child(${i + 1})`;
        assert.equal(await page.textContent(`${li} .goal`), d.goal);
        if (d.summary) assert.ok((await page.textContent(`${li} .summary`))!.startsWith('Summary: '));
        if (d.error) assert.ok((await page.textContent(`${li} .delegation-error`))!.startsWith('Error: '));
      }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${width}px wide`);
      await v.done();
    }
    // A session that dispatched none: no section.
    const v = await visit(`/session?id=${PLAIN_SESSION}`);
    assert.equal(await v.page.$$eval('section.delegations, #delegations', (els) => els.length), 0);
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
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab');
      seen.push(await focused());
    }
    assert.deepEqual(seen, ['Hermetic usage', 'Overview', 'Tools', 'Report', 'Live updates', 'Dark theme', 'today', 'week', '7d', '30d', 'month', 'all', 'custom', 'model']);
    // Back to "7 d" and press Enter: the period changes.
    await page.focus('button[data-period="7d"]');
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(new URL(page.url()).search, '?period=7d');
    assert.equal(await focused(), '7d', 'the focus stays on the control used');
    // A filter's list: arrow keys browse it without choosing; Enter chooses, and the focus stays on the list.
    await page.focus('select[data-filter="source"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(new URL(page.url()).search, '?period=7d', 'browsing applies nothing');
    const browsed = await page.$eval('select[data-filter="source"]', (e) => (e as HTMLSelectElement).value);
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('source'), browsed);
    assert.equal(await focused(), 'source');
    // Removing its chip hands the focus back to the list.
    await page.focus('[data-chip]');
    await page.keyboard.press('Enter');
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('source'), null);
    assert.equal(await focused(), 'source');
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

  it('usable on a narrow window and at 1280×800: nothing scrolls sideways; from 1280 px every breakdown shows all its columns', async () => {
    for (const width of [380, 1280, 1920]) {
      const v = await visit('/?period=all', { width, height: 800 });
      // The daily chart keeps room for its bars whatever its legend takes (eight models wrap onto lines on a phone).
      const bars = await v.page.evaluate(() => {
        const chart = (window as unknown as { Chart: { getChart(c: HTMLCanvasElement): { chartArea: { top: number; bottom: number } } } }).Chart.getChart(document.querySelector('canvas')!);
        return chart.chartArea.bottom - chart.chartArea.top;
      });
      assert.ok(bars >= 120, `${width}px wide: the bars have ${bars} px`);
      const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `${width}px wide`);
      if (width >= 1280) {
        // Each breakdown's table fits its card: no figure hidden behind a sideways scroll.
        const hidden = await v.page.$$eval('.breakdown .table-wrap', (ws) => ws.map((w) => [w.querySelector('table')?.id, w.scrollWidth - w.clientWidth]));
        assert.equal(hidden.length, 6);
        assert.deepEqual(hidden.filter(([, x]) => (x as number) > 0), [], `${width}px wide`);
        // Two breakdowns a row at 1280 px, three at 1920 px.
        const tops = await v.page.$$eval('.breakdown', (bs) => bs.map((b) => Math.round(b.getBoundingClientRect().top)));
        assert.equal(tops.filter((t) => t === tops[0]).length, width === 1280 ? 2 : 3, `${width}px wide`);
      }
      await v.done();
    }
  });

  it('an error from the server is shown as its sentence and code, not a blank page', async () => {
    const v = await visit('/session?id=no-such-session');
    assert.equal(await v.page.textContent('[role="alert"]'), 'This page could not be shown. The dataset has no session "no-such-session". HERMETIC_WEB_NOT_FOUND');
    await v.discard();
    // A window that cannot be: said, with the controls drawn for it (no stale window line), so it can be mended there.
    const bad = await visit('/?period=custom&since=2999-01-01');
    assert.match((await bad.page.textContent('[role="alert"]'))!, /"since" 2999-01-01 is after now: nothing can have been recorded yet\./);
    assert.equal(await bad.page.$$eval('button[data-period]', (els) => els.length), 7);
    assert.equal(await bad.page.$eval('input[name="since"]', (e) => (e as HTMLInputElement).value), '2999-01-01');
    assert.equal((await bad.page.textContent('.window'))!.trim(), '');
    await bad.page.click('button[data-period="30d"]');
    await settled(bad.page);
    assert.equal(await bad.page.$$eval('[role="alert"]', (els) => els.length), 0, 'mended from the controls');
    await bad.discard();
    // A session page ignores the window: one carried over from a custom period that names no dates still opens.
    const session = await visit(`/session?id=${PLAIN_SESSION}&period=custom`);
    assert.equal(await session.page.$$eval('[role="alert"]', (els) => els.length), 0);
    assert.equal(await session.page.$$eval('.transcript > li', (els) => els.length), 2);
    await session.done();
  });

  it('a text past the cap is marked where it is cut, and its whole opens from the mark; a page past its budget links to its rest', async () => {
    const v = await visit(`/session?id=${HUGE_RESULT_SESSION}`);
    const { page } = v;
    // Opened, its 32,768-character words (a result, an argument, a reasoning of one letter) wrap: nothing scrolls sideways.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { (d as HTMLDetailsElement).open = true; }));
    assert.deepEqual(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), true);
    // The 20 MB tool result: its first 32,768 characters, and the mark under them.
    const result = page.locator('li[data-seq="2"]');
    assert.equal(await result.locator('.content').evaluate((e) => e.textContent!.length), 32_768);
    assert.equal(await result.locator('.cut').textContent(), 'Cut: the first 32,768 of 20,000,000 characters are shown. Show all (20 MB)');
    const whole = await result.locator('.cut a').getAttribute('href');
    assert.equal(whole, `/api/message-text?id=${HUGE_RESULT_SESSION}&store=${encodeURIComponent(h.app.db.prepare('SELECT store FROM sessions WHERE session_id = ?').pluck().get(HUGE_RESULT_SESSION) as string)}&seq=2&field=content`);
    // What the link opens: the whole text, as text (asked for its head here; big-texts.test.ts reads it whole, and the
    // reasoning's link below is opened in a tab).
    assert.deepEqual(await page.evaluate(async (href) => {
      const r = await fetch(href!, { method: 'HEAD' });
      return [r.status, r.headers.get('content-type'), r.headers.get('content-length')];
    }, whole), [200, 'text/plain; charset=utf-8', '20000001']);
    // The call's arguments and the reasoning are cut too; "Show all" on the reasoning opens it whole in a tab.
    const call = page.locator('li[data-seq="1"]');
    assert.deepEqual(await call.locator('.cut').evaluateAll((els) => els.map((e) => [(e as HTMLElement).dataset.field, e.textContent])), [
      ['reasoning', 'Cut: the first 32,768 of 1,000,000 characters are shown. Show all (1.0 MB)'],
      ['arguments', 'Cut: the first 32,768 of 2,000,029 characters are shown. Show all (2.0 MB)'],
    ]);
    assert.equal(await call.locator('pre.args').nth(1).textContent(), '{\n  "command": "ls"\n}', 'the small call is whole, parsed');
    const [tab] = await Promise.all([page.waitForEvent('popup'), call.locator('.cut[data-field="reasoning"] a').click()]);
    await tab.waitForLoadState();
    assert.equal(await tab.evaluate(() => document.body.textContent!.length), 1_000_000);
    await tab.close();
    // Ten calls whose JSON is past the cap: eight listed, and a line with a link to all of them.
    await page.goto(new URL(`/session?id=${MANY_CALLS_SESSION}`, h.app.url).href);
    await settled(page);
    assert.equal(await page.$$eval('li[data-seq="1"] .tool-call', (els) => els.length), 8);
    assert.equal(await page.textContent('li[data-seq="1"] .cut[data-field="tool_calls"]'), 'Cut: 2 more tool calls are not listed. Show all the calls\' JSON (51 KB)');
    // 500 messages of 40 KB (each cut at 32,768 characters): the page of 100 stops at 64 (2 MiB), says so, and links to the rest of the page.
    await page.goto(new URL(`/session?id=${MANY_BIG_SESSION}`, h.app.url).href);
    await settled(page);
    const seqs = () => page.$$eval('.transcript > li', (els) => els.map((e) => Number((e as HTMLElement).dataset.seq)));
    assert.deepEqual(await seqs(), Array.from({ length: 64 }, (_, i) => i));
    assert.equal(await page.textContent('.page-rest'), 'This page stops at #63: its messages reached the 2.1 MB a page carries. Show the rest of page 1, from #64 →');
    await page.click('.page-rest a');
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get('from'), '64');
    assert.deepEqual(await seqs(), Array.from({ length: 36 }, (_, i) => 64 + i));
    assert.equal(await page.$$eval('.page-rest', (els) => els.length), 0);
    // "Later" goes to page 2 from its start.
    await page.click('.pager a[rel="next"] >> nth=0');
    await settled(page);
    assert.deepEqual([new URL(page.url()).searchParams.get('page'), new URL(page.url()).searchParams.get('from')], ['2', null]);
    assert.equal((await seqs())[0], 100);
    await v.done();
  });
});

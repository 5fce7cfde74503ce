// `hermetic web --from postgres://…`: the dashboard over the fleet store. Two machines' datasets shipped by the
// PostgreSQL sink into one throwaway cluster; the dashboard's endpoints equal `hermetic report --from` (the same plans)
// for the same window, the breakdown by machine splits the totals into each machine's own report, a session's view
// equals the one its machine's own dashboard gives (its background delegations too; none from a fleet store before
// their table), an id two machines hold asks for the machine, and a store that cannot be reached answers a code and a
// sentence without the password. Big texts (decision 0088) are cut, paged and given whole as the dataset does it. The
// overview counts the sessions Hermes recorded no cost for (decision 0090) and the values the forwarder repaired
// (decision 0092) as each machine's dataset does.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { closeSharedBrowser, sharedBrowser } from '../../shared/testing/browser.js';
import { sharedPostgres, type PgCluster } from '../../shared/testing/postgres.js';
import { webCommand } from '../cli/web.js';
import { Zone } from '../ledger/zone.js';
import { planReport } from '../report/query.js';
import { runPostgres } from '../report/postgres.js';
import { resolveWindow, rowIssuesIn, uncostedIn, usageReport, type ReportRequest, type UsageReport } from '../report/index.js';
import { readFleet } from '../sinks/postgres/read.js';
import { generatedDataset, shipDatasets } from '../sinks/postgres/testing/fleet.js';
import type { Origin } from '../sinks/remote/contract.js';
import { postgresSource } from './data/postgres.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer, type WebServer } from './server.js';
import { BIG_SESSION_TEXTS, DASHBOARD_NOW, inflateSessionTexts, uncostSessions } from './testing.js';
import { TITLE_CAP } from './data/rows.js';
import { printed } from '../../shared/testing/console.js';
import { spendUnit } from './handlers.js';

const ZONE = new Zone('Europe/Berlin');
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'gateway-b' };
const C: Origin = { machineId: 'c'.repeat(32), hostname: 'laptop-c' };
let pg: PgCluster;
let cleanup: () => void;
let dbA: Database.Database;
let dbB: Database.Database;
let fleetUrl: string;
/** A's dataset shipped twice, as A and as C: every session id is held by two machines. */
let twinUrl: string;
const servers: WebServer[] = [];
/** Sessions of machine A left with no cost recorded. */
const UNCOSTED = 3;

before(async () => {
  pg = await sharedPostgres();
  const made = tempDir('hermetic-web-fleet-');
  cleanup = made.cleanup;
  const [a, b] = ([['a', 50], ['b', 30]] as const).map(([name, sessions]) =>
    generatedDataset(join(made.dir, name), { sessions, seed: `web-fleet-${name}`, end: DASHBOARD_NOW, timeZone: ZONE.name }));
  // Some of A's sessions of 20 to 10 days back with no cost recorded (decision 0090), B's all costed.
  uncostSessions(a!, UNCOSTED);
  dbA = new Database(a!, { readonly: true });
  dbB = new Database(b!, { readonly: true });
  fleetUrl = pg.createDatabase();
  twinUrl = pg.createDatabase();
  await shipDatasets(fleetUrl, [[a!, A], [b!, B]]);
  await shipDatasets(twinUrl, [[a!, A], [a!, C]]);
});
after(async () => {
  await closeSharedBrowser();
  await Promise.all(servers.map((s) => s.close()));
  dbA.close();
  dbB.close();
  cleanup();
});

async function serve(source: Parameters<typeof startWebServer>[0]['source']): Promise<string> {
  const server = await startWebServer({ source, port: 0, now: () => DASHBOARD_NOW * 1000, onError: (e) => { throw e; } });
  servers.push({ ...server, close: async () => { await server.close(); await source.close(); } });
  return server.url;
}

async function api(base: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, base));
  return { status: res.status, body: await res.json() };
}

const fleetReport = (url: string, request: ReportRequest) => readFleet(url, (c, d) => runPostgres(c, planReport(request, ZONE, d), d));

/** Costs are sums of doubles added in another order: equal to 1e-6. */
const rounded = (r: unknown) => JSON.parse(JSON.stringify(r, (k, v) => (typeof v === 'number' && k.endsWith('_usd') ? Math.round(v * 1e6) / 1e6 : v))) as UsageReport;

const windowOf = (flags: Parameters<typeof resolveWindow>[0]): ReportRequest => {
  const w = resolveWindow(flags, DASHBOARD_NOW, ZONE);
  return { since: w.since, until: w.until };
};

describe('hermetic web over the fleet store', () => {
  let fleet: string;
  before(async () => {
    fleet = await serve(postgresSource(fleetUrl, ZONE));
  });

  for (const [query, flags] of [['', { period: '30d' }], ['period=7d', { since: '7d' }], ['period=all&source=cli', { period: 'all' }]] as const) {
    it(`?${query || '(30 days)'}: overview, daily, sessions, breakdowns and any grouping equal the fleet report`, async () => {
      const request: ReportRequest = { ...windowOf(flags), ...(query.includes('source=cli') ? { filter: { source: ['cli'] } } : {}) };
      const q = query ? `?${query}` : '';
      const amp = query ? `&${query}` : '';
      const { cache_hit_rate: _rate, row_issues, uncosted, unread, unread_unknown, ...overview } = (await api(fleet, `/api/overview${q}`)).body;
      // Both machines' forwarders say what they left unread (decision 0105).
      assert.deepEqual(unread_unknown, { machines: 0, of: 2, names: [] });
      assert.deepEqual(overview, await fleetReport(fleetUrl, request));
      // The values each machine's forwarder repaired (decision 0092): each machine's own count, added up.
      const [issuesA, issuesB] = [rowIssuesIn(dbA, request), rowIssuesIn(dbB, request)];
      assert.deepEqual(row_issues, { entries: issuesA.entries + issuesB.entries, sessions: issuesA.sessions + issuesB.sessions });
      if (query === '') assert.ok(row_issues.entries > 0, 'the generated stores have values to repair');
      // The sessions Hermes recorded no cost for: each machine's own count for the window and filter, added up.
      assert.equal(uncosted, uncostedIn(dbA, request) + uncostedIn(dbB, request));
      // A's made so, in 30 days, beside B's own unpriced sessions (its local model's: decision 0132).
      if (query === '') assert.equal(uncosted - uncostedIn(dbB, request), UNCOSTED, 'A\'s, in 30 days');
      assert.equal(unread, null, 'nor what each machine left unread');
      assert.ok((overview.totals.sessions ?? 0) > 0, 'the window has usage');
      const { hours: _hours, ...daily } = (await api(fleet, `/api/daily${q}`)).body;
      assert.deepEqual(daily, await fleetReport(fleetUrl, { ...request, by: [spendUnit(request), 'model'] }));
      assert.deepEqual((await api(fleet, `/api/sessions?top=5${amp}`)).body, await fleetReport(fleetUrl, { ...request, by: ['session'], top: 5, locate: true }));
      for (const by of ['model', 'task', 'machine']) {
        assert.deepEqual((await api(fleet, `/api/breakdown?by=${by}${amp}`)).body, await fleetReport(fleetUrl, { ...request, by: [by], top: 10 }), by);
      }
      assert.deepEqual((await api(fleet, `/api/report?by=machine&by=model${amp}`)).body, await fleetReport(fleetUrl, { ...request, by: ['machine', 'model'] }));
      // By command the page's read gathers the calls into a table of its own (decision 0159): the rows of the plain read.
      const commands = (await api(fleet, `/api/report?by=command&by=machine${amp}`)).body;
      assert.deepEqual(commands, await fleetReport(fleetUrl, { ...request, by: ['command', 'machine'] }));
      if (query === '') assert.ok(commands.totals.commands!.tool_calls > 0, 'the window has terminal calls');
    });
  }

  it('the breakdown by machine is each machine\'s own report; the options say it is the fleet', async () => {
    const request = windowOf({ period: 'all' });
    const rows = (await api(fleet, '/api/breakdown?by=machine&period=all')).body.rows as Record<string, unknown>[];
    assert.deepEqual(rows.map((r) => [r.machine, r.machine_id]).sort(), [[B.hostname, B.machineId], [A.hostname, A.machineId]].sort());
    for (const [origin, db] of [[A, dbA], [B, dbB]] as const) {
      const own = usageReport(db, request).totals;
      const row = rows.find((r) => r.machine_id === origin.machineId)!;
      const { machine: _m, machine_id: _id, ...figures } = row;
      // A row carries the ledger's measures (the totals add tool calls, which a breakdown row has not).
      assert.deepEqual(rounded(figures), rounded(Object.fromEntries(Object.keys(figures).map((k) => [k, own[k as keyof typeof own]]))), origin.hostname);
      assert.ok(Object.keys(figures).length >= 9);
    }
    const options = (await api(fleet, '/api/options?period=all')).body;
    assert.equal(options.fleet, true);
    assert.ok(options.values.model.length > 0);
    for (const column of Object.keys(options.values)) {
      assert.deepEqual(options.values[column], (await fleetReport(fleetUrl, { ...request, by: [column] })).rows.map((r) => r[column]), column);
    }
  });

  it('a session\'s view (row, lineage, model changes, delegations, usage, transcript pages) equals its machine\'s own dashboard', async () => {
    const local = await serve(sqliteSource(new Database(dbA.name, { readonly: true })));
    assert.equal((await api(local, '/api/options?period=all')).body.fleet, false);
    const child = dbA.prepare("SELECT session_id FROM sessions WHERE parent_session_id IN (SELECT session_id FROM sessions) AND (lineage_kind IS NULL OR lineage_kind <> 'reset') LIMIT 1").pluck().get() as string;
    const busiest = dbA.prepare('SELECT session_id FROM messages GROUP BY session_id ORDER BY COUNT(*) DESC LIMIT 1').pluck().get() as string;
    // A session that dispatched background delegations: the fleet's rows of them are its machine's (decision 0054).
    const delegating = dbA.prepare('SELECT parent_session_id FROM delegations WHERE parent_session_id IN (SELECT session_id FROM sessions) GROUP BY parent_session_id ORDER BY COUNT(*) DESC LIMIT 1').pluck().get() as string | undefined;
    assert.ok(delegating, 'machine A\'s generated history has delegations');
    const shown = (await api(fleet, `/api/session?id=${delegating}`)).body.delegations as { delegation_id: string }[];
    assert.deepEqual(shown.map((d) => d.delegation_id), dbA.prepare('SELECT delegation_id FROM delegations WHERE parent_session_id = ? ORDER BY dispatched_at, delegation_id').pluck().all(delegating));
    assert.ok(shown.length > 0);
    // The child's parent too: its view adds up its descendants (decision 0110), on the fleet as on the machine.
    const parent = dbA.prepare('SELECT parent_session_id FROM sessions WHERE session_id = ?').pluck().get(child) as string;
    for (const id of [child, busiest, delegating, parent]) {
      for (const page of ['', '&page_size=7&page=2']) {
        const [mine, theirs] = [(await api(fleet, `/api/session?id=${id}${page}`)), (await api(local, `/api/session?id=${id}${page}`))];
        assert.equal(mine.status, 200, JSON.stringify(mine.body));
        assert.deepEqual({ ...mine.body, usage: rounded(mine.body.usage), lineage_usage: rounded(mine.body.lineage_usage) }, { ...theirs.body, usage: rounded(theirs.body.usage), lineage_usage: rounded(theirs.body.lineage_usage) }, `${id}${page}`);
        if (id === parent) assert.ok(mine.body.lineage_usage?.descendants > 0, 'the parent has descendants');
      }
    }
    const tools = (await api(fleet, '/api/tools?period=all')).body;
    assert.deepEqual({ ...tools, slowest: undefined }, { ...(await fleetReport(fleetUrl, { ...windowOf({ period: 'all' }), by: ['tool'] })), slowest: undefined });
    assert.ok(tools.slowest.length > 0 && tools.slowest.every((s: { seconds: number }) => s.seconds >= 0));
  });
});

describe('the fleet\'s page in Chromium', () => {
  /**
   * The dashboard over `source` opened in Chromium at `path` and drawn; `check` runs on the page, which is closed after.
   * No console error or warning, no page error and no request to another origin may happen meanwhile.
   */
  async function inBrowser(source: Parameters<typeof serve>[0], path: string, check: (page: Page) => Promise<void>): Promise<void> {
    const url = await serve(source);
    const browser = await sharedBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => { if (new URL(r.url()).origin !== new URL(url).origin) problems.push(`request to ${r.url()}`); });
    try {
      await page.goto(new URL(path, url).href);
      await drawn(page);
      await check(page);
    } finally {
      await context.close();
    }
    assert.deepEqual(problems, []);
  }

  const drawn = (page: Page) => page.waitForFunction(() => document.documentElement.dataset.ready === location.pathname + location.search);

  it('shows the breakdown by machine, its figures the fleet report\'s, beside the others; no console error, no other origin', async () => {
    await inBrowser(postgresSource(fleetUrl, ZONE), '/?period=all', async (page) => {
      const cells = await page.$$eval('#breakdown-machine tbody tr', (rows) => rows.map((tr) => [tr.querySelector('th')!.textContent, (tr.querySelector('[data-column="cost_usd"]') as HTMLElement).dataset.value]));
      const want = await fleetReport(fleetUrl, { ...windowOf({ period: 'all' }), by: ['machine'], top: 10 });
      assert.deepEqual(cells, want.rows.map((r) => [r.machine, String(r.cost_usd)]));
      assert.equal(await page.$$eval('section.breakdown', (s) => s.length), 7);
      // A machine is not a filter: its names are not links that would narrow the page to it.
      assert.equal(await page.$$eval('#breakdown-machine a', (a) => a.length), 0);
    });
  });

  it('a top session\'s link names its machine: where every id is held by two machines it opens that machine\'s session', async () => {
    await inBrowser(postgresSource(twinUrl, ZONE), '/?period=all', async (page) => {
      await page.click('#sessions-table tbody tr:first-child a');
      await drawn(page);
      const params = new URL(page.url()).searchParams;
      assert.ok([A.machineId, C.machineId].includes(params.get('machine')!), `machine=${params.get('machine')}`);
      assert.equal(params.get('store'), dbA.prepare('SELECT store FROM sessions WHERE session_id = ?').pluck().get(params.get('id')));
      // The transcript is there, not the refusal that names both machines.
      assert.equal(await page.$$eval('.transcript > li', (els) => els.length > 0), true);
      assert.equal(await page.$$eval('.error, [role="alert"]', (els) => els.map((e) => e.textContent).filter((t) => t && /Two machines/.test(t)).length), 0);
    });
  });

  it('a machine whose forwarder does not say what it left unread: the overview says how many of the fleet\'s machines (decision 0105)', async () => {
    // C's row taken away, as a forwarder before dataset version 13 never sends one (the later tests of this fleet read
    // sessions, or as a role that may not read the table).
    pg.psql(`DELETE FROM hermetic.backfill_unread WHERE machine_id = '${C.machineId}'`, twinUrl.split('/').pop()!);
    const twins = await serve(postgresSource(twinUrl, ZONE));
    const o = (await api(twins, '/api/overview?period=all')).body;
    assert.deepEqual([o.unread, o.unread_unknown], [null, { machines: 1, of: 2, names: [C.hostname] }]);
    await inBrowser(postgresSource(twinUrl, ZONE), '/?period=all', async (page) => {
      const notes = await page.$$eval('[data-figure="unread_unknown"]', (els) => els.map((e) => [(e as HTMLElement).dataset.value, e.textContent]));
      assert.deepEqual(notes, [['1', '1 of the fleet\'s 2 machines (laptop-c) does not say which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it); the other machine left none unread in this window.']]);
    });
    // Where every machine says, nothing: { machines: 0 } (the first test), which the page leaves out as it does a 0.
  });

  it('a reader role granted SELECT before row_issues, backfill_unread and delegations were added: the overview says which notes it left out and the GRANT; a session page shows its transcript, the delegations withheld (decisions 0102, 0105)', async () => {
    const db = twinUrl.split('/').pop()!;
    const role = `reader_${db}`;
    const asRole = pg.readerRole(twinUrl, role, ['row_issues', 'backfill_unread', 'delegations']);
    await inBrowser(postgresSource(asRole, ZONE), '/?period=all', async (page) => {
      const notes = await page.$$eval('[data-figure="withheld"]', (els) => els.map((e) => [(e as HTMLElement).dataset.value, e.textContent]));
      assert.deepEqual(notes.map(([table]) => table), ['row_issues', 'backfill_unread']);
      for (const [table, text] of notes) assert.ok(text!.includes(`GRANT SELECT ON "hermetic"."${table}" TO ${role};`), text!);
      assert.equal(await page.$$eval('[data-figure="row_issues"]', (els) => els.length), 0);
      assert.equal(await page.$$eval('[data-figure="unread_unknown"]', (els) => els.length), 0, 'not known where the unread note is withheld');
    });
    // A session that dispatched delegations: its page, transcript and all, with a note in place of the delegations.
    const id = dbA.prepare('SELECT parent_session_id FROM delegations WHERE parent_session_id IN (SELECT session_id FROM sessions) LIMIT 1').pluck().get() as string;
    await inBrowser(postgresSource(asRole, ZONE), `/session?id=${id}&machine=${A.machineId}`, async (page) => {
      assert.ok(await page.$$eval('.transcript > li', (els) => els.length) > 0, 'the transcript is shown');
      assert.equal(await page.$$eval('section.delegations', (els) => els.length), 0);
      const notes = await page.$$eval('[data-figure="withheld"]', (els) => els.map((e) => [(e as HTMLElement).dataset.value, e.textContent]));
      assert.deepEqual(notes.map(([table]) => table), ['delegations']);
      assert.match(notes[0]![1]!, /^This role may not read the fleet's delegations table, so whether this session dispatched background delegations, and which, is not shown here\. Have the schema's owner run: GRANT SELECT ON "hermetic"\."delegations" TO /);
      assert.equal(await page.$$eval('.error, [role="alert"]', (els) => els.length), 0);
    });
    // The owner's page lists them, with nothing withheld.
    const owner = (await api(await serve(postgresSource(twinUrl, ZONE)), `/api/session?id=${id}&machine=${A.machineId}`)).body;
    assert.ok(Array.isArray(owner.delegations) && owner.delegations.length > 0 && owner.withheld === undefined, JSON.stringify(owner.delegations));
  });
});

describe('following the fleet (decision 0119)', () => {
  it('/api/version moves when a machine ships and only then; null for a role that may not read progress, and without the table', async () => {
    const url = pg.createDatabase();
    const db = new URL(url).pathname.slice(1);
    await shipDatasets(url, [[dbA.name, A]]);
    const server = await serve(postgresSource(url, ZONE));
    const version = async (base = server) => (await api(base, '/api/version')).body as { version: string | null; refresh_ms: number };
    const first = await version();
    assert.equal(typeof first.version, 'string');
    assert.equal(first.refresh_ms, 5000);
    await api(server, '/api/overview?period=all');
    assert.deepEqual(await version(), first);
    await shipDatasets(url, [[dbB.name, B]]);
    const second = await version();
    assert.notEqual(second.version, first.version);
    const asRole = await serve(postgresSource(pg.readerRole(url, `follower_${db}`, ['progress']), ZONE));
    assert.deepEqual(await version(asRole), { version: null, refresh_ms: 5000 });
    pg.psql('DROP TABLE hermetic.progress', db);
    assert.deepEqual(await version(), { version: null, refresh_ms: 5000 });
  });
});

describe('refusals', () => {
  it('an id two machines hold: 400 naming both machines; with machine= it is that machine\'s session', async () => {
    const twins = await serve(postgresSource(twinUrl, ZONE));
    const id = dbA.prepare('SELECT session_id FROM sessions LIMIT 1').pluck().get() as string;
    const both = await api(twins, `/api/session?id=${id}`);
    assert.equal(both.status, 400);
    assert.equal(both.body.error.code, 'HERMETIC_WEB_INVALID');
    assert.match(both.body.error.message, new RegExp(`^Two machines hold session "${id}" \\(laptop-a and laptop-c\\); name one with machine=a{32} or machine=c{32}\\.$`));
    const one = await api(twins, `/api/session?id=${id}&machine=${C.machineId}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.session.session_id, id);
    assert.equal((await api(twins, `/api/session?id=nope&machine=${C.machineId}`)).status, 404);
  });

  it('a fleet store from before the delegations table (fleet schema 1): a session\'s view has none, and is otherwise whole', async () => {
    const url = pg.createDatabase();
    await shipDatasets(url, [[dbA.name, A]]);
    pg.psql('DROP TABLE hermetic.delegations', new URL(url).pathname.slice(1));
    const old = await serve(postgresSource(url, ZONE));
    const id = dbA.prepare('SELECT parent_session_id FROM delegations WHERE parent_session_id IN (SELECT session_id FROM sessions) LIMIT 1').pluck().get() as string;
    const view = await api(old, `/api/session?id=${id}`);
    assert.equal(view.status, 200, JSON.stringify(view.body));
    assert.deepEqual(view.body.delegations, []);
    assert.equal(view.body.session.session_id, id);
  });

  it('a fleet store nobody answers at: 503 HERMETIC_FLEET_UNAVAILABLE with a sentence, never the password; the server keeps serving', async () => {
    const down = await serve(postgresSource(`postgres://u:not-${pg.password}@127.0.0.1:1/fleet`, ZONE));
    const r = await api(down, '/api/overview');
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, 'HERMETIC_FLEET_UNAVAILABLE');
    assert.ok(!JSON.stringify(r.body).includes(pg.password), JSON.stringify(r.body));
    assert.match(r.body.error.message, /ECONNREFUSED.*; nothing was read; try again when it answers\.$/);
    assert.equal((await fetch(new URL('/', down))).status, 200);
  });

  it('a database without the fleet\'s tables: HERMETIC_FLEET_SCHEMA says to run a forwarder with --sink first', async () => {
    const empty = await serve(postgresSource(pg.createDatabase(), ZONE));
    const r = await api(empty, '/api/overview');
    assert.equal(r.body.error.code, 'HERMETIC_FLEET_SCHEMA');
    assert.match(r.body.error.message, /run a forwarder with --sink/);
  });

  it('hermetic web --from: a fleet URL starts it over the fleet; anything else is refused with exit 2', async () => {
    let started: WebServer | undefined;
    const { value, out } = await printed(() => webCommand(['--from', fleetUrl, '--port', '0'], { now: () => DASHBOARD_NOW * 1000, started: (s) => { started = s; } }));
    assert.equal(value, 0);
    assert.ok(started);
    servers.push(started);
    assert.match(out.join('\n'), /^hermetic web: the usage dashboard of the fleet store is at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl-C stops it\)$/);
    assert.equal((await api(started.url, '/api/options')).body.fleet, true);
    await assert.rejects(webCommand(['--from', `mysql://u:${pg.password}@h/db`]), (e: Error & { code?: string }) => e.code === 'HERMETIC_CLI_USAGE' && !e.message.includes(pg.password) && /postgres:\/\//.test(e.message));
  });
});

describe('big texts in the fleet store (decisions 0088, 0094)', () => {
  let local: string;
  let fleetBig: string;
  let id: string;
  let child: string;
  /** The dataset shipped, read-only (opened before its folder goes). */
  let bigDb: Database.Database;
  after(() => bigDb.close());
  let withCalls: number;
  before(async () => {
    // A's dataset with one session's texts made big (each message's content and reasoning 40,000 characters, and one
    // message's calls' JSON 50 KB), shipped as it is: the fleet store holds the very texts the dataset holds.
    const made = tempDir('hermetic-web-fleet-big-');
    const path = join(made.dir, 'big.db');
    dbA.prepare('VACUUM INTO ?').run(path);
    const db = new Database(path);
    id = db.prepare('SELECT session_id FROM messages GROUP BY session_id ORDER BY COUNT(*) DESC LIMIT 1').pluck().get() as string;
    const many = (n: number, c: string) => `replace(hex(zeroblob(${n / 2})), '0', '${c}')`;
    db.prepare(`UPDATE messages SET content = seq || ' é' || ${many(40_000, 'c')}, reasoning = ${many(40_000, 'r')} WHERE session_id = ?`).run(id);
    withCalls = db.prepare('SELECT MIN(seq) FROM messages WHERE session_id = ? AND tool_calls IS NOT NULL').pluck().get(id) as number;
    db.prepare(`UPDATE messages SET tool_calls = '[{"id":"c1","type":"function","function":{"name":"write","arguments":"{\\"text\\": \\"' || ${many(50_000, 'a')} || '\\"}"}},{"call_id":"c2","name":"ls","arguments":{"k":1}},"junk"]'
      WHERE session_id = ? AND seq = ?`).run(id, withCalls);
    // Its own texts far past their caps too (decision 0094), and another session of its store made its child.
    child = db.prepare('SELECT session_id FROM sessions WHERE session_id <> ? AND store = (SELECT store FROM sessions WHERE session_id = ?) ORDER BY session_id LIMIT 1').pluck().get(id, id) as string;
    inflateSessionTexts(db, id, child);
    db.close();
    fleetBig = pg.createDatabase();
    await shipDatasets(fleetBig, [[path, A]]);
    local = await serve(sqliteSource(new Database(path, { readonly: true })));
    bigDb = new Database(path, { readonly: true });
    after(made.cleanup);
  });

  it('a session\'s pages equal its machine\'s own dashboard\'s: texts cut with their lengths, pages stopped at 2 MiB, from', async () => {
    const fleet = await serve(postgresSource(fleetBig, ZONE));
    const first = (await api(local, `/api/session?id=${id}&page_size=500`)).body.transcript;
    assert.ok(first.next_from !== null && first.messages.length < first.total, 'the page stopped at its budget');
    const cut = first.messages.find((m: { seq: number }) => m.seq === withCalls);
    assert.deepEqual(cut.tool_calls.map((c: { id: string; name: string; cut: unknown }) => [c.id, c.name, c.cut]), [['c1', 'write', { characters: 50_012, bytes: 50_012 }], ['c2', 'ls', null], [null, null, null]]);
    assert.deepEqual(cut.tool_calls[1].arguments, { k: 1 });
    assert.deepEqual(cut.cut.content, { characters: 40_002 + String(withCalls).length, bytes: 40_003 + String(withCalls).length });
    for (const query of ['&page_size=500', `&page_size=500&from=${first.next_from}`, '&page_size=7&page=2', '']) {
      const [mine, theirs] = [(await api(fleet, `/api/session?id=${id}${query}`)), (await api(local, `/api/session?id=${id}${query}`))];
      assert.equal(mine.status, 200, JSON.stringify(mine.body).slice(0, 300));
      assert.deepEqual({ ...mine.body, usage: rounded(mine.body.usage) }, { ...theirs.body, usage: rounded(theirs.body.usage) }, query);
    }
  });

  it('its own texts far past their caps: its view, its child\'s and the lists of sessions cut them as the dataset does, and stay small; /api/session-text gives them whole alike', async () => {
    const fleet = await serve(postgresSource(fleetBig, ZONE));
    const t = BIG_SESSION_TEXTS;
    const titleCut = { title: { characters: t.title, bytes: t.title + 1 } };
    // The session's view (its transcript's texts are big too: the page is bounded by 0088's budget) and its child's.
    for (const [which, query] of [[id, '&page_size=1'], [child, '']] as const) {
      const [mine, theirs] = [await api(fleet, `/api/session?id=${which}${query}`), await api(local, `/api/session?id=${which}${query}`)];
      assert.deepEqual({ ...mine.body, usage: rounded(mine.body.usage) }, { ...theirs.body, usage: rounded(theirs.body.usage) }, which);
      const row = which === id ? mine.body.session : mine.body.parent;
      assert.deepEqual([[...row.title].length, row.cut.title], [TITLE_CAP, titleCut.title], which);
    }
    const own = (await api(fleet, `/api/session?id=${id}&page_size=1`)).body.session;
    assert.deepEqual([own.attributes, own.cut.cwd, own.cut.attributes, own.system_prompt_length], [null, { characters: t.cwd, bytes: t.cwd }, { characters: t.attributes, bytes: t.attributes }, { characters: t.system_prompt, bytes: t.system_prompt }]);
    // The lists: the fleet's rows are the dataset's, with the machine; the title cut with its whole length.
    for (const path of ['/api/sessions?period=all&top=1000000', '/api/report?period=all&by=session&by=model']) {
      const [mine, theirs] = [await fetch(new URL(path, fleet)), await fetch(new URL(path, local))];
      const [m, l] = [Buffer.from(await mine.arrayBuffer()), Buffer.from(await theirs.arrayBuffer())];
      assert.ok(m.length < 50_000, `${path}: ${m.length} bytes`);
      const [mb, lb] = [JSON.parse(m.toString()), JSON.parse(l.toString())];
      assert.deepEqual(rounded({ ...mb, rows: mb.rows.map(({ machine_id: _m, ...r }: Record<string, unknown>) => r) }), rounded(lb), path);
      assert.deepEqual(mb.rows.find((r: { session_id: string }) => r.session_id === id).cut, titleCut, path);
    }
    // A list stopped at its bytes: the fleet keeps the rows the dataset keeps, and sums the rest alike.
    const bounded = { ...windowOf({ period: 'all' }), by: ['session'], top: 1000, bounds: { titleCharacters: TITLE_CAP, bytes: 1500 } };
    const fromFleet = await fleetReport(fleetBig, bounded);
    const fromDataset = usageReport(bigDb, bounded);
    assert.ok(fromFleet.stopped!.rows >= 1 && fromFleet.rows.at(-1)!.other_rows !== undefined, 'the list stopped');
    assert.deepEqual(rounded({ ...fromFleet, rows: fromFleet.rows.map(({ machine_id: _m, ...r }) => r) }), rounded(fromDataset));
    for (const field of ['title', 'cwd', 'system_prompt', 'attributes', 'git_branch']) {
      const [mine, theirs] = await Promise.all([fleet, local].map(async (base) => {
        const res = await fetch(new URL(`/api/session-text?id=${id}&field=${field}`, base));
        return { status: res.status, length: res.headers.get('content-length'), body: Buffer.from(await res.arrayBuffer()) };
      }));
      assert.deepEqual(mine, theirs, field);
      if (field !== 'git_branch') assert.equal(mine!.length, String(field === 'title' ? t.title + 1 : t[field as 'cwd']), field);
    }
  });

  it('/api/message-text gives the same whole texts, byte for byte; what is not there is refused alike', async () => {
    const fleet = await serve(postgresSource(fleetBig, ZONE));
    for (const query of [`seq=${withCalls}&field=content`, `seq=${withCalls}&field=reasoning`, `seq=${withCalls}&field=tool_calls`, `seq=${withCalls}&field=arguments&call=0`, `seq=${withCalls}&field=arguments&call=1`]) {
      const [mine, theirs] = await Promise.all([fleet, local].map(async (base) => {
        const res = await fetch(new URL(`/api/message-text?id=${id}&${query}`, base));
        return { status: res.status, length: res.headers.get('content-length'), body: Buffer.from(await res.arrayBuffer()) };
      }));
      assert.equal(mine!.status, 200, query);
      assert.equal(mine!.length, String(mine!.body.length), query);
      assert.deepEqual(mine, theirs, query);
    }
    for (const query of [`seq=${withCalls}&field=arguments&call=2`, `seq=${withCalls}&field=arguments&call=3`, 'seq=100000&field=content', `seq=${withCalls}&field=tool_calls&call=0`]) {
      const [mine, theirs] = [await api(fleet, `/api/message-text?id=${id}&${query}`), await api(local, `/api/message-text?id=${id}&${query}`)];
      assert.ok(mine.status >= 400, query);
      assert.deepEqual(mine, theirs, query);
    }
  });
});

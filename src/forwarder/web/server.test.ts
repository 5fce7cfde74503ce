// hermetic web's JSON endpoints over real HTTP: each equals `usageReport` (and `hermetic report --json`) for the same
// window and filter, on a generated month of history and on the repository's Hermes fixtures; a session's transcript
// pages through the dataset's messages in order; every refusal has its status, code and sentence; every answer
// carries the Content-Security-Policy; the page and Chart.js are served from our own origin; a session's and its
// messages' attributes (Hermes's other fields) come parsed, and a dataset from before them still answers; a session's
// background delegations are the dataset's rows, and a dataset from before the table answers none.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { reportCommand } from '../cli/report.js';
import { Zone } from '../ledger/zone.js';
import { resolveWindow, rowIssuesIn, uncostedIn, usageReport, type ReportRequest, type ReportRow, type UsageReport } from '../report/index.js';
import { CSP, startWebServer } from './server.js';
import { ATTRIBUTES_SESSION, PLAIN_SESSION, attributesStore, dashboardRig, uncostSessions, type DashboardRig } from './testing.js';
import { sqliteSource } from './data/sqlite.js';
import { printed } from '../../shared/testing/console.js';
import { hoursOf, spendUnit } from './handlers.js';
import { DESCENDANTS_CAP, TITLE_CAP, descendantsSql } from './data/rows.js';

let app: DashboardRig;
/** Sessions of 20 to 10 days back left with no cost recorded (decision 0090): in 30 days, not in 7. */
const UNCOSTED = 5;
before(async () => {
  app = await dashboardRig({ prepare: (home) => { uncostSessions(join(home, 'hermetic.db'), UNCOSTED); } });
});
after(() => app.close());

async function api(path: string, init?: RequestInit & { host?: string }): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(new URL(path, app.url), init);
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text, headers: res.headers };
}

/** The window the report would use for a dashboard period, computed here from the report's own window code. */
function windowOf(period: string, custom: { since?: string; until?: string } = {}, rig = app): ReportRequest {
  const zone = new Zone('Europe/Berlin');
  const flags = period === '7d' ? { since: '7d' } : period === 'custom' ? custom : { period };
  const w = resolveWindow(flags, rig.now, zone);
  return { since: w.since, until: w.until };
}

describe('usage endpoints equal usageReport', () => {
  const cases: { query: string; period: string; custom?: { since?: string; until?: string }; filter?: ReportRequest['filter'] }[] = [
    { query: '', period: '30d' },
    { query: 'period=today', period: 'today' },
    { query: 'period=week', period: 'week' },
    { query: 'period=7d', period: '7d' },
    { query: 'period=month', period: 'month' },
    { query: 'period=all', period: 'all' },
    { query: 'period=custom&since=2026-07-01&until=2026-07-07', period: 'custom', custom: { since: '2026-07-01', until: '2026-07-07' } },
    { query: 'period=all&model=gpt-5&model=claude-opus-4-1', period: 'all', filter: { model: ['gpt-5', 'claude-opus-4-1'] } },
    { query: 'period=30d&source=cli&task=main', period: '30d', filter: { source: ['cli'], task: ['main'] } },
    { query: 'period=all&project=', period: 'all', filter: { project: [''] } },
  ];
  for (const c of cases) {
    it(`?${c.query || '(the default: 30 days)'}`, async () => {
      const request: ReportRequest = { ...windowOf(c.period, c.custom), ...(c.filter ? { filter: c.filter } : {}) };
      const q = c.query ? `?${c.query}` : '';
      const amp = c.query ? `&${c.query}` : '';
      const overview = await api(`/api/overview${q}`);
      const { cache_hit_rate, row_issues, uncosted, unread, ...report } = overview.body;
      assert.equal(unread, null, 'the rig was read whole: nothing left unread');
      const want = usageReport(app.db, request);
      assert.deepEqual(report, want);
      assert.deepEqual(row_issues, rowIssuesIn(app.db, request));
      // The sessions Hermes recorded no cost for, as `hermetic report` counts them for the same window and filter.
      assert.equal(uncosted, uncostedIn(app.db, request));
      if (c.query === 'period=all' || c.query === '') assert.equal(uncosted, UNCOSTED, 'those of 20 to 10 days back');
      if (c.period === '7d' || c.period === 'today') assert.equal(uncosted, 0, 'none this week');
      const prompt = want.totals.input_tokens! + want.totals.cache_read_tokens! + want.totals.cache_write_tokens!;
      assert.equal(cache_hit_rate, prompt ? want.totals.cache_read_tokens! / prompt : null);
      const { hours, ...daily } = (await api(`/api/daily${q}`)).body;
      assert.deepEqual(daily, usageReport(app.db, { ...request, by: [spendUnit(request), 'model'] }));
      // Today is drawn by hour, a week by day (decision 0110); by hour, every hour of the window is named, from its
      // midnight to the hour now is in, each hour with spend among them.
      if (c.period === '7d') assert.deepEqual([daily.by, hours], [['day', 'model'], undefined]);
      if (c.period === 'today') {
        assert.deepEqual(daily.by, ['hour', 'model']);
        assert.equal(hours.length, Math.ceil((request.until! - request.since!) / 3600));
        assert.ok(hours[0].endsWith(' 00:00') && hours.every((x: string, i: number) => i === 0 || x > hours[i - 1]), hours.join());
        assert.ok(daily.rows.every((r) => hours.includes(r.hour)));
      }
      for (const by of ['model', 'provider', 'profile', 'source', 'project', 'task']) {
        assert.deepEqual((await api(`/api/breakdown?by=${by}${amp}`)).body, usageReport(app.db, { ...request, by: [by], top: 10 }), by);
      }
      const sessions = (await api(`/api/sessions?top=5${amp}`)).body;
      assert.deepEqual(sessions, usageReport(app.db, { ...request, by: ['session'], top: 5, locate: true }));
      // Each row says where its session is (the page's link); the CLI's report rows do not.
      for (const r of sessions.rows.filter((x: ReportRow) => x.other_rows === undefined)) assert.equal(r.store, app.db.prepare('SELECT store FROM sessions WHERE session_id = ?').pluck().get(r.session_id));
      assert.ok(usageReport(app.db, { ...request, by: ['session'], top: 5 }).rows.every((r) => !('store' in r)));
      // Trees likewise: each row says where its first session is.
      const trees = (await api(`/api/trees?top=5${amp}`)).body;
      assert.deepEqual(trees, usageReport(app.db, { ...request, by: ['tree'], top: 5, locate: true }));
      for (const r of trees.rows.filter((x: ReportRow) => x.other_rows === undefined)) assert.equal(r.store, app.db.prepare('SELECT store FROM sessions WHERE session_id = ?').pluck().get(r.tree));
      const { slowest, ...tools } = (await api(`/api/tools${q}`)).body;
      assert.deepEqual(tools, usageReport(app.db, { ...request, by: ['tool'] }));
      assert.ok(Array.isArray(slowest));
      if (c.filter === undefined) assert.ok(want.totals.sessions! > 0, 'the window has usage');
    });
  }

  it('/api/report is `hermetic report --json` for the same window, grouping, top and filter', async () => {
    const { out } = await printed(() => reportCommand(['--home', app.home, '--since', '7d', '--by', 'day', '--by', 'source', '--top', '6', '--filter', 'model=gpt-5', '--filter', 'model=claude-opus-4-1', '--filter', 'profile=default', '--json'], { now: () => app.now * 1000 }));
    const cli = JSON.parse(out.join('\n')) as UsageReport;
    const web = await api('/api/report?period=7d&by=day&by=source&top=6&model=gpt-5&model=claude-opus-4-1&profile=default');
    assert.equal(web.status, 200);
    assert.deepEqual(web.body, cli);
    assert.ok(cli.rows.length > 1);
    // By command too (decision 0149): the terminal's calls by program, read through the same plan.
    const commands = await printed(() => reportCommand(['--home', app.home, '--since', '7d', '--by', 'command', '--by', 'source', '--top', '4', '--json'], { now: () => app.now * 1000 }));
    const byCommand = await api('/api/report?period=7d&by=command&by=source&top=4');
    assert.equal(byCommand.status, 200);
    assert.deepEqual(byCommand.body, JSON.parse(commands.out.join('\n')));
    assert.ok((byCommand.body as UsageReport).totals.commands!.tool_calls > 0);
  });

  it('/api/report.csv is `hermetic report --csv` for the same query, saved as a file; by session, long titles cut and marked', async () => {
    const { out } = await printed(() => reportCommand(['--home', app.home, '--since', '7d', '--by', 'weekday', '--by', 'model', '--top', '6', '--filter', 'source=cli', '--csv'], { now: () => app.now * 1000 }));
    const web = await api('/api/report.csv?period=7d&by=weekday&by=model&top=6&source=cli');
    assert.equal(web.status, 200);
    assert.equal(web.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(web.headers.get('content-disposition'), 'attachment; filename="hermetic-report-by-weekday-model.csv"');
    assert.equal(web.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(web.body, `${out.join('\n')}\n`);
    // Without a grouping: the window's one row.
    assert.equal((await api('/api/report.csv?period=all')).headers.get('content-disposition'), 'attachment; filename="hermetic-report.csv"');
    // A grouping asked twice is the report's one grouping, and so is the file's name (decision 0117).
    assert.equal((await api('/api/report.csv?period=all&by=day&by=day')).headers.get('content-disposition'), 'attachment; filename="hermetic-report-by-day.csv"');
    // A title past the cap ends in "…", cut where the JSON cuts it.
    const id = app.db.prepare('SELECT session_id FROM sessions ORDER BY session_id LIMIT 1').pluck().get() as string;
    const writable = new Database(join(app.home, 'hermetic.db'));
    const before = writable.prepare('SELECT title FROM sessions WHERE session_id = ?').pluck().get(id);
    try {
      writable.prepare('UPDATE sessions SET title = ? WHERE session_id = ?').run('t'.repeat(TITLE_CAP + 50), id);
      const csv = (await api(`/api/report.csv?period=all&by=session&session=${id}`)).body as string;
      assert.equal(csv.split('\n')[1]!.split(',')[1], `${'t'.repeat(TITLE_CAP)}…`);
    } finally {
      writable.prepare('UPDATE sessions SET title = ? WHERE session_id = ?').run(before, id);
      writable.close();
    }
    // What the query cannot give is refused as /api/report refuses it.
    const bad = await api('/api/report.csv?by=colour');
    assert.deepEqual([bad.status, bad.body.error.code], [400, 'HERMETIC_REPORT_INVALID']);
  });

  it('the slowest tool calls are the window\'s calls with both times, slowest first', async () => {
    const { body } = await api('/api/tools?period=all&limit=5');
    assert.equal(body.slowest.length, 5);
    const seconds = body.slowest.map((s: { seconds: number }) => s.seconds);
    assert.deepEqual(seconds, [...seconds].sort((a, b) => b - a));
    // Each call to its first result, found here call by call.
    const longest = app.db.prepare(`SELECT MAX((SELECT MIN(r.created_at) FROM parts r WHERE r.store = c.store AND r.session_id = c.session_id
      AND r.part_type = 'tool_result' AND r.tool_result_for = c.tool_call_id) - c.created_at) FROM parts c WHERE c.part_type = 'tool_call'`).pluck().get() as number;
    assert.equal(seconds[0], longest);
  });

  it('/api/options lists each filter\'s values in the window (the report by that column)', async () => {
    const { body } = await api('/api/options?period=7d');
    assert.equal(body.zone, 'Europe/Berlin');
    assert.deepEqual(body.period, usageReport(app.db, windowOf('7d')).period);
    assert.deepEqual(Object.keys(body.values), ['model', 'provider', 'profile', 'source', 'project', 'task']);
    // Read by a query of their own (no sums but cost), the values are the report's rows by that column, in its order.
    for (const period of ['7d', 'all'] as const) {
      const { values } = (await api(`/api/options?period=${period}`)).body;
      for (const column of Object.keys(values)) {
        assert.deepEqual(values[column], usageReport(app.db, { ...windowOf(period), by: [column] }).rows.map((r) => r[column]), `${period} ${column}`);
      }
    }
    // Cut at a limit, they are the report's top rows.
    const source = sqliteSource(app.db);
    for (const column of ['source', 'project', 'model'] as const) {
      const top = usageReport(app.db, { by: [column], top: 3 }).rows.filter((r) => r.other_rows === undefined).map((r) => r[column]);
      assert.deepEqual(await source.values({}, column, 3), top, column);
    }
  });
});

describe('hermetic web --utc', () => {
  it('days, midnights and the zone the page shows are UTC, as `hermetic report --utc` gives them', async () => {
    const served = new Database(join(app.home, 'hermetic.db'), { readonly: true });
    const server = await startWebServer({ source: sqliteSource(served), port: 0, now: () => app.now * 1000, utc: true });
    try {
      const get = async (path: string) => (await fetch(new URL(path, server.url))).json() as Promise<any>;
      const utc = new Zone('UTC');
      for (const period of ['7d', 'month'] as const) {
        const w = resolveWindow(period === '7d' ? { since: '7d' } : { period }, app.now, utc);
        const request: ReportRequest = { since: w.since, until: w.until, utc: true };
        const { hours: _hours, ...daily } = await get(`/api/daily?period=${period}`);
        assert.deepEqual(daily, usageReport(app.db, { ...request, by: [spendUnit(request), 'model'] }), period);
        const options = await get(`/api/options?period=${period}`);
        assert.deepEqual([options.zone, options.period], ['UTC', usageReport(app.db, request).period]);
      }
      // The ledger's own zone gives other days' midnights: the two really differ.
      assert.notDeepEqual((await get('/api/options?period=7d')).period, (await api('/api/options?period=7d')).body.period);
    } finally {
      await server.close();
      served.close();
    }
  });
});

describe('the session endpoint', () => {
  it('pages the live transcript in order; bookkeeping rows marked; usage is the report filtered to the session', async () => {
    const id = app.db.prepare("SELECT session_id FROM messages WHERE kind <> 'message' GROUP BY session_id ORDER BY COUNT(*) DESC LIMIT 1").pluck().get() as string;
    const all = app.db.prepare('SELECT seq, role, kind FROM messages WHERE session_id = ? ORDER BY seq').all(id) as { seq: number; role: string; kind: string }[];
    const first = (await api(`/api/session?id=${id}&page_size=7`)).body;
    assert.equal(first.transcript.total, all.length);
    assert.equal(first.transcript.pages, Math.ceil(all.length / 7));
    const seen = [...first.transcript.messages];
    for (let p = 2; p <= first.transcript.pages; p++) seen.push(...(await api(`/api/session?id=${id}&page_size=7&page=${p}`)).body.transcript.messages);
    assert.deepEqual(seen.map((m) => [m.seq, m.role, m.kind, m.bookkeeping]), all.map((m) => [m.seq, m.role, m.kind, m.kind !== 'message']));
    assert.deepEqual(first.usage, usageReport(app.db, { filter: { session: [id] }, by: ['model', 'task'] }));
    assert.equal(first.session.session_id, id);
  });

  it('tool calls carry their parsed arguments; results name their tool', async () => {
    const id = app.db.prepare("SELECT session_id FROM parts WHERE part_type = 'tool_call' LIMIT 1").pluck().get() as string;
    const { body } = await api(`/api/session?id=${id}&page_size=500`);
    const call = body.transcript.messages.flatMap((m: any) => m.tool_calls)[0];
    const part = app.db.prepare("SELECT tool_name, tool_call_id, tool_args FROM parts WHERE session_id = ? AND part_type = 'tool_call' ORDER BY created_at, part_id LIMIT 1").get(id) as { tool_name: string; tool_call_id: string; tool_args: string };
    assert.deepEqual([call.name, call.id, call.arguments], [part.tool_name, part.tool_call_id, JSON.parse(part.tool_args)]);
    const result = body.transcript.messages.find((m: any) => m.role === 'tool');
    assert.ok(result.tool_name && result.tool_call_id);
  });

  it('lineage: a child links to its parent, and the parent lists it among its children', async () => {
    const child = app.db.prepare("SELECT session_id, parent_session_id, lineage_kind FROM sessions WHERE parent_session_id IS NOT NULL AND parent_session_id IN (SELECT session_id FROM sessions) AND (lineage_kind IS NULL OR lineage_kind <> 'reset') LIMIT 1").get() as { session_id: string; parent_session_id: string; lineage_kind: string };
    const view = (await api(`/api/session?id=${child.session_id}`)).body;
    assert.equal(view.parent.session_id, child.parent_session_id);
    assert.equal(view.session.lineage_kind, child.lineage_kind);
    const parent = (await api(`/api/session?id=${child.parent_session_id}`)).body;
    assert.ok(parent.children.some((c: { session_id: string }) => c.session_id === child.session_id));
    // What the parent cost with its descendants (decision 0110): walked here by hand, then reported as one.
    const store = parent.session.store as string;
    const kids = app.db.prepare("SELECT session_id FROM sessions WHERE store = ? AND parent_session_id = ? AND (lineage_kind IS NULL OR lineage_kind <> 'reset')").pluck();
    const below = new Set<string>();
    for (let todo = [child.parent_session_id]; todo.length > 0;) {
      const next = (kids.all(store, todo.pop()) as string[]).filter((id) => id !== child.parent_session_id && !below.has(id));
      for (const id of next) below.add(id);
      todo.push(...next);
    }
    assert.equal(parent.lineage_usage.descendants, below.size);
    assert.equal(parent.lineage_usage.more, false);
    assert.deepEqual(parent.lineage_usage.totals, usageReport(app.db, { filter: { session: [child.parent_session_id, ...below] }, place: { store } }).totals);
    assert.ok(parent.lineage_usage.totals.cost_usd >= parent.usage.totals.cost_usd);
    // A session without children has none.
    const leaf = app.db.prepare('SELECT session_id FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM sessions c WHERE c.store = s.store AND c.parent_session_id = s.session_id) LIMIT 1').pluck().get() as string;
    assert.equal((await api(`/api/session?id=${leaf}`)).body.lineage_usage, null);
  });

  it('descendantsSql: every level but a reset\'s, a loop of parents ends, other stores are not walked, DESCENDANTS_CAP + 1 at most', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE sessions (store TEXT, session_id TEXT, parent_session_id TEXT, lineage_kind TEXT)');
    const put = db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?)');
    for (const [store, id, parent, kind] of [['s', 'root', null, null], ['s', 'a', 'root', 'delegate'], ['s', 'b', 'root', 'compression'], ['s', 'a1', 'a', 'branch'], ['s', 'loop', 'a1', 'child'], ['s', 'a', 'loop', 'child'], ['t', 'x', 'root', 'delegate'],
      // A reset starts another conversation: neither it nor its own children are the root's.
      ['s', 'next', 'root', 'reset'], ['s', 'next-sub', 'next', 'delegate']]) put.run(store, id, parent, kind);
    const walk = db.prepare(descendantsSql(false)).pluck();
    assert.deepEqual((walk.all({ store: 's', session: 'root' }) as string[]).sort(), ['a', 'a1', 'b', 'loop']);
    assert.deepEqual(walk.all({ store: 's', session: 'next' }), ['next-sub']);
    // A loop back to the session itself ends there: the session is not its own descendant.
    assert.deepEqual((walk.all({ store: 's', session: 'a' }) as string[]).sort(), ['a1', 'loop']);
    assert.deepEqual(walk.all({ store: 's', session: 'b' }), []);
    const chain = db.prepare('INSERT INTO sessions VALUES (\'c\', ?, ?, \'compression\')');
    for (let i = 1; i <= DESCENDANTS_CAP + 5; i++) chain.run(`n${i}`, `n${i - 1}`);
    assert.equal(walk.all({ store: 'c', session: 'n0' }).length, DESCENDANTS_CAP + 1);
    db.close();
  });
});

describe('the session endpoint: background delegations (decision 0054)', () => {
  const COLUMNS = 'delegation_id, state, delivery_state, delivery_attempts, dispatched_at, completed_at, delivered_at, duration_seconds, goal, summary, error, removed_from_store';
  const busiest = () => app.db.prepare('SELECT store, parent_session_id AS id FROM delegations WHERE parent_session_id IN (SELECT session_id FROM sessions) GROUP BY store, parent_session_id ORDER BY COUNT(*) DESC, parent_session_id LIMIT 1').get() as { store: string; id: string } | undefined;

  it('a session\'s delegations are the dataset\'s rows it dispatched, by dispatch time; a session that dispatched none has none', async () => {
    const parent = busiest();
    assert.ok(parent, 'the generated history has a delegate scenario with delegations');
    // Each with `cut`: null, none of their texts being past its cap (decision 0094).
    const want = (app.db.prepare(`SELECT ${COLUMNS} FROM delegations WHERE store = ? AND parent_session_id = ? ORDER BY dispatched_at, delegation_id`).all(parent.store, parent.id) as object[]).map((d) => ({ ...d, cut: null }));
    assert.ok(want.length > 0);
    const { body } = await api(`/api/session?id=${parent.id}&store=${encodeURIComponent(parent.store)}`);
    assert.deepEqual(body.delegations, want);
    assert.ok(body.delegations.every((d: { goal: string | null; state: string | null }) => d.goal && d.state));
    const none = app.db.prepare('SELECT session_id FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM delegations d WHERE d.store = s.store AND d.parent_session_id = s.session_id) LIMIT 1').pluck().get() as string;
    assert.deepEqual((await api(`/api/session?id=${none}`)).body.delegations, []);
  });

  it('a dataset from before version 8 (no delegations table, opened read-only, not migrated) still shows its sessions, with no delegations', async () => {
    const parent = busiest()!;
    const { dir, cleanup } = tempDir('hermetic-web-v7-');
    const path = join(dir, 'hermetic.db');
    app.db.prepare('VACUUM INTO ?').run(path);
    const old = new Database(path);
    old.exec('DROP TABLE delegations');
    old.close();
    const source = sqliteSource(new Database(path, { readonly: true }));
    try {
      const view = (await source.session({ id: parent.id, store: parent.store, machine: null }, { page: 1, size: 100, from: null }))!;
      assert.equal(view.session.session_id, parent.id);
      assert.deepEqual(view.delegations, []);
      assert.ok(view.transcript.total > 0);
    } finally {
      await source.close();
      cleanup();
    }
  });
});

describe('the session endpoint: Hermes\'s other fields (attributes, decision 0050)', () => {
  let own: DashboardRig;
  before(async () => {
    own = await dashboardRig({ fixtures: [], extraStores: (dir) => [attributesStore(dir)] });
  });
  after(() => own.close());
  const get = async (path: string): Promise<any> => (await (await fetch(new URL(path, own.url))).json());

  it('the session\'s attributes come parsed, by their Hermes names; who the user is and the credentials do not', async () => {
    const view = await get(`/api/session?id=${ATTRIBUTES_SESSION}`);
    assert.deepEqual(view.session.attributes, {
      chat_type: 'dm', title_source: 'llm', pricing_version: '2026-06-01', tool_names: ['terminal', 'web_search'], last_activity_description: 'running terminal',
      archived: 1, pinned: 1, handoff_state: 'done', handoff_platform: 'telegram', compression_failure_error: 'context window exceeded <img src=x onerror=alert(1)>',
      compression_fallback_streak: 2, model_config: { provider: 'openrouter', base_url: 'openrouter.ai', temperature: 0.2 },
    });
    const stored = own.db.prepare('SELECT attributes FROM sessions WHERE session_id = ?').pluck().get(ATTRIBUTES_SESSION) as string;
    assert.deepEqual(view.session.attributes, JSON.parse(stored));
    const text = JSON.stringify(view);
    for (const secret of ['u-4471', '-100777', 'sk-or-secret', 'alice']) assert.ok(!text.includes(secret), secret);
  });

  it('each message\'s attributes: the platform\'s id, observed, reactions (who gave them as a side, else other); null when none', async () => {
    const { transcript } = await get(`/api/session?id=${ATTRIBUTES_SESSION}`);
    const at = own.db.prepare('SELECT started_at FROM sessions WHERE session_id = ?').pluck().get(ATTRIBUTES_SESSION) as number;
    assert.deepEqual(transcript.messages.map((m: any) => [m.seq, m.role, m.attributes]), [
      [0, 'user', { platform_message_id: '991' }],
      [1, 'user', { observed: 1 }],
      [2, 'assistant', { platform_message_id: '992', reactions: [{ emoji: '👍', author: 'user', at: at + 60, seen: true }, { emoji: '👍', author: 'other', at: at + 90 }, { emoji: '🎉', author: 'assistant', at: at + 120 }] }],
    ]);
    // Where nothing is set (nearly every row): null, on the session and on its messages.
    const plain = await get(`/api/session?id=${PLAIN_SESSION}`);
    assert.equal(plain.session.attributes, null);
    assert.deepEqual(plain.transcript.messages.map((m: any) => m.attributes), [null, null]);
  });

  it('a dataset from before version 7 (no attributes columns) still shows its sessions, with attributes null', async () => {
    const { dir, cleanup } = tempDir('hermetic-web-v6-');
    const path = join(dir, 'hermetic.db');
    own.db.prepare('VACUUM INTO ?').run(path);
    const old = new Database(path);
    old.exec('ALTER TABLE sessions DROP COLUMN attributes; ALTER TABLE messages DROP COLUMN attributes');
    old.close();
    const source = sqliteSource(new Database(path, { readonly: true }));
    try {
      const view = (await source.session({ id: ATTRIBUTES_SESSION, store: null, machine: null }, { page: 1, size: 100, from: null }))!;
      assert.equal(view.session.attributes, null);
      assert.equal(view.session.title, 'Reactions and flags');
      assert.deepEqual(view.transcript.messages.map((m) => [m.seq, m.attributes]), [[0, null], [1, null], [2, null]]);
    } finally {
      await source.close();
      cleanup();
    }
  });
});

describe('refusals', () => {
  const refused = async (path: string, status: number, code: string, message: string, init?: RequestInit) => {
    const r = await api(path, init);
    assert.deepEqual([r.status, r.body], [status, { error: { code, message } }], path);
    assert.equal(r.headers.get('content-security-policy'), CSP);
  };
  it('bad input: 400 with HERMETIC_WEB_INVALID or HERMETIC_REPORT_INVALID and a sentence', async () => {
    await refused('/api/overview?perod=7d', 400, 'HERMETIC_WEB_INVALID', '"perod" is not a parameter of this endpoint; did you mean "period"?');
    await refused('/api/overview?period=fortnight', 400, 'HERMETIC_WEB_INVALID', '"period" must be one of today, week, 7d, 30d, month, all or custom; got "fortnight".');
    await refused('/api/overview?period=7d&since=2026-07-01', 400, 'HERMETIC_WEB_INVALID', '"period" sets the window; give it, or since/until (with period=custom), not both.');
    await refused('/api/overview?period=custom&since=last+week', 400, 'HERMETIC_WEB_INVALID', '"since" must be a duration such as 7d, 4w or 12h, or an ISO date such as 2026-07-01 (or 2026-07-01T09:00); got "last week".');
    await refused('/api/overview?period=custom&since=2026-07-10&until=2026-07-01', 400, 'HERMETIC_WEB_INVALID', 'The window starts after it ends (since 2026-07-10, until 2026-07-01); swap them.');
    await refused('/api/overview?period=custom&since=2999-01-01', 400, 'HERMETIC_WEB_INVALID', '"since" 2999-01-01 is after now: nothing can have been recorded yet.');
    await refused('/api/breakdown?by=tool', 400, 'HERMETIC_WEB_INVALID', '"by" must be one of model, provider, profile, source, project, task, machine, weekday, hour_of_day; got "tool".');
    await refused('/api/report?by=modle', 400, 'HERMETIC_REPORT_INVALID', '"modle" is not a report dimension; did you mean "model"?');
    await refused('/api/report?by=tool&by=model', 400, 'HERMETIC_REPORT_INVALID', 'Tool calls cannot be grouped by model: Hermes records usage per call, not per tool; group tools by hour, day, week, month, weekday, hour_of_day, profile, source, project, session, tree, machine.');
    await refused('/api/sessions?top=0', 400, 'HERMETIC_WEB_INVALID', '"top" must be a whole number from 1 to 1000000; got "0".');
    // Every count a list takes has a maximum, refused past it (decision 0094).
    await refused('/api/sessions?top=1000001', 400, 'HERMETIC_WEB_INVALID', '"top" must be a whole number from 1 to 1000000; got "1000001".');
    await refused('/api/report?by=session&top=1000001', 400, 'HERMETIC_WEB_INVALID', '"top" must be a whole number from 1 to 1000000; got "1000001".');
    await refused('/api/tools?limit=101', 400, 'HERMETIC_WEB_INVALID', '"limit" must be a whole number from 1 to 100; got "101".');
    await refused('/api/session?id=x&page_size=501', 400, 'HERMETIC_WEB_INVALID', '"page_size" must be a whole number from 1 to 500; got "501".');
    await refused('/api/session', 400, 'HERMETIC_WEB_INVALID', 'Name the session: /api/session?id=<session id>.');
    const id = app.db.prepare('SELECT session_id FROM sessions ORDER BY session_id LIMIT 1').pluck().get() as string;
    const pages = (await api(`/api/session?id=${id}&page_size=500`)).body.transcript.pages;
    await refused(`/api/session?id=${id}&page_size=500&page=${pages + 1}`, 400, 'HERMETIC_WEB_INVALID', `Session "${id}" has ${pages} page${pages === 1 ? '' : 's'} of 500 messages; page ${pages + 1} is past its end.`);
  });
  it('what is not there: 404 HERMETIC_WEB_NOT_FOUND; writes are not answered; another host name is refused', async () => {
    await refused('/api/session?id=nope', 404, 'HERMETIC_WEB_NOT_FOUND', 'The dataset has no session "nope".');
    await refused('/api/nothing', 404, 'HERMETIC_WEB_NOT_FOUND', 'There is no endpoint /api/nothing; the endpoints are /api/overview, /api/daily, /api/breakdown, /api/sessions, /api/trees, /api/tools, /api/report, /api/report.csv, /api/options, /api/session, /api/message-text, /api/session-text, /api/version.');
    await refused('/secret.txt', 404, 'HERMETIC_WEB_NOT_FOUND', 'There is no page or file at /secret.txt.');
    await refused('/app/../../package.json', 404, 'HERMETIC_WEB_NOT_FOUND', 'There is no page or file at /package.json.');
    await refused('/api/overview', 405, 'HERMETIC_WEB_METHOD', 'The dashboard only reads: POST /api/overview is not something it answers.', { method: 'POST', body: '{}' });
    // fetch cannot set Host; a DNS-rebinding page would reach us with its own name in it.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(new URL('/api/overview', app.url), { headers: { host: 'evil.example:8650' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject).end();
    });
    assert.deepEqual([rebound.status, JSON.parse(rebound.body)], [404, { error: { code: 'HERMETIC_WEB_NOT_FOUND', message: 'This dashboard answers only as localhost or a loopback address (127.0.0.1, ::1), not as "evil.example"; to answer as another name, start it with --allowed-host NAME.' } }]);
    // A target in absolute form names its host itself: that name must be this machine's too.
    const absolute = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(app.url);
      const req = request({ host: url.hostname, port: url.port, path: 'http://evil.example/api/overview', headers: { host: url.host } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject).end();
    });
    assert.deepEqual([absolute.status, JSON.parse(absolute.body).error.message], [404, 'This dashboard answers only as localhost or a loopback address (127.0.0.1, ::1), not as "evil.example"; to answer as another name, start it with --allowed-host NAME.']);
  });
});

describe('host names', () => {
  /** GET /api/overview with the given Host header (fetch cannot set Host). */
  const withHost = (base: string, host: string) => new Promise<number>((resolve, reject) => {
    request(new URL('/api/overview', base), { headers: { host } }, (res) => resolve(res.resume().statusCode!)).on('error', reject).end();
  });
  /** GET /api/overview with the given Host header: its status and JSON body. */
  const hostAnswer = (base: string, host: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    request(new URL('/api/overview', base), { headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    }).on('error', reject).end();
  });
  it('bound to any loopback address (127.0.0.2, not only 127.0.0.1), another host name is still refused', async () => {
    const server = await startWebServer({ source: sqliteSource(app.db), port: 0, host: '127.0.0.2', now: () => app.now * 1000 });
    try {
      const port = new URL(server.url).port;
      assert.equal(await withHost(server.url, 'evil.example'), 404);
      assert.equal(await withHost(server.url, `127.0.0.2:${port}`), 200);
      assert.equal(await withHost(server.url, `localhost:${port}`), 200);
    } finally {
      await server.close();
    }
  });

  it('bound to the network (0.0.0.0), a name it does not know is refused as on loopback (DNS rebinding), and says how to allow one', async () => {
    const server = await startWebServer({ source: sqliteSource(app.db), port: 0, host: '0.0.0.0', now: () => app.now * 1000 });
    try {
      const base = `http://127.0.0.1:${new URL(server.url).port}/`;
      const rebound = await hostAnswer(base, 'attacker.example:8650');
      assert.equal(rebound.status, 404);
      assert.equal(rebound.body.error.code, 'HERMETIC_WEB_NOT_FOUND');
      assert.match(rebound.body.error.message, /^This dashboard answers only as localhost, any IP address.* not as "attacker\.example"; .*--allowed-host NAME/);
      // Near-misses of its own names, and an absolute-form target naming another host, as on loopback.
      const machine = hostname();
      for (const name of [`${machine}.attacker.example`, `${machine}:1@attacker.example`, `attacker.example:1@${machine}`, 'localhost.', '127.1']) {
        assert.equal((await hostAnswer(base, name)).status, 404, name);
      }
      const absolute = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: new URL(base).port, path: 'http://attacker.example/api/overview', headers: { host: machine } }, (res) => resolve(res.resume().statusCode!)).on('error', reject).end();
      });
      assert.equal(absolute, 404);
      // Its addresses (any IP: the network's names for it are not known), localhost and the machine's own name.
      const port = new URL(base).port;
      const answered = [`127.0.0.1:${port}`, '192.168.1.20', `[::1]:${port}`, '[fe80::1]', 'localhost', `LOCALHOST:${port}`, machine, `${machine.toUpperCase()}:${port}`, `${machine}.`, machine.split('.')[0]!];
      for (const name of answered) assert.equal((await hostAnswer(base, name)).status, 200, name);
      assert.equal(server.answersAs, `localhost, any IP address or this machine's name (${[...new Set([machine, machine.split('.')[0]])].join(', ')})`);
    } finally {
      await server.close();
    }
  });

  it('allowedHosts (--allowed-host) adds names, on the network and on loopback; * answers any; a name that is none is refused at start', async () => {
    for (const host of ['0.0.0.0', '127.0.0.1']) {
      const server = await startWebServer({ source: sqliteSource(app.db), port: 0, host, allowedHosts: ['Dash.Example.', '.corp.example'], now: () => app.now * 1000 });
      try {
        const base = `http://127.0.0.1:${new URL(server.url).port}/`;
        for (const name of ['dash.example', 'DASH.EXAMPLE:8650', 'dash.example.', 'corp.example', 'a.b.corp.example']) assert.equal((await hostAnswer(base, name)).status, 200, `${host} ${name}`);
        for (const name of ['evil.dash.example', 'evilcorp.example', 'corp.example.evil', 'attacker.example']) assert.equal((await hostAnswer(base, name)).status, 404, `${host} ${name}`);
        assert.match((await hostAnswer(base, 'attacker.example')).body.error.message, /, dash\.example or corp\.example and its subdomains, not as "attacker\.example"; to answer as another name, start it with --allowed-host NAME\.$/);
      } finally {
        await server.close();
      }
    }
    const open = await startWebServer({ source: sqliteSource(app.db), port: 0, host: '0.0.0.0', allowedHosts: ['*'], now: () => app.now * 1000 });
    try {
      assert.equal((await hostAnswer(`http://127.0.0.1:${new URL(open.url).port}/`, 'attacker.example')).status, 200);
      assert.equal(open.answersAs, 'any name');
    } finally {
      await open.close();
    }
    await assert.rejects(startWebServer({ source: sqliteSource(app.db), port: 0, host: '0.0.0.0', allowedHosts: ['http://dash.example/'] }), {
      code: 'HERMETIC_OPTIONS_INVALID',
      message: 'Option "allowedHosts" must be a host name (dashboard.example), .example.com for a domain and its subdomains, or * for any name; got "http://dash.example/".',
    });
  });
});

describe('the page and its assets', () => {
  it('the app\'s paths answer the page; its modules and Chart.js come from this server; every answer has the CSP', async () => {
    for (const path of ['/', '/session?id=x', '/tools?period=7d']) {
      const r = await api(path);
      assert.equal(r.status, 200);
      assert.match(r.body, /<script src="\/vendor\/chart\.umd\.js" defer><\/script>/);
      assert.equal(r.headers.get('content-security-policy'), CSP);
      assert.doesNotMatch(r.body, /https?:\/\//, 'no other origin named in the page');
    }
    const chart = await api('/vendor/chart.umd.js');
    assert.equal(chart.status, 200);
    assert.match(chart.headers.get('content-type')!, /^text\/javascript/);
    assert.match(chart.body, /Chart\.js v4\./);
    for (const path of ['/app/app.js', '/app/style.css', '/app/views/overview.js', '/app/icon.svg']) assert.equal((await api(path)).status, 200, path);
  });

  it('the page preloads every module it imports, so the browser fetches them at once, not import by import', async () => {
    const page = (await api('/')).body as string;
    const preloaded = new Set([...page.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]!));
    // Every module reachable from app.js by its static imports (read here from the files the server serves).
    const seen = new Set<string>();
    const visit = async (path: string): Promise<void> => {
      if (seen.has(path)) return;
      seen.add(path);
      const source = (await api(path)).body as string;
      for (const m of source.matchAll(/^import [^'"]*['"](\.{1,2}\/[^'"]+)['"]/gm)) await visit(new URL(m[1]!, `http://x${path}`).pathname);
    };
    await visit('/app/app.js');
    assert.ok(seen.size > 5, `app.js imports its modules (found ${seen.size})`);
    for (const path of seen) assert.ok(preloaded.has(path), `${path} is preloaded`);
    assert.ok(page.indexOf('modulepreload') < page.indexOf('<script type="module"'), 'the preloads come before the module script');
  });

  it('assets carry a validator: an unchanged one is answered 304 with no body, a stale one gets the file', async () => {
    for (const path of ['/app/app.js', '/vendor/chart.umd.js', '/app/style.css']) {
      const first = await api(path);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[\w-]{22}"$/, path);
      assert.equal(first.headers.get('cache-control'), 'no-cache');
      assert.equal((await api(path)).headers.get('etag'), etag, 'the same file, the same validator');
      const again = await api(path, { headers: { 'if-none-match': etag! } });
      assert.equal(again.status, 304, path);
      assert.equal(again.body, '');
      assert.equal(again.headers.get('content-security-policy'), CSP);
      const stale = await api(path, { headers: { 'if-none-match': '"something-else-entirely"' } });
      assert.equal(stale.status, 200);
      assert.equal(stale.body, first.body);
    }
    // The page and the data are never cached.
    assert.equal((await api('/')).headers.get('cache-control'), 'no-store');
    assert.equal((await api('/api/options')).headers.get('cache-control'), 'no-store');
  });
});

describe('on the Hermes fixtures', () => {
  let fixture: DashboardRig;
  before(async () => {
    fixture = await dashboardRig({ fixtures: ['basic', 'channels', 'usage'] });
  });
  after(() => fixture.close());
  it('all time, each endpoint equals usageReport', async () => {
    const get = async (path: string): Promise<any> => (await (await fetch(new URL(path, fixture.url))).json());
    const { cache_hit_rate: _, row_issues, uncosted, unread, ...overview } = await get('/api/overview?period=all');
    assert.equal(unread, null);
    assert.deepEqual(overview, usageReport(fixture.db, {}));
    assert.deepEqual(row_issues, rowIssuesIn(fixture.db, {}));
    assert.equal(uncosted, uncostedIn(fixture.db, {}));
    assert.ok(Number(overview.totals.sessions) > 0);
    assert.deepEqual(await get('/api/daily?period=all'), usageReport(fixture.db, { by: ['day', 'model'] }));
    for (const by of ['model', 'provider', 'profile', 'source', 'project', 'task']) assert.deepEqual(await get(`/api/breakdown?period=all&by=${by}`), usageReport(fixture.db, { by: [by], top: 10 }), by);
    const { slowest: __, ...tools } = await get('/api/tools?period=all');
    assert.deepEqual(tools, usageReport(fixture.db, { by: ['tool'] }));
    const sessions = await get('/api/sessions?period=all&top=3');
    assert.deepEqual(sessions, usageReport(fixture.db, { by: ['session'], top: 3, locate: true }));
    const view = await get(`/api/session?id=${encodeURIComponent(String(sessions.rows[0]!.session_id))}`);
    assert.equal(view.transcript.total, fixture.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ?').pluck().get(String(sessions.rows[0]!.session_id)));
  });

  it('a dataset that changes under it (a forwarder committing) is read afresh: a window\'s totals are kept for one snapshot only', async () => {
    const get = async (path: string): Promise<any> => (await (await fetch(new URL(path, fixture.url))).json());
    const before = (await get('/api/overview?period=all')).totals;
    assert.deepEqual((await get('/api/breakdown?period=all&by=model')).totals, before);
    const writer = new Database(join(fixture.home, 'hermetic.db'));
    const rows = writer.prepare('UPDATE usage_ledger SET input_tokens = input_tokens + 1000').run().changes;
    writer.close();
    assert.ok(rows > 0);
    for (const path of ['/api/breakdown?period=all&by=model', '/api/overview?period=all']) {
      const { totals } = await get(path);
      assert.equal(totals.input_tokens, before.input_tokens + 1000 * rows, path);
      assert.deepEqual(totals, usageReport(fixture.db, {}).totals, path);
    }
  });

  it('/api/version (decision 0119): the same while nothing is written, another once a forwarder commits; how often the page asks', async () => {
    const get = async (): Promise<any> => (await (await fetch(new URL('/api/version', fixture.url))).json());
    const first = await get();
    assert.equal(first.refresh_ms, 5000);
    assert.equal(typeof first.version, 'string');
    await fetch(new URL('/api/overview?period=all', fixture.url)); // reads move nothing
    assert.deepEqual(await get(), first);
    const writer = new Database(join(fixture.home, 'hermetic.db'));
    const retitle = writer.prepare("UPDATE sessions SET title = coalesce(title, '') || '!' WHERE session_id = (SELECT MIN(session_id) FROM sessions)");
    assert.equal(retitle.run().changes, 1);
    const second = await get();
    retitle.run();
    writer.close();
    const third = await get();
    assert.notEqual(second.version, first.version);
    assert.notEqual(third.version, second.version);
    // Two servers started over the same data (one stopped and started again on the same port, say): their connections'
    // counters start alike, yet the versions differ, so a page open across the restart looks again.
    const connections = [0, 1].map(() => new Database(join(fixture.home, 'hermetic.db'), { readonly: true }));
    const servers = await Promise.all(connections.map((c) => startWebServer({ source: sqliteSource(c), port: 0, now: () => fixture.now * 1000 })));
    try {
      const [a, b] = await Promise.all(servers.map(async (w) => ((await (await fetch(new URL('/api/version', w.url))).json()) as { version: string }).version));
      assert.equal(a!.replace(/^[^:]*:/, ''), b!.replace(/^[^:]*:/, ''), 'the same counter');
      assert.notEqual(a, b);
    } finally {
      await Promise.all(servers.map((w) => w.close()));
      for (const c of connections) c.close();
    }
    // It takes no query: anything else is refused as on every endpoint.
    const refused = await fetch(new URL('/api/version?since=1', fixture.url));
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error.code, 'HERMETIC_WEB_INVALID');
  });

  it('/api/version moves when the clock enters another hour, with no new data: a window ending now is drawn again (decision 0119 addendum)', async () => {
    const served = new Database(join(fixture.home, 'hermetic.db'), { readonly: true });
    const hour = 3600 * Math.floor(fixture.now / 3600);
    let now = hour + 60;
    const web = await startWebServer({ source: sqliteSource(served), port: 0, now: () => now * 1000 });
    const get = async (): Promise<string> => ((await (await fetch(new URL('/api/version', web.url))).json()) as { version: string }).version;
    try {
      const first = await get();
      now = hour + 3599;
      assert.equal(await get(), first, 'the same hour, the same version');
      now = hour + 3600;
      const next = await get();
      assert.notEqual(next, first, 'the next hour');
      assert.equal(next.slice(0, next.lastIndexOf(':')), first.slice(0, first.lastIndexOf(':')), 'the data\'s part unchanged');
      now = hour + 3600 + 1800;
      assert.equal(await get(), next);
    } finally {
      await web.close();
      served.close();
    }
  });

  it('refreshMs: null (--refresh off) answers no version and asks the source nothing; a value out of range is refused at start', async () => {
    let asked = 0;
    const served = new Database(join(fixture.home, 'hermetic.db'), { readonly: true });
    const source = sqliteSource(served);
    const web = await startWebServer({ source: { ...source, version: async () => (asked++, source.version()) }, port: 0, refreshMs: null });
    try {
      assert.deepEqual(await (await fetch(new URL('/api/version', web.url))).json(), { version: null, refresh_ms: null });
      assert.equal(asked, 0);
    } finally {
      await web.close();
    }
    for (const refreshMs of [99, 3_600_001, 1.5, Number.NaN]) {
      await assert.rejects(startWebServer({ source, port: 0, refreshMs }), (e: { code?: string; message?: string }) => e.code === 'HERMETIC_OPTIONS_INVALID' && /refreshMs/.test(e.message ?? ''), String(refreshMs));
    }
    served.close();
  });
});

describe('hoursOf: the spend chart\'s axis by hour (decision 0110)', () => {
  it('every hour of a day, the one the clocks repeat twice with its offsets, and a half-hour zone\'s cells cut at midnight', () => {
    const ny = new Zone('America/New_York');
    const back = ny.startOfDay('2026-11-01');
    const day = hoursOf(ny, back, ny.startOfDay('2026-11-02'));
    assert.equal(day.length, 25);
    assert.deepEqual(day.slice(0, 4), ['2026-11-01 00:00', '2026-11-01 01:00-04:00', '2026-11-01 01:00-05:00', '2026-11-01 02:00']);
    assert.equal(day.at(-1), '2026-11-01 23:00');
    const kolkata = new Zone('Asia/Kolkata');
    const k = hoursOf(kolkata, kolkata.startOfDay('2026-07-15'), kolkata.startOfDay('2026-07-16'));
    // Midnight falls half way through a UTC hour: its second half is the day's first cell, then whole UTC hours.
    assert.deepEqual(k.slice(0, 3), ['2026-07-15 00:00', '2026-07-15 00:30', '2026-07-15 01:30']);
    assert.equal(k.length, 25);
    assert.deepEqual(hoursOf(new Zone('UTC'), 3600 * 5 + 1200, 3600 * 7), ['1970-01-01 05:00', '1970-01-01 06:00']);
  });
});

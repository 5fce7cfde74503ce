// The sessions windowed backfills left unread, over the fleet store as over each machine's dataset (decision 0102):
// each machine's `backfill_unread` row (its stores' spans, numbers only) shipped by the real sink, read by `report
// --from` and the dashboard's source exactly as `unreadIn` reads a dataset, the machines added up, each machine's
// stores its own (A and B hold the same store path); a machine whose forwarder is older sends no row and adds nothing.
// Then a reader role granted SELECT before the tables later fleet versions added (delegations, row_issues,
// backfill_unread): the report still runs, leaves those notes out and says which GRANT to run; the dashboard's overview
// names them (`withheld`) and its session page says it instead of an empty list of delegations; once granted, the same
// lines as the owner's.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { sharedPostgres, type PgCluster } from '../../shared/testing/postgres.js';
import { printed } from '../../shared/testing/console.js';
import { queryCommand } from '../cli/query.js';
import { reportCommand } from '../cli/report.js';
import { Zone } from '../ledger/zone.js';
import { readFleet } from '../sinks/postgres/read.js';
import { generatedDataset, shipDatasets } from '../sinks/postgres/testing/fleet.js';
import type { Origin } from '../sinks/remote/contract.js';
import { keepBackfillUnread } from '../sinks/sqlite/backfill-unread.js';
import { postgresSource } from '../web/data/postgres.js';
import { startWebServer } from '../web/server.js';
import { fleetUnread, fleetUnreadUnknown, unreadIn, type UnreadSpan } from './unread.js';
import { fleetRowIssues } from './row-issues.js';
import type { ReportRequest } from './query.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const DAY = 86400;
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'gateway-b' };
const C: Origin = { machineId: 'c'.repeat(32), hostname: 'old-c' };
let pg: PgCluster;
let cleanup: () => void;
let dbA: Database.Database;
let dbB: Database.Database;
let homeA: string;
let fleetUrl: string;
let fleetAUrl: string;
let tz: string | undefined;

// In a describe: a test file may share its process with others (scripts/run-tests.mjs), where a top-level hook would
// run around all of their tests, and HERMETIC_TZ below would reach them too.
describe('unread sessions and withheld tables on the fleet store', () => {
  before(async () => {
    tz = process.env.HERMETIC_TZ;
    // The fleet reads windows in HERMETIC_TZ (else the machine's); the datasets' ledgers are in UTC.
    process.env.HERMETIC_TZ = 'UTC';
    pg = await sharedPostgres();
    let dir: string;
    ({ dir, cleanup } = tempDir('hermetic-unread-fleet-'));
    const pathA = generatedDataset(join(dir, 'a'), { sessions: 6, seed: 'unread-fleet', end: NOW, timeZone: 'UTC' });
    homeA = dirname(pathA);
    dbA = new Database(pathA);
    const copy = (name: string) => {
      mkdirSync(join(dir, name));
      const path = join(dir, name, 'hermetic.db');
      dbA.exec(`VACUUM INTO '${path}'`);
      return new Database(path);
    };
    dbB = copy('b');
    const dbC = copy('c');
    const store = dbA.prepare('SELECT store FROM stores').pluck().get() as string;
    const unread = (db: Database.Database, spans: { sessions: number; from: number; to: number }[]) => {
      db.prepare('UPDATE stores SET unread = ? WHERE store = ?').run(JSON.stringify(spans), store);
      keepBackfillUnread(db);
    };
    // A: three sessions active only before a window (40 to 35 days back), two started after one (2 to 1 day back).
    unread(dbA, [{ sessions: 3, from: NOW - 40 * DAY, to: NOW - 35 * DAY }, { sessions: 2, from: NOW - 2 * DAY, to: NOW - DAY }]);
    // B, the same store path: five sessions 36 to 20 days back.
    unread(dbB, [{ sessions: 5, from: NOW - 36 * DAY, to: NOW - 20 * DAY }]);
    // C: a forwarder from before version 13 sends no row: its unread sessions are not known to the fleet.
    unread(dbC, [{ sessions: 100, from: NOW - 30 * DAY, to: NOW }]);
    dbC.exec('DELETE FROM backfill_unread');
    // A repaired value in A, so the owner's report has that note too (decision 0092).
    dbA.prepare("INSERT INTO row_issues (store, session_id, message_id, field, problem) VALUES (?, (SELECT MAX(session_id) FROM sessions), 0, 'ended_at', 'not a plausible time')").run(store);
    dbC.close();
    fleetUrl = pg.createDatabase();
    fleetAUrl = pg.createDatabase();
    await shipDatasets(fleetUrl, [[pathA, A], [dbB.name, B], [join(dir, 'c', 'hermetic.db'), C]]);
    await shipDatasets(fleetAUrl, [[pathA, A]]);
  });
  after(() => {
    if (tz === undefined) delete process.env.HERMETIC_TZ;
    else process.env.HERMETIC_TZ = tz;
    dbA.close();
    dbB.close();
    cleanup();
  });

  const added = (a: UnreadSpan | null, b: UnreadSpan | null): UnreadSpan | null => (a === null ? b : b === null ? a
    : { sessions: a.sessions + b.sessions, stores: a.stores + b.stores, from: Math.min(a.from, b.from), to: Math.max(a.to, b.to) });

  const WINDOWS: Pick<ReportRequest, 'since' | 'until'>[] = [
    {},
    { since: NOW - 30 * DAY },
    { until: NOW - 30 * DAY },
    { since: NOW - 3 * DAY },
    { since: NOW - 36 * DAY, until: NOW - 35.5 * DAY },
    { since: NOW - 10 * DAY, until: NOW - 5 * DAY },
  ];

  it('the fleet says what each machine\'s dataset says, added up: each machine\'s stores its own, an older machine adding nothing', async () => {
    const dashboard = postgresSource(fleetUrl, new Zone('UTC'));
    try {
      for (const w of WINDOWS) {
        const label = JSON.stringify(w);
        const want = added(unreadIn(dbA, w), unreadIn(dbB, w));
        assert.deepEqual(await readFleet(fleetUrl, (c, d) => fleetUnread(c, w, d)), want, `report ${label}`);
        assert.deepEqual(await dashboard.unread(w), want, `dashboard ${label}`);
      }
      // The cases mean something: both machines, one, none.
      assert.deepEqual(unreadIn(dbA, {}), { sessions: 5, stores: 1, from: NOW - 40 * DAY, to: NOW - DAY });
      assert.deepEqual(await dashboard.unread({ since: NOW - 36 * DAY, until: NOW - 35.5 * DAY }), { sessions: 8, stores: 2, from: NOW - 40 * DAY, to: NOW - 20 * DAY });
      assert.equal(await dashboard.unread({ since: NOW - 10 * DAY, until: NOW - 5 * DAY }), null);
      // How many machines that count cannot speak for (decision 0105): C, of the three; none on A's own fleet.
      assert.deepEqual(await readFleet(fleetUrl, (c, d) => fleetUnreadUnknown(c, d)), { machines: 1, of: 3, names: ['old-c'] });
      assert.deepEqual(await dashboard.unreadUnknown!(), { machines: 1, of: 3, names: ['old-c'] });
      assert.deepEqual(await readFleet(fleetAUrl, (c, d) => fleetUnreadUnknown(c, d)), { machines: 0, of: 1, names: [] });
    } finally {
      await dashboard.close();
    }
  });

  /** `hermetic report` in this process over 40 days: its unread line and the repaired-values line, and what it said on stderr. */
  async function lines(source: string[]): Promise<{ said: string[]; err: string[] }> {
    const { value, out, err } = await printed(() => reportCommand([...source, '--since', new Date((NOW - 40 * DAY) * 1000).toISOString()], { now: () => NOW * 1000, color: false, width: 1000 }));
    assert.equal(value, 0);
    const said = out.join('\n').split('\n').map((l) => l.trim().replace(/ +/g, ' ')).filter((l) => /are not counted: a backfill|is not counted: a backfill|changed or left out while forwarding|says? which sessions windowed|not say which sessions windowed/.test(l));
    return { said, err };
  }

  it('report --from says the line report --home says: of one machine alone, and of the fleet added up', async () => {
    const own = await lines(['--home', homeA]);
    assert.equal(own.said.filter((l) => l.includes('backfill')).length, 1, own.said.join('\n'));
    assert.match(own.said.find((l) => l.includes('backfill'))!, /^unread 5 sessions active /);
    assert.deepEqual((await lines(['--from', fleetAUrl])).said, own.said, 'machine A alone on the fleet: the same lines');
    const fleet = (await lines(['--from', fleetUrl])).said;
    assert.match(fleet.find((l) => l.includes('backfill'))!, /^unread 10 sessions active /, 'A\'s five and B\'s five; C sends nothing');
    // And that C does not say (decision 0105), on the line under it.
    assert.ok(fleet.includes('1 of the fleet\'s 3 machines (old-c) does not say which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it); the count is of the other 2.'), fleet.join('\n'));
  });

  it('report --from says how many machines do not say: under the count, with none counted, and beside --json, --csv and --markdown (decision 0105)', async () => {
    const report = (args: string[]) => printed(() => reportCommand(['--from', fleetUrl, ...args], { now: () => NOW * 1000, color: false, width: 1000 }));
    const silent = 'which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it)';
    // A window none of A's and B's spans meets: no count, and the other two said none.
    const none = await report(['--since', new Date((NOW - 10 * DAY) * 1000).toISOString(), '--until', new Date((NOW - 5 * DAY) * 1000).toISOString()]);
    const text = none.out.join('\n').split('\n').map((l) => l.trim().replace(/ +/g, ' '));
    assert.ok(text.includes(`unread 1 of the fleet's 3 machines (old-c) does not say ${silent}; the other 2 left none unread in this window.`), text.join('\n'));
    assert.ok(!text.some((l) => /not counted: a backfill/.test(l)));
    // The documents keep their shape (the same keys as over A's fleet, where every machine says); stderr says it.
    const keys = async (url: string) => Object.keys(JSON.parse((await printed(() => reportCommand(['--from', url, '--json', '--period', 'all'], { now: () => NOW * 1000 }))).out.join('\n')));
    assert.deepEqual(await keys(fleetUrl), await keys(fleetAUrl));
    for (const format of ['--json', '--csv', '--markdown']) {
      const { value, err } = await report([format, '--period', 'all']);
      assert.equal(value, 0);
      assert.deepEqual(err.filter((l) => l.includes('not say')), [`hermetic: 1 of the fleet's 3 machines (old-c) does not say ${silent}; the count is of the other 2.`], format);
      assert.equal(err.filter((l) => /not counted: a backfill/.test(l)).length, 1, format);
    }
    const own = await printed(() => reportCommand(['--from', fleetAUrl, '--json', '--period', 'all'], { now: () => NOW * 1000 }));
    assert.deepEqual(own.err.filter((l) => l.includes('not say')), [], 'every machine of A\'s fleet says');
  });

  it('a fleet store from before version 7 does not know: no count, and its machines are said not to say', async () => {
    const url = pg.createDatabase();
    await shipDatasets(url, [[dbA.name, A]]);
    pg.psql('DROP TABLE hermetic.backfill_unread', url.split('/').pop()!);
    assert.equal(await readFleet(url, (c, d) => fleetUnread(c, {}, d)), null);
    assert.deepEqual(await readFleet(url, (c, d) => fleetUnreadUnknown(c, d)), { machines: 1, of: 1, names: ['laptop-a'] });
    const { said, err } = await lines(['--from', url]);
    // No count (none is known), but not silence either (decision 0105).
    assert.deepEqual(said.filter((l) => /backfill|windowed/.test(l)), ['unread The fleet\'s one machine does not say which sessions windowed backfills left unread (a forwarder older than dataset version 13 does not send it).']);
    assert.deepEqual(err, []);
    // The first few silent machines by name, in byte order (as every order the report keeps), not the server's
    // collation: this database's is ICU's en-US, which puts a-host before B-host (decision 0122).
    const hosts = ['b-host', 'B-host', 'a-host', 'Z-host'].map((h, i) => `('${String(i).repeat(32)}', '${h}', 0, now())`);
    pg.psql(`INSERT INTO hermetic.progress (machine_id, hostname, applied_seq, updated_at) VALUES ${hosts.join(', ')}`, url.split('/').pop()!);
    assert.deepEqual(await readFleet(url, (c, d) => fleetUnreadUnknown(c, d)), { machines: 5, of: 5, names: ['B-host', 'Z-host', 'a-host'] });
    // Without `progress` (dropped by hand) the fleet does not know its machines: nothing said of them.
    pg.psql('DROP TABLE hermetic.progress', url.split('/').pop()!);
    assert.equal(await readFleet(url, (c, d) => fleetUnreadUnknown(c, d)), null);
  });

  it('a reader role granted SELECT before later versions added tables: the report runs and names the GRANT, the session page says it; granted, the owner\'s lines', async () => {
    // Granted on every table there was, then the tables fleet versions 2, 4 and 7 added taken back: as a role granted
    // before them has it.
    const db = fleetAUrl.split('/').pop()!;
    const role = `reader_${db}`;
    const asRole = pg.readerRole(fleetAUrl, role, ['delegations', 'row_issues', 'backfill_unread']);
    const owner = await lines(['--from', fleetAUrl]);
    assert.equal(owner.said.length, 2, `the owner's report has both notes: ${owner.said.join(' | ')}`);
    const denied = await lines(['--from', asRole]);
    assert.deepEqual(denied.said, [], 'the notes it may not read are left out, not said as none');
    assert.equal(denied.err.length, 2, denied.err.join('\n'));
    for (const table of ['row_issues', 'backfill_unread']) {
      const line = denied.err.find((l) => l.includes(`fleet's ${table} table`));
      assert.ok(line, `stderr names ${table}: ${denied.err.join('\n')}`);
      assert.ok(line.includes(`GRANT SELECT ON "hermetic"."${table}" TO ${role}`), line);
      assert.doesNotMatch(line, /permission denied|42501|at .*\.ts/);
    }
    // The dashboard: the overview's notes left out; a session page, whose delegations it may not read, says so.
    const source = postgresSource(asRole, new Zone('UTC'));
    try {
      assert.equal(await source.unread({}), null);
      assert.equal(await source.rowIssues({}), null);
      assert.ok(Number((await source.report({})).totals.sessions) > 0, 'the figures are read');
      // The session page: its transcript and all else the owner's, the delegations withheld with their GRANT (decision 0105).
      const id = dbA.prepare('SELECT session_id FROM sessions LIMIT 1').pluck().get() as string;
      const ownerSource = postgresSource(fleetAUrl, new Zone('UTC'));
      try {
        const page = { page: 1, size: 50, from: null };
        const [view, owners] = [await source.session({ id, store: null, machine: A.machineId }, page), await ownerSource.session({ id, store: null, machine: A.machineId }, page)];
        assert.ok(view && owners);
        assert.equal(view.delegations, null, 'not known: not an empty list');
        assert.deepEqual(view.withheld?.map((w) => w.table), ['delegations']);
        assert.ok(view.withheld![0]!.grant.startsWith(`GRANT SELECT ON "hermetic"."delegations" TO ${role};`), view.withheld![0]!.grant);
        assert.ok(view.transcript.messages.length > 0);
        const { delegations: _d, withheld: _w, ...rest } = view;
        const { delegations: _o, ...ownersRest } = owners;
        assert.deepEqual(rest, ownersRest);
        assert.equal(owners.withheld, undefined);
      } finally {
        await ownerSource.close();
      }
    } finally {
      await source.close();
    }
    // The overview over HTTP says which notes it left out, with their GRANT; the owner's has no such key.
    const overview = async (url: string) => {
      const source = postgresSource(url, new Zone('UTC'));
      const server = await startWebServer({ source, port: 0, now: () => NOW * 1000, onError: (e) => { throw e; } });
      try {
        const res = await fetch(new URL('/api/overview?period=all', server.url));
        assert.equal(res.status, 200);
        return await res.json() as { withheld?: { table: string; grant: string }[]; row_issues: unknown; unread: unknown };
      } finally {
        await server.close();
        await source.close();
      }
    };
    // The session page over HTTP: 200, the transcript, `withheld` naming delegations.
    const sessionOver = async (url: string) => {
      const source = postgresSource(url, new Zone('UTC'));
      const server = await startWebServer({ source, port: 0, now: () => NOW * 1000, onError: (e) => { throw e; } });
      try {
        const id = dbA.prepare('SELECT session_id FROM sessions LIMIT 1').pluck().get() as string;
        const res = await fetch(new URL(`/api/session?id=${id}&machine=${A.machineId}`, server.url));
        return { status: res.status, body: await res.json() as { delegations: unknown; withheld?: { table: string; grant: string }[]; transcript: { messages: unknown[] }; error?: { code: string; message: string } } };
      } finally {
        await server.close();
        await source.close();
      }
    };
    const page = await sessionOver(asRole);
    assert.equal(page.status, 200, JSON.stringify(page.body).slice(0, 400));
    assert.deepEqual([page.body.delegations, page.body.withheld?.map((w) => w.table)], [null, ['delegations']]);
    assert.ok(page.body.transcript.messages.length > 0);
    const mine = await overview(asRole);
    assert.deepEqual(mine.withheld?.map((w) => w.table), ['row_issues', 'backfill_unread']);
    for (const w of mine.withheld!) assert.ok(w.grant.startsWith(`GRANT SELECT ON "hermetic"."${w.table}" TO ${role};`), w.grant);
    assert.deepEqual([mine.row_issues, mine.unread], [null, null]);
    const owners = await overview(fleetAUrl);
    assert.equal(owners.withheld, undefined);
    assert.notEqual(owners.row_issues, null);
    assert.notEqual(owners.unread, null);
    const refused = (table: string) => (e: unknown) => {
      assert.ok(e instanceof HermeticError && e.code === 'HERMETIC_FLEET_SCHEMA', String(e));
      assert.ok(e.message.includes(`the fleet's ${table} table`) && e.message.includes(`GRANT SELECT ON "hermetic"."${table}" TO ${role}`), e.message);
      return true;
    };
    // `query --from` runs the user's own statement, whose tables may be anywhere: the server's words, as before.
    await assert.rejects(printed(() => queryCommand(['--from', asRole, 'SELECT count(*) FROM row_issues'])), (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_QUERY_INVALID' && e.message === 'PostgreSQL cannot run this query: permission denied for table row_issues.');
    // The GRANT it names, run by the owner: the role's report is the owner's.
    for (const table of ['row_issues', 'backfill_unread', 'delegations']) pg.psql(`GRANT SELECT ON "hermetic"."${table}" TO ${role}`, db);
    const granted = await lines(['--from', asRole]);
    assert.deepEqual(granted, { said: owner.said, err: [] });
    assert.deepEqual(await readFleet(asRole, (c, d) => fleetRowIssues(c, {}, d)), await readFleet(fleetAUrl, (c, d) => fleetRowIssues(c, {}, d)));
    // `progress` taken back: the report stands, and says which GRANT tells how many machines do not say (decision 0105).
    pg.psql(`REVOKE SELECT ON hermetic.progress FROM ${role}`, db);
    const noProgress = await lines(['--from', asRole]);
    assert.deepEqual(noProgress.said, owner.said);
    assert.equal(noProgress.err.length, 1, noProgress.err.join('\n'));
    assert.ok(noProgress.err[0]!.includes(`fleet's progress table`) && noProgress.err[0]!.includes(`GRANT SELECT ON "hermetic"."progress" TO ${role};`), noProgress.err[0]);
    assert.deepEqual(((await overview(asRole)).withheld ?? []).map((w) => w.table), ['progress']);
    // Any other table the session page reads, taken back: an error that names it and its GRANT, as before.
    pg.psql(`REVOKE SELECT ON hermetic.messages FROM ${role}`, db);
    const refusedPage = await sessionOver(asRole);
    assert.equal(refusedPage.body.error?.code, 'HERMETIC_FLEET_SCHEMA', JSON.stringify(refusedPage.body).slice(0, 400));
    assert.ok(refusedPage.body.error!.message.includes(`GRANT SELECT ON "hermetic"."messages" TO ${role}`), refusedPage.body.error!.message);
    // A table every version has, taken back: the report cannot stand without it, and says which GRANT to run.
    pg.psql(`REVOKE SELECT ON hermetic.usage_ledger FROM ${role}`, db);
    await assert.rejects(printed(() => reportCommand(['--from', asRole, '--period', 'all'], { now: () => NOW * 1000, color: false, width: 200 })), refused('usage_ledger'));
    // No USAGE on the schema: the GRANT that gives it.
    pg.psql(`REVOKE USAGE ON SCHEMA hermetic FROM ${role}`, db);
    await assert.rejects(printed(() => reportCommand(['--from', asRole, '--period', 'all'], { now: () => NOW * 1000, color: false, width: 200 })), (e: unknown) => {
      assert.ok(e instanceof HermeticError && e.code === 'HERMETIC_FLEET_SCHEMA', String(e));
      assert.ok(e.message.includes(`GRANT USAGE ON SCHEMA "hermetic" TO ${role}`), e.message);
      return true;
    });
  });
});

// The report over the fleet store equals the report over each machine's own dataset (same plan, same JSON shape),
// --by machine splits the fleet's totals by machine, and `hermetic report|query --from postgres://` read the fleet
// read-only, with errors that carry a code and never the password. One throwaway PostgreSQL cluster for the file.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { sharedPostgres, withoutPgPassword, type PgCluster } from '../../shared/testing/postgres.js';
import { queryCommand } from '../cli/query.js';
import { reportCommand } from '../cli/report.js';
import { Zone } from '../ledger/zone.js';
import { generatedDataset, shipDatasets } from '../sinks/postgres/testing/fleet.js';
import type { Origin } from '../sinks/remote/contract.js';
import { DIMENSIONS, MEASURES, usageReport, type UsageReport } from './index.js';
import { planReport } from './query.js';
import { readFleet } from '../sinks/postgres/read.js';
import { runPostgres } from './postgres.js';
import { printed } from '../../shared/testing/console.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const ZONE = 'Europe/Berlin';
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'gateway-b' };
let pg: PgCluster;
let dir: string;
let cleanup: () => void;
let dbA: Database.Database;
let dbB: Database.Database;
/** The two machines' Hermetic homes. */
let homes: string[];
/** Machine A alone, and A and B together. */
let aloneUrl: string;
let fleetUrl: string;

before(async () => {
  pg = await sharedPostgres();
  ({ dir, cleanup } = tempDir('hermetic-pgreport-'));
  const [a, b] = ([['a', 'fleet-a', 60], ['b', 'fleet-b', 40]] as const).map(([name, seed, sessions]) =>
    generatedDataset(join(dir, name), { sessions, seed, end: NOW, timeZone: ZONE }));
  homes = [dirname(a!), dirname(b!)];
  dbA = new Database(a!, { readonly: true });
  dbB = new Database(b!, { readonly: true });
  // Both in databases whose text sorts by ICU's en-US rules, not by bytes as the dataset's SQLite does (createDatabase).
  aloneUrl = pg.createDatabase();
  fleetUrl = pg.createDatabase();
  await shipDatasets(aloneUrl, [[a!, A]]);
  await shipDatasets(fleetUrl, [[a!, A], [b!, B]]);
});
after(() => {
  dbA.close();
  dbB.close();
  cleanup();
});

const fleetReport = (url: string, request: Parameters<typeof usageReport>[1]) =>
  readFleet(url, (c, d) => runPostgres(c, planReport(request ?? {}, request?.utc ? new Zone('UTC') : new Zone(ZONE), d), d));

/** Costs are sums of doubles added in another order: equal to 1e-9. */
function sameReport(actual: UsageReport, expected: UsageReport, label: string): void {
  const strip = (r: UsageReport) => JSON.parse(JSON.stringify(r, (k, v) => (typeof v === 'number' && k.endsWith('_usd') ? Math.round(v * 1e6) / 1e6 : v))) as UsageReport;
  assert.deepEqual(strip(actual), strip(expected), label);
}

describe('the report on the fleet store', () => {
  const shapes: { by?: string[]; top?: number; since?: number; until?: number; utc?: boolean; filter?: Record<string, string[]> }[] = [
    {}, { by: ['day'] }, { by: ['week', 'model'] }, { by: ['month', 'source'] }, { by: ['session'], top: 5 }, { by: ['model'], top: 2 },
    { by: ['tool', 'day'] }, { by: ['project', 'task'], since: NOW - 7 * 86400, until: NOW }, { by: ['provider', 'profile'], utc: true },
    // Hours: the ledger's bigint cells, named in the report's zone (and in UTC), a --top of them, tools by hour.
    { by: ['hour'], since: NOW - 3 * 86400, until: NOW }, { by: ['hour', 'model'], top: 4, utc: true }, { by: ['tool', 'hour'], since: NOW - 86400, until: NOW },
    // Filters: their parameters are numbered (f_source_0, f_source_1), which the dialect must bind whole.
    { by: ['model'], filter: { source: ['cli', 'telegram'] } }, { by: ['tool'], filter: { task: ['main'], project: [''] } },
    // Trees: the recursive climb of parents in PostgreSQL, a --top of them (its rest's sessions counted through the join).
    { by: ['tree'] }, { by: ['tree', 'day'], top: 3 }, { by: ['tool', 'tree'], top: 2 },
    // Weekdays and hours of the day: the offset's CASE in PostgreSQL's integer arithmetic (decision 0116).
    { by: ['weekday'] }, { by: ['hour_of_day', 'model'], top: 4 }, { by: ['tool', 'weekday'], utc: true }, { by: ['weekday', 'hour_of_day'], since: NOW - 7 * 86400, until: NOW },
    // Rows of equal cost (a model without prices) cut by --top: ties go by the keys, a missing project (NULL) first
    // and text by its bytes, as SQLite orders them, in PostgreSQL too.
    { by: ['project', 'hour'], top: 1, since: NOW - 9 * 86400, filter: { model: ['qwen3-coder'] } },
    { by: ['project'], top: 2, filter: { model: ['qwen3-coder'] } }, { by: ['session'], top: 3, filter: { model: ['qwen3-coder'] } },
  ];
  for (const shape of shapes) {
    it(`one machine: ${JSON.stringify(shape)} equals the report of its own dataset`, async () => {
      sameReport(await fleetReport(aloneUrl, shape), usageReport(dbA, shape), JSON.stringify(shape));
    });
  }

  it('property: any one or two dimensions, window, zone, --top and tree or model filter give the dataset\'s own report (decision 0117)', async () => {
    const trees = usageReport(dbA, { by: ['tree'] }).rows.map((r) => String(r.tree));
    const models = usageReport(dbA, { by: ['model'] }).rows.map((r) => String(r.model));
    const shape = fc.record({
      // By command too (decision 0152: the programs each machine stored; commands-fleet.test.ts tests every shape).
      by: fc.uniqueArray(fc.constantFrom(...DIMENSIONS.filter((d) => d !== 'machine')), { minLength: 1, maxLength: 2 }),
      top: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
      from: fc.integer({ min: 0, max: 31 }), days: fc.option(fc.integer({ min: 0, max: 33 }), { nil: undefined }),
      utc: fc.boolean(),
      filter: fc.option(fc.oneof(fc.record({ tree: fc.subarray(trees, { minLength: 1, maxLength: 3 }) }), fc.record({ model: fc.subarray(models, { minLength: 1, maxLength: 2 }) })), { nil: undefined }),
    }).filter((r) => !(r.by.includes('tool') && r.by.includes('command'))
      && !((r.by.includes('tool') || r.by.includes('command')) && r.by.some((d) => ['model', 'provider', 'task'].includes(d))));
    await fc.assert(fc.asyncProperty(shape, async (q) => {
      const since = NOW - q.from * 86400;
      const request = { by: q.by, since, until: q.days === undefined ? null : since + q.days * 86400, utc: q.utc, ...(q.top ? { top: q.top } : {}), ...(q.filter ? { filter: q.filter } : {}) };
      sameReport(await fleetReport(aloneUrl, request), usageReport(dbA, request), JSON.stringify(q));
    }), { numRuns: 40 });
  });

  it('one machine: --filter tree= the largest trees (the climb inside a filter) equals the report of its own dataset', async () => {
    const trees = usageReport(dbA, { by: ['tree'] }).rows.sort((x, y) => Number(y.sessions) - Number(x.sessions)).slice(0, 2).map((r) => String(r.tree));
    assert.ok(Number(usageReport(dbA, { filter: { tree: trees.slice(0, 1) } }).totals.sessions) > 1, 'a tree of several sessions');
    for (const shape of [{ filter: { tree: trees.slice(0, 1) }, by: ['model'] }, { filter: { tree: trees }, by: ['tree', 'day'] }, { filter: { tree: trees }, by: ['tool'] }]) {
      sameReport(await fleetReport(aloneUrl, shape), usageReport(dbA, shape), JSON.stringify(shape));
    }
  });

  it('a chain of 80 compressions, a loop of three, and cells before local 1970 in New York: the same trees, weekdays and hours as the dataset (decision 0117)', async () => {
    // A copy of A: its lineage set by the test (ids has 60 sessions), three sessions' cells moved to the epoch's first eight hours, its ledger in New York.
    const path = join(dir, 'odd.db');
    dbA.exec(`VACUUM INTO '${path.replace(/'/g, "''")}'`);
    const odd = new Database(path);
    try {
      const ids = odd.prepare('SELECT DISTINCT session_id FROM usage_ledger ORDER BY session_id').pluck().all() as string[];
      odd.exec('UPDATE sessions SET parent_session_id = NULL, lineage_kind = NULL');
      const link = odd.prepare('UPDATE sessions SET parent_session_id = ?, lineage_kind = ? WHERE session_id = ?');
      // 30 sessions with no usage (copies of the first) make the chain of 50 with usage 80 links long.
      odd.exec(`CREATE TEMP TABLE filler AS SELECT * FROM sessions WHERE session_id = '${ids[0]}'`);
      for (let i = 0; i < 30; i++) odd.exec(`UPDATE filler SET session_id = 'filler-${i}'; INSERT INTO sessions SELECT * FROM filler`);
      const chain = [...ids.slice(0, 30).flatMap((id, i) => [id, `filler-${i}`]), ...ids.slice(30, 50)];
      for (let i = 1; i < chain.length; i++) link.run(chain[i - 1], 'compression', chain[i]);
      for (const [parent, child] of [[ids[50], ids[51]], [ids[51], ids[52]], [ids[52], ids[50]]]) link.run(parent, 'delegate', child);
      odd.prepare("UPDATE dataset_meta SET value = 'America/New_York' WHERE key = 'ledger_time_zone'").run();
      for (const table of ['usage_ledger', 'tool_usage']) odd.prepare(`UPDATE ${table} SET at = (at % 86400) / 3600 % 8 * 3600 WHERE session_id IN (?, ?, ?)`).run(ids[53], ids[54], ids[55]);
      // A session whose usage the ledger holds and the dataset does not list: a tree of its own, filtered as grouped.
      odd.prepare('DELETE FROM sessions WHERE session_id = ?').run(ids[56]);
      const url = pg.createDatabase();
      await shipDatasets(url, [[path, A]]);
      const york = (request: Parameters<typeof usageReport>[1]) => readFleet(url, (c, d) => runPostgres(c, planReport(request ?? {}, new Zone('America/New_York'), d), d));
      assert.equal(usageReport(odd, { by: ['tree'] }).rows.find((r) => r.tree === ids[0])?.sessions, 50);
      assert.equal(usageReport(odd, { filter: { tree: [ids[56]!] } }).totals.sessions, 1, 'the unlisted session\'s usage filtered by its tree');
      for (const shape of [{ by: ['tree'] }, { by: ['tree', 'model'], top: 3 }, { filter: { tree: [ids[0]!] }, by: ['day'] }, { filter: { tree: [ids[56]!, ids[50]!] }, by: ['tree', 'model'] }, { filter: { tree: [ids[56]!] }, by: ['tool'] }, { by: ['weekday'] }, { by: ['hour_of_day', 'tool'] }, { by: ['weekday', 'tree'], top: 5 }]) {
        sameReport(await york(shape), usageReport(odd, shape), JSON.stringify(shape));
      }
    } finally {
      odd.close();
    }
  });

  it('two machines: totals are the sum of both datasets\'; --by machine gives one row per machine with its own totals', async () => {
    const fleet = await fleetReport(fleetUrl, { by: ['machine'] });
    const [a, b] = [usageReport(dbA, {}), usageReport(dbB, {})];
    for (const m of MEASURES) {
      if (m.endsWith('_usd')) assert.ok(Math.abs(Number(fleet.totals[m]) - Number(a.totals[m]) - Number(b.totals[m])) < 1e-6, m);
      else assert.equal(fleet.totals[m], Number(a.totals[m]) + Number(b.totals[m]), m);
    }
    assert.equal(fleet.totals.tool_calls, a.totals.tool_calls + b.totals.tool_calls);
    const rows = new Map(fleet.rows.map((r) => [r.machine, r]));
    assert.deepEqual([...rows.keys()].sort(), ['gateway-b', 'laptop-a']);
    assert.equal(rows.get('laptop-a')!.machine_id, A.machineId);
    for (const [name, own] of [['laptop-a', a], ['gateway-b', b]] as const) {
      assert.equal(rows.get(name)!.sessions, own.totals.sessions);
      assert.equal(rows.get(name)!.input_tokens, own.totals.input_tokens);
    }
    // Sessions of the same id on two machines stay two sessions.
    const sessions = await fleetReport(fleetUrl, { by: ['session'] });
    assert.equal(sessions.rows.length, Number(a.totals.sessions) + Number(b.totals.sessions));
    // So do trees: each machine's trees are its own (a parent is looked for on the child's machine only).
    const trees = await fleetReport(fleetUrl, { by: ['tree'] });
    assert.equal(trees.rows.length, usageReport(dbA, { by: ['tree'] }).rows.length + usageReport(dbB, { by: ['tree'] }).rows.length);
  });
});

/** Runs a command in process; its stdout lines. */
async function run(command: (argv: string[]) => Promise<number>, args: string[]): Promise<string> {
  const { value, out } = await printed(() => command(args));
  assert.equal(value, 0);
  return out.join('\n');
}

describe('hermetic report and query --from postgres://', () => {
  it('report --from --json --by machine is the fleet report; the terminal view has the usual tables', async () => {
    const json = JSON.parse(await run((a) => reportCommand(a, { now: () => NOW * 1000 }), ['--from', fleetUrl, '--period', 'all', '--by', 'machine', '--json'])) as UsageReport;
    assert.deepEqual(json.by, ['machine']);
    assert.equal(json.rows.length, 2);
    const text = await run((a) => reportCommand(a, { now: () => NOW * 1000, color: false }), ['--from', fleetUrl, '--period', 'all']);
    for (const heading of ['By month', 'By model', 'By source', 'Most expensive sessions']) assert.ok(text.includes(heading), heading);
    assert.ok(!text.includes(pg.password));
    // A filter that empties the window says so on the fleet store too, with the models it has.
    const models = (JSON.parse(await run((a) => reportCommand(a, { now: () => NOW * 1000 }), ['--from', fleetUrl, '--period', 'all', '--by', 'model', '--json'])) as UsageReport).rows.map((r) => r.model);
    const missed = await run((a) => reportCommand(a, { now: () => NOW * 1000, color: false, width: 1000 }), ['--from', fleetUrl, '--period', 'all', '--filter', 'model=nonexistent']);
    assert.deepEqual(missed.split('\n').slice(2), ['--filter model=nonexistent matches no usage in this window.', `The models in this window: ${models.join(', ')}.`]);
  });

  it('a window that ends now (a fraction of a second into it) reads the fleet: every period, the default included', async () => {
    const now = () => NOW * 1000 + 608.25;
    const totals = async (source: string[], window: string[]) => {
      const out = await run((a) => reportCommand(a, { now }), [...source, ...window, '--json']);
      assert.ok(out !== '', `${[...source, ...window].join(' ')} printed nothing`);
      return (JSON.parse(out) as UsageReport).totals;
    };
    // In UTC days both sides read the same window: the fleet's totals are the two machines' own.
    for (const window of [[], ['--period', 'today'], ['--since', '7d'], ['--period', 'month']]) {
      const got = await totals(['--from', fleetUrl], [...window, '--utc']);
      // One at a time: each captures the console.
      const own = [await totals(['--home', homes[0]!], [...window, '--utc']), await totals(['--home', homes[1]!], [...window, '--utc'])];
      const pick = (t: UsageReport['totals']) => [t.sessions, t.api_calls, t.input_tokens, t.output_tokens].map(Number);
      assert.deepEqual(pick(got), pick(own[0]!).map((v, k) => v + pick(own[1]!)[k]!), window.join(' ') || 'default');
    }
  });

  it('query --from reads the fleet schema; a write or two statements are refused; refused credentials, a missing database or schema are the fleet\'s codes; the password never shows', async () => {
    const rows = JSON.parse(await run(queryCommand, ['--from', fleetUrl, '--json', 'SELECT hostname, COUNT(*) AS sessions FROM sessions GROUP BY hostname ORDER BY hostname'])) as { hostname: string; sessions: number }[];
    assert.deepEqual(rows.map((r) => r.hostname), ['gateway-b', 'laptop-a']);
    assert.equal(rows[1]!.sessions, (dbA.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number));
    await assert.rejects(queryCommand(['--from', fleetUrl, 'DELETE FROM sessions']), (e: { code: string; message: string }) => e.code === 'HERMETIC_QUERY_READ_ONLY' && /read-only transaction/.test(e.message));
    await assert.rejects(queryCommand(['--from', fleetUrl, 'SELECT 1; DELETE FROM sessions']), (e: { code: string; message: string }) => e.code === 'HERMETIC_QUERY_INVALID' && /multiple commands/.test(e.message));
    await assert.rejects(queryCommand(['--from', fleetUrl, 'SELECT nope FROM sessions']), (e: { code: string; message: string }) => e.code === 'HERMETIC_QUERY_INVALID' && /PostgreSQL cannot run this query: column "nope" does not exist/.test(e.message));
    assert.equal(pg.psql(`SELECT COUNT(*) > 0 FROM hermetic.sessions`, fleetUrl.split('/').pop()!).trim(), 't');
    const wrong = fleetUrl.replace(`:${pg.password}@`, ':wrong-secret@');
    await assert.rejects(queryCommand(['--from', wrong, 'SELECT 1']), (e: { code: string; message: string }) => e.code === 'HERMETIC_FLEET_AUTH' && !e.message.includes('wrong-secret') && e.message.includes(':***@'));
    const bare = fleetUrl.replace(`:${pg.password}@`, '@');
    await withoutPgPassword(() => assert.rejects(queryCommand(['--from', bare, 'SELECT 1']), (e: { code: string; message: string }) => e.code === 'HERMETIC_FLEET_AUTH'
      && /^PostgreSQL asks for a password and none was given \(postgres:\/\/[^:@]+@.*; give it in the URL .*, or in PGPASSWORD or ~\/\.pgpass\.$/.test(e.message)));
    const nowhere = fleetUrl.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1');
    await assert.rejects(reportCommand(['--from', nowhere]), (e: { code: string; message: string }) => e.code === 'HERMETIC_FLEET_NO_DATABASE' && /does not exist/.test(e.message) && !e.message.includes(pg.password));
    await assert.rejects(reportCommand(['--from', pg.createDatabase()]), (e: { code: string; message: string }) => e.code === 'HERMETIC_FLEET_SCHEMA' && /no "hermetic" schema/.test(e.message) && !e.message.includes(pg.password));
    await assert.rejects(reportCommand(['--from', '/some/dir']), (e: { code: string }) => e.code === 'HERMETIC_CLI_USAGE');
  });
});

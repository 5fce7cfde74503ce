// The sessions Hermes recorded no cost for (decision 0090) and the values the forwarder repaired (its row issues,
// decision 0092), counted over the fleet store as over the embedded dataset: the same window and filter, each session
// keyed by its machine, and the same lines in `hermetic report --from postgres://…`. One dataset edited into every
// case, shipped as machine A; machine B is the same sessions (same store, same ids) all costed, with a repaired value
// in one session A has some in too, so a count that mixed machines up would lose A's uncosted sessions, or count one
// session where there are two.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, it } from 'node:test';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { sharedPostgres } from '../../shared/testing/postgres.js';
import { printed } from '../../shared/testing/console.js';
import { reportCommand } from '../cli/report.js';
import { postgresTarget } from '../sinks/postgres/index.js';
import { readFleet } from '../sinks/postgres/read.js';
import { generatedDataset, shipDatasets } from '../sinks/postgres/testing/fleet.js';
import type { Origin } from '../sinks/remote/contract.js';
import { runPostgres } from './postgres.js';
import { planUncosted, uncostedIn } from './uncosted.js';
import { fleetRowIssues, planRowIssues, rowIssuesIn, type RowIssueCount } from './row-issues.js';
import type { ReportRequest } from './query.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'gateway-b' };
let cleanup: () => void;
let db: Database.Database;
let home: string;
/** Machine B's dataset (its home). */
let homeB: string;
let dbB: Database.Database;
let fleetUrl: string;
/** Machine A alone. */
let fleetAUrl: string;
/** The window: after the session left outside it ends, up to now. */
let since: number;
const until = NOW + 1;
/** The three sessions with no cost in the window. */
let uncosted: Span[];
/** Sessions given row issues: one in the window (on A and on B), one billed in it (A), the one outside it (A). */
let repaired: { inside: string; billed: string; outside: string };

interface Span { session_id: string; source: string; first: number; last: number }

before(async () => {
  const pg = await sharedPostgres();
  let dir: string;
  ({ dir, cleanup } = tempDir('hermetic-uncosted-fleet-'));
  const path = generatedDataset(join(dir, 'a'), { sessions: 14, seed: 'uncosted-fleet', end: NOW, timeZone: 'UTC' });
  home = dirname(path);
  db = new Database(path);
  // Every session costed to begin with: the cases below are then the only sessions without a cost.
  db.exec('UPDATE sessions SET estimated_cost_usd = COALESCE(estimated_cost_usd, 0.01)');
  db.exec('UPDATE usage_ledger SET cost_usd = 0.001, estimated_cost_usd = 0.001 WHERE cost_usd = 0');
  homeB = join(dir, 'b');
  mkdirSync(homeB);
  const costed = join(homeB, 'hermetic.db');
  db.exec(`VACUUM INTO '${costed}'`);
  const spans = db.prepare(`SELECT l.session_id, MIN(l.source) AS source, MIN(l.at) AS first, MAX(l.at) AS last FROM usage_ledger l
    GROUP BY l.store, l.session_id ORDER BY last, l.session_id`).all() as Span[];
  assert.equal(new Set(db.prepare('SELECT store FROM sessions').pluck().all()).size, 1, 'one store');
  // The session that ends first is outside the window; the others have usage in it.
  const [outside, ...inside] = spans;
  since = outside!.last + 1;
  const within = inside.filter((s) => s.last >= since);
  assert.ok(within.length >= 6, `${within.length} sessions in the window`);
  const none = (id: string) => {
    db.prepare('UPDATE sessions SET estimated_cost_usd = NULL, actual_cost_usd = NULL WHERE session_id = ?').run(id);
    db.prepare('UPDATE usage_ledger SET cost_usd = 0, estimated_cost_usd = 0, actual_cost_usd = NULL WHERE session_id = ?').run(id);
  };
  // No cost at all: outside the window (not counted), and three inside it.
  none(outside!.session_id);
  // Two sources among the three, so a source filter keeps some of them and not others.
  const other = within.find((s) => s.source !== within[0]!.source)!;
  const [u1, u2, u3, billed, ledgerOnly] = [within[0]!, other, ...within.filter((s) => s !== within[0] && s !== other)];
  for (const s of [u1!, u2!, u3!]) none(s.session_id);
  // The third as Hermes writes usage it cannot price (decision 0132): an estimate of 0, the status unknown.
  db.prepare("UPDATE sessions SET estimated_cost_usd = 0, cost_status = 'unknown', cost_source = 'none' WHERE session_id = ?").run(u3!.session_id);
  uncosted = [u1!, u2!, u3!];
  // Only a billed cost on the session (its ledger rows at 0): costed, not counted.
  none(billed!.session_id);
  db.prepare('UPDATE sessions SET actual_cost_usd = 0.25 WHERE session_id = ?').run(billed!.session_id);
  // Neither cost on the session, but one ledger row billed (an auxiliary task Hermes priced): costed too.
  none(ledgerOnly!.session_id);
  db.prepare(`UPDATE usage_ledger SET cost_usd = 0.05, actual_cost_usd = 0.05 WHERE session_id = ? AND at = (SELECT MIN(at) FROM usage_ledger WHERE session_id = ?)`)
    .run(ledgerOnly!.session_id, ledgerOnly!.session_id);
  // Row issues (decision 0092): only these, on either machine. A: two in a session of the window, one in the billed
  // one, one in the session outside the window; B: one in the session of the window.
  repaired = { inside: u1!.session_id, billed: billed!.session_id, outside: outside!.session_id };
  dbB = new Database(costed);
  const store = db.prepare('SELECT store FROM sessions LIMIT 1').pluck().get() as string;
  const issue = (on: Database.Database, sessionId: string, messageId: number, field: string) =>
    on.prepare('INSERT INTO row_issues (store, session_id, message_id, field, problem) VALUES (?, ?, ?, ?, ?)').run(store, sessionId, messageId, field, `${field} garbage is not a plausible time; the previous message's time is used`);
  for (const on of [db, dbB]) on.exec('DELETE FROM row_issues');
  issue(db, repaired.inside, 0, 'ended_at');
  issue(db, repaired.inside, 7, 'timestamp');
  issue(db, repaired.billed, 3, 'timestamp');
  issue(db, repaired.outside, 0, 'started_at');
  issue(dbB, repaired.inside, 7, 'timestamp');
  fleetUrl = pg.createDatabase();
  fleetAUrl = pg.createDatabase();
  await shipDatasets(fleetUrl, [[path, A], [costed, B]]);
  await shipDatasets(fleetAUrl, [[path, A]]);
});
after(() => {
  db.close();
  dbB.close();
  cleanup();
});

const fleetUncosted = (request: Pick<ReportRequest, 'since' | 'until' | 'filter'>) => readFleet(fleetUrl, (c, d) => runPostgres(c, planUncosted(request, d), d));

it('the fleet counts the sessions with no cost as the dataset does: in the window, filtered, each machine its own', async () => {
  const sources = [...new Set(uncosted.map((s) => s.source))];
  assert.ok(sources.length >= 2, `the sessions without a cost are of ${sources.join(', ')}`);
  const cases: { request: Pick<ReportRequest, 'since' | 'until' | 'filter'>; expected: number }[] = [
    { request: {}, expected: 4 },
    { request: { since, until }, expected: 3 },
    // Before the window: the session outside it, and those of the three that began before it.
    { request: { until: since }, expected: 1 + uncosted.filter((s) => s.first < since).length },
    { request: { since, until, filter: { session: [uncosted[0]!.session_id] } }, expected: 1 },
    { request: { since, filter: { source: [sources[0]!] } }, expected: uncosted.filter((s) => s.source === sources[0]).length },
    { request: { since, filter: { source: ['no-such-source'] } }, expected: 0 },
  ];
  for (const { request, expected } of cases) {
    const label = JSON.stringify(request);
    assert.equal(uncostedIn(db, request), expected, `dataset ${label}`);
    assert.equal(await fleetUncosted(request), expected, `fleet ${label}`);
  }
});

const fleetIssues = (request: Pick<ReportRequest, 'since' | 'until' | 'filter'>) => readFleet(fleetUrl, (c, d) => runPostgres(c, planRowIssues(request, d), d));
const added = (a: RowIssueCount, b: RowIssueCount): RowIssueCount => ({ entries: a.entries + b.entries, sessions: a.sessions + b.sessions });

it('the fleet counts the values each machine repaired as the datasets do: in the window, filtered, each machine\'s sessions its own', async () => {
  const cases: { request: Pick<ReportRequest, 'since' | 'until' | 'filter'>; a: RowIssueCount; b: RowIssueCount }[] = [
    { request: {}, a: { entries: 4, sessions: 3 }, b: { entries: 1, sessions: 1 } },
    { request: { since, until }, a: { entries: 3, sessions: 2 }, b: { entries: 1, sessions: 1 } },
    { request: { until: since }, a: { entries: 1 + (uncosted[0]!.first < since ? 2 : 0), sessions: 1 + (uncosted[0]!.first < since ? 1 : 0) }, b: { entries: uncosted[0]!.first < since ? 1 : 0, sessions: uncosted[0]!.first < since ? 1 : 0 } },
    { request: { since, until, filter: { session: [repaired.inside] } }, a: { entries: 2, sessions: 1 }, b: { entries: 1, sessions: 1 } },
    { request: { since, filter: { source: ['no-such-source'] } }, a: { entries: 0, sessions: 0 }, b: { entries: 0, sessions: 0 } },
  ];
  for (const { request, a, b } of cases) {
    const label = JSON.stringify(request);
    assert.deepEqual(rowIssuesIn(db, request), a, `machine A's dataset ${label}`);
    assert.deepEqual(rowIssuesIn(dbB, request), b, `machine B's dataset ${label}`);
    // One session on both machines is two sessions: the fleet's count is the two datasets' added up.
    assert.deepEqual(await fleetIssues(request), added(a, b), `fleet ${label}`);
  }
});

const repairedLines = async (source: string[]) => {
  const { value, out } = await printed(() => reportCommand([...source, '--since', new Date(since * 1000).toISOString(), '--until', new Date(until * 1000).toISOString()], { now: () => NOW * 1000, color: false, width: 1000 }));
  assert.equal(value, 0);
  // The label's padding follows the widest label shown: compared with single spaces.
  return out.join('\n').split('\n').map((l) => l.trim().replace(/ +/g, ' ')).filter((l) => /changed or left out while forwarding|FROM row_issues" lists them/.test(l));
};

it('report --from says the same repaired-values line as report --home: of one machine alone, and of two added up', async () => {
  const own = await repairedLines(['--home', home]);
  assert.deepEqual(own, ['repaired 3 values changed or left out while forwarding, in 2 sessions', '(hermetic query "SELECT * FROM row_issues" lists them)']);
  // On the fleet the values are listed there, each with its machine (the URL as status shows it, password hidden).
  const there = (url: string) => `(hermetic query --from '${postgresTarget(url).display}' "SELECT hostname, * FROM row_issues" lists them)`;
  assert.deepEqual(await repairedLines(['--from', fleetAUrl]), [own[0], there(fleetAUrl)], 'machine A alone on the fleet: the same count');
  assert.deepEqual((await repairedLines(['--home', homeB]))[0], 'repaired 1 value changed or left out while forwarding, in 1 session');
  assert.deepEqual(await repairedLines(['--from', fleetUrl]), ['repaired 4 values changed or left out while forwarding, in 3 sessions', there(fleetUrl)], 'both machines: their counts added up');
});

it('a fleet store no forwarder shipping row issues has opened since it was made has no count, and the report no line', async () => {
  (await sharedPostgres()).psql('DROP TABLE hermetic.row_issues', fleetAUrl.split('/').pop()!);
  assert.equal(await readFleet(fleetAUrl, (c, d) => fleetRowIssues(c, {}, d)), null);
  assert.deepEqual(await repairedLines(['--from', fleetAUrl]), []);
});

it('report --from says the same line under the cost, of the fleet\'s sessions', async () => {
  const line = async (source: string[]) => {
    const { value, out } = await printed(() => reportCommand([...source, '--since', new Date(since * 1000).toISOString(), '--until', new Date(until * 1000).toISOString()], { now: () => NOW * 1000, color: false, width: 1000 }));
    assert.equal(value, 0);
    const text = out.join('\n');
    const sessions = Number(/(\d+) sessions · /.exec(text)?.[1]);
    return { sessions, said: text.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('Hermes recorded no cost')) };
  };
  const own = await line(['--home', home]);
  const fleet = await line(['--from', fleetUrl]);
  assert.deepEqual(own.said, [`Hermes recorded no cost for 3 of these ${own.sessions} sessions: their $0.00 is not a measured cost`]);
  // Machine B holds the same sessions, costed: twice the sessions, the same three without a cost.
  assert.equal(fleet.sessions, 2 * own.sessions);
  assert.deepEqual(fleet.said, [`Hermes recorded no cost for 3 of these ${fleet.sessions} sessions: their $0.00 is not a measured cost`]);
});

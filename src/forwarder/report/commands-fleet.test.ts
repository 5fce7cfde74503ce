// `--by command` on the fleet store (decisions 0152, 0159): the store of every shape (testing/commands.ts) shipped as
// its machine gives the rows of its own dataset for every combination decision 0149 allows, whether the read gathers
// the calls once into a temporary table of its own or each statement gathers them (a role without TEMP); the rows add
// up to totals.commands and that is the terminal's row by tool; two machines stay apart; a role that may not read the
// fleet's tool_calls gets the same times; a fleet of version 9 is refused until a forwarder migrates it, which names
// the calls shipped before; a machine whose names are by older rules is named again by the next forwarder to open
// the store, one with newer rules is left alone; each terminal result's verdict is stored as it is written, and a
// fleet without them (version 11) gives the same rows by the rule, as does one whose `failed` was made by hand; the
// failure rule's PostgreSQL twin judges as SQLite's does, where their JSON parsers differ too (decision 0170).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import { sharedPostgres, type PgCluster } from '../../shared/testing/postgres.js';
import { printed } from '../../shared/testing/console.js';
import { reportCommand } from '../cli/report.js';
import { PROGRAM_RULES } from '../dataset/program.js';
import { TOOL_ERROR_FUNCTION, toolErrorSql } from '../dataset/tool-error.js';
import { Zone } from '../ledger/zone.js';
import { createPostgresSink, postgresTarget } from '../sinks/postgres/index.js';
import { createPool } from '../sinks/postgres/pool.js';
import { nameFleetPrograms } from '../sinks/postgres/programs.js';
import { SCHEMA_VERSION } from '../sinks/postgres/schema.js';
import { openFleet, readFleet } from '../sinks/postgres/read.js';
import { datasetBatch, toolCallsDrift, verdictDrift } from '../sinks/postgres/testing/rows.js';
import { shipDatasets } from '../sinks/postgres/testing/fleet.js';
import type { Origin } from '../sinks/remote/contract.js';
import { usageReport, type ReportRequest, type UsageReport } from './index.js';
import { commandScratch } from './commands.js';
import { fleetUsageReport, runPostgres } from './postgres.js';
import { planReport } from './query.js';
import { commandsStore, NOW, T0, T1, T2, type CommandsStore } from './testing/commands.js';

const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'gateway-b' };
let cluster: PgCluster;
let store: CommandsStore;
let db: Database.Database;
/** Machine A alone, and A and B (the same history) together. */
let aloneUrl: string;
let fleetUrl: string;

before(async () => {
  cluster = await sharedPostgres();
  store = commandsStore();
  db = new Database(store.dataset, { readonly: true });
  aloneUrl = cluster.createDatabase();
  fleetUrl = cluster.createDatabase();
  await shipDatasets(aloneUrl, [[store.dataset, A]]);
  await shipDatasets(fleetUrl, [[store.dataset, A], [store.dataset, B]]);
});
after(() => {
  db.close();
  store.cleanup();
});

/** A report as `hermetic report --from` reads it: by command, its calls gathered once into the read's own table. */
async function fleetReport(url: string, request: ReportRequest): Promise<UsageReport> {
  const fleet = openFleet(url);
  try {
    return await fleetUsageReport(fleet, request, new Zone('UTC'));
  } finally {
    await fleet.close();
  }
}
/** The same read without a table of its own (a role without TEMP, a standby): each statement gathers the calls again. */
const gatheredEachTime = (url: string, request: ReportRequest) =>
  readFleet(url, (c, d) => runPostgres(c, planReport(request, new Zone('UTC'), d), d));

/** The statements a report by command runs in a read with `scratch` (or without), and what the read saw of itself. */
async function statementsOf(url: string, scratch: boolean): Promise<{ sql: string[]; made: boolean; readOnly: string; report: UsageReport }> {
  return readFleet(url, async (c, d) => {
    const sql: string[] = [];
    const logged = new Proxy(c, { get: (t, k) => (k === 'query' ? (q: string, v?: unknown[]) => (sql.push(q), t.query(q, v)) : Reflect.get(t, k)) });
    const report = await runPostgres(logged, planReport({ by: ['command', 'day'], top: 2 }, new Zone('UTC'), d), d);
    const seen = (await c.query(`SELECT to_regclass('pg_temp.command_usage') IS NOT NULL AS made, current_setting('transaction_read_only') AS ro`)).rows[0];
    return { sql, made: seen.made, readOnly: seen.ro, report };
  }, scratch ? { scratch: commandScratch } : {});
}
const dbOf = (url: string) => url.split('/').pop()!;

/** The rows add up to totals.commands: calls, failed results, timed calls and their milliseconds. */
function addsUp(r: UsageReport, label: string): void {
  const t = r.totals.commands!;
  for (const m of ['tool_calls', 'tool_errors', 'timed_calls'] as const) assert.equal(r.rows.reduce((n, x) => n + Number(x[m]), 0), t[m], `${label} ${m}`);
  assert.equal(Math.round(r.rows.reduce((n, x) => n + Number(x.seconds) * 1000, 0)), Math.round(t.seconds * 1000), `${label} seconds`);
}

describe('--by command on the fleet store', () => {
  const combinations: ReportRequest[] = [
    { by: ['command'] }, { by: ['command'], top: 3 }, { by: ['command'], top: 1 },
    ...['hour', 'day', 'week', 'month', 'weekday', 'hour_of_day', 'profile', 'source', 'project', 'session', 'tree'].flatMap((d): ReportRequest[] => [
      { by: ['command', d] }, { by: [d, 'command'] }, { by: ['command', d], top: 3 }]),
    { by: ['command'], utc: true }, { by: ['day', 'command'], utc: true },
    // Windows, one cut inside an hour; filters, by model through the sessions with such usage.
    { by: ['command'], since: T0, until: T0 + 3600 }, { by: ['command'], since: T0 + 1800, until: T0 + 7200 }, { by: ['command', 'day'], since: T1, until: NOW },
    { by: ['command'], since: T2, until: T2 + 12 }, { by: ['command'], since: NOW - 60, until: NOW },
    { by: ['command'], filter: { source: ['telegram'] } }, { by: ['command'], filter: { session: [''] } }, { by: ['command'], filter: { model: ['gpt-5'] } },
    { by: ['command'], filter: { model: ['nonexistent'] } }, { by: ['command'], filter: { project: [''] } },
  ];
  for (const request of combinations) {
    it(`one machine: ${JSON.stringify(request)} gives its own dataset's report`, async () => {
      const shape = { ...request, ...(request.filter?.session ? { filter: { session: [store.ids.c] } } : {}) };
      const fleet = await fleetReport(aloneUrl, shape);
      assert.deepEqual(fleet, usageReport(db, shape), JSON.stringify(shape));
      addsUp(fleet, JSON.stringify(shape));
      assert.deepEqual(await gatheredEachTime(aloneUrl, shape), fleet, `${JSON.stringify(shape)} gathered by each statement`);
    });
  }

  it('the placeholders keep their meaning, and the rows add up to totals.commands, the terminal\'s row by tool, in every window', async () => {
    const all = await fleetReport(aloneUrl, { by: ['command'] });
    assert.deepEqual(all.rows.map((r) => r.command).filter((c) => String(c).startsWith('(')).sort(), ['(empty)', '(no call)', '(no command)']);
    for (const [since, until] of [[null, null], [T0, T0 + 3600], [T0 + 3600, T1 + 3600], [T1, NOW], [T0 + 1800, T0 + 7200], [T2, T2 + 12]] as const) {
      const r = await fleetReport(aloneUrl, { since, until, by: ['command'] });
      addsUp(r, `${since}..${until}`);
      const terminal = (await fleetReport(aloneUrl, { since, until, by: ['tool'] })).rows.find((x) => x.tool === 'terminal');
      assert.deepEqual([r.totals.commands!.tool_calls, r.totals.commands!.tool_errors], [Number(terminal?.tool_calls ?? 0), Number(terminal?.tool_errors ?? 0)], `${since}..${until}`);
    }
  });

  it('two machines with the same history: each machine\'s rows are its dataset\'s, the totals twice one machine\'s', async () => {
    const own = usageReport(db, { by: ['command'] });
    const fleet = await fleetReport(fleetUrl, { by: ['machine', 'command'] });
    addsUp(fleet, 'by machine and command');
    for (const machine of [A, B]) {
      const rows = fleet.rows.filter((r) => r.machine_id === machine.machineId).map(({ machine: host, machine_id: id, ...rest }) => (assert.equal(host, machine.hostname), assert.equal(id, machine.machineId), rest));
      assert.deepEqual(rows.sort((x, y) => String(x.command) < String(y.command) ? -1 : 1), [...own.rows].sort((x, y) => String(x.command) < String(y.command) ? -1 : 1));
    }
    const both = (await fleetReport(fleetUrl, { by: ['command'] })).totals.commands!;
    const one = own.totals.commands!;
    assert.deepEqual(both, { sessions: 2 * one.sessions, tool_calls: 2 * one.tool_calls, tool_errors: 2 * one.tool_errors, timed_calls: 2 * one.timed_calls, seconds: 2 * one.seconds, median_seconds: one.median_seconds });
    // Sessions of one id on two machines stay two.
    assert.equal((await fleetReport(fleetUrl, { by: ['session', 'command'] })).rows.length, 2 * usageReport(db, { by: ['session', 'command'] }).rows.length);
  });

  it('hermetic report --from --by command prints what the dataset\'s prints: JSON, CSV and Markdown', async () => {
    const run = async (source: string[], form: string[]) => {
      const { value, out } = await printed(() => reportCommand([...source, '--period', 'all', '--by', 'command', '--by', 'day', '--top', '4', ...form], { now: () => NOW * 1000, width: 100, color: false }));
      assert.equal(value, 0);
      return out.join('\n');
    };
    for (const form of [['--json'], ['--csv'], ['--markdown']]) {
      assert.equal(await run(['--from', aloneUrl], form), await run(['--home', store.home], form), form[0]);
    }
    const text = await run(['--from', aloneUrl], []);
    assert.match(text, /^By command and day$/m);
  });

  it('the calls are gathered once, into a temporary table the read makes before it turns read-only; a role without TEMP gathers them in each statement, the same rows', async () => {
    const own = usageReport(db, { by: ['command', 'day'], top: 2 });
    const once = await statementsOf(aloneUrl, true);
    assert.deepEqual(once.report, own);
    assert.deepEqual([once.made, once.readOnly], [true, 'on']);
    assert.equal(once.sql.filter((q) => q.startsWith('INSERT INTO pg_temp.command_usage')).length, 1);
    assert.ok(!once.sql.some((q) => q.includes('command_usage AS MATERIALIZED')), 'no statement gathers them again');
    // Nothing of the fleet's may be written in such a read, and its table is gone when it ends.
    await assert.rejects(readFleet(aloneUrl, (c) => c.query('DELETE FROM hermetic.sessions'), { scratch: commandScratch }), /read-only transaction/);
    assert.equal(await readFleet(aloneUrl, async (c) => (await c.query(`SELECT to_regclass('pg_temp.command_usage') AS t`)).rows[0].t), null);
    const d = dbOf(aloneUrl);
    const url = cluster.readerRole(aloneUrl, 'no_temp_reader', []);
    cluster.psql(`REVOKE TEMPORARY ON DATABASE ${d} FROM PUBLIC`, d);
    try {
      const each = await statementsOf(url, true);
      assert.deepEqual(each.report, own);
      assert.deepEqual([each.made, each.readOnly], [false, 'on']);
      assert.ok(each.sql.some((q) => q.includes('command_usage AS MATERIALIZED')) && !each.sql.some((q) => q.startsWith('INSERT')));
    } finally {
      cluster.psql(`GRANT TEMPORARY ON DATABASE ${d} TO PUBLIC`, d);
    }
  });

  it('a role that may not read the fleet\'s tool_calls: the times from its parts, the same rows', async () => {
    const url = cluster.readerRole(aloneUrl, 'no_calls_reader', ['tool_calls']);
    for (const request of [{ by: ['command'] }, { by: ['command', 'session'], top: 2 }, { by: ['command'], since: T0, until: T0 + 3600 }] as ReportRequest[]) {
      assert.deepEqual(await fleetReport(url, request), usageReport(db, request), JSON.stringify(request));
    }
  });
});

describe('the fleet\'s terminal programs across versions and rules', () => {
  it('a fleet of version 9 is refused by command until a forwarder migrates it, which names the calls shipped before', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A]]);
    // As version 9 left it: no programs, no rules, no index, no failure rule nor verdicts; the UPDATE trigger as version 6 made it.
    cluster.psql(`DROP INDEX hermetic.parts_terminal; ALTER TABLE hermetic.parts DROP COLUMN failed, DROP COLUMN program; ALTER TABLE hermetic.progress DROP COLUMN program_rules;
      DROP FUNCTION hermetic.${TOOL_ERROR_FUNCTION}; DELETE FROM hermetic.schema_version WHERE version > 9`, dbOf(url));
    await assert.rejects(fleetReport(url, { by: ['command'] }), { code: 'HERMETIC_FLEET_SCHEMA', message: 'The fleet store holds no terminal programs yet (its schema is older than version 10, decision 0152): the first forwarder of this version to open it adds them; report by command once one has shipped.' });
    // Other groupings read it as before.
    assert.deepEqual(await fleetReport(url, { by: ['tool'] }), usageReport(db, { by: ['tool'] }));
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    assert.equal(cluster.psql('SELECT MAX(version) FROM hermetic.schema_version', dbOf(url)).trim(), String(SCHEMA_VERSION));
    assert.equal(cluster.psql('SELECT program_rules FROM hermetic.progress', dbOf(url)).trim(), String(PROGRAM_RULES));
    for (const request of [{ by: ['command'] }, { by: ['command', 'tree'], top: 3 }] as ReportRequest[]) assert.deepEqual(await fleetReport(url, request), usageReport(db, request));
    // Naming them touched no tool call: the kept table is still the grouping of the parts.
    const pool = createPool(postgresTarget(url), { max: 1 });
    try {
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), { extra: [], missing: [] });
    } finally {
      await pool.end();
    }
  });

  it('a machine named by older rules is named again by the next forwarder to open the store; one by newer rules is left alone until it ships', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A], [store.dataset, B]]);
    const d = dbOf(url);
    cluster.psql(`UPDATE hermetic.parts SET program = 'by-other-rules' WHERE program IS NOT NULL;
      UPDATE hermetic.progress SET program_rules = CASE WHEN machine_id = '${A.machineId}' THEN ${PROGRAM_RULES - 1} ELSE ${PROGRAM_RULES + 1} END`, d);
    const sink = createPostgresSink(url);
    await sink.open();
    try {
      const programs = (machine: Origin) => cluster.psql(`SELECT string_agg(DISTINCT program, ',' ORDER BY program) FROM hermetic.parts WHERE machine_id = '${machine.machineId}' AND program IS NOT NULL`, d).trim();
      const rules = (machine: Origin) => cluster.psql(`SELECT program_rules FROM hermetic.progress WHERE machine_id = '${machine.machineId}'`, d).trim();
      const own = [...new Set(db.prepare('SELECT program FROM parts WHERE program IS NOT NULL').pluck().all() as string[])].sort().join(',');
      assert.deepEqual([programs(A), rules(A)], [own, String(PROGRAM_RULES)]);
      assert.deepEqual([programs(B), rules(B)], ['by-other-rules', String(PROGRAM_RULES + 1)]);
      // A report by command says so, beside its rows (stderr: the JSON's shape is fixed); other groupings do not.
      const cli = (by: string) => printed(() => reportCommand(['--from', url, '--period', 'all', '--by', by, '--json'], { now: () => NOW * 1000 }));
      assert.deepEqual((await cli('command')).err, [`hermetic: the commands of 1 machine (gateway-b) are named by other rules than this Hermetic's (version ${PROGRAM_RULES}): older ones are named again when a forwarder of this version next opens the fleet store, newer ones are their forwarder's own.`]);
      assert.deepEqual((await cli('tool')).err, []);
      // B ships again (its forwarder now of these rules): its own names, its rules recorded; nothing to say.
      await sink.write({ ...datasetBatch(store.dataset, B, 2, 1), first: true });
      assert.deepEqual([programs(B), rules(B)], [own, String(PROGRAM_RULES)]);
      // A batch read from a dataset that another Hermetic's rules named records those rules (decision 0158).
      await sink.write({ ...datasetBatch(store.dataset, B, 3, 2), programRules: PROGRAM_RULES + 1 });
      assert.equal(rules(B), String(PROGRAM_RULES + 1));
      await sink.write({ ...datasetBatch(store.dataset, B, 4, 3), programRules: PROGRAM_RULES });
      assert.equal(rules(B), String(PROGRAM_RULES));
      assert.deepEqual((await cli('command')).err, []);
      const fleet = await fleetReport(url, { by: ['machine', 'command'] });
      assert.equal(fleet.totals.commands!.tool_calls, 2 * usageReport(db, { by: ['command'] }).totals.commands!.tool_calls);
    } finally {
      await sink.close();
    }
  });

  it('a plan PostgreSQL runs in parallel never calls the failure rule there; a forwarder of this version makes it PARALLEL UNSAFE (decision 0160)', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A]]);
    const d = dbOf(url);
    // As fleet schema version 10 left the rule (PARALLEL SAFE; no stored verdicts, so the report runs it), with every
    // query that may run in parallel run so: its EXCEPTION block then failed ("cannot start subtransactions during a
    // parallel operation").
    const force = Number(cluster.psql('SHOW server_version_num', d).trim()) >= 160000 ? 'debug_parallel_query' : 'force_parallel_mode';
    cluster.psql(`ALTER TABLE hermetic.parts DROP COLUMN failed; ALTER FUNCTION hermetic.${TOOL_ERROR_FUNCTION}(text) PARALLEL SAFE;
      DELETE FROM hermetic.schema_version WHERE version > 10; ALTER DATABASE ${d} SET ${force} = on`, d);
    const request: ReportRequest = { by: ['command', 'day'] };
    assert.deepEqual(await gatheredEachTime(url, request), usageReport(db, request));
    assert.deepEqual(await fleetReport(url, request), usageReport(db, request));
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    assert.equal(cluster.psql(`SELECT proparallel FROM pg_proc WHERE proname = '${TOOL_ERROR_FUNCTION}'`, d).trim(), 'u');
    assert.equal(cluster.psql('SELECT MAX(version) FROM hermetic.schema_version', d).trim(), String(SCHEMA_VERSION));
    assert.deepEqual(await gatheredEachTime(url, request), usageReport(db, request));
  });

  it('each terminal result\'s verdict is stored as it is written, and read, and each part\'s cell found by the index of cells; a fleet of version 11 (neither) gives the same rows by the rule until a forwarder makes them (decision 0167)', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A]]);
    const d = dbOf(url);
    const pool = createPool(postgresTarget(url), { max: 1 });
    try {
      // The machine's own verdicts (SQLite's rule over the same text), and none on any other part.
      const own = db.prepare(`SELECT COUNT(*) FROM parts WHERE tool_name = 'terminal' AND part_type = 'tool_result' AND ${toolErrorSql('content_text')}`).pluck().get() as number;
      assert.ok(own > 0, 'the store has failed terminal results');
      assert.equal(cluster.psql(`SELECT COUNT(*) FILTER (WHERE failed) || ' ' || COUNT(*) FILTER (WHERE failed IS NOT NULL AND (tool_name <> 'terminal' OR part_type <> 'tool_result')) FROM hermetic.parts`, d).trim(), `${own} 0`);
      assert.deepEqual(await verdictDrift(pool, 'hermetic'), []);
      const requests: ReportRequest[] = [{ by: ['command'] }, { by: ['command', 'day'], top: 2 }, { by: ['command'], since: T0 + 1800, until: T0 + 7200 }, { by: ['session', 'command'] }];
      // Whether the gathering runs the rule, and whether it finds cells by the index of version 12 (keys byte-wise).
      const judges = (sql: string[]) => sql.filter((q) => q.startsWith('INSERT INTO pg_temp.command_usage')).map((q) => [q.includes(TOOL_ERROR_FUNCTION), q.includes('COLLATE "C" =')]);
      // Stored: the gathering reads the verdicts, and runs the rule on no text.
      assert.deepEqual(judges((await statementsOf(url, true)).sql), [[false, true]]);
      for (const request of requests) assert.deepEqual(await fleetReport(url, request), usageReport(db, request), JSON.stringify(request));
      // The index of cells dropped by hand: found by the session's keys as before, the same rows.
      cluster.psql('DROP INDEX hermetic.tool_usage_terminal', d);
      assert.deepEqual(judges((await statementsOf(url, true)).sql), [[false, false]]);
      for (const request of requests) assert.deepEqual(await fleetReport(url, request), usageReport(db, request), `${JSON.stringify(request)} without the index of cells`);
      // As version 11 left it: no verdicts stored. The report judges each result by the rule, the plain twin: the same rows.
      cluster.psql('ALTER TABLE hermetic.parts DROP COLUMN failed; DELETE FROM hermetic.schema_version WHERE version > 11', d);
      assert.equal(await verdictDrift(pool, 'hermetic'), null);
      const twin = await statementsOf(url, true);
      assert.deepEqual([judges(twin.sql), twin.report], [[[true, false]], usageReport(db, { by: ['command', 'day'], top: 2 })]);
      for (const request of requests) {
        assert.deepEqual(await fleetReport(url, request), usageReport(db, request), `${JSON.stringify(request)} judged`);
        assert.deepEqual(await gatheredEachTime(url, request), usageReport(db, request), `${JSON.stringify(request)} judged, gathered by each statement`);
      }
      // A forwarder's open stores them for the rows already there.
      const sink = createPostgresSink(url);
      await sink.open();
      await sink.close();
      assert.equal(cluster.psql('SELECT MAX(version) FROM hermetic.schema_version', d).trim(), String(SCHEMA_VERSION));
      assert.deepEqual(await verdictDrift(pool, 'hermetic'), []);
      assert.equal(cluster.psql('SELECT COUNT(*) FROM hermetic.parts WHERE failed', d).trim(), String(own));
      assert.deepEqual(judges((await statementsOf(url, true)).sql), [[false, true]]);
      for (const request of requests) assert.deepEqual(await fleetReport(url, request), usageReport(db, request), `${JSON.stringify(request)} stored again`);
      // Any writer keeps it: a hand edit of a result's text, of its tool, of its type.
      const [first] = (await pool.query(`SELECT store, session_id, part_id FROM hermetic.parts WHERE tool_name = 'terminal' AND part_type = 'tool_result' AND NOT failed ORDER BY part_id LIMIT 1`)).rows;
      const edit = async (set: string) => (await pool.query(`UPDATE hermetic.parts SET ${set} WHERE store = $1 AND session_id = $2 AND part_id = $3 RETURNING failed`, [first.store, first.session_id, first.part_id])).rows[0].failed;
      assert.deepEqual([await edit(`content_text = '{"exit_code": 2}'`), await edit(`tool_name = 'read_file'`), await edit(`tool_name = 'terminal', part_type = 'tool_call'`), await edit(`part_type = 'tool_result'`), await edit(`content_text = 'ok'`)], [true, null, null, true, false]);
      assert.deepEqual(await verdictDrift(pool, 'hermetic'), []);
    } finally {
      await pool.end();
    }
  });

  it('a fleet whose parts.failed was made again by hand (a plain column, another expression) is judged by the rule, and the next forwarder makes it again by the rule (decision 0170)', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A]]);
    const d = dbOf(url);
    const pool = createPool(postgresTarget(url), { max: 1 });
    try {
      const requests: ReportRequest[] = [{ by: ['command'] }, { by: ['day', 'command'] }];
      for (const hand of ['boolean', 'boolean DEFAULT true', "boolean GENERATED ALWAYS AS (part_type = 'tool_result') STORED"]) {
        cluster.psql(`ALTER TABLE hermetic.parts DROP COLUMN failed; ALTER TABLE hermetic.parts ADD COLUMN failed ${hand}`, d);
        for (const request of requests) assert.deepEqual(await fleetReport(url, request), usageReport(db, request), `${hand}: judged, ${JSON.stringify(request)}`);
        const sink = createPostgresSink(url);
        await sink.open();
        await sink.close();
        assert.deepEqual(await verdictDrift(pool, 'hermetic'), [], `${hand}: made again by the rule`);
        for (const request of requests) assert.deepEqual(await fleetReport(url, request), usageReport(db, request), `${hand}: stored, ${JSON.stringify(request)}`);
      }
    } finally {
      await pool.end();
    }
  });

  it('naming a machine again reads its calls a page at a time: every call named, whatever the page size', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A]]);
    const d = dbOf(url);
    cluster.psql(`UPDATE hermetic.parts SET program = NULL WHERE program IS NOT NULL; UPDATE hermetic.progress SET program_rules = NULL`, d);
    const pool = createPool(postgresTarget(url), { max: 1 });
    const client = await pool.connect();
    try {
      const calls = Number(cluster.psql(`SELECT COUNT(*) FROM hermetic.parts WHERE tool_name = 'terminal' AND part_type = 'tool_call'`, d).trim());
      assert.ok(calls > 4, `several pages of 2 (${calls} calls)`);
      assert.deepEqual(await nameFleetPrograms(client, 'hermetic', (args) => `named:${String(args).length}`, PROGRAM_RULES, 2), [A.machineId]);
      const left = cluster.psql(`SELECT COUNT(*) FROM hermetic.parts WHERE tool_name = 'terminal' AND part_type = 'tool_call' AND (program IS NULL OR program NOT LIKE 'named:%')`, d).trim();
      assert.equal(left, '0');
      assert.equal(cluster.psql(`SELECT program_rules FROM hermetic.progress`, d).trim(), String(PROGRAM_RULES));
    } finally {
      client.release();
      await pool.end();
    }
  });

  it('where PostgreSQL\'s JSON parser differs from SQLite\'s, the fleet\'s rule reads as SQLite does: NUL and surrogate escapes, nesting past 1,000 levels; a fleet of version 12 has its verdicts of such results stored again (decision 0170)', async () => {
    const url = cluster.createDatabase();
    await shipDatasets(url, [[store.dataset, A], [store.dataset, B]]);
    const d = dbOf(url);
    const sqlite = new Database(':memory:');
    const judge = sqlite.prepare(`SELECT ${toolErrorSql('@t')} AS f`).pluck();
    const nested = (n: number, open: string, close: string) => `{"error": "x", "a": ${open.repeat(n)}1${close.repeat(n)}}`;
    const docs = [
      '{"exit_code": 1, "output": "\\u0000"}', '{"error": "\\u0000"}', '{"\\u0000": 1, "status": "failed"}', '{"status": "error\\u0000"}',
      '{"exit_code": 2, "output": "\\udcff\\udc80"}', '{"error": "\\ud800"}', '{"exit_code": 1, "o": "\\uD83D\\uDE00"}', '{"status": "error", "o": "\\\\u0000"}',
      '{"exit_code": 1, "o": "\\\\\\u0000"}', nested(999, '[', ']'), nested(1000, '[', ']'), nested(999, '{"a": ', '}'), nested(1000, '{"a": ', '}'),
      nested(3000, '[', ']'), `{"error": "x", "a": "${'['.repeat(3000)}"}`, `{"error": "x", "a": [${'[], '.repeat(2000)}[]]}`,
    ];
    const pool = createPool(postgresTarget(url), { max: 1 });
    try {
      const theirs = async () => (await pool.query(`SELECT hermetic.${TOOL_ERROR_FUNCTION}(t) AS f FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n`, [docs])).rows.map((r) => (r.f === true ? 1 : 0));
      const ours = docs.map((t) => judge.get({ t }));
      assert.ok(ours.includes(0) && ours.includes(1));
      assert.deepEqual(await theirs(), ours);
      // A fleet of version 12, whose rule read those with an escape or past 1,000 brackets otherwise (here: said nothing
      // failed), stored them so.
      const again = docs.filter((t) => t.includes('\\u') || t.split('').filter((c) => c === '[' || c === '{').length > 1000);
      assert.ok(again.length < docs.length && again.some((t) => judge.get({ t }) === 1));
      cluster.psql(`CREATE OR REPLACE FUNCTION hermetic.${TOOL_ERROR_FUNCTION}(t text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN false; END $$;
        DELETE FROM hermetic.schema_version WHERE version > 12`, d);
      const results = (await pool.query(`SELECT machine_id, store, session_id, part_id FROM hermetic.parts WHERE tool_name = 'terminal' AND part_type = 'tool_result' ORDER BY machine_id, part_id LIMIT ${again.length}`)).rows;
      assert.equal(results.length, again.length);
      for (const [i, r] of results.entries()) await pool.query('UPDATE hermetic.parts SET content_text = $1 WHERE machine_id = $2 AND store = $3 AND session_id = $4 AND part_id = $5', [again[i], r.machine_id, r.store, r.session_id, r.part_id]);
      const stored = async () => (await pool.query(`SELECT p.failed FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(machine, id, n) JOIN hermetic.parts p ON p.machine_id = u.machine AND p.part_id = u.id AND p.tool_name = 'terminal' ORDER BY n`, [results.map((r) => r.machine_id), results.map((r) => r.part_id)])).rows.map((r) => (r.failed === true ? 1 : 0));
      assert.ok((await stored()).every((f) => f === 0));
      const sink = createPostgresSink(url);
      await sink.open();
      await sink.close();
      assert.equal(cluster.psql('SELECT MAX(version) FROM hermetic.schema_version', d).trim(), String(SCHEMA_VERSION));
      assert.deepEqual(await stored(), again.map((t) => judge.get({ t })));
      assert.deepEqual(await verdictDrift(pool, 'hermetic'), []);
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), { extra: [], missing: [] }, 'the rows written again keep their calls');
      assert.deepEqual(await fleetReport(url, { by: ['command'] }), await gatheredEachTime(url, { by: ['command'] }));
    } finally {
      await pool.end();
      sqlite.close();
    }
  });

  it('property: the failure rule\'s PostgreSQL twin judges a tool result as SQLite\'s rule does', async () => {
    const url = cluster.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    const sqlite = new Database(':memory:');
    const judge = sqlite.prepare(`SELECT ${toolErrorSql('@t')} AS f`).pluck();
    const pool = createPool(postgresTarget(url), { max: 1 });
    try {
      const value = fc.oneof(fc.constantFrom(0, 1, -1, 0.0, 2.5, -0.5, 1e3, true, false, null, '', 'error', 'failed', 'ok', '0', '{}', '[]', ' ', {}, [], { a: 1 }, [0], 'Error'),
        fc.integer(), fc.string({ maxLength: 6 }));
      const key = fc.constantFrom('exit_code', 'error', 'success', 'status', 'output', 'exit_code_meaning');
      const doc = fc.oneof(
        // Objects with the four keys, a key twice (the first is read), spaces, nesting.
        fc.array(fc.tuple(key, value), { maxLength: 5 }).map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`),
        fc.array(fc.tuple(key, value), { maxLength: 4 }).map((pairs) => `  {"nested": {${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}, "exit_code": 0}`),
        // Text that is not a JSON object, or not JSON at all, naming the keys anyway.
        fc.constantFrom('exit ok', '{"exit_code": 1', '{"exit_code": 1,}', '["exit_code", 1]', '{"error": "x"} trailing', '{exit_code: 1}', '{"status": "error"}\n', '\t{"success": false}', '{"error": NaN}', '{"exit_code": 01}', '{"exit_code": 1e2}', '{"exit_code": -0}', '{"error": {  }}', '{"error": [ ]}', '{"error":"\\u0041"}', ''),
      );
      await fc.assert(fc.asyncProperty(fc.array(doc, { minLength: 1, maxLength: 20 }), async (docs) => {
        const theirs = (await pool.query(`SELECT hermetic.${TOOL_ERROR_FUNCTION}(t) AS f FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n`, [docs])).rows.map((r) => (r.f === true ? 1 : 0));
        assert.deepEqual(theirs, docs.map((t) => judge.get({ t })), JSON.stringify(docs));
      }), { numRuns: 150 });
    } finally {
      await pool.end();
      sqlite.close();
    }
  });
});

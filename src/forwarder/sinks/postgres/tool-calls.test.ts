// The tool calls the fleet store keeps from its parts (fleet schema version 6, decision 0099) equal the grouping of
// `parts` they stand for — after inserts, upserts, deletes, hand edits, a machine's rows dropped, TRUNCATE, with call
// ids repeated and longer than a B-tree entry, names and times tied — and the dashboard's slowest calls read from them
// are the plain query's answer, row for row, over a generated fleet; a version-5 fleet with data gets the table filled.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { QueryResultRow } from 'pg';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { sharedPostgres, type PgCluster } from '../../../shared/testing/postgres.js';
import { Zone } from '../../ledger/zone.js';
import { reportCondition, type ReportRequest } from '../../report/index.js';
import { postgresDialect } from '../../report/dialect.js';
import { postgresSource } from '../../web/data/postgres.js';
import { slowestSql } from '../../web/data/rows.js';
import type { Origin } from '../remote/contract.js';
import { createPool } from './pool.js';
import { datasetBatch, toolCallsDrift, verdictDrift } from './testing/rows.js';
import { generatedDataset, shipDatasets } from './testing/fleet.js';
import { createPostgresSink, postgresTarget } from './index.js';
import { SCHEMA_VERSION } from './schema.js';

/** Every fleet schema version, as a migrated store lists them. */
const ALL_VERSIONS = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1).join(',');

let pg: PgCluster;
let dir: string;
let cleanup: () => void;
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'laptop-b' };
const END = Date.UTC(2026, 6, 15, 10, 30) / 1000;
const ZONE = new Zone('UTC');
let datasetA: string;
let datasetB: string;

before(async () => {
  pg = await sharedPostgres();
  ({ dir, cleanup } = tempDir('hermetic-pg-tool-calls-'));
  datasetA = generatedDataset(join(dir, 'a'), { sessions: 40, seed: 'pg-tool-calls-a', end: END, timeZone: 'UTC' });
  datasetB = generatedDataset(join(dir, 'b'), { sessions: 25, seed: 'pg-tool-calls-b', end: END, timeZone: 'UTC' });
});
after(() => cleanup());

const NONE = { extra: [], missing: [] };

/** A fresh fleet store (migrated, empty) and a pool on it. */
async function fleet(): Promise<{ url: string; db: string; pool: ReturnType<typeof createPool> }> {
  const url = pg.createDatabase();
  const sink = createPostgresSink(url);
  await sink.open();
  await sink.close();
  return { url, db: url.split('/').pop()!, pool: createPool(postgresTarget(url), { max: 1 }) };
}

/** The slowest calls by the plain grouping of parts (the dashboard's way before fleet schema version 6). */
async function plainSlowest(pool: ReturnType<typeof createPool>, request: ReportRequest = {}, limit = 10): Promise<QueryResultRow[]> {
  const d = postgresDialect('hermetic');
  const { tools, params } = reportCondition(request, d);
  const { sql, values } = d.bind(slowestSql(request, tools, limit, true), params);
  const c = await pool.connect();
  try {
    await c.query('SET search_path TO hermetic');
    return (await c.query(sql, values as unknown[])).rows;
  } finally {
    c.release();
  }
}

describe('the fleet\'s tool_calls, kept by triggers on parts', () => {
  it('property: inserts, upserts, deletes, hand edits, a machine dropped, TRUNCATE — the kept calls equal the grouping of parts after each, and each result\'s stored verdict is the rule\'s', async () => {
    const { pool } = await fleet();
    const LONG = `long-${'x'.repeat(9000)}`;
    // Few ids, names and times, so ids repeat within a session and times and names tie; names in both cases and one
    // past U+FFFF (the merge's > and the grouping's MAX compare them by the same collation); an id far past a B-tree
    // entry's size.
    const id = fc.constantFrom('call_0', 'call_1', '', LONG);
    const name = fc.constantFrom('terminal', 'read_file', null, 'B', 'a', 'é', '\u{1F600}');
    const time = fc.constantFrom(0, 1, 2, 5, 5.5, 60);
    // A result's text, which its stored verdict (decision 0167) is judged from.
    const text = fc.constantFrom(null, '{"exit_code": 1}', '{"exit_code": 0}', 'plain');
    const part = fc.record({ m: fc.nat(1), s: fc.nat(2), type: fc.constantFrom('tool_call', 'tool_result', 'tool_result', 'text'), id: fc.option(id, { freq: 8 }), name, time, text });
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), parts: fc.array(part, { minLength: 1, maxLength: 12 }) }) },
      // Parts already there written again with other values (INSERT … ON CONFLICT DO UPDATE, as the staging path does), beside new ones.
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('upsert' as const), parts: fc.array(fc.record({ reuse: fc.nat(60), p: part }), { minLength: 1, maxLength: 8 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), s: fc.nat(2), from: fc.nat(40) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('thin' as const), s: fc.nat(2), every: fc.integer({ min: 2, max: 4 }), at: fc.nat(3) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), s: fc.nat(2) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), k: fc.nat(60), id: fc.option(id), name, time, type: fc.constantFrom('tool_call', 'tool_result', 'text'), s: fc.nat(2), text }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('machine' as const), m: fc.nat(1) }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'truncate' as const }) },
    );
    let n = 0;
    const row = (p: { m: number; s: number; type: string; id: string | null; name: string | null; time: number; text: string | null }, partId = `p${n++}`) =>
      [`m${p.m}`, 'host', '/s.db', `s${p.s}`, partId, 0, 'assistant', p.type, p.name, p.type === 'tool_call' ? p.id : null, p.type === 'tool_result' ? p.id : null, p.time, p.text];
    const insert = async (rows: unknown[][], upsert: boolean) => {
      const values: unknown[] = [];
      const tuples = rows.map((r) => `(${r.map((v) => `$${values.push(v)}`).join(', ')})`);
      await pool.query(`INSERT INTO hermetic.parts (machine_id, hostname, store, session_id, part_id, part_index, role, part_type, tool_name, tool_call_id, tool_result_for, created_at, content_text)
        VALUES ${tuples.join(', ')}${upsert ? ` ON CONFLICT (machine_id, store, session_id, part_id) DO UPDATE SET part_type = EXCLUDED.part_type, tool_name = EXCLUDED.tool_name,
          tool_call_id = EXCLUDED.tool_call_id, tool_result_for = EXCLUDED.tool_result_for, created_at = EXCLUDED.created_at, content_text = EXCLUDED.content_text` : ''}`, values);
    };
    /** The k-th part there (modulo their number), or none. */
    const nth = async (k: number) => (await pool.query('SELECT machine_id, store, session_id, part_id FROM hermetic.parts ORDER BY machine_id, session_id, part_id OFFSET $1 LIMIT 1', [k])).rows[0] as Record<string, string> | undefined;
    try {
      await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        await pool.query('TRUNCATE hermetic.parts');
        for (const o of ops) {
          if (o.kind === 'insert') await insert(o.parts.map((p) => row(p)), false);
          else if (o.kind === 'upsert') {
            const rows: unknown[][] = [];
            const seen = new Set<string>();
            for (const { reuse, p } of o.parts) {
              const there = await nth(reuse);
              // One row per key in a statement (ON CONFLICT refuses a row it would change twice), moved to its place.
              if (there && !seen.has(JSON.stringify(there))) {
                seen.add(JSON.stringify(there));
                rows.push(row({ ...p, m: Number(there.machine_id!.slice(1)), s: Number(there.session_id!.slice(1)) }, there.part_id));
              } else rows.push(row(p));
            }
            await insert(rows, true);
          } else if (o.kind === 'delete') await pool.query("DELETE FROM hermetic.parts WHERE session_id = $1 AND length(part_id) > 1 AND substr(part_id, 2)::int >= $2", [`s${o.s}`, o.from]);
          else if (o.kind === 'thin') await pool.query('DELETE FROM hermetic.parts WHERE session_id = $1 AND substr(part_id, 2)::int % $2 = $3', [`s${o.s}`, o.every, o.at % o.every]);
          else if (o.kind === 'forget') await pool.query('DELETE FROM hermetic.parts WHERE session_id = $1', [`s${o.s}`]);
          else if (o.kind === 'edit') {
            const there = await nth(o.k);
            // A hand edit of every column the grouping reads, the session included (the part moves to another).
            if (there) await pool.query(`UPDATE hermetic.parts SET part_type = $5, tool_name = $6, tool_call_id = $7, tool_result_for = $8, created_at = $9, session_id = $10, content_text = $11
              WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND part_id = $4`, [there.machine_id, there.store, there.session_id, there.part_id, o.type, o.name, o.type === 'tool_call' ? o.id : null, o.type === 'tool_result' ? o.id : null, o.time, `s${o.s}`, o.text]).catch((e: { code?: string }) => {
              if (e.code !== '23505') throw e; // the part's id already in the other session: refused, nothing changed
            });
          } else if (o.kind === 'machine') await pool.query('DELETE FROM hermetic.parts WHERE machine_id = $1', [`m${o.m}`]);
          else await pool.query('TRUNCATE hermetic.parts');
          assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE, `after ${o.kind}`);
          assert.deepEqual(await verdictDrift(pool, 'hermetic'), [], `verdicts after ${o.kind}`);
        }
      }), { numRuns: 60, seed: 99 });
    } finally {
      await pool.end();
    }
  });

  it('slowest calls tied in time go by session (and machine, store, call id) in byte order, as SQLite orders them, on a database whose collation is a language\'s, read either way', async () => {
    const url = pg.createDatabase(); // en-US, not byte order
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    const pool = createPool(postgresTarget(url), { max: 1 });
    // ICU's en-US puts these _x, a, B, é, Z9; their bytes B, Z9, _x, a, é.
    const sessions = ['B', 'a', '_x', 'é', 'Z9'];
    try {
      for (const s of sessions) {
        await pool.query(`INSERT INTO hermetic.parts (machine_id, hostname, store, session_id, part_id, part_index, role, part_type, tool_name, tool_call_id, tool_result_for, created_at)
          VALUES ($1, 'host', '/s.db', $2, 'p0', 0, 'assistant', 'tool_call', 'terminal', 'c1', NULL, 100), ($1, 'host', '/s.db', $2, 'p1', 0, 'tool', 'tool_result', NULL, NULL, 'c1', 105)`, [A.machineId, s]);
        await pool.query(`INSERT INTO hermetic.tool_usage (machine_id, hostname, store, session_id, at, day, day_utc, profile, source, tool_name, calls, errors)
          VALUES ($1, 'host', '/s.db', $2, 0, '1970-01-01', '1970-01-01', 'default', 'cli', 'terminal', 1, 0)`, [A.machineId, s]);
      }
      const bytes = [...sessions].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      // From the kept tool_calls (the dashboard's way on this schema), and by the plain grouping of parts.
      assert.deepEqual((await postgresSource(url, ZONE).slowestCalls({}, 10)).map((c) => c.session_id), bytes);
      assert.deepEqual((await plainSlowest(pool)).map((r) => r.session_id), bytes);
    } finally {
      await pool.end();
    }
  });

  it('a call id with two tool names keeps the greater by bytes, as SQLite does, on a database whose collation is a language\'s: grouped, merged, read either way, and put right by the migration to 8', async () => {
    const url = pg.createDatabase(); // en-US: B-tool above a-tool; by bytes a-tool above B-tool
    const db = url.split('/').pop()!;
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    const pool = createPool(postgresTarget(url), { max: 1 });
    const names = ['B-tool', 'a-tool'];
    // SQLite's own answer, the dataset's rule (its MAX and its merge's >, BINARY).
    const sqlite = new Database(':memory:');
    const want = sqlite.prepare("SELECT MAX(x) FROM (SELECT 'B-tool' AS x UNION ALL SELECT 'a-tool')").pluck().get() as string;
    sqlite.close();
    assert.equal(want, 'a-tool');
    const part = (session: string, id: string, name: string | null, type = 'tool_call', at = 100) => pool.query(`INSERT INTO hermetic.parts (machine_id, hostname, store, session_id, part_id, part_index, role, part_type, tool_name, tool_call_id, tool_result_for, created_at)
      VALUES ($1, 'host', '/s.db', $2, $3, 0, 'assistant', $4, $5, $6, $7, $8)`, [A.machineId, session, `${id}-${name ?? 'result'}`, type, name, type === 'tool_call' ? id : null, type === 'tool_result' ? id : null, at]);
    const kept = async () => (await pool.query('SELECT session_id, tool FROM hermetic.tool_calls ORDER BY session_id')).rows.map((r) => `${r.session_id} ${r.tool}`);
    try {
      // Both names in one statement (the grouping), and one after the other in either order (the merge).
      await pool.query(`INSERT INTO hermetic.parts (machine_id, hostname, store, session_id, part_id, part_index, role, part_type, tool_name, tool_call_id, created_at)
        VALUES ($1, 'host', '/s.db', 'together', 'p0', 0, 'assistant', 'tool_call', $2, 'c1', 100), ($1, 'host', '/s.db', 'together', 'p1', 1, 'assistant', 'tool_call', $3, 'c1', 101)`, [A.machineId, ...names]);
      for (const [session, order] of [['upper-first', names], ['lower-first', [...names].reverse()]] as const) for (const name of order) await part(session, 'c1', name);
      for (const session of ['together', 'upper-first', 'lower-first']) await part(session, 'c1', null, 'tool_result', 105);
      assert.deepEqual(await kept(), ['lower-first a-tool', 'together a-tool', 'upper-first a-tool']);
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
      for (const session of ['together', 'upper-first', 'lower-first']) {
        await pool.query(`INSERT INTO hermetic.tool_usage (machine_id, hostname, store, session_id, at, day, day_utc, profile, source, tool_name, calls, errors)
          VALUES ($1, 'host', '/s.db', $2, 0, '1970-01-01', '1970-01-01', 'default', 'cli', 'a-tool', 1, 0)`, [A.machineId, session]);
      }
      // The dashboard's slowest calls, from the kept table and by the plain grouping of parts.
      assert.deepEqual((await postgresSource(url, ZONE).slowestCalls({}, 10)).map((c) => c.tool), [want, want, want]);
      assert.deepEqual((await plainSlowest(pool)).map((r) => r.tool), [want, want, want]);
      // A fleet store of version 7 kept the greater in the database's collation: the migration to 8 counts it again.
      pg.psql("UPDATE hermetic.tool_calls SET tool = 'B-tool'; DELETE FROM hermetic.schema_version WHERE version >= 8", db);
      const reopened = createPostgresSink(url);
      await reopened.open();
      await reopened.close();
      assert.equal(pg.psql("SELECT MAX(version) FROM hermetic.schema_version", db).trim(), String(SCHEMA_VERSION));
      assert.deepEqual(await kept(), ['lower-first a-tool', 'together a-tool', 'upper-first a-tool']);
    } finally {
      await pool.end();
    }
  });

  it('the slowest calls read from tool_calls are the plain query\'s, for every window, filter and limit; with the table dropped by hand, grouped from parts, and the table made again filled', async () => {
    const { url, db, pool } = await fleet();
    await shipDatasets(url, [[datasetA, A], [datasetB, B]]);
    const source = postgresSource(url, ZONE);
    try {
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
      const models = (await pool.query('SELECT DISTINCT model FROM hermetic.usage_ledger ORDER BY model')).rows.map((r) => r.model as string);
      const sources = (await pool.query('SELECT DISTINCT source FROM hermetic.tool_usage ORDER BY source')).rows.map((r) => r.source as string);
      const requests: ReportRequest[] = [
        {}, { since: END - 86_400 }, { since: END - 7 * 86_400 }, { since: END - 20 * 86_400, until: END - 10 * 86_400 }, { until: END - 25 * 86_400 },
        { since: END + 86_400 }, { filter: { model: [models[0]!] } }, { filter: { source: [sources.at(-1)!] }, since: END - 3 * 86_400 },
        { filter: { task: ['main'], model: models.slice(0, 2) } }, { filter: { session: ['no such session'] } },
      ];
      /** The plain query's answer, as the fleet gave it before version 6. */
      const plain = async (r: ReportRequest, limit: number): Promise<QueryResultRow[]> => (await plainSlowest(pool, r, limit)).map((x) => ({ ...x, started_at: Number(x.started_at), seconds: Number(x.seconds) }));
      const answers = new Map<string, unknown>();
      for (const r of requests) {
        for (const limit of [1, 10, 1_000_000]) {
          const want = await plain(r, limit);
          answers.set(`${JSON.stringify(r)} ${limit}`, want);
          assert.deepEqual(await source.slowestCalls(r, limit), want, `${JSON.stringify(r)} limit ${limit}`);
        }
      }
      assert.equal((await plain({}, 10)).length, 10);
      assert.ok(new Set((await plain({}, 1_000_000)).map((x) => x.machine_id)).size === 2, 'both machines\' calls');
      // Dropped by hand: writes still land (the triggers skip it), the dashboard groups the parts, the same answer.
      pg.psql('DROP TABLE hermetic.tool_calls', db);
      await shipDatasets(url, [[datasetA, A]]);
      for (const r of requests) assert.deepEqual(await source.slowestCalls(r, 10), answers.get(`${JSON.stringify(r)} 10`), JSON.stringify(r));
      // The next forwarder to open the store makes it again, filled from the parts.
      const sink = createPostgresSink(url);
      await sink.open();
      await sink.close();
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
      for (const r of requests) assert.deepEqual(await source.slowestCalls(r, 10), answers.get(`${JSON.stringify(r)} 10`), JSON.stringify(r));
    } finally {
      await source.close();
      await pool.end();
    }
  });

  it('a fleet store of version 5 with data is migrated to 6: the table filled from its parts, kept from then on', async () => {
    const { url, db, pool } = await fleet();
    try {
      await shipDatasets(url, [[datasetA, A], [datasetB, B]]);
      // As version 5 left it: no tool_calls, no triggers on parts (nor the later backfill_unread).
      pg.psql(`DROP TABLE hermetic.tool_calls; DROP TABLE hermetic.backfill_unread;
        DROP FUNCTION hermetic.tool_calls_added, hermetic.tool_calls_removed, hermetic.tool_calls_changed, hermetic.tool_calls_emptied CASCADE;
        DELETE FROM hermetic.schema_version WHERE version >= 6`, db);
      assert.equal(pg.psql("SELECT COUNT(*) FROM pg_trigger WHERE tgrelid = 'hermetic.parts'::regclass AND NOT tgisinternal", db).trim(), '0');
      const sink = createPostgresSink(url);
      await sink.open();
      try {
        assert.equal(pg.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM hermetic.schema_version", db).trim(), ALL_VERSIONS);
        const calls = Number(pg.psql('SELECT COUNT(*) FROM hermetic.tool_calls', db).trim());
        assert.ok(calls > 100, `filled: ${calls} calls`);
        assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
        // Kept from then on: a replay, then B's rows dropped by a first copy and sent again.
        await sink.write(datasetBatch(datasetA, A, 2, 2));
        await sink.write({ ...datasetBatch(datasetB, B, 1, 1), first: true });
        assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
        assert.equal(Number(pg.psql('SELECT COUNT(*) FROM hermetic.tool_calls', db).trim()), calls);
        // And a session's parts deleted by a log batch (a session rewound, or made local-only) take its calls with them.
        const [session] = pg.psql(`SELECT session_id FROM hermetic.tool_calls WHERE machine_id = '${A.machineId}' GROUP BY session_id ORDER BY COUNT(*) DESC LIMIT 1`, db).trim().split('\n');
        const keys = (await pool.query('SELECT store, session_id, part_id FROM hermetic.parts WHERE machine_id = $1 AND session_id = $2', [A.machineId, session])).rows;
        await sink.write({ origin: A, fromSeq: 2, toSeq: 3, upserts: [], deletes: [{ table: 'parts', keys }] });
        assert.equal(pg.psql(`SELECT COUNT(*) FROM hermetic.tool_calls WHERE machine_id = '${A.machineId}' AND session_id = '${session}'`, db).trim(), '0');
        assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
      } finally {
        await sink.close();
      }
    } finally {
      await pool.end();
    }
  });

  it('a role with rights on the shipped tables alone (as granted before version 6) ships, the triggers writing tool_calls as their owner, and reads the same slowest calls', async () => {
    const { url, db, pool } = await fleet();
    const role = `shipper_${db}`;
    pg.psql(`CREATE ROLE ${role} LOGIN PASSWORD 'shipper-pw'; GRANT USAGE ON SCHEMA hermetic TO ${role};
      GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA hermetic TO ${role}; REVOKE ALL ON hermetic.tool_calls FROM ${role}`, db);
    const asRole = url.replace(`${pg.user}:${pg.password}`, `${role}:shipper-pw`);
    const sink = createPostgresSink(asRole);
    const [owner, reader] = [postgresSource(url, ZONE), postgresSource(asRole, ZONE)];
    try {
      await sink.open();
      await sink.write({ ...datasetBatch(datasetA, A, 3, 3), first: true });
      await sink.write(datasetBatch(datasetA, A, 5, 3));
      assert.ok(Number(pg.psql('SELECT COUNT(*) FROM hermetic.tool_calls', db).trim()) > 0);
      assert.deepEqual(await toolCallsDrift(pool, 'hermetic'), NONE);
      // The role may not read tool_calls: its dashboard groups the parts, the same answer.
      for (const r of [{}, { since: END - 7 * 86_400 }] as ReportRequest[]) {
        const want = await owner.slowestCalls(r, 1_000_000);
        assert.ok(want.length > 0);
        assert.deepEqual(await reader.slowestCalls(r, 1_000_000), want, JSON.stringify(r));
      }
    } finally {
      await sink.close();
      await owner.close();
      await reader.close();
      await pool.end();
    }
  });
});

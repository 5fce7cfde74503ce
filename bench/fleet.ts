// Benchmark: `hermetic report --from postgres://…` and `hermetic web --from postgres://…` over a fleet store of real
// size (decision 0098). BENCH_FLEET_MACHINES stores made by the project's generator (each its own seed, a year of
// history ending now) are backfilled each into its own dataset and shipped through the real PostgreSQL sink into one
// throwaway cluster, as that many machines. Then, each figure against a baseline measured in the same round (the
// machine is shared and noisy; nothing here passes or fails):
//   F1  the report CLI in process (`reportCommand(['--from', url, …])`, its output captured): the default view (30
//       days), the whole year, --by day --by model, --by session --top 20, --by machine, --by command (30 days
//       and the year), --by tool (the year); median of the rounds, against
//       `SELECT count(*) FROM usage_ledger` over the same fleet (its own connection and transaction, as the report's).
//   F2  the dashboard's endpoints over HTTP on its real server (`postgresSource`): /api/overview (with its uncosted and
//       row-issue counts), /api/daily, /api/sessions, /api/breakdown, /api/tools, /api/options and the busiest
//       session's page; against the same baseline.
// The fleet's size and the load average are printed beside the figures.
//   npx tsx bench/fleet.ts   (BENCH_ONLY=fleet npm run bench)
//   BENCH_FLEET_MACHINES=10 BENCH_FLEET_MESSAGES=100000 (per machine) BENCH_FLEET_ROUNDS=5
//   BENCH_FLEET_URL=postgres://… (a store to use: built there when it has no ledger yet, else read as it is)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { reportCommand } from '../src/forwarder/cli/report.js';
import { createForwarder } from '../src/forwarder/index.js';
import { Zone } from '../src/forwarder/ledger/zone.js';
import { createPostgresSink } from '../src/forwarder/sinks/postgres/index.js';
import { postgresSource } from '../src/forwarder/web/data/postgres.js';
import { startWebServer } from '../src/forwarder/web/server.js';
import { startPostgres, type PgCluster } from '../src/shared/testing/postgres.js';
import { printed } from '../src/shared/testing/console.js';
import { generate } from '../src/state-db/generate/index.js';
import { batchesOf } from './postgres-batches.js';

const MACHINES = Number(process.env.BENCH_FLEET_MACHINES ?? 10);
const MESSAGES = Number(process.env.BENCH_FLEET_MESSAGES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_FLEET_ROUNDS ?? 5);
const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** MACHINES generated stores, each backfilled into its own dataset and shipped by the sink as a machine of its own. */
async function build(url: string, dir: string): Promise<void> {
  for (let i = 0; i < MACHINES; i++) {
    const t0 = performance.now();
    const g = generate({ out: join(dir, `m${i}`, 'hermes', 'state.db'), sessions: Math.max(1, Math.round(MESSAGES / 50)), messages: MESSAGES, seed: `bench-fleet-${i}`, days: 365, journal: 'delete', fts: false });
    const home = join(dir, `m${i}`, 'home');
    const forwarder = createForwarder({ home, stateDbs: [g.path] });
    const [r] = forwarder.backfill();
    forwarder.close();
    if (r!.error) throw new Error(`backfill: ${r!.error.code}: ${r!.error.message}`);
    const t1 = performance.now();
    const sink = createPostgresSink(url);
    await sink.open();
    for (const b of batchesOf(join(home, 'hermetic.db'), { machineId: String(i + 1).padStart(32, '0'), hostname: `bench-${i + 1}` })) await sink.write(b);
    await sink.close();
    rmSync(join(dir, `m${i}`), { recursive: true, force: true });
    console.log(`machine ${i + 1}: ${int(g.messages)} messages, ${int(g.sessions)} sessions, generated and backfilled in ${((t1 - t0) / 1000).toFixed(1)} s, shipped in ${((performance.now() - t1) / 1000).toFixed(1)} s (${load()})`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-fleet-'));
let cluster: PgCluster | undefined;
try {
  let url = process.env.BENCH_FLEET_URL;
  if (url === undefined) {
    cluster = await startPostgres();
    url = cluster.createDatabase();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const ledger = async () => (await client.query("SELECT to_regclass('hermetic.usage_ledger') IS NOT NULL AS made")).rows[0].made === true;
  if (!(await ledger()) || Number((await client.query('SELECT count(*) AS n FROM hermetic.usage_ledger')).rows[0].n) === 0) {
    console.log(`fleet bench: building ${MACHINES} machines × ${int(MESSAGES)} messages over a year (node ${process.version})`);
    await build(url, dir);
  }
  await client.query('ANALYZE');
  const count = async (table: string) => int(Number((await client.query(`SELECT count(*) AS n FROM hermetic.${table}`)).rows[0].n));
  const size = (await client.query('SELECT pg_size_pretty(pg_database_size(current_database())) AS s')).rows[0].s;
  console.log(`fleet: ${await count('progress')} machines, ${await count('sessions')} sessions, ${await count('messages')} messages, ${await count('parts')} parts, ${await count('usage_ledger')} ledger rows, ${await count('tool_usage')} tool rows; database ${size}`);
  const busiest = (await client.query('SELECT session_id, machine_id FROM hermetic.sessions ORDER BY live_messages DESC LIMIT 1')).rows[0] as { session_id: string; machine_id: string };
  await client.end();

  // The baseline: a plain scan of the same ledger, through the fleet reader as the report's statements go.
  const { readFleet } = await import('../src/forwarder/sinks/postgres/read.js');
  const baseline = () => readFleet(url!, async (c) => (await c.query('SELECT count(*) FROM usage_ledger')).rows);
  const cli = (args: string[]) => async () => {
    const { value, err } = await printed(() => reportCommand(['--from', url!, ...args], { width: 120, color: false }));
    if (value !== 0) throw new Error(`report ${args.join(' ')}: exit ${value}: ${err.join('\n')}`);
  };
  const reports: [string, () => Promise<unknown>][] = [
    ['report (default view, 30 days)', cli([])],
    ['report --period all (the whole year)', cli(['--period', 'all'])],
    ['report --period all --by day --by model', cli(['--period', 'all', '--by', 'day', '--by', 'model'])],
    ['report --period all --by session --top 20', cli(['--period', 'all', '--by', 'session', '--top', '20'])],
    ['report --by machine (30 days)', cli(['--by', 'machine'])],
    ['report --by command (30 days)', cli(['--by', 'command'])],
    ['report --period all --by command', cli(['--period', 'all', '--by', 'command'])],
    ['report --period all --by tool', cli(['--period', 'all', '--by', 'tool'])],
  ];

  const source = postgresSource(url, new Zone('UTC'));
  const server = await startWebServer({ source, port: 0 });
  const get = (path: string) => async () => {
    const res = await fetch(new URL(path, server.url));
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
  };
  const session = `/api/session?id=${encodeURIComponent(busiest.session_id)}&machine=${busiest.machine_id}`;
  const pages: [string, () => Promise<unknown>][] = [
    ['/api/overview (30 days)', get('/api/overview')],
    ['/api/overview?period=all', get('/api/overview?period=all')],
    ['/api/daily (30 days)', get('/api/daily')],
    ['/api/daily?period=all', get('/api/daily?period=all')],
    ['/api/sessions (30 days)', get('/api/sessions')],
    ['/api/sessions?period=all', get('/api/sessions?period=all')],
    ['/api/breakdown?by=model (30 days)', get('/api/breakdown?by=model')],
    ['/api/breakdown?by=machine&period=all', get('/api/breakdown?by=machine&period=all')],
    ['/api/tools (30 days)', get('/api/tools')],
    ['/api/tools?period=all', get('/api/tools?period=all')],
    ['/api/options (30 days)', get('/api/options')],
    ['/api/session (the busiest, page 1)', get(session)],
  ];

  try {
    for (const [title, shapes] of [['F1 hermetic report --from postgres://… in process', reports], ['F2 hermetic web --from postgres://…, each endpoint over HTTP', pages]] as const) {
      for (const [, fn] of shapes) await fn(); // warm the cache, the pool and the JIT
      await baseline();
      const samples = new Map(shapes.map(([name]) => [name, { ms: [] as number[], ratio: [] as number[] }]));
      const base: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? [...shapes].reverse() : shapes;
        for (const [name, fn] of order) {
          const b = await time(baseline);
          const t = await time(fn);
          base.push(b);
          samples.get(name)!.ms.push(t);
          samples.get(name)!.ratio.push(t / b);
        }
      }
      console.log(`\n${title} (median of ${ROUNDS}); baseline SELECT count(*) FROM usage_ledger: ${ms(median(base))} (${load()})`);
      for (const [name, s] of samples) console.log(`  ${name.padEnd(46)} ${ms(median(s.ms)).padStart(9)}   ${median(s.ratio).toFixed(1).padStart(6)}x the count(*)`);
    }
  } finally {
    await server.close();
    await source.close();
  }
} finally {
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
}

// Benchmark: the PostgreSQL fleet sink (issue 17 §2; decision 0036). A 100,000-message store made by the project's
// generator is backfilled into a dataset; its shipped rows (every table a remote sink receives) are then written into
// a throwaway PostgreSQL 15 cluster, in the same run:
//   P1  rows/s of the sink (batches of 2,000 rows, one transaction each, by COPY: the default, decision 0043) against
//       rows/s of `psql \copy … FROM` of the same rows as CSV into the same empty tables (the floor of what PostgreSQL
//       takes). Goal: >= 0.5x. The other strategies (column arrays through unnest; a multi-row VALUES list) beside it.
//   P2  8 forwarders at once, each a process of its own writing the same rows as another machine: the rows/s of all
//       together, against one forwarder alone (same run).
// Nothing here passes or fails; the load average is printed beside each figure (the machine is shared).
//   npx tsx bench/postgres.ts   (BENCH_ONLY=postgres npm run bench)   BENCH_PG_MESSAGES=100000 BENCH_PG_FORWARDERS=8
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createForwarder } from '../src/forwarder/index.js';
import { createPostgresSink } from '../src/forwarder/sinks/postgres/index.js';
import { SHIPPED_TABLES } from '../src/forwarder/sinks/postgres/schema.js';
import { pgValue } from '../src/forwarder/sinks/postgres/write.js';
import { generate } from '../src/state-db/generate/index.js';
import { startPostgres } from '../src/shared/testing/postgres.js';
import { batchesOf } from './postgres-batches.js';

const MESSAGES = Number(process.env.BENCH_PG_MESSAGES ?? 100_000);
const FORWARDERS = Number(process.env.BENCH_PG_FORWARDERS ?? 8);
const here = dirname(fileURLToPath(import.meta.url));
const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** A CSV field as COPY reads it: empty for NULL, else quoted with "" inside (so '' stays an empty string). */
const csv = (v: unknown) => {
  const x = pgValue(v);
  return x === null ? '' : `"${String(x).replace(/"/g, '""')}"`;
};

const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-pg-'));
const pg = await startPostgres();
try {
  let t0 = performance.now();
  const g = generate({ out: join(dir, 'hermes', 'state.db'), sessions: Math.round(MESSAGES / 50), messages: MESSAGES, seed: 'bench-pg', journal: 'delete', fts: false });
  const home = join(dir, 'home');
  const forwarder = createForwarder({ home, stateDbs: [g.path] });
  forwarder.backfill();
  forwarder.close();
  const path = join(home, 'hermetic.db');
  console.log(`store and backfill: ${MESSAGES.toLocaleString('en-US')} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s (${load()})`);

  const origin = { machineId: '0'.repeat(32), hostname: 'bench' };
  const batches = batchesOf(path, origin);
  const rows = batches.reduce((n, b) => n + b.upserts.reduce((m, u) => m + u.rows.length, 0), 0);
  const perTable = SHIPPED_TABLES.map((t) => `${t.name} ${int(batches.filter((b) => b.upserts[0]!.table === t.name).reduce((n, b) => n + b.upserts[0]!.rows.length, 0))}`);
  console.log(`shipped rows: ${int(rows)} in ${batches.length} batches (${perTable.join(', ')})`);

  // P1: the sink, its three strategies, each into a fresh database.
  const sinkRate = async (strategy: 'copy' | 'unnest' | 'values') => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url, { strategy });
    await sink.open();
    const t = performance.now();
    for (const b of batches) await sink.write(b);
    const ms = performance.now() - t;
    await sink.close();
    return { ms, rate: rows / (ms / 1000) };
  };
  // COPY by psql of the same rows as CSV (written beforehand; not timed) into the sink's empty tables.
  const copyRate = async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    const db = new Database(path, { readonly: true });
    const files: [string, string][] = [];
    for (const t of SHIPPED_TABLES) {
      const file = join(dir, `${t.name}.csv`);
      const lines = (db.prepare(`SELECT * FROM "${t.name}"`).all() as Record<string, unknown>[]).map((r) => [csv(origin.machineId), csv(origin.hostname), ...t.columns.map((c) => csv(r[c.name]))].join(','));
      writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '');
      files.push([t.name, file]);
    }
    db.close();
    const name = url.split('/').pop()!;
    const script = files.map(([t, f]) => `\\copy hermetic.${t} FROM '${f}' WITH (FORMAT csv)`).join('\n');
    const t = performance.now();
    const r = spawnSync(join(pg.binDir, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(pg.port), '-U', pg.user, '-d', name], { input: script, env: { ...process.env, PGPASSWORD: pg.password }, encoding: 'utf8' });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`psql \\copy failed: ${r.stderr}`);
    return { ms, rate: rows / (ms / 1000) };
  };
  const results: Record<string, { ms: number; rate: number }[]> = { sinkCopy: [], unnest: [], values: [], copy: [] };
  for (let round = 0; round < 2; round++) {
    results.copy!.push(await copyRate());
    results.sinkCopy!.push(await sinkRate('copy'));
    results.unnest!.push(await sinkRate('unnest'));
    results.values!.push(await sinkRate('values'));
  }
  const best = (k: string) => results[k]!.reduce((a, b) => (b.rate > a.rate ? b : a));
  const copy = best('copy');
  console.log(`\nP1 rows/s into PostgreSQL (best of 2 rounds, ${load()})`);
  console.log(`  psql \\copy (CSV)          ${int(copy.rate)} rows/s (${(copy.ms / 1000).toFixed(2)} s)`);
  for (const [k, label] of [['sinkCopy', 'copy'], ['unnest', 'unnest'], ['values', 'values']] as const) {
    const r = best(k);
    console.log(`  sink, ${label.padEnd(7)} upserts    ${int(r.rate)} rows/s (${(r.ms / 1000).toFixed(2)} s)  = ${(r.rate / copy.rate).toFixed(2)}x COPY (goal >= 0.5x)`);
  }

  // P2: FORWARDERS processes at once, each its own machine, into one database.
  const fleet = async (n: number) => {
    const url = pg.createDatabase();
    const first = createPostgresSink(url);
    await first.open();
    await first.close();
    const children = Array.from({ length: n }, (_, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'postgres-child.ts'), path, url, String(i + 1).padStart(32, '0'), 'copy'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      const ready = new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('READY')) resolve(); }));
      const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      return { child, ready, done, out: () => out };
    });
    await Promise.all(children.map((c) => c.ready));
    const t = performance.now();
    for (const c of children) c.child.stdin!.end('go\n');
    await Promise.all(children.map((c) => c.done));
    const ms = performance.now() - t;
    const written = children.reduce((s, c) => s + Number(/ROWS (\d+)/.exec(c.out())?.[1] ?? 0), 0);
    return { ms, rate: written / (ms / 1000), written };
  };
  const one = await fleet(1);
  const many = await fleet(FORWARDERS);
  console.log(`\nP2 ${FORWARDERS} forwarders at once, each a process and a machine of its own (${load()})`);
  console.log(`  1 forwarder        ${int(one.rate)} rows/s (${int(one.written)} rows in ${(one.ms / 1000).toFixed(1)} s)`);
  console.log(`  ${FORWARDERS} forwarders       ${int(many.rate)} rows/s all together (${int(many.written)} rows in ${(many.ms / 1000).toFixed(1)} s) = ${(many.rate / one.rate).toFixed(2)}x one`);
} finally {
  pg.destroy();
  rmSync(dir, { recursive: true, force: true });
}

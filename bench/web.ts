// Benchmark: `hermetic web` over ~1,000,000 messages (issue 18: "1M messages: first paint < 1 s"). A year of history
// made by the project's generator is backfilled into a fresh dataset, and a small one (BENCH_WEB_SMALL messages) beside
// it; both are served by the dashboard's real server and opened in Debian's Chromium, in the same run:
//   W1  first paint: from navigation to the page's data-ready mark (its figures, tables and both charts drawn), for the
//       overview (30 days; the whole year), the tool view and the busiest session's first transcript page; median of
//       the rounds, against the same page over the small dataset (the page's own cost: assets, Chart.js, drawing).
//   W2  each endpoint the overview asks for, alone over HTTP (median), on the large dataset.
//   W3  the tool view's slowest calls as the dashboard reads them (tool_calls, decision 0069) against the grouping of
//       every tool part they replaced (web/data/rows.ts slowestSql), the same rows, alternated in the same rounds.
// Nothing here passes or fails; the load average is printed beside the figures (the machine is shared).
//   npx tsx bench/web.ts   (BENCH_ONLY=web npm run bench)   BENCH_WEB_MESSAGES=1000000 BENCH_WEB_SMALL=10000
//   BENCH_WEB_ROUNDS=5 BENCH_WEB_HOME=DIR (a dataset an earlier run kept with BENCH_WEB_KEEP=1)
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createForwarder } from '../src/forwarder/index.js';
import { reportCondition, resolveWindow, type ReportRequest } from '../src/forwarder/report/index.js';
import { slowestSql } from '../src/forwarder/web/data/rows.js';
import { sqliteSource } from '../src/forwarder/web/data/sqlite.js';
import { startWebServer, type WebServer } from '../src/forwarder/web/server.js';
import { launchBrowser } from '../src/shared/testing/browser.js';
import { generate } from '../src/state-db/generate/index.js';

const MESSAGES = Number(process.env.BENCH_WEB_MESSAGES ?? 1_000_000);
const SMALL = Number(process.env.BENCH_WEB_SMALL ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WEB_ROUNDS ?? 5);
const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => `${x.toFixed(0)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-web-'));

/** A dataset of `messages` over a year ending now: made and backfilled here, unless `home` names one. */
function dataset(name: string, messages: number, home?: string): string {
  if (home) return join(home, 'hermetic.db');
  const t0 = performance.now();
  const g = generate({ out: join(dir, name, 'hermes', 'state.db'), sessions: Math.max(1, Math.round(messages / 50)), messages, seed: `bench-web-${name}`, days: 365, journal: 'delete', fts: false });
  const forwarder = createForwarder({ home: join(dir, name, 'home'), stateDbs: [g.path] });
  const [r] = forwarder.backfill();
  forwarder.close();
  if (r!.error) throw new Error(`backfill: ${r!.error.code}: ${r!.error.message}`);
  const path = join(dir, name, 'home', 'hermetic.db');
  console.log(`${name}: ${int(g.messages)} messages, ${int(g.sessions)} sessions, generated and backfilled in ${((performance.now() - t0) / 1000).toFixed(1)} s; dataset ${(statSync(path).size / 1e6).toFixed(0)} MB (${load()})`);
  return path;
}

const servers: WebServer[] = [];
async function serve(path: string): Promise<{ url: string; busiest: string }> {
  const db = new Database(path, { readonly: true });
  const busiest = db.prepare('SELECT session_id FROM sessions ORDER BY live_messages DESC LIMIT 1').pluck().get() as string;
  const server = await startWebServer({ source: sqliteSource(db), port: 0 });
  servers.push({ ...server, close: async () => { await server.close(); db.close(); } });
  return { url: server.url, busiest };
}

try {
  console.log(`web bench: ${int(MESSAGES)} messages over a year against ${int(SMALL)}; ${ROUNDS} rounds (node ${process.version})`);
  const largePath = dataset('large', MESSAGES, process.env.BENCH_WEB_HOME);
  const large = await serve(largePath);
  const small = await serve(dataset('small', SMALL));
  const pages: [string, (busiest: string) => string][] = [
    ['overview, last 30 days', () => '/'],
    ['overview, the whole year', () => '/?period=all'],
    ['tool view, last 30 days', () => '/tools'],
    ['the busiest session, first page', (id) => `/session?id=${encodeURIComponent(id)}`],
  ];
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const paint = async (base: string, path: string): Promise<number> => {
      const t0 = performance.now();
      await page.goto(new URL(path, base).href);
      await page.waitForFunction(() => document.documentElement.dataset.ready === location.pathname + location.search, undefined, { timeout: 120_000 });
      return performance.now() - t0;
    };
    for (const [, path] of pages) { await paint(small.url, path(small.busiest)); await paint(large.url, path(large.busiest)); } // warm caches and JIT
    const samples = new Map(pages.map(([name]) => [name, { large: [] as number[], small: [] as number[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of round % 2 ? [...pages].reverse() : pages) {
        samples.get(name)!.small.push(await paint(small.url, path(small.busiest)));
        samples.get(name)!.large.push(await paint(large.url, path(large.busiest)));
      }
    }
    console.log(`\nW1 first paint in Chromium, navigation to data-ready (median of ${ROUNDS}; goal < 1 s at 1M messages) (${load()})`);
    for (const [name, s] of samples) {
      console.log(`  ${name.padEnd(36)} ${ms(median(s.large)).padStart(8)}   small dataset ${ms(median(s.small)).padStart(7)}   = ${(median(s.large) / median(s.small)).toFixed(1)}x`);
    }
    await context.close();
  } finally {
    await browser.close();
  }

  const endpoints = ['/api/options', '/api/overview', '/api/daily', '/api/sessions', '/api/breakdown?by=model', '/api/breakdown?by=project', '/api/tools', '/api/overview?period=all', '/api/tools?period=all'];
  const took = new Map(endpoints.map((e) => [e, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const e of endpoints) {
      const t0 = performance.now();
      const res = await fetch(new URL(e, large.url));
      await res.arrayBuffer();
      took.get(e)!.push(performance.now() - t0);
    }
  }
  console.log(`\nW2 each endpoint alone over HTTP on the large dataset (median of ${ROUNDS}) (${load()})`);
  for (const [e, xs] of took) console.log(`  ${e.padEnd(28)} ${ms(median(xs)).padStart(8)}`);

  const db = new Database(largePath, { readonly: true });
  try {
    const source = sqliteSource(db);
    const now = Date.now() / 1000;
    const windows: [string, ReportRequest][] = [['the whole year', {}], ['last 30 days', (({ since, until }) => ({ since, until }))(resolveWindow({ since: '30d' }, now, source.zone()))]];
    console.log(`\nW3 the slowest 10 tool calls: kept (tool_calls) against grouping every tool part (median of ${ROUNDS}) (${load()})`);
    for (const [name, request] of windows) {
      const { tools, params } = reportCondition(request);
      const plain = db.prepare(slowestSql(request, tools, 10));
      const kept: number[] = [];
      const grouped: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let t0 = performance.now();
        const a = await source.slowestCalls(request, 10);
        kept.push(performance.now() - t0);
        t0 = performance.now();
        const b = plain.all(params);
        grouped.push(performance.now() - t0);
        if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`W3 ${name}: the kept calls gave other rows than the grouping`);
      }
      console.log(`  ${name.padEnd(16)} ${ms(median(kept)).padStart(8)}   grouping the parts ${ms(median(grouped)).padStart(8)}   = ${(median(grouped) / median(kept)).toFixed(1)}x faster`);
    }
  } finally {
    db.close();
  }
} finally {
  await Promise.all(servers.map((s) => s.close()));
  if (process.env.BENCH_WEB_KEEP) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

// Benchmark: `hermetic report` over a year of history, ~1,000,000 messages made by the project's own generator
// (`generate({ end: now, days: 365 })`) and backfilled into a fresh dataset, all in a temporary folder. Each figure is
// against a baseline measured in the same round (the machine is shared and noisy; nothing here passes or fails):
//   R1  usageReport in process, per shape (the terminal's default view, a few --by groupings, tools), median of the
//       rounds, against `SELECT count(*) FROM usage_ledger` on the same connection. The goal is an answer well under a
//       second; the ratio says how many plain scans of the ledger's rows each shape costs.
//   R2  the CLI end to end as a user runs it (`node bin/hermetic.js report …`: the bundled CLI when the build has one,
//       a process per run) against the same process printing its --version (start-up and module loading alone). Needs
//       the build (`npm run bench` builds it first, bundle included).
//   R3  `hermetic status`'s rows per table as it reads them (row_counts, kept by the writer: decision 0069) against
//       COUNT(*) of each table, what it ran before; the numbers must agree.
// Also printed: the generation and the backfill (its time with the ledger's triggers and rebuilds), the ledger's
// rows, and the load average (os.loadavg, as `uptime` shows it) beside every figure.
//   npx tsx bench/report.ts            (npm run bench runs it too; BENCH_ONLY=report for it alone)
//   BENCH_REPORT_MESSAGES=1000000 BENCH_REPORT_SESSIONS=20000 BENCH_REPORT_DAYS=365 BENCH_REPORT_ROUNDS=7
//   BENCH_REPORT_HOME=DIR (reuse a dataset built by an earlier run with BENCH_REPORT_KEEP=1)
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createForwarder } from '../src/forwarder/index.js';
import { ledgerZone, resolveWindow, summaryTables, usageReport, type ReportRequest } from '../src/forwarder/report/index.js';
import { generate } from '../src/state-db/generate/index.js';
import { COUNTED_TABLES, tableRows } from '../src/forwarder/sinks/sqlite/row-counts.js';

const MESSAGES = Number(process.env.BENCH_REPORT_MESSAGES ?? 1_000_000);
const SESSIONS = Number(process.env.BENCH_REPORT_SESSIONS ?? Math.max(1, Math.round(MESSAGES / 50)));
const DAYS = Number(process.env.BENCH_REPORT_DAYS ?? 365);
const ROUNDS = Number(process.env.BENCH_REPORT_ROUNDS ?? 7);
const here = dirname(fileURLToPath(import.meta.url));
const MAIN = join(here, '..', 'dist', 'cli', 'main.js');
const BIN = join(here, '..', 'bin', 'hermetic.js');

const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

function time<T>(fn: () => T): [number, T] {
  const t0 = performance.now();
  const out = fn();
  return [performance.now() - t0, out];
}

const own = process.env.BENCH_REPORT_HOME === undefined;
const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-report-'));
const home = process.env.BENCH_REPORT_HOME ?? join(dir, 'home');
try {
  console.log(`report bench: ${int(MESSAGES)} messages, ${int(SESSIONS)} sessions over ${DAYS} days ending now; ${ROUNDS} rounds (node ${process.version})`);
  if (own) {
    const [genMs, g] = time(() => generate({ out: join(dir, 'hermes', 'state.db'), sessions: SESSIONS, messages: MESSAGES, seed: 'bench-report', days: DAYS, journal: 'delete', fts: false }));
    console.log(`generated ${int(g.sessions)} sessions, ${int(g.messages)} messages in ${(genMs / 1000).toFixed(1)} s (${load()})`);
    const forwarder = createForwarder({ home, stateDbs: [g.path] });
    const [fillMs, results] = time(() => forwarder.backfill());
    forwarder.close();
    const r = results[0]!;
    if (r.error) throw new Error(`backfill: ${r.error.code}: ${r.error.message}`);
    console.log(`backfill: ${int(r.sessionsWritten)} sessions, ${int(r.messages)} messages in ${(fillMs / 1000).toFixed(1)} s, ${int(r.messages / (fillMs / 1000))} messages/s, ledger and triggers included (${load()})`);
  }
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  db.pragma('cache_size = -8192');
  const rows = db.prepare('SELECT COUNT(*) FROM usage_ledger').pluck().get() as number;
  const span = db.prepare('SELECT MIN(day) AS a, MAX(day) AS b, COUNT(DISTINCT day) AS n FROM usage_ledger').get() as { a: string; b: string; n: number };
  console.log(`dataset ${(statSync(join(home, 'hermetic.db')).size / 1e6).toFixed(0)} MB: ${int(rows)} ledger rows over ${span.n} days (${span.a} … ${span.b}), ${int(db.prepare('SELECT COUNT(*) FROM tool_usage').pluck().get() as number)} tool rows`);

  const now = Date.now() / 1000;
  const zone = ledgerZone(db);
  const win = (flags: Parameters<typeof resolveWindow>[0]): ReportRequest => resolveWindow(flags, now, zone);
  const year = win({ period: 'all' });
  const shapes: [string, () => unknown][] = [
    ['default view, last 30 days (5 queries)', () => summaryTables(db, win({}), now)],
    ['default view, the whole year (by month)', () => summaryTables(db, year, now)],
    ['totals only, the whole year', () => usageReport(db, year)],
    ['--by day --by model, the whole year', () => usageReport(db, { ...year, by: ['day', 'model'] })],
    ['--by session --top 5, the whole year', () => usageReport(db, { ...year, by: ['session'], top: 5 })],
    ['--by project --by task, last 7 days', () => usageReport(db, { ...win({ since: '7d' }), by: ['project', 'task'] })],
    ['--by tool --by week, the whole year', () => usageReport(db, { ...year, by: ['tool', 'week'] })],
    ['--by hour, last 2 days', () => usageReport(db, { ...win({ since: '2d' }), by: ['hour'] })],
    ['--by hour --by source, the whole year', () => usageReport(db, { ...year, by: ['hour', 'source'] })],
    ['--by tree --top 5, the whole year', () => usageReport(db, { ...year, by: ['tree'], top: 5 })],
    ['--by tree --top 5, last 30 days', () => usageReport(db, { ...win({ since: '30d' }), by: ['tree'], top: 5 })],
    // The terminal's calls by program (decision 0149): the window's sessions' parts read once, then grouped.
    ['--by command, the whole year', () => usageReport(db, { ...year, by: ['command'] })],
    ['--by command --by day --top 10, last 30 days', () => usageReport(db, { ...win({ since: '30d' }), by: ['command', 'day'], top: 10 })],
  ];
  const baseline = () => db.prepare('SELECT count(*) FROM usage_ledger').pluck().get();
  for (const [, fn] of shapes) fn(); // warm the page cache and the JIT
  baseline();
  const samples = new Map<string, { ms: number[]; ratio: number[] }>(shapes.map(([name]) => [name, { ms: [], ratio: [] }]));
  const base: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...shapes].reverse() : shapes;
    for (const [name, fn] of order) {
      const [b] = time(baseline);
      const [t] = time(fn);
      base.push(b);
      samples.get(name)!.ms.push(t);
      samples.get(name)!.ratio.push(t / b);
    }
  }
  console.log(`\nR1 usageReport in process (median of ${ROUNDS}); baseline SELECT count(*) FROM usage_ledger: ${ms(median(base))} (${load()})`);
  for (const [name, s] of samples) console.log(`  ${name.padEnd(44)} ${ms(median(s.ms)).padStart(9)}   ${median(s.ratio).toFixed(1).padStart(6)}x the count(*)`);

  const counted = () => Object.fromEntries(COUNTED_TABLES.map((t) => [t, db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get()]));
  const kept: number[] = [];
  const counting: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const [k, a] = time(() => tableRows(db));
    const [c, b] = time(counted);
    kept.push(k);
    counting.push(c);
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`R3: row_counts ${JSON.stringify(a)} against the tables' ${JSON.stringify(b)}`);
  }
  console.log(`\nR3 status's rows per table (median of ${ROUNDS}): row_counts ${ms(median(kept))}, COUNT(*) of each table ${ms(median(counting))} = ${(median(counting) / median(kept)).toFixed(0)}x (${load()})`);
  db.close();

  if (existsSync(MAIN)) {
    const run = (args: string[]) => {
      const [t, r] = time(() => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } }));
      if (r.status !== 0) throw new Error(`hermetic ${args.join(' ')}: ${r.status ?? r.signal} ${r.error?.message ?? ''} ${r.stderr}`);
      return t;
    };
    const cli: [string, string[]][] = [
      ['hermetic report (default view, 30 days)', ['report', '--home', home]],
      ['hermetic report --period all (default view, the whole year)', ['report', '--home', home, '--period', 'all']],
      ['hermetic report --period all --by day --by model --json', ['report', '--home', home, '--period', 'all', '--by', 'day', '--by', 'model', '--json']],
    ];
    const e2e = new Map<string, number[]>(cli.map(([n]) => [n, []]));
    const start: number[] = [];
    run(['--version']);
    for (let round = 0; round < ROUNDS; round++) {
      start.push(run(['--version']));
      for (const [name, args] of cli) e2e.get(name)!.push(run(args));
    }
    console.log(`\nR2 the CLI end to end, a process per run (median of ${ROUNDS}); baseline hermetic --version: ${ms(median(start))} (${load()})`);
    for (const [name, xs] of e2e) console.log(`  ${name.padEnd(62)} ${ms(median(xs)).padStart(9)}   +${ms(median(xs) - median(start))} over start-up`);
  } else {
    console.log(`\nR2 skipped: ${MAIN} is not built (npm run bench builds it)`);
  }
} finally {
  if (process.env.BENCH_REPORT_KEEP) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

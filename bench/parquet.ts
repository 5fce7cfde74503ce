// Benchmark: `hermetic export parquet` of a 100,000-message dataset (the project's generator, backfilled into a fresh
// dataset in a temporary folder): seconds, MB/s of Parquet written and of the dataset read, rows/s, and the peak RSS
// of the exporting process, against a baseline measured in the same run: a process that reads every exported table's
// rows and writes nothing (what reading the dataset alone costs, in time and memory).
//   npx tsx bench/parquet.ts            (BENCH_ONLY=parquet npm run bench runs it)
//   BENCH_PARQUET_MESSAGES=100000 BENCH_PARQUET_SESSIONS=2000 BENCH_PARQUET_DAYS=30
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createForwarder } from '../src/forwarder/index.js';
import { generate } from '../src/state-db/generate/index.js';

const MESSAGES = Number(process.env.BENCH_PARQUET_MESSAGES ?? 100_000);
const SESSIONS = Number(process.env.BENCH_PARQUET_SESSIONS ?? Math.max(1, Math.round(MESSAGES / 50)));
const DAYS = Number(process.env.BENCH_PARQUET_DAYS ?? 30);
const here = dirname(fileURLToPath(import.meta.url));
const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

function child(...args: string[]): { ms: number; maxRssMb: number; rows: number; bytes: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'parquet-child.ts'), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`parquet-child ${args[0]}: ${r.status ?? r.signal} ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-parquet-'));
try {
  console.log(`parquet bench: ${int(MESSAGES)} messages, ${int(SESSIONS)} sessions over ${DAYS} days (node ${process.version})`);
  const t0 = performance.now();
  const g = generate({ out: join(dir, 'hermes', 'state.db'), sessions: SESSIONS, messages: MESSAGES, seed: 'bench-parquet', days: DAYS, journal: 'delete', fts: false });
  const home = join(dir, 'home');
  const forwarder = createForwarder({ home, stateDbs: [g.path] });
  const [r] = forwarder.backfill();
  forwarder.close();
  if (r?.error) throw new Error(`backfill: ${r.error.code}: ${r.error.message}`);
  const datasetMb = statSync(join(home, 'hermetic.db')).size / 1e6;
  console.log(`dataset: ${int(r!.messages)} messages, ${int(r!.parts)} parts, ${datasetMb.toFixed(0)} MB, made in ${((performance.now() - t0) / 1000).toFixed(1)} s (${load()})`);
  const scan = child('scan', home);
  const exp = child('export', home, join(dir, 'out'));
  const s = exp.ms / 1000;
  console.log(`P1 baseline, every exported row read and nothing written: ${(scan.ms / 1000).toFixed(2)} s, ${int(scan.rows)} rows, peak RSS ${scan.maxRssMb.toFixed(0)} MB (${load()})`);
  console.log(`P2 export: ${s.toFixed(2)} s (${(exp.ms / scan.ms).toFixed(1)}x the read), ${int(exp.rows / s)} rows/s, ${(exp.bytes / 1e6).toFixed(1)} MB of Parquet at ${(exp.bytes / 1e6 / s).toFixed(1)} MB/s, ` +
    `the ${datasetMb.toFixed(0)} MB dataset at ${(datasetMb / s).toFixed(1)} MB/s; peak RSS ${exp.maxRssMb.toFixed(0)} MB (+${(exp.maxRssMb - scan.maxRssMb).toFixed(0)} MB over the read) (${load()})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// `npm run bench`: requests/s of GET /v1/runs/{id} and of keyed POST /v1/runs (a fresh Idempotency-Key per request)
// on the emulator's real node:http server, against a bare node:http server answering a similar small JSON body,
// all measured in this run on loopback. Targets: GET >= 0.8x bare, keyed admission >= 0.3x bare.
// Each server runs in its own process (bench/serve-child.ts), the load generator in this one.
// Then runs bench/statedb-generate.ts when present.
//   BENCH_ROUNDS=5 BENCH_DURATION=3 BENCH_CONNECTIONS=10 BENCH_WARMUP=1 npm run bench
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_KEY, measure, type Load, type Measured } from './http-runs.js';


const load: Load = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  duration: Number(process.env.BENCH_DURATION ?? 3),
  warmup: Number(process.env.BENCH_WARMUP ?? 1),
};
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const TARGETS = { get: 0.8, post: 0.3 };
const here = dirname(fileURLToPath(import.meta.url));

interface Target {
  url: string;
  /** CPU time (µs) the target process has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts bench/serve-child.ts in its own process. */
async function spawnTarget(kind: 'bare' | 'emulator'): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'serve-child.ts'), kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => (lines.length ? resolve(lines.shift()!) : waiters.push(resolve)));
  const url = await nextLine();
  return {
    url,
    async cpu() {
      child.stdin!.write('cpu\n');
      return Number(await nextLine());
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

/** A measured run plus the server's CPU use during it: requests per CPU-second is what one busy core would serve. */
interface Sample extends Measured {
  perCpuSecond: number;
}

async function sample(target: Target, options: Parameters<typeof measure>[0]): Promise<Sample> {
  await measure(options, { ...load, duration: load.warmup, warmup: 0 });
  const cpu0 = await target.cpu();
  const m = await measure(options, { ...load, warmup: 0 });
  const cpu1 = await target.cpu();
  return { ...m, perCpuSecond: m.total / ((cpu1 - cpu0) / 1e6) };
}

async function main(): Promise<void> {
  console.log(`hermetic bench: ${rounds} rounds; ${load.connections} connections, ${load.duration} s measured after ${load.warmup} s warm-up, 127.0.0.1 (node ${process.version})`);
  console.log('each server runs in its own process; the load generator (autocannon) runs in this one\n');
  const auth = { Authorization: `Bearer ${BENCH_KEY}` };
  const results: Array<{ before: Sample; get: Sample; post: Sample; after: Sample }> = [];
  // Rounds of bare, GET, keyed POST, bare: each round's ratios use the mean of the two bare runs around it, and the
  // reported ratio is the median over rounds (the machines are shared and noisy). Every round starts fresh server
  // processes, so no round measures an emulator still holding the tens of thousands of runs a previous one admitted.
  for (let round = 1; round <= rounds; round++) {
    const bare = await spawnTarget('bare');
    const server = await spawnTarget('emulator');
    try {
      const created = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"input":"bench"}' });
      if (created.status !== 202) throw new Error(`could not create a run: ${created.status} ${await created.text()}`);
      const { run_id: runId } = (await created.json()) as { run_id: string };
      let n = 0;
      const keyed = {
        url: `${server.url}/v1/runs`,
        requests: [
          {
            method: 'POST' as const,
            path: '/v1/runs',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: '{"input":"bench"}',
            setupRequest: (req: Record<string, any>) => ({ ...req, headers: { ...req.headers, 'Idempotency-Key': `bench-${round}-${n++}` } }),
          },
        ],
      };
      const before = await sample(bare, { url: `${bare.url}/v1/runs/${runId}` });
      const get = await sample(server, { url: `${server.url}/v1/runs/${runId}`, headers: auth });
      const post = await sample(server, keyed);
      const after = await sample(bare, { url: `${bare.url}/v1/runs/${runId}` });
      results.push({ before, get, post, after });
    } finally {
      await server.stop();
      await bare.stop();
    }
  }

  const col = (s: string, w: number) => s.padEnd(w);
  const num = (x: number, w: number, d = 0) => x.toFixed(d).padStart(w);
  console.log(`${col('round  scenario', 30)}${'req/s'.padStart(9)}${'req/cpu-s'.padStart(11)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}`);
  const rows: Array<[string, Sample]> = [];
  results.forEach((r, i) => {
    for (const [name, m] of [['bare node:http', r.before], ['GET /v1/runs/{id}', r.get], ['keyed POST /v1/runs', r.post], ['bare node:http', r.after]] as const) {
      rows.push([name, m]);
      console.log(`${col(`${i + 1}      ${name}`, 30)}${num(m.rps, 9)}${num(m.perCpuSecond, 11)}${num(m.p50, 8, 1)}${num(m.p99, 8, 1)}${num(m.non2xx, 9)}${num(m.errors, 8)}`);
    }
  });
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const ratios = (pick: (s: Sample) => number, which: 'get' | 'post') =>
    results.map((r) => pick(r[which]) / ((pick(r.before) + pick(r.after)) / 2));
  const verdict = (r: number, t: number) => (r >= t ? `meets ${t}x` : `BELOW ${t}x`);
  const report = (label: string, pick: (s: Sample) => number) => {
    console.log(`\n${label} (median of ${rounds} rounds; each round against the mean of its two bare runs):`);
    for (const [name, which, target] of [['GET /v1/runs/{id} / bare:  ', 'get', TARGETS.get], ['keyed POST /v1/runs / bare:', 'post', TARGETS.post]] as const) {
      const rs = ratios(pick, which);
      const m = median(rs);
      console.log(`${name} ${m.toFixed(2)}x  (${verdict(m, target)})  rounds: ${rs.map((x) => x.toFixed(2)).join(', ')}`);
    }
  };
  // Wall-clock req/s is what the load generator saw; with two cores it is often the generator, not the server,
  // that is saturated. Requests per server CPU-second measures the server itself.
  report('server throughput, requests per CPU-second of the server process', (s) => s.perCpuSecond);
  report('wall-clock requests/s seen by the load generator', (s) => s.rps);
  const failures = rows.filter(([name, m]) => !name.startsWith('bare') && (m.non2xx > 0 || m.errors > 0));
  for (const [name, m] of failures) console.log(`warning: ${name} had ${m.non2xx} non-2xx answers and ${m.errors} errors`);

  const statedb = join(here, 'statedb-generate.ts');
  if (existsSync(statedb)) {
    console.log('\n--- bench/statedb-generate.ts ---');
    const r = spawnSync('npx', ['tsx', statedb], { stdio: 'inherit' });
    if (r.status !== 0) console.log(`bench/statedb-generate.ts exited with ${r.status ?? r.signal}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

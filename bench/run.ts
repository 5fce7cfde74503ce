// `npm run bench`: requests/s of GET /v1/runs/{id} and of keyed POST /v1/runs (a fresh Idempotency-Key per request)
// on the emulator's real node:http server, against a bare node:http server answering a similar small JSON body,
// all measured in this run on loopback. Targets: GET >= 0.8x bare, keyed admission >= 0.3x bare.
// Each server runs in its own process (bench/serve-child.ts), the load generator in this one.
// Then runs bench/statedb-generate.ts when present.
//   BENCH_DURATION=5 BENCH_CONNECTIONS=10 BENCH_WARMUP=1 npm run bench
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_KEY, measure, type Load, type Measured } from './http-runs.js';


const load: Load = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  duration: Number(process.env.BENCH_DURATION ?? 5),
  warmup: Number(process.env.BENCH_WARMUP ?? 1),
};
const TARGETS = { get: 0.8, post: 0.3 };
const here = dirname(fileURLToPath(import.meta.url));

/** Starts bench/serve-child.ts in its own process and returns its URL and a stop function. */
async function spawnTarget(kind: 'bare' | 'emulator'): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'serve-child.ts'), kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(line!.trim());
    });
    child.on('exit', (code) => reject(new Error(`bench target ${kind} exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.stdin!.end();
      }),
  };
}

async function main(): Promise<void> {
  console.log(`hermetic bench: ${load.connections} connections, ${load.duration} s measured after ${load.warmup} s warm-up, 127.0.0.1 (node ${process.version})`);
  console.log('each server runs in its own process; the load generator (autocannon) runs in this one\n');
  const bare = await spawnTarget('bare');
  const server = await spawnTarget('emulator');
  const auth = { Authorization: `Bearer ${BENCH_KEY}` };
  const rows: Array<[string, Measured]> = [];
  try {
    const created = await fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"input":"bench"}' });
    if (created.status !== 202) throw new Error(`could not create a run: ${created.status} ${await created.text()}`);
    const { run_id: runId } = (await created.json()) as { run_id: string };

    const bareRun = () => measure({ url: `${bare.url}/v1/runs/${runId}` }, load);
    const getRun = () => measure({ url: `${server.url}/v1/runs/${runId}`, headers: auth }, load);
    let n = 0;
    const stamp = `${process.pid}-${Date.now()}`;
    const postRun = () =>
      measure(
        {
          url: `${server.url}/v1/runs`,
          requests: [
            {
              method: 'POST',
              path: '/v1/runs',
              headers: { ...auth, 'Content-Type': 'application/json' },
              body: '{"input":"bench"}',
              setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'Idempotency-Key': `bench-${stamp}-${n++}` } }),
            },
          ],
        },
        load,
      );

    // Baseline before and after, to damp drift (thermal, GC, other load).
    rows.push(['bare node:http (before)', await bareRun()]);
    rows.push(['GET /v1/runs/{id}', await getRun()]);
    rows.push(['keyed POST /v1/runs', await postRun()]);
    rows.push(['bare node:http (after)', await bareRun()]);
  } finally {
    await server.stop();
    await bare.stop();
  }

  const col = (s: string, w: number) => s.padEnd(w);
  const num = (x: number, w: number, d = 0) => x.toFixed(d).padStart(w);
  console.log(`${col('scenario', 26)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}`);
  for (const [name, m] of rows) {
    console.log(`${col(name, 26)}${num(m.rps, 10)}${num(m.p50, 9, 1)}${num(m.p99, 9, 1)}${num(m.non2xx, 9)}${num(m.errors, 8)}`);
  }
  const baseline = (rows[0]![1].rps + rows[3]![1].rps) / 2;
  const ratio = (m: Measured) => m.rps / baseline;
  const get = ratio(rows[1]![1]);
  const post = ratio(rows[2]![1]);
  const verdict = (r: number, t: number) => (r >= t ? `meets ${t}x` : `BELOW ${t}x`);
  console.log(`\nbaseline (mean of before/after): ${baseline.toFixed(0)} req/s`);
  console.log(`GET /v1/runs/{id} / bare:   ${get.toFixed(2)}x  (${verdict(get, TARGETS.get)})`);
  console.log(`keyed POST /v1/runs / bare: ${post.toFixed(2)}x  (${verdict(post, TARGETS.post)})`);
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

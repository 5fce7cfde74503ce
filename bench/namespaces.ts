// Benchmark: namespaces and the request journal, in process (emulator.handle, the transport-neutral handler both
// transports call), each figure against a baseline measured in the same run. Nothing passes or fails; it prints.
//   N1  1,000,000 GET /v1/runs/{id} through the journal (default cap 1,000): heap and RSS sampled every 100,000
//       requests after a forced GC; growth after the ring filled must stay flat. Requests per CPU-second against the
//       same loop on an emulator with the journal disabled (journalSize 0), in interleaved windows.
//   N2  namespace creation: the first request of each of 1,000 new namespaces (GET /ns/w<i>/v1/runs/x creates it)
//       against the same request to a namespace that exists; ms per namespace, and heap and RSS per namespace.
//   N3  GET /v1/runs/{id} round-robin over 1,000 namespaces (one run each, chosen by x-hermetic-namespace) against
//       the same GET on an emulator with one namespace, interleaved windows; the ratio of requests per CPU-second
//       (this process's CPU time: the machine is shared, and another process taking the core does not change it).
//       Also 1,000 namespaces with and without the journal, to show its share of the difference.
//   N4  20,000 requests refused for their credentials to 20,000 new namespaces, then 20,000 new namespaces that each
//       answer a 404 (with the API key): RSS growth per request and per namespace after a forced GC, namespaces
//       created, and GET /__admin/health's latency every 100 requests during both, against its latency in an idle
//       emulator measured in the same run; then a reset of every namespace, timed.
//   N5  GET /__admin/health and GET /__admin/clock while a status write waits for another connection's lock on the
//       store (a completion held), against the same requests with no lock held: latency of each (decision 0028).
//   npx tsx bench/namespaces.ts            (npm run bench runs it too; BENCH_ONLY=namespaces for it alone)
//   BENCH_NS_REQUESTS=1000000 BENCH_NS_COUNT=1000 BENCH_NS_WINDOW=20000 BENCH_NS_ROUNDS=5 BENCH_NS_ONLY=n1,n2,n3,n4,n5
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createEmulator, type Emulator } from '../src/emulator/index.js';
import type { HttpRequest } from '../src/emulator/http.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const REQUESTS = Number(process.env.BENCH_NS_REQUESTS ?? 1_000_000);
const COUNT = Number(process.env.BENCH_NS_COUNT ?? 1_000);
const WINDOW = Number(process.env.BENCH_NS_WINDOW ?? 20_000);
const ROUNDS = Number(process.env.BENCH_NS_ROUNDS ?? 5);
const ONLY = new Set((process.env.BENCH_NS_ONLY ?? 'n1,n2,n3,n4,n5').split(',').map((x) => x.trim().toLowerCase()));
const T0 = 1789169800;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const median = (xs: number[]) => quantile(xs, 0.5);
const spread = (xs: number[], d = 2) => `quartiles ${quantile(xs, 0.25).toFixed(d)}–${quantile(xs, 0.75).toFixed(d)}, range ${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** A GET as the node server hands it to the emulator (no body, headers by lower-case name). */
function get(path: string, headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'GET',
    path,
    query: '',
    header: (name) => headers[name],
    readBody: async () => new Uint8Array(0),
  };
}

const post = (path: string, body: string): HttpRequest => {
  const bytes = new TextEncoder().encode(body);
  return { method: 'POST', path, query: '', header: (name) => (name === 'content-type' ? 'application/json' : undefined), readBody: async () => bytes };
};

async function admit(emulator: Emulator, prefix = ''): Promise<string> {
  const answer = await emulator.handle(post(`${prefix}/v1/runs`, '{"input":"bench"}'));
  if (answer.status !== 202) throw new Error(`submit answered ${answer.status}`);
  return JSON.parse(String(answer.body)).run_id;
}

/**
 * Sends `n` requests one after another (request i is pick(i)); returns requests per CPU-second of this process (the
 * machine is shared: CPU time is what another process stealing the core does not change) and per wall second.
 */
async function drive(emulator: Emulator, n: number, pick: (i: number) => HttpRequest): Promise<Rate> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const answer = await emulator.handle(pick(i));
    if (answer.status !== 200) throw new Error(`GET answered ${answer.status}`);
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { perCpu: n / ((cpu.user + cpu.system) / 1e6), perWall: n / wall };
}

interface Rate {
  perCpu: number;
  perWall: number;
}

/** Pairs of windows, one of a and one of b, the order flipped each pair. */
let pairsRun = 0;
async function interleave(pairs: number, a: () => Promise<Rate>, b: () => Promise<Rate>): Promise<Array<[Rate, Rate]>> {
  const out: Array<[Rate, Rate]> = [];
  for (let p = 0; p < pairs; p++) {
    // Counted across calls, so whichever goes first after a forced GC alternates too.
    if (pairsRun++ % 2 === 0) {
      const ra = await a();
      out.push([ra, await b()]);
    } else {
      const rb = await b();
      out.push([await a(), rb]);
    }
  }
  return out;
}

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

const ratioOf = (pairs: Array<[Rate, Rate]>, key: keyof Rate) => pairs.map(([a, b]) => b[key] / a[key]);

/** N1: a million GETs through the journal; memory sampled as they go, rate against the journal disabled. */
async function journalMillion(): Promise<void> {
  console.log(`\nN1: ${int(REQUESTS)} GET /v1/runs/{id} in process through the journal (cap 1,000), each window of ${int(WINDOW)} paired with one on an emulator with journalSize 0`);
  const journaled = createEmulator({ time: T0, frozen: true, seed: 'bench' });
  const disabled = createEmulator({ time: T0, frozen: true, seed: 'bench', journalSize: 0 });
  try {
    const a = get(`/v1/runs/${await admit(journaled)}`);
    const b = get(`/v1/runs/${await admit(disabled)}`);
    // Warm both (and fill the ring) before the first sample.
    for (let i = 0; i < 3; i++) {
      await drive(journaled, 20_000, () => a);
      await drive(disabled, 20_000, () => b);
    }
    const start = memory();
    const held = async () => String((await journaled.admin.countRequests()).count);
    console.log(`${'requests'.padStart(12)}${'heap MB'.padStart(10)}${'RSS MB'.padStart(10)}${'journal'.padStart(9)}${'req/cpu-s'.padStart(11)}${'off'.padStart(10)}${'ratio'.padStart(7)}`);
    console.log(`${'0'.padStart(12)}${mb(start.heap).padStart(10)}${mb(start.rss).padStart(10)}${(await held()).padStart(9)}`);
    const samples = [start];
    const pairs: Array<[Rate, Rate]> = [];
    const step = Math.max(WINDOW, Math.floor(REQUESTS / 10));
    for (let sent = 0; sent < REQUESTS; ) {
      const n = Math.min(step, REQUESTS - sent);
      const windows = Math.max(1, Math.round(n / WINDOW));
      const stepPairs = await interleave(windows, () => drive(disabled, n / windows, () => b), () => drive(journaled, n / windows, () => a));
      pairs.push(...stepPairs);
      sent += n;
      const m = memory();
      samples.push(m);
      const on = median(stepPairs.map(([, r]) => r.perCpu));
      const off = median(stepPairs.map(([r]) => r.perCpu));
      console.log(`${int(sent).padStart(12)}${mb(m.heap).padStart(10)}${mb(m.rss).padStart(10)}${(await held()).padStart(9)}${int(on).padStart(11)}${int(off).padStart(10)}${(on / off).toFixed(2).padStart(7)}`);
    }
    const heaps = samples.map((x) => x.heap);
    const last = samples.at(-1)!;
    const afterFirst = samples[1]!;
    console.log(`heap growth over ${int(REQUESTS)} requests: ${mb(last.heap - start.heap)} MB (${mb(last.heap - afterFirst.heap)} MB after the first ${int(step)}; samples ${mb(Math.min(...heaps))}–${mb(Math.max(...heaps))} MB); RSS growth ${mb(last.rss - start.rss)} MB`);
    const byCpu = ratioOf(pairs, 'perCpu');
    const byWall = ratioOf(pairs, 'perWall');
    console.log(`journal on / journal off, requests per CPU-second: ${median(byCpu).toFixed(2)}x  (${spread(byCpu)}); wall: ${median(byWall).toFixed(2)}x`);
    const { requests, evicted } = await journaled.admin.requests({ limit: 1 });
    console.log(`journal holds ${await held()} entries; ${int(evicted)} evicted; last seq ${int(requests[0]?.seq ?? 0)}`);
  } finally {
    await journaled.close();
    await disabled.close();
  }
}

/** N2: what the first request of a new namespace costs, against the same request to an existing one. */
async function creation(): Promise<void> {
  console.log(`\nN2: creating ${int(COUNT)} namespaces by first use (GET /ns/w<i>/v1/runs/x), against the same GET to an existing namespace`);
  const wallMs: number[] = [];
  const cpuMs: number[] = [];
  const ratios: number[] = [];
  const heapPer: number[] = [];
  const rssPer: number[] = [];
  for (let round = 0; round < 3; round++) {
    const emulator = createEmulator({ time: T0, frozen: true, seed: `bench-${round}` });
    try {
      const existing = get('/ns/warm/v1/runs/x');
      const missing = async (req: HttpRequest) => {
        const answer = await emulator.handle(req);
        if (answer.status !== 404) throw new Error(`GET answered ${answer.status}`);
      };
      for (let i = 0; i < 5_000; i++) await missing(existing);
      // Warm the creation path too, in another emulator, so the first round does not measure the JIT.
      if (round === 0) {
        const warm = createEmulator({ time: T0, frozen: true });
        for (let i = 0; i < 50; i++) await warm.handle(get(`/ns/x${i}/v1/runs/x`));
        await warm.close();
      }
      const before = memory();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < COUNT; i++) await missing(get(`/ns/w${i}/v1/runs/x`));
      const wall = (performance.now() - t0) / COUNT;
      const cpu0d = process.cpuUsage(cpu0);
      const cpu = (cpu0d.user + cpu0d.system) / 1000 / COUNT;
      const after = memory();
      const cpu1 = process.cpuUsage();
      for (let i = 0; i < COUNT * 10; i++) await missing(existing);
      const cpu1d = process.cpuUsage(cpu1);
      const existingCpu = (cpu1d.user + cpu1d.system) / 1000 / (COUNT * 10);
      wallMs.push(wall);
      cpuMs.push(cpu);
      ratios.push(cpu / existingCpu);
      heapPer.push((after.heap - before.heap) / COUNT / 1024);
      rssPer.push((after.rss - before.rss) / COUNT / 1024);
      console.log(`round ${round + 1}: ${wall.toFixed(3)} ms (CPU ${cpu.toFixed(3)} ms) per new namespace, CPU ${existingCpu.toFixed(4)} ms per request to an existing one; heap +${heapPer.at(-1)!.toFixed(1)} KiB, RSS +${rssPer.at(-1)!.toFixed(1)} KiB per namespace`);
    } finally {
      await emulator.close();
    }
  }
  console.log(`namespace creation: ${median(wallMs).toFixed(3)} ms each, CPU ${median(cpuMs).toFixed(3)} ms (median of 3 rounds); ${median(ratios).toFixed(0)}x the CPU of a request to an existing namespace`);
  console.log(`memory per namespace: heap ${median(heapPer).toFixed(1)} KiB, RSS ${median(rssPer).toFixed(1)} KiB (median of 3 rounds)`);
}

/** N3: GETs spread over 1,000 namespaces against GETs on an emulator with one (and with 1,000, journal off). */
async function manyVersusOne(): Promise<void> {
  const pairsWanted = ROUNDS * 4;
  console.log(`\nN3: GET /v1/runs/{id} round-robin over ${int(COUNT)} namespaces (x-hermetic-namespace) against one namespace, and against ${int(COUNT)} namespaces with journalSize 0; ${pairsWanted} interleaved pairs of ${int(WINDOW)}-request windows each`);
  const one = createEmulator({ time: T0, frozen: true, seed: 'bench-one' });
  const many = createEmulator({ time: T0, frozen: true, seed: 'bench-many' });
  const manyOff = createEmulator({ time: T0, frozen: true, seed: 'bench-many', journalSize: 0 });
  try {
    // The one-namespace emulator names its namespace in the header too, so both pay for the selector.
    const single = get(`/v1/runs/${await admit(one)}`, { 'x-hermetic-namespace': 'default' });
    const spreadOver = async (emulator: Emulator) => {
      const requests: HttpRequest[] = [];
      for (let i = 0; i < COUNT; i++) requests.push(get(`/v1/runs/${await admit(emulator, `/ns/w${i}`)}`, { 'x-hermetic-namespace': `w${i}` }));
      return requests;
    };
    const [on, off] = [await spreadOver(many), await spreadOver(manyOff)];
    const runOne = () => drive(one, WINDOW, () => single);
    const runMany = () => drive(many, WINDOW, (i) => on[i % COUNT]!);
    const runManyOff = () => drive(manyOff, WINDOW, (i) => off[i % COUNT]!);
    // Warm all three, and fill every namespace's ring so the windows measure the steady state (no ring growing).
    await runOne();
    await drive(many, COUNT * 1_100, (i) => on[i % COUNT]!);
    await runManyOff();
    const pairs = await interleave(pairsWanted, runOne, runMany);
    const journalPairs = await interleave(pairsWanted, runManyOff, runMany);
    const byCpu = ratioOf(pairs, 'perCpu');
    const journalCost = ratioOf(journalPairs, 'perCpu');
    console.log(`1 namespace: ${int(median(pairs.map(([r]) => r.perCpu)))} req/cpu-s; ${int(COUNT)} namespaces: ${int(median(pairs.map(([, r]) => r.perCpu)))} req/cpu-s; ${int(COUNT)} namespaces without the journal: ${int(median(journalPairs.map(([r]) => r.perCpu)))} req/cpu-s`);
    console.log(`GET throughput, ${int(COUNT)} namespaces / 1 namespace, per CPU-second: ${median(byCpu).toFixed(2)}x  (${spread(byCpu)}); wall: ${median(ratioOf(pairs, 'perWall')).toFixed(2)}x`);
    console.log(`${int(COUNT)} namespaces, journal on / off, per CPU-second: ${median(journalCost).toFixed(2)}x  (${spread(journalCost)})`);
  } finally {
    await one.close();
    await many.close();
    await manyOff.close();
  }
}

/** Milliseconds one answer takes, from the call to the answer's head. */
async function latency(emulator: Emulator, request: HttpRequest): Promise<number> {
  const started = performance.now();
  const answer = await emulator.handle(request);
  if (answer.status !== 200) throw new Error(`${request.method} ${request.path}: ${answer.status}`);
  return performance.now() - started;
}

const ms = (xs: number[]) => `p50 ${quantile(xs, 0.5).toFixed(2)} ms, p99 ${quantile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms`;

async function scale(): Promise<void> {
  const N = 20_000;
  console.log(`\nN4: ${int(N)} refused requests to new namespaces, then ${int(N)} new namespaces (a 404 each), health probed every 100 requests`);
  const key = 'k'.repeat(24);
  const health = get('/__admin/health');
  const idle = createEmulator({ apiKey: key, adminKey: 'a'.repeat(24), time: T0, frozen: true });
  const busy = createEmulator({ apiKey: key, adminKey: 'a'.repeat(24), time: T0, frozen: true, maxNamespaces: 1_000_000 });
  try {
    const baseline: number[] = [];
    for (let i = 0; i < 400; i++) baseline.push(await latency(idle, health));
    for (let i = 0; i < 2000; i++) await busy.handle(get(`/ns/warm${i}/v1/runs/x`, { authorization: `Bearer ${key}` }));
    for (let i = 0; i < 2000; i++) await busy.handle(get(`/ns/cold${i}/v1/runs/x`));
    const count = async () => (await busy.admin.namespaces()).namespaces.length;
    const before = await count();
    const during: number[] = [];
    gc();
    const rss0 = process.memoryUsage().rss;
    let t = performance.now();
    for (let i = 0; i < N; i++) {
      const answer = await busy.handle(get(`/ns/u${i}/v1/runs/x`));
      if (answer.status !== 401) throw new Error(`refused: ${answer.status}`);
      if (i % 100 === 0) during.push(await latency(busy, health));
    }
    const refusedMs = (performance.now() - t) / N;
    gc();
    const rss1 = process.memoryUsage().rss;
    const afterRefused = await count();
    t = performance.now();
    for (let i = 0; i < N; i++) {
      const answer = await busy.handle(get(`/ns/n${i}/v1/runs/x`, { authorization: `Bearer ${key}` }));
      if (answer.status !== 404) throw new Error(`created: ${answer.status}`);
      if (i % 100 === 0) during.push(await latency(busy, health));
    }
    const createdMs = (performance.now() - t) / N;
    gc();
    const rss2 = process.memoryUsage().rss;
    const heap2 = process.memoryUsage().heapUsed;
    const created = (await count()) - afterRefused;
    t = performance.now();
    await busy.admin.reset({ all: true });
    const resetMs = performance.now() - t;
    gc();
    const heap3 = process.memoryUsage().heapUsed;
    console.log(`refused: ${int(N)} requests, ${int(afterRefused - before)} namespaces created, RSS +${mb(rss1 - rss0)} MB (${((rss1 - rss0) / N / 1024).toFixed(2)} KiB each), ${(refusedMs * 1000).toFixed(0)} µs each`);
    console.log(`created: ${int(created)} namespaces, RSS +${mb(rss2 - rss1)} MB (${((rss2 - rss1) / N / 1024).toFixed(1)} KiB each; goal ≤ 20), ${(createdMs * 1000).toFixed(0)} µs each`);
    console.log(`reset of every namespace (${int(before + created)}): ${resetMs.toFixed(0)} ms; heap ${mb(heap2)} → ${mb(heap3)} MB (V8 keeps the RSS for reuse)`);
    console.log(`health in an idle emulator: ${ms(baseline)}; during the load (${during.length} probes): ${ms(during)}; p99 ratio ${(quantile(during, 0.99) / quantile(baseline, 0.99)).toFixed(2)}x`);
  } finally {
    await Promise.all([idle.close(), busy.close()]);
  }
}

async function heldLock(): Promise<void> {
  console.log('\nN5: GET /__admin/health and GET /__admin/clock while a completion waits for another connection\'s lock, against no lock');
  const db = join(mkdtempSync(join(tmpdir(), 'hermetic-bench-lock-')), 'runs.db');
  const emulator = createEmulator({ db, time: T0, frozen: true, lockTimeout: 60 });
  const other = new Database(db);
  try {
    const submitted = await emulator.handle({ ...get('/v1/runs'), method: 'POST', header: (n) => (n === 'idempotency-key' ? 'held' : undefined), readBody: async () => new TextEncoder().encode('{"input":"x"}') });
    const runId = JSON.parse(String(submitted.body)).run_id as string;
    await emulator.admin.runs();
    const probe = async (n: number) => {
      const out = { health: [] as number[], clock: [] as number[] };
      for (let i = 0; i < n; i++) {
        out.health.push(await latency(emulator, get('/__admin/health')));
        out.clock.push(await latency(emulator, get('/__admin/clock')));
      }
      return out;
    };
    const free = await probe(500);
    other.exec('BEGIN IMMEDIATE');
    const completing = emulator.handle({ ...get(`/__admin/runs/${runId}/complete`), method: 'POST', readBody: async () => new TextEncoder().encode('{"output":"done"}') });
    const held = await probe(500);
    const heldWrites = JSON.parse(String((await emulator.handle(get('/__admin/health'))).body)).held_writes as number;
    let waited = true;
    void completing.then(() => (waited = false));
    await new Promise((r) => setTimeout(r, 20));
    const stillWaiting = waited;
    other.exec('COMMIT');
    const done = await completing;
    console.log(`no lock:   health ${ms(free.health)}; clock ${ms(free.clock)}`);
    console.log(`lock held: health ${ms(held.health)}; clock ${ms(held.clock)} (held_writes ${heldWrites}; the completion ${stillWaiting ? 'still waited' : 'DID NOT WAIT'}, then answered ${done.status} once the lock was free)`);
  } finally {
    other.close();
    await emulator.close();
  }
}

async function main(): Promise<void> {
  console.log(`hermetic bench: namespaces and the request journal, in process (node ${process.version})`);
  if (ONLY.has('n1')) await journalMillion();
  if (ONLY.has('n2')) await creation();
  if (ONLY.has('n3')) await manyVersusOne();
  if (ONLY.has('n4')) await scale();
  if (ONLY.has('n5')) await heldLock();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

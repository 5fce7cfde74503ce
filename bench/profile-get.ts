// Profiling aid: GET /v1/runs/{id} load against a URL (`npx tsx bench/profile-get.ts http://127.0.0.1:PORT`).
import { BENCH_KEY, measure } from './http-runs.js';

const url = process.argv[2]!;
const auth = { Authorization: `Bearer ${BENCH_KEY}` };
const created = await fetch(`${url}/v1/runs`, { method: 'POST', headers: auth, body: '{"input":"bench"}' });
const { run_id: runId } = (await created.json()) as { run_id: string };
console.log(await measure({ url: `${url}/v1/runs/${runId}`, headers: auth }, { connections: 10, duration: 6, warmup: 0 }));

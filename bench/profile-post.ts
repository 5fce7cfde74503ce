// Profiling aid: keyed POST load against a URL (`npx tsx bench/profile-post.ts http://127.0.0.1:PORT`).
import { BENCH_KEY, measure } from './http-runs.js';

let n = 0;
const url = process.argv[2]!;
const m = await measure(
  {
    url: `${url}/v1/runs`,
    requests: [
      {
        method: 'POST',
        path: '/v1/runs',
        headers: { Authorization: `Bearer ${BENCH_KEY}`, 'Content-Type': 'application/json' },
        body: '{"input":"bench"}',
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'Idempotency-Key': `p-${n++}` } }),
      },
    ],
  },
  { connections: 10, duration: Number(process.env.D ?? 6), warmup: 0 },
);
console.log(m);

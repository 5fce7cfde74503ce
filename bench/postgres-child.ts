// One forwarder's writes for bench/postgres.ts, in a process of its own: the dataset's shipped rows as batches of
// 2,000 rows (the shipper's default), written by the PostgreSQL sink as machine <id>; prints "ROWS <n> MS <ms>".
// Arguments: <dataset path> <url> <machine id> <strategy>
import { performance } from 'node:perf_hooks';
import { createPostgresSink } from '../src/forwarder/sinks/postgres/index.js';
import { batchesOf } from './postgres-batches.js';

const [path, url, machineId, strategy] = process.argv.slice(2) as [string, string, string, 'copy' | 'unnest' | 'values'];
const batches = batchesOf(path, { machineId, hostname: `bench-${machineId.slice(0, 4)}` });
const sink = createPostgresSink(url, { strategy });
await sink.open();
process.stdout.write('READY\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const t0 = performance.now();
let rows = 0;
for (const b of batches) {
  await sink.write(b);
  rows += b.upserts.reduce((n, u) => n + u.rows.length, 0);
}
process.stdout.write(`ROWS ${rows} MS ${(performance.now() - t0).toFixed(1)}\n`);
await sink.close();

// Profiling aid: keyed POST /v1/runs in process (emulator.handle, no HTTP), 10 per event-loop turn, on a file store.
//   npx tsx bench/profile-admit.ts [N]      (add --cpu-prof to node for a profile)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '../src/emulator/index.js';

const N = Number(process.argv[2] ?? 20000);
const db = join(mkdtempSync(join(tmpdir(), 'hermetic-admit-')), 'runs.db');
const emulator = createEmulator({ db, maxConcurrentRuns: 0 });
const body = new TextEncoder().encode('{"input":"bench"}');
const request = (i: number) => ({
  method: 'POST',
  path: '/v1/runs',
  query: '',
  header: (name: string) => (name === 'idempotency-key' ? `k-${i}` : name === 'content-type' ? 'application/json' : undefined),
  readBody: async () => body,
});
let next = 0;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await new Promise<void>((done) => {
  let answered = 0;
  const turn = () => {
    for (let i = 0; i < 10 && next < N; i++) {
      void emulator.handle(request(next++)).then((r) => {
        if (r.status !== 202) throw new Error(`status ${r.status}`);
        if (++answered === N) done();
      });
    }
    if (next < N) setImmediate(turn);
  };
  turn();
});
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(`${N} keyed admissions in ${ms.toFixed(0)} ms: ${((cpu.user + cpu.system) / N).toFixed(1)} µs CPU each`);
await emulator.close();

// Profiling aid: GET /v1/runs/{id} in process (emulator.handle, no HTTP), CPU per request.
//   npx tsx bench/profile-get-inproc.ts [N]
import { createEmulator } from '../src/emulator/index.js';

const N = Number(process.argv[2] ?? 200000);
const emulator = createEmulator({});
const created = await emulator.fetch(new Request('http://x/v1/runs', { method: 'POST', body: '{"input":"x"}' }));
const { run_id: runId } = (await created.json()) as { run_id: string };
const request = { method: 'GET', path: `/v1/runs/${runId}`, query: '', header: () => undefined, readBody: async () => new Uint8Array() };
for (let i = 0; i < 20000; i++) await emulator.handle(request);
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) await emulator.handle(request);
const cpu = process.cpuUsage(cpu0);
console.log(`${N} GETs: ${((cpu.user + cpu.system) / N).toFixed(2)} µs CPU each`);
await emulator.close();

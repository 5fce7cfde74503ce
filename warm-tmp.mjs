import { mkdtempSync, rmSync } from 'node:fs';
import { createForwarder } from './dist/forwarder/index.js';
const store = '/tmp/hermetic-bench-forwarder-Nx2czH/store-100000/state.db';
const mode = process.env.MODE ?? 'only';
for (let i = 0; i < 4; i++) {
  const home = mkdtempSync('/tmp/warm-');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  console.log(`=== PASS ${i + 1}`);
  const f = createForwarder({ stateDbs: [store], home, userHome: home, readWorker: mode });
  f.backfill();
  f.close?.();
  const c = process.cpuUsage(c0);
  console.log(`pass ${i + 1}: ${(performance.now() - t0).toFixed(0)} ms, cpu ${((c.user + c.system) / 1000).toFixed(0)} ms`);
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);

// F3's child (bench/forwarder.ts): one backfill of <store> into a fresh dataset at <home>, in a process of its own,
// then one JSON line on stdout with the process's peak RSS (getrusage maxRSS and /proc/self/status VmHWM), its RSS
// after the imports, before the backfill (what node, tsx and the modules cost on their own), and the largest V8 heap
// seen after a written batch.
//   node --import tsx bench/forwarder-child.ts <store> <home>
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createForwarder } from '../src/forwarder/index.js';

/** A /proc/self/status field in kB (VmHWM, VmRSS), or null off Linux. */
function status(field: string): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

const [store, home] = process.argv.slice(2);
if (!store || !home) {
  console.error('usage: node --import tsx bench/forwarder-child.ts <store> <home>');
  process.exit(2);
}
const mb = (kb: number | null) => (kb === null ? null : kb / 1024);
const before = { rss: process.memoryUsage().rss / 1024 / 1024, hwm: mb(status('VmHWM')) };
const t0 = performance.now();
const f = createForwarder({ stateDbs: [store], home, userHome: home });
// V8's share of the peak, sampled after each written batch (RSS minus heap is SQLite, buffers and code).
const peak = { heapTotal: 0, heapUsed: 0, external: 0 };
const results = f.backfill({
  onProgress: () => {
    const m = process.memoryUsage();
    peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
  },
});
f.close();
const ms = performance.now() - t0;
const r = results[0];
console.log(JSON.stringify({
  ms,
  read: r?.read ?? null,
  sessionsWritten: r?.sessionsWritten ?? 0,
  messages: r?.messages ?? 0,
  parts: r?.parts ?? 0,
  error: r?.error ?? (results.length === 1 ? null : { code: 'BENCH', message: `${results.length} stores read` }),
  rssBeforeMb: before.rss,
  hwmBeforeMb: before.hwm,
  maxRssMb: process.resourceUsage().maxRSS / 1024,
  hwmMb: mb(status('VmHWM')),
  heapTotalMb: peak.heapTotal / 1024 / 1024,
  heapUsedMb: peak.heapUsed / 1024 / 1024,
  externalMb: peak.external / 1024 / 1024,
}));

// One measured run for bench/parquet.ts, in a process of its own so its peak RSS is the export's alone:
//   tsx bench/parquet-child.ts export HOME OUT   → the export of HOME's dataset into OUT
//   tsx bench/parquet-child.ts scan HOME         → the baseline: every exported table's rows read, nothing written
// Prints one JSON line: { ms, maxRssMb, rows, bytes }.
import { performance } from 'node:perf_hooks';
import { exportParquet, EXPORTED_TABLES } from '../src/forwarder/export/parquet/index.js';
import { openDatasetReadOnly } from '../src/forwarder/sinks/sqlite/dataset.js';

const [mode, home, out] = process.argv.slice(2);
const db = openDatasetReadOnly(home!);
const t0 = performance.now();
let rows = 0;
let bytes = 0;
if (mode === 'export') {
  const s = exportParquet(db, { out: out!, since: null, until: null, now: Date.now() });
  rows = s.totals.rows;
  bytes = s.totals.bytes;
} else {
  for (const table of EXPORTED_TABLES) {
    for (const row of db.prepare(`SELECT * FROM "${table.name}"`).raw().iterate() as IterableIterator<unknown[]>) {
      rows++;
      for (const v of row) if (typeof v === 'string') bytes += v.length;
    }
  }
}
const ms = performance.now() - t0;
db.close();
console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, rows, bytes }));

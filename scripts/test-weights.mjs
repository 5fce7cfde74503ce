// Updates scripts/test-weights.json (the seconds each test file takes alone, which scripts/run-tests.mjs orders and
// groups its processes by) from the times an isolated run wrote: every file in a process of its own, one at a time.
// Files the times do not name keep their weight; a file gone from the repository loses it.
// Usage: HERMETIC_TEST_ISOLATE=1 HERMETIC_TEST_CONCURRENCY=1 HERMETIC_TEST_TIMES=t.txt node scripts/run-tests.mjs [filter]
//        node scripts/test-weights.mjs t.txt
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WEIGHTS = new URL('./test-weights.json', import.meta.url);
const inRepo = (file) => existsSync(fileURLToPath(new URL(`../${file}`, import.meta.url)));
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/test-weights.mjs TIMES_FILE...  (written by HERMETIC_TEST_TIMES=TIMES_FILE node scripts/run-tests.mjs)');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(WEIGHTS, 'utf8'));
let updated = 0;
const failed = [];
for (const file of files) {
  // scripts/test-times.mjs's lines: "  26.5 s  from   13.3 to   39.8 s  [FAILED  ]src/forwarder/web/page-session.test.ts".
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([\d.]+) s\s+from\s+[\d.]+ to\s+[\d.]+ s\s+(FAILED\s+)?(\S+)$/.exec(line);
    if (!m) continue;
    if (!m[3].endsWith('.test.ts')) {
      console.error(`test-weights: ${file} names ${m[3]}, a process of several files: measure with HERMETIC_TEST_ISOLATE=1 and HERMETIC_TEST_CONCURRENCY=1`);
      process.exit(1);
    }
    // A failed file's time says nothing about how long it takes: it keeps its weight.
    if (m[2]) failed.push(m[3]);
    else {
      doc.seconds[m[3]] = Number(m[1]);
      updated++;
    }
  }
}
const seconds = Object.fromEntries(Object.entries(doc.seconds).filter(([f]) => inRepo(f)).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(WEIGHTS, `${JSON.stringify({ ...doc, seconds }, null, 2)}\n`);
console.log(`test-weights: ${updated} files measured, ${Object.keys(seconds).length} weights in scripts/test-weights.json`);
if (failed.length > 0) console.log(`test-weights: left as they were, because they failed: ${failed.join(', ')}`);

// A node:test reporter that says where a run's time went: per test process (a file, or a group of files sharing one),
// when it started and ended in the run and how long it took, longest first; then the run's length.
// Used by scripts/run-tests.mjs when HERMETIC_TEST_TIMES=FILE is set (decision 0034).
import { resolve } from 'node:path';

export default async function* testTimes(source) {
  const t0 = Date.now();
  const files = new Map();
  for await (const event of source) {
    const d = event.data ?? {};
    // The runner's own test for each process is named by its file.
    if (!d.file || resolve(d.name ?? '') !== d.file) continue;
    const f = files.get(d.file) ?? { start: null, end: null, ms: 0, passed: true };
    files.set(d.file, f);
    if (event.type === 'test:dequeue') f.start = Date.now() - t0;
    if (event.type === 'test:complete') Object.assign(f, { end: Date.now() - t0, ms: d.details?.duration_ms ?? 0, passed: d.details?.passed !== false });
  }
  const s = (ms) => (ms / 1000).toFixed(1).padStart(6);
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  // A bundled test file (scripts/test-bundles.mjs) is named as its source.
  const named = (file) => file.replace(`${process.cwd()}/`, '').replace(/^\.cache\/test-bundles\/\d+\/(.*\.test)\.js$/, '$1.ts');
  for (const [file, f] of rows) yield `${s(f.ms)} s  from ${s(f.start ?? 0)} to ${s(f.end ?? 0)} s  ${f.passed ? '' : 'FAILED  '}${named(file)}\n`;
  yield `${rows.length} processes; the run took ${s(Date.now() - t0)} s\n`;
}

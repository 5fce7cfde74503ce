// Runs every *.test.ts under src/ and test/ with node's test runner (Node 20 has no --test globs).
// Usage: node scripts/run-tests.mjs [substring filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = ['src', 'test'].flatMap((d) => walk(d, [])).sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}
// Every test process holds the admin answers it receives to the OpenAPI document (test/support/contract-check.ts).
const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/contract-check.ts', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, HERMETIC_TEST: '1' },
});
process.exit(result.status ?? 1);

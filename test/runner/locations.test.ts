// The runner's reporter names the TypeScript lines of a failure although the bundled test processes run without
// source maps (scripts/test-locations.mjs, decision 0127): a real esbuild bundle throws, and its stack is mapped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { mapLocations, sourceLocations } from '../../scripts/test-locations.mjs';
import { findEsbuild } from '../../scripts/transpile.mjs';

const SOURCE = `import { helper } from './helper.js';

function fails(): never {
  throw new Error('boom');
}
helper(fails);
`;
const HELPER = `export function helper(f: () => void): void {
  f();
}
`;

let repo = '';
let bundle = '';
/** What the bundle, run without source maps, printed: its stack names the bundle's lines. */
let stderr = '';
before(() => {
  repo = mkdtempSync(join(tmpdir(), 'hermetic-locations-'));
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'a.test.ts'), SOURCE);
  writeFileSync(join(repo, 'src', 'helper.ts'), HELPER);
  writeFileSync(join(repo, 'package.json'), '{"type": "module"}');
  const esbuild = findEsbuild();
  assert.ok(esbuild, 'esbuild (tsx\'s) is installed');
  esbuild.buildSync({
    entryPoints: [join(repo, 'src', 'a.test.ts')], outbase: repo, outdir: join(repo, '.cache', 'test-bundles', '7'),
    bundle: true, format: 'esm', platform: 'node', sourcemap: 'linked', outExtension: { '.js': '.js' },
  });
  bundle = join(repo, '.cache', 'test-bundles', '7', 'src', 'a.test.js');
  const r = spawnSync(process.execPath, [bundle], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  stderr = r.stderr;
});
after(() => rmSync(repo, { recursive: true, force: true }));

test('a stack thrown in a bundle names the TypeScript files and lines, relative to the folder', () => {
  assert.match(stderr, /\.cache\/test-bundles\/7\/src\/a\.test\.js:\d+:\d+/, 'without source maps the stack names the bundle');
  const mapped = mapLocations(stderr, new Map(), repo);
  assert.match(mapped, /at fails \(src\/a\.test\.ts:4:9\)/);
  assert.match(mapped, /src\/helper\.ts:2:3/);
  // Node's first line of an uncaught error names the line alone.
  assert.match(mapped.split('\n')[0]!, /^src\/a\.test\.ts:\d+$/);
  assert.doesNotMatch(mapped, /test-bundles/);
});

test('a location no map covers, or of a bundle without a map, stays as it is', () => {
  const maps = new Map();
  const missing = `at x (${join(repo, '.cache', 'test-bundles', '7', 'src', 'gone.test.js')}:3:1)`;
  assert.equal(mapLocations(missing, maps, repo), missing);
  const elsewhere = 'at y (file:///usr/lib/node/z.js:1:1) and node:internal/x:2:3';
  assert.equal(mapLocations(elsewhere, maps, repo), elsewhere);
  const at = /\.cache\/test-bundles\/7\/src\/a\.test\.js:\d+:\d+/.exec(stderr.slice(stderr.indexOf('at fails')))![0];
  assert.equal(mapLocations(`test at ${at}`, maps, repo), 'test at src/a.test.ts:4:9', 'a location relative to the folder is mapped too');
});

test('the reporter stage maps each chunk of text, bytes split inside a character included, and passes other values through', async () => {
  const line = stderr.split('\n').find((l) => l.includes('at fails'))!;
  // As bytes, '✖' (three of them) split between two chunks.
  const text = Buffer.from(`✖ fails\n${line}\n`);
  const chunks = [text.subarray(0, 1), text.subarray(1), 42];
  async function* source(): AsyncGenerator<unknown> {
    yield* chunks;
  }
  const out: unknown[] = [];
  for await (const chunk of sourceLocations(source())) out.push(chunk);
  assert.equal(out.length, 3);
  assert.match(out.slice(0, 2).join(''), /^✖ fails\n +at fails \(.*src\/a\.test\.ts:4:9\)\n$/);
  assert.equal(out[2], 42);
});

// `npm install` in a clone (the `prepare` script): the sources transpiled into dist/ in about a second, and the CLI
// bundled into dist/bundle/, so the `hermetic` bin starts from JavaScript instead of through tsx's loader (0.2 s
// against 0.55–0.7 s a command; decisions 0045, 0085). Not the package's build: `npm pack` and `npm publish` run
// `prepack` (tsc, declarations included) and this step then leaves dist/ alone. Without tsx (an install that omits dev dependencies) it builds nothing and
// says so; the bin then asks for `npm run build`.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli, findEsbuild, transpile } from './transpile.mjs';

const REPO = fileURLToPath(new URL('../', import.meta.url));

if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);
const esbuild = findEsbuild();
if (esbuild === null) {
  console.log('hermetic: no tsx/esbuild here (dev dependencies left out), so dist/ is not built; run "npm run build" to build it.');
  process.exit(0);
}
const started = performance.now();
const dist = join(REPO, 'dist');
// Whole, not over an older build: a source removed since must not leave its module behind.
rmSync(dist, { recursive: true, force: true });
transpile(esbuild, REPO, dist);
await bundleCli(esbuild, REPO, dist);
console.log(`hermetic: sources transpiled into dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s (npm run build for a checked build with declarations)`);

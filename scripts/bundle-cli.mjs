// `node scripts/bundle-cli.mjs DIST`: the CLI bundled into DIST/bundle/ (scripts/transpile.mjs bundleCli), for a caller
// that cannot wait on esbuild's asynchronous build: the tests' build of the bin (test/support/cli-build.ts).
import { fileURLToPath } from 'node:url';
import { bundleCli, findEsbuild } from './transpile.mjs';

const esbuild = findEsbuild();
if (esbuild === null || !process.argv[2]) {
  console.error('usage: node scripts/bundle-cli.mjs DIST (with tsx installed: its esbuild bundles)');
  process.exit(2);
}
await bundleCli(esbuild, fileURLToPath(new URL('../', import.meta.url)), process.argv[2]);

// The test files bundled into plain JavaScript before a run (decision 0034, December addendum): esbuild, the
// transformer tsx itself uses, builds every test file of the run and the contract-check preload at once, the modules
// they share split into common chunks (so a process that imports several files still has one copy of each module).
// A test process then loads a few files of JavaScript instead of resolving and transforming hundreds of TypeScript
// modules through tsx's loader thread: about a second of CPU less per process. Each module keeps its own
// `import.meta.url` (written into it as its source file's URL), so every path a module finds beside itself — fixtures,
// assets, the read worker's .ts entry, which then loads through tsx as before — is what it is when run from the
// sources. Packages stay outside the bundles, imported from node_modules as usual.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { esmBundle } from './transpile.mjs';

/**
 * Bundles `files` (test files and preloads, relative to `repo`) into `outDir`, keeping their paths (src/a.test.ts →
 * outDir/src/a.test.js), and resolves with where each one's bundle is. Rejects with esbuild's errors (a file that does not parse).
 * @example const bundles = await bundleTests(esbuild, process.cwd(), ['src/a.test.ts'], '.cache/test-bundles/1');
 */
export async function bundleTests(esbuild, repo, files, outDir) {
  await esmBundle(esbuild, repo, {
    entryPoints: files.map((f) => join(repo, f)),
    outbase: repo,
    outdir: outDir,
    sourcemap: 'linked',
    // Every TypeScript module of the repository keeps its own location (bundled, it would get its chunk's).
    urlOf: (path) => JSON.stringify(pathToFileURL(path).href),
  });
  return new Map(files.map((f) => [f, join(outDir, f.replace(/\.ts$/, '.js'))]));
}

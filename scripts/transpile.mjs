// src/**/*.ts (tests left out) transpiled to JavaScript by esbuild, the transformer tsx itself runs the sources with,
// and every other file of src/ (JSON data, a .mjs helper, the console's and the dashboard's assets) copied beside.
// No type check: `tsc` does that (npm test, npm run build). Used by the clone's build on `npm install`
// (scripts/build-clone.mjs) and by the build the tests run the bin from (test/support/cli-build.ts). Plain JavaScript,
// so `npm install` can run it before anything is compiled.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every file under `dir` but tests, as absolute paths, sorted. */
export function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return sourceFiles(path);
      return e.name.endsWith('.test.ts') ? [] : [path];
    })
    .sort();
}

/** esbuild as tsx has it (a dependency of tsx, so wherever tsx is installed), or null where tsx is not. */
export function findEsbuild() {
  let tsx;
  try {
    tsx = fileURLToPath(import.meta.resolve('tsx'));
  } catch {
    return null;
  }
  try {
    return createRequire(tsx)('esbuild');
  } catch {
    return null;
  }
}

/**
 * Transpiles the repository's src/ into `outDir` (its dist/ layout: src/cli/main.ts → outDir/cli/main.js).
 * @example transpile(esbuild, '/work/hermetic', '/work/hermetic/dist')
 */
export function transpile(esbuild, repo, outDir, sources = sourceFiles(join(repo, 'src'))) {
  const src = join(repo, 'src');
  esbuild.buildSync({
    entryPoints: sources.filter((f) => f.endsWith('.ts')),
    outbase: src,
    outdir: outDir,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    tsconfig: join(repo, 'tsconfig.json'),
    logLevel: 'error',
  });
  for (const file of sources.filter((f) => !f.endsWith('.ts'))) {
    const to = join(outDir, relative(src, file));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(file, to);
  }
}

/**
 * An ESM bundle for node of the repository's TypeScript: the modules shared by `entryPoints` split into chunks,
 * packages left outside (imported from node_modules as usual). Bundled, a module's `import.meta.url` would be its
 * chunk's, so each of the repository's modules gets, in its place, the expression `urlOf(its source path)` returns.
 * Shared by the CLI's bundle below and the test files' (scripts/test-bundles.mjs).
 */
export function esmBundle(esbuild, repo, { urlOf, ...options }) {
  return esbuild.build({
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    packages: 'external',
    tsconfig: join(repo, 'tsconfig.json'),
    logLevel: 'error',
    ...options,
    plugins: [{
      name: 'own-import-meta-url',
      setup(build) {
        build.onLoad({ filter: /\.ts$/ }, ({ path }) => {
          if (relative(repo, path).startsWith('..') || path.includes('/node_modules/')) return undefined;
          const source = readFileSync(path, 'utf8');
          return { contents: source.replaceAll('import.meta.url', urlOf(path)), loader: 'ts' };
        });
      },
    }],
  });
}

/**
 * The CLI bundled (decision 0085) into `outDir`/bundle/: main.js, stop-signals.js and the read worker's read-worker.js
 * (decision 0128), the modules they share split into chunks beside them (one copy of each, so the bin's early signal
 * hold is main's). A command then loads a dozen files instead of 120–200 modules, each of which costs node's ESM
 * loader about a millisecond: 60–80 ms of CPU less per start. Made beside the per-file build, which it relies on: every
 * module keeps, as `import.meta.url`, its place in that build (`outDir`/<its path>.js), so what it finds beside itself
 * (package.json, the assets) it finds there. bin/hermetic.js runs it when it is not older than that build, and the read
 * worker's thread likewise (read-ahead.ts).
 * @example await bundleCli(esbuild, '/work/hermetic', '/work/hermetic/dist')
 */
export async function bundleCli(esbuild, repo, outDir) {
  const src = join(repo, 'src');
  const out = join(outDir, 'bundle');
  rmSync(out, { recursive: true, force: true });
  await esmBundle(esbuild, repo, {
    entryPoints: {
      main: join(src, 'cli', 'main.ts'), 'stop-signals': join(src, 'cli', 'stop-signals.ts'),
      // The read worker's thread loads this instead of its ~70 modules one by one (decision 0128).
      'read-worker': join(src, 'forwarder', 'pipeline', 'read-worker.ts'),
    },
    outdir: out,
    chunkNames: '[name]-[hash]',
    // From outDir/bundle/<file>.js, every module's per-file place is one folder up.
    urlOf: (path) => `new URL(${JSON.stringify(`../${relative(src, path).replace(/\.ts$/, '.js')}`)}, import.meta.url).href`,
  });
}

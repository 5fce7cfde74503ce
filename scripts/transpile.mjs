// src/**/*.ts (tests left out) transpiled to JavaScript by esbuild, the transformer tsx itself runs the sources with,
// and every other file of src/ (JSON data, a .mjs helper, the console's and the dashboard's assets) copied beside.
// No type check: `tsc` does that (npm test, npm run build). Used by the clone's build on `npm install`
// (scripts/build-clone.mjs) and by the build the tests run the bin from (test/support/cli-build.ts). Plain JavaScript,
// so `npm install` can run it before anything is compiled.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
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

#!/usr/bin/env node
// The `hermetic` command: runs the compiled CLI in dist/ (in the package; `npm pack` and `npm publish` build it first).
// In a clone nobody built, it runs the TypeScript sources through tsx (a dev dependency), or says how to build.
// SIGINT and SIGTERM are held before the CLI's modules load, so a signal at any moment after start-up reaches the
// command: `serve` and `forward` stop cleanly (exit 0), the others end by the signal (src/cli/stop-signals.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/cli/', import.meta.url);
const src = new URL('../src/cli/', import.meta.url);

/** The CLI's folder and the extension of its modules: the build, else the sources through tsx, else null. */
async function locate() {
  if (existsSync(fileURLToPath(new URL('main.js', dist)))) return [dist, 'js'];
  let tsx = null;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {}
  if (tsx === null || !existsSync(fileURLToPath(new URL('main.ts', src)))) return null;
  (await import(tsx)).register();
  return [src, 'ts'];
}

const found = await locate();
if (found === null) {
  // The catalogue (src/shared/errors.ts) cannot be loaded here: this is its HERMETIC_CLI_NOT_BUILT, spelled out.
  console.error('hermetic: this copy has no build (dist/) and cannot run its sources without tsx; run "npm run build" first. [HERMETIC_CLI_NOT_BUILT]');
  process.exitCode = 1;
} else {
  const [folder, ext] = found;
  (await import(new URL(`stop-signals.${ext}`, folder).href)).holdStopSignals();
  const { main } = await import(new URL(`main.${ext}`, folder).href);
  main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
}

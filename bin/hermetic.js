#!/usr/bin/env node
// The `hermetic` command: runs the compiled CLI in dist/ (in the package; `npm pack` and `npm publish` build it first;
// in a clone, `npm install` transpiles it: scripts/build-clone.mjs). In a clone whose dist/ is missing or older than
// a source, it runs the TypeScript sources through tsx (a dev dependency), or says how to build.
// SIGINT and SIGTERM are held before the CLI's modules load, so a signal at any moment after start-up reaches the
// command: `serve`, `forward` and `web` stop cleanly (exit 0), the others end by the signal (src/cli/stop-signals.ts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Held from this first line, before the CLI is even found: handed to stop-signals.ts once it loads.
const early = [];
const holdEarly = (signal) => early.push(signal);
process.on('SIGINT', holdEarly);
process.on('SIGTERM', holdEarly);

const dist = new URL('../dist/cli/', import.meta.url);
/** The CLI bundled beside the build (scripts/transpile.mjs bundleCli): a dozen files to load instead of a hundred. */
const bundle = new URL('../dist/bundle/', import.meta.url);
const src = new URL('../src/cli/', import.meta.url);

/** Whether a file under `dir` (tests aside) changed after `since` (ms): the build beside the sources is stale. */
function newerThan(dir, since) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory() ? newerThan(path, since) : !e.name.endsWith('.test.ts') && statSync(path).mtimeMs > since) return true;
  }
  return false;
}

/** Whether a source beside the build changed after it; a tree that cannot be read is taken as unchanged. */
function stale(main) {
  try {
    return newerThan(fileURLToPath(new URL('..', src)), statSync(main).mtimeMs);
  } catch {
    return false;
  }
}

/** The bundle when it was made from what the build was (not older than it: a later tsc build leaves it behind), else the build. */
function fastest(main) {
  try {
    return statSync(fileURLToPath(new URL('main.js', bundle))).mtimeMs >= statSync(main).mtimeMs ? bundle : dist;
  } catch {
    return dist;
  }
}

/**
 * The CLI's folder and the extension of its modules: the build (bundled when it can be), unless it sits in a clone
 * whose sources changed since (about 5 ms to tell; the package has no sources); else the sources through tsx; else a
 * stale build; else null.
 */
async function locate() {
  const main = fileURLToPath(new URL('main.js', dist));
  const built = existsSync(main);
  const sources = existsSync(fileURLToPath(new URL('main.ts', src)));
  if (built && (!sources || !stale(main))) return [fastest(main), 'js'];
  let tsx = null;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {}
  if (tsx === null || !sources) return built ? [dist, 'js'] : null;
  (await import(tsx)).register();
  return [src, 'ts'];
}

const found = await locate();
if (found === null) {
  // The catalogue (src/shared/errors.ts) cannot be loaded here: this is its HERMETIC_CLI_NOT_BUILT, spelled out.
  console.error('hermetic: this copy has no build (dist/) and cannot run its sources without tsx; run "npm run build" first. [HERMETIC_CLI_NOT_BUILT]');
  process.exitCode = 1;
  process.off('SIGINT', holdEarly);
  process.off('SIGTERM', holdEarly);
} else {
  const [folder, ext] = found;
  (await import(new URL(`stop-signals.${ext}`, folder).href)).holdStopSignals();
  process.off('SIGINT', holdEarly);
  process.off('SIGTERM', holdEarly);
  if (early.length > 0) process.emit(early[0], early[0]);
  const { main } = await import(new URL(`main.${ext}`, folder).href);
  main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
}

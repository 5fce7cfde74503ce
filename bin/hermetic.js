#!/usr/bin/env node
// The `hermetic` command: runs the compiled CLI in dist/ (in the package; `npm pack` and `npm publish` build it first).
// In a clone nobody built, it runs the TypeScript sources through tsx (a dev dependency), or says how to build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);

async function load() {
  try {
    return await import(compiled.href);
  } catch (e) {
    if (existsSync(fileURLToPath(compiled)) || e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  let tsx = null;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {}
  if (tsx === null || !existsSync(fileURLToPath(sources))) return null;
  (await import(tsx)).register();
  return import(sources.href);
}

const cli = await load();
if (cli === null) {
  // The catalogue (src/shared/errors.ts) cannot be loaded here: this is its HERMETIC_CLI_NOT_BUILT, spelled out.
  console.error('hermetic: this copy has no build (dist/) and cannot run its sources without tsx; run "npm run build" first. [HERMETIC_CLI_NOT_BUILT]');
  process.exitCode = 1;
} else {
  cli.main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
}

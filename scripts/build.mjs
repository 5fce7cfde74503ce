// The package's build (`npm run build`, and `prepack` before `npm pack` and `npm publish`): tsc over src/ with its
// declarations, type-checked, into dist/; then the console's files, which tsc does not copy, and the CLI bundled.
// HERMETIC_BUILD_NO_CHECK=1 emits the same files without type-checking (tsc --noCheck): for the package test
// (test/package/consumer.test.ts), whose suite type-checks the sources itself; about a third of the build's CPU.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleCli, findEsbuild } from './transpile.mjs';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const args = [tsc, '-p', 'tsconfig.build.json', ...(process.env.HERMETIC_BUILD_NO_CHECK === '1' ? ['--noCheck'] : [])];
const r = spawnSync(process.execPath, args, { cwd: REPO, stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
cpSync(`${REPO}src/emulator/console/assets`, `${REPO}dist/emulator/console/assets`, { recursive: true });
// The CLI bundled beside it (decision 0085) where esbuild is (tsx's, a dev dependency: there when packing); else none,
// and the bin loads the build's modules one by one. Never a bundle left from an earlier build.
const esbuild = findEsbuild();
if (esbuild) await bundleCli(esbuild, REPO, `${REPO}dist`);
else rmSync(`${REPO}dist/bundle`, { recursive: true, force: true });

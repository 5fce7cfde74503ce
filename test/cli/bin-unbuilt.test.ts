// bin/hermetic.js run plainly (no test hooks) in a copy of the repository that nobody built: it runs the sources
// through tsx when the dev dependencies are there, and otherwise says in one line how to build — never a stack trace.
// Also: `npm install` transpiles the sources into dist/ (`prepare`, decision 0045), which the bin runs until a source
// is newer than it; `npm pack`/`npm publish` build with tsc (`prepack`).
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { ERROR_CODES } from '../../src/shared/errors.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of `names` from the repository (no dist/), with node_modules linked when asked. */
function clone(names: string[], modules: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-unbuilt-'));
  dirs.push(dir);
  for (const name of names) cpSync(join(REPO, name), join(dir, name), { recursive: true, filter: (from) => !from.endsWith('.test.ts') });
  if (modules) symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/**
 * A copy of the clone as `npm install` leaves it (build-clone.mjs run once, its times kept): the two tests below change
 * their copy's sources and builds, and a second install of the same sources would only make the same dist/ again
 * (about 2 s of CPU; decision 0095).
 */
let installed: { dir: string; build: SpawnSyncReturns<string> } | null = null;
function installedClone(): { dir: string; build: SpawnSyncReturns<string> } {
  if (installed === null) {
    const dir = clone(['package.json', 'bin', 'src', 'scripts', 'tsconfig.json'], true);
    installed = { dir, build: spawnSync(process.execPath, [join(dir, 'scripts', 'build-clone.mjs')], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_command: 'install' } }) };
  }
  const copy = mkdtempSync(join(tmpdir(), 'hermetic-unbuilt-'));
  dirs.push(copy);
  cpSync(installed.dir, copy, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  return { dir: copy, build: installed.build };
}

const run = (dir: string, args: string[]) =>
  spawnSync(process.execPath, [join(dir, 'bin', 'hermetic.js'), ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });

test('without dist/, the bin runs the sources through tsx (the dev dependency)', () => {
  const dir = clone(['package.json', 'bin', 'src'], true);
  const version = run(dir, ['--version']);
  assert.deepEqual([version.status, version.stdout, version.stderr], [0, `${JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version}\n`, '']);
  const refused = run(dir, ['nope']);
  assert.equal(refused.status, 2);
  assert.equal(refused.stderr, 'hermetic: Unknown command "nope"; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks. [HERMETIC_CLI_USAGE]\nRun "hermetic --help" for the commands.\n');
});

test('without dist/ and without tsx, the bin says how to build in one line and exits 1', () => {
  for (const [names, modules] of [[['package.json', 'bin', 'src'], false], [['package.json', 'bin'], true]] as const) {
    const r = run(clone([...names], modules), ['serve']);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'hermetic: this copy has no build (dist/) and cannot run its sources without tsx; run "npm run build" first. [HERMETIC_CLI_NOT_BUILT]\n');
  }
  assert.equal(ERROR_CODES.HERMETIC_CLI_NOT_BUILT.status, 500, 'a 5xx code: exit 1');
});

test('npm install transpiles the sources (prepare), except when packing; npm pack and npm publish build with tsc (prepack)', () => {
  const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.prepare, 'node scripts/build-clone.mjs');
  for (const hook of ['preinstall', 'install', 'postinstall']) assert.equal(scripts[hook], undefined, hook);
  assert.equal(scripts.prepack, scripts.build);
  const dir = clone(['package.json', 'bin', 'src', 'scripts', 'tsconfig.json'], true);
  const packing = spawnSync(process.execPath, [join(dir, 'scripts', 'build-clone.mjs')], { cwd: dir, encoding: 'utf8', env: { ...process.env, npm_command: 'pack' } });
  assert.equal(packing.status, 0, packing.stderr);
  assert.equal(existsSync(join(dir, 'dist')), false, 'packing leaves dist/ to prepack');
});

test('a clone\'s build runs until a source is newer than it; then the sources run through tsx', () => {
  const { dir, build } = installedClone();
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stdout, /^hermetic: sources transpiled into dist\/ in [\d.]+ s/);
  const version = `${JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version}\n`;
  // Which of the two runs shows by a source broken after the build: the build does not read it, tsx does.
  const source = join(dir, 'src', 'cli', 'main.ts');
  const built = statSync(join(dir, 'dist', 'cli', 'main.js')).mtime;
  writeFileSync(source, `${readFileSync(source, 'utf8')}\nthis is not TypeScript\n`);
  utimesSync(source, new Date(built.getTime() - 60_000), new Date(built.getTime() - 60_000));
  const fromBuild = run(dir, ['--version']);
  assert.deepEqual([fromBuild.status, fromBuild.stdout], [0, version], fromBuild.stderr);
  utimesSync(source, new Date(built.getTime() + 60_000), new Date(built.getTime() + 60_000));
  const fromSources = run(dir, ['--version']);
  assert.notEqual(fromSources.status, 0, 'the changed source ran');
  assert.match(fromSources.stderr, /main\.ts/);
  // A test file changed after the build is not a change of the CLI.
  const other = join(dir, 'src', 'cli', 'later.test.ts');
  utimesSync(source, new Date(built.getTime() - 60_000), new Date(built.getTime() - 60_000));
  writeFileSync(other, '');
  assert.equal(run(dir, ['--version']).stdout, version);
});

test('the clone\'s build bundles the CLI (dist/bundle/), which the bin runs unless the build beside it is newer', () => {
  const { dir, build } = installedClone();
  assert.equal(build.status, 0, build.stderr);
  const bundled = join(dir, 'dist', 'bundle', 'main.js');
  const perFile = join(dir, 'dist', 'cli', 'main.js');
  assert.ok(existsSync(bundled) && existsSync(join(dir, 'dist', 'bundle', 'stop-signals.js')));
  // The bundle as it was made answers, from a few files: the modules each command shares are chunks beside it.
  const version = `${JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version}\n`;
  assert.equal(run(dir, ['--version']).stdout, version);
  const status = run(dir, ['status', '--home', join(dir, 'home'), '--json']);
  assert.equal(status.status, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).dataset_exists, false);
  // Which one runs shows by a main that says so.
  const said = (name: string) => `export async function main() { console.log(${JSON.stringify(name)}); return 0; }\n`;
  // Times a whole second apart: a Date carries milliseconds only, a file's time finer ones.
  const stamp = new Date(Math.ceil(statSync(perFile).mtimeMs / 1000) * 1000 + 1000);
  writeFileSync(bundled, said('bundle'));
  utimesSync(bundled, stamp, stamp);
  assert.equal(run(dir, ['--version']).stdout, 'bundle\n');
  // A build made after the bundle (tsc by hand over dist/) runs, not the older bundle.
  writeFileSync(perFile, said('per-file'));
  utimesSync(perFile, new Date(stamp.getTime() + 60_000), new Date(stamp.getTime() + 60_000));
  utimesSync(join(dir, 'src', 'cli', 'main.ts'), stamp, stamp);
  assert.equal(run(dir, ['--version']).stdout, 'per-file\n');
});

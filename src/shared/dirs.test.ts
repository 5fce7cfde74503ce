// makeDirs creates each missing level, says in one sentence why it could not, and returns promptly where Node 20's
// recursive mkdirSync spins forever (/proc): that case runs in a child process with a deadline, so a regression fails
// instead of hanging the suite.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createDirs, DirsError, makeDirs } from './dirs.js';
import { HermeticError } from './errors.js';
import { pathToFileURL } from 'node:url';
import { builtModule } from '../../test/support/cli-build.js';
import { cannotDropRoot, unprivileged } from './testing/unprivileged.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-dirs-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (code: string, message: string) => (e: unknown) => {
  assert.ok(e instanceof HermeticError, String(e));
  assert.deepEqual({ code: e.code, message: e.message }, { code, message });
  return true;
};

test('makeDirs creates every missing level, each with the mode asked for; an existing folder is fine', () => {
  const deep = join(dir, 'a', 'b', 'c');
  makeDirs(deep, 'HERMETIC_DATASET_OPEN', 0o700);
  for (const level of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) {
    assert.ok(statSync(level).isDirectory(), level);
    assert.equal(statSync(level).mode & 0o077, 0, `${level} is private`);
  }
  makeDirs(deep, 'HERMETIC_DATASET_OPEN');
  makeDirs(`${deep}/`, 'HERMETIC_DATASET_OPEN');
  makeDirs(dir, 'HERMETIC_DATASET_OPEN');
  const relative = join(dir, 'rel');
  mkdirSync(relative);
  const cwd = process.cwd();
  process.chdir(relative);
  try {
    makeDirs(join('x', 'y'), 'HERMETIC_DATASET_OPEN');
  } finally {
    process.chdir(cwd);
  }
  assert.ok(statSync(join(relative, 'x', 'y')).isDirectory());
});

test('a file in the way: the caller\'s code and a sentence naming it; nothing is created', () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'mine');
  assert.throws(() => makeDirs(join(file, 'below', 'deeper'), 'HERMETIC_EXPORT_OUT'),
    refusal('HERMETIC_EXPORT_OUT', `Cannot create ${join(file, 'below', 'deeper')}: ${file} is a file, not a folder (ENOTDIR).`));
  assert.throws(() => makeDirs(file, 'HERMETIC_STATEDB_WRITE'),
    refusal('HERMETIC_STATEDB_WRITE', `Cannot create ${file}: ${file} is a file, not a folder (EEXIST).`));
  // The errno layer keeps mkdirSync's codes, for callers that word their own errors from them.
  assert.throws(() => createDirs(join(file, 'below')), (e: unknown) => e instanceof DirsError && e.code === 'ENOTDIR' && e.path === file);
  assert.throws(() => createDirs(file), (e: unknown) => e instanceof DirsError && e.code === 'EEXIST');
  assert.ok(!existsSync(join(file, 'below')));
});

test('a folder that refuses new entries: permission denied, said once', { skip: cannotDropRoot }, () => {
  const locked = join(dir, 'locked');
  // It may be entered (the refusal is mkdir's in it, not a look at it), not written in; root may write anywhere, so as
  // root makeDirs runs without root's overrides of file modes.
  mkdirSync(locked, { mode: 0o500 });
  const bound = unprivileged(new URL('./dirs.ts', import.meta.url), { makeDirs });
  assert.throws(() => bound.makeDirs(join(locked, 'x', 'y'), 'HERMETIC_DATASET_OPEN'),
    refusal('HERMETIC_DATASET_OPEN', `Cannot create ${join(locked, 'x', 'y')}: permission denied in the folder ${locked} (EACCES).`));
});

test('under /proc (where Node 20\'s recursive mkdirSync spins forever): a clear error, promptly', { skip: !existsSync('/proc/self') ? 'no /proc here' : false, timeout: 120_000 }, () => {
  const script = `
    import { makeDirs } from ${JSON.stringify(pathToFileURL(builtModule(new URL('./dirs.ts', import.meta.url))).href)};
    for (const path of ['/proc/hermetic-test-nope', '/proc/hermetic-test-nope/a/b']) {
      try { makeDirs(path, 'HERMETIC_DATASET_OPEN'); console.log('created ' + path); }
      catch (e) { console.log(e.code + ': ' + e.message); }
    }`;
  const started = Date.now();
  // A generous deadline (the child runs the tests' build of src/, decision 0095); a spinning mkdir would hold it until SIGKILL.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  assert.equal(r.signal, null, `makeDirs under /proc did not return within a minute (killed): ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout,
    'HERMETIC_DATASET_OPEN: Cannot create /proc/hermetic-test-nope: the folder /proc does not accept new folders (ENOENT).\n' +
    'HERMETIC_DATASET_OPEN: Cannot create /proc/hermetic-test-nope/a/b: the folder /proc does not accept new folders (ENOENT).\n');
  assert.ok(Date.now() - started < 60_000);
});

// Tests for the resolver's cache on the injected clock, and for its injected file access.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { localListPath } from './local-list.js';
import { createPolicyResolver } from './resolve.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'hermetic-policy-cache-')));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh tree and state folder, with a resolver on a clock the test sets. */
function sandbox() {
  const base = join(root, `case-${n++}`);
  const stateDir = join(base, 'state');
  const at = (...parts: string[]) => join(base, 'tree', ...parts);
  mkdirSync(at(), { recursive: true });
  const dotfile = (dir: string, text: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.hypignore'), text);
  };
  const list = (data: unknown) => {
    mkdirSync(dirname(localListPath(stateDir)), { recursive: true });
    writeFileSync(localListPath(stateDir), JSON.stringify(data));
  };
  let clock = 0;
  const time = { set: (ms: number) => { clock = ms; } };
  return { at, dotfile, list, time, stateDir, policy: createPolicyResolver({ stateDir, now: () => clock }) };
}

test('a new .hypignore or list entry is seen only after cacheMs on the injected clock', () => {
  const { at, dotfile, list, policy, time } = sandbox();
  mkdirSync(at('p'), { recursive: true });
  time.set(1_000);
  assert.equal(policy.resolve(at('p')).class, 'full');
  dotfile(at('p'), 'local-only\n');
  time.set(5_999);
  assert.equal(policy.resolve(at('p')).class, 'full');
  assert.equal(policy.resolve(at('p', 'new-scope')).class, 'full'); // the parsed folders are cached too
  time.set(6_000);
  assert.equal(policy.resolve(at('p')).class, 'local-only');
  list({ version: 1, dirs: [] });
  list({ version: 2, entries: [{ dir: at('p'), class: 'ignore' }] });
  time.set(10_999);
  assert.equal(policy.resolve(at('p')).class, 'local-only');
  time.set(11_000);
  assert.equal(policy.resolve(at('p')).class, 'ignore');
});

test('invalidate() and a clock that goes back both drop the cache', () => {
  const { at, dotfile, policy, time } = sandbox();
  time.set(100);
  assert.equal(policy.resolve(at('p')).class, 'full');
  dotfile(at('p'), 'ignore\n');
  policy.invalidate();
  assert.equal(policy.resolve(at('p')).class, 'ignore');
  writeFileSync(at('p', '.hypignore'), 'local-only\n');
  time.set(50);
  assert.equal(policy.resolve(at('p')).class, 'local-only');
});

test('cacheMs 0 reads afresh every time, and a bad cacheMs is refused', () => {
  const base = sandbox();
  const policy = createPolicyResolver({ stateDir: base.stateDir, now: () => 0, cacheMs: 0 });
  assert.equal(policy.resolve(base.at('p')).class, 'full');
  base.dotfile(base.at('p'), 'ignore\n');
  assert.equal(policy.resolve(base.at('p')).class, 'ignore');
  assert.throws(() => createPolicyResolver({ stateDir: base.stateDir, now: () => 0, cacheMs: -1 }), {
    code: 'HERMETIC_OPTIONS_INVALID',
    message: 'Option "cacheMs" must be a finite number of milliseconds, 0 or more; got -1.',
  });
});

test('injected readFile and realpath are the only ways the resolver touches the disk for policy files', () => {
  const seen: string[] = [];
  const files: Record<string, string> = { '/v/home/.hypignore': 'local-only\n' };
  const policy = createPolicyResolver({
    stateDir: '/v/state', now: () => 0,
    readFile: (p) => {
      seen.push(p);
      if (p in files) return files[p]!;
      throw Object.assign(new Error('absent'), { code: 'ENOENT' });
    },
    realpath: (p) => {
      if (p === '/v/link') return '/v/home';
      if (p === '/v' || p === '/') return p;
      throw Object.assign(new Error('absent'), { code: 'ENOENT' });
    },
  });
  const v = policy.resolve('/v/link/x');
  assert.deepEqual([v.class, v.governingFile], ['local-only', '/v/home/.hypignore']);
  assert.deepEqual(seen, [
    '/v/state/usage-policy/local-only.json',
    '/v/link/x/.hypignore', '/v/link/.hypignore', '/v/.hypignore', '/.hypignore',
    '/v/home/x/.hypignore', '/v/home/.hypignore',
  ]);
});

// Tests for the usage-policy resolver over real temp folders: walk-up, list, spellings, and the injected-clock cache.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { cannotDropRoot, unprivileged } from '../../shared/testing/unprivileged.js';
import { localListPath } from './local-list.js';
import { createPolicyResolver, type Verdict } from './resolve.js';
import { resolveOnce } from './testing.js';

// realpath, so the expected paths in reasons are exact even where the temp folder sits behind a link (macOS /tmp).
const root = realpathSync(mkdtempSync(join(tmpdir(), 'hermetic-policy-')));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh sandbox: a tree folder for scopes and a state folder for the list. */
function sandbox() {
  const base = join(root, `case-${n++}`);
  const stateDir = join(base, 'state');
  const listFile = localListPath(stateDir);
  mkdirSync(base, { recursive: true });
  const at = (...parts: string[]) => join(base, 'tree', ...parts);
  const dotfile = (dir: string, text: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.hypignore'), text);
  };
  const list = (data: unknown) => {
    mkdirSync(dirname(listFile), { recursive: true });
    writeFileSync(listFile, typeof data === 'string' ? data : JSON.stringify(data));
  };
  let clock = 0;
  const time = { set: (ms: number) => { clock = ms; } };
  const policy = createPolicyResolver({ stateDir, now: () => clock });
  return { at, dotfile, list, listFile, policy, time, stateDir };
}

function expect(v: Verdict, want: Partial<Verdict>): void {
  const picked = Object.fromEntries(Object.keys(want).map((k) => [k, v[k as keyof Verdict]]));
  assert.deepEqual(picked, want);
}

test('no scope means full, and says there is no scope', () => {
  const { policy } = sandbox();
  const none = { class: 'full', scope: null, governingFile: null, declared: null, listEntry: null, clamped: false, reason: 'no scope (the session has no cwd): full' };
  assert.deepEqual(policy.resolve(null), none);
  assert.deepEqual(policy.resolve(''), none);
});

test('no .hypignore above the scope and no list entry means full', () => {
  const { at, policy } = sandbox();
  mkdirSync(at('p'), { recursive: true });
  assert.deepEqual(policy.resolve(at('p')), {
    class: 'full', scope: at('p'), governingFile: null, declared: null, listEntry: null, clamped: false,
    reason: `no .hypignore above ${at('p')} and no list entry: full`,
  });
});

test('a .hypignore in an ancestor governs, comments and all', () => {
  const { at, dotfile, policy } = sandbox();
  dotfile(at('p'), '# keep this here\nlocal-only # not synced\n');
  mkdirSync(at('p', 'src', 'deep'), { recursive: true });
  assert.deepEqual(policy.resolve(at('p', 'src', 'deep')), {
    class: 'local-only', scope: at('p', 'src', 'deep'), governingFile: at('p', '.hypignore'), declared: 'local-only',
    listEntry: null, clamped: false, reason: `${at('p', '.hypignore')} says local-only`,
  });
});

test('the nearest .hypignore wins over a farther one, even a stricter one', () => {
  const { at, dotfile, policy } = sandbox();
  dotfile(at('a'), 'ignore\n');
  dotfile(at('a', 'b'), 'local-only\n');
  expect(policy.resolve(at('a', 'b', 'c')), { class: 'local-only', governingFile: at('a', 'b', '.hypignore') });
  expect(policy.resolve(at('a', 'x')), { class: 'ignore', governingFile: at('a', '.hypignore'), reason: `${at('a', '.hypignore')} says ignore` });
});

test('an empty or comment-only .hypignore means ignore', () => {
  const { at, dotfile, policy } = sandbox();
  dotfile(at('e'), '');
  dotfile(at('c'), '# only a note\n\n');
  expect(policy.resolve(at('e')), { class: 'ignore', declared: null, clamped: false, reason: `${at('e', '.hypignore')} has no class token, so it means ignore` });
  expect(policy.resolve(at('c', 'sub')), { class: 'ignore', declared: null, clamped: false, governingFile: at('c', '.hypignore') });
});

test('an unknown token (full included) clamps to ignore with the warning flag', () => {
  const { at, dotfile, policy } = sandbox();
  dotfile(at('f'), 'full\n');
  assert.deepEqual(policy.resolve(at('f')), {
    class: 'ignore', scope: at('f'), governingFile: at('f', '.hypignore'), declared: 'full', listEntry: null, clamped: true,
    reason: `${at('f', '.hypignore')} says "full", which is not a .hypignore class, so it is clamped to ignore`,
  });
});

test('an existing .hypignore that cannot be read means ignore', { skip: cannotDropRoot }, () => {
  const { at, dotfile, stateDir } = sandbox();
  dotfile(at('u'), 'local-only\n');
  chmodSync(at('u', '.hypignore'), 0o000);
  // Root reads a chmod 000 file anyway: as root, a new resolver (as the sandbox's) judges it as bound.
  const bound = unprivileged(new URL('./testing.ts', import.meta.url), { resolveOnce });
  try {
    expect(bound.resolveOnce(stateDir, at('u')), {
      class: 'ignore', declared: null, clamped: true, governingFile: at('u', '.hypignore'),
      reason: `${at('u', '.hypignore')} exists but cannot be read, so it means ignore`,
    });
  } finally {
    chmodSync(at('u', '.hypignore'), 0o644);
  }
});

test('a version 1 list entry makes its folder local-only', () => {
  const { at, list, listFile, policy } = sandbox();
  list({ version: 1, dirs: [at('p') + '/'] });
  assert.deepEqual(policy.resolve(at('p', 'q')), {
    class: 'local-only', scope: at('p', 'q'), governingFile: null, declared: null, listEntry: at('p') + '/', clamped: false,
    reason: `${listFile} lists ${at('p')}/ as local-only`,
  });
  expect(policy.resolve(at('pq')), { class: 'full', listEntry: null });
});

test('a version 2 list: the deepest entry wins and a tie goes to the more restrictive class', () => {
  const { at, list, listFile, policy } = sandbox();
  list({ version: 2, entries: [
    { dir: at('a'), class: 'ignore' }, { dir: at('a', 'b'), class: 'full' },
    { dir: at('t'), class: 'local-only' }, { dir: at('t'), class: 'ignore' }, { dir: at('t'), class: 'full' },
  ] });
  expect(policy.resolve(at('a', 'x')), { class: 'ignore', listEntry: at('a') });
  expect(policy.resolve(at('a', 'b', 'c')), { class: 'full', listEntry: at('a', 'b'), reason: `${listFile} lists ${at('a', 'b')} as full` });
  expect(policy.resolve(at('a', 'bc')), { class: 'ignore', listEntry: at('a') });
  expect(policy.resolve(at('t')), { class: 'ignore', listEntry: at('t') });
});

test('the final class is the most restrictive of the .hypignore and the list', () => {
  const { at, dotfile, list, listFile, policy } = sandbox();
  dotfile(at('p'), 'local-only\n');
  dotfile(at('q'), 'ignore\n');
  list({ version: 2, entries: [{ dir: at('p'), class: 'ignore' }, { dir: at('q'), class: 'full' }] });
  assert.deepEqual(policy.resolve(at('p')), {
    class: 'ignore', scope: at('p'), governingFile: at('p', '.hypignore'), declared: 'local-only', listEntry: at('p'), clamped: false,
    reason: `${at('p', '.hypignore')} says local-only and ${listFile} lists ${at('p')} as ignore: ignore`,
  });
  expect(policy.resolve(at('q')), {
    class: 'ignore', reason: `${at('q', '.hypignore')} says ignore and ${listFile} lists ${at('q')} as full: ignore`,
  });
});

test('a malformed list makes resolve throw HERMETIC_POLICY_LIST (fail closed)', () => {
  const { at, list, listFile, policy } = sandbox();
  list({ version: 2, entries: [{ dir: 'relative/p', class: 'ignore' }] });
  assert.throws(() => policy.resolve(at('p')), (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_POLICY_LIST');
    assert.equal(e.message, `The usage-policy list ${listFile} has entries[0].dir = "relative/p", but it must be an absolute path.`);
    return true;
  });
  assert.equal(policy.resolve(null).class, 'full'); // no scope needs no list
});

test('a scope reached through a symlink is judged by both spellings, the stricter kept', () => {
  const { at, dotfile, policy } = sandbox();
  dotfile(at('private'), 'local-only\n');
  mkdirSync(at('private', 'real'), { recursive: true });
  symlinkSync(at('private', 'real'), at('link'));
  // As given, nothing is above /tree/link; resolved, /tree/private/.hypignore is.
  expect(policy.resolve(at('link', 'not-yet')), { class: 'local-only', governingFile: at('private', '.hypignore') });
  // And the other way: a link inside an ignored folder pointing to an open one.
  dotfile(at('secret'), 'ignore\n');
  mkdirSync(at('open', 'proj'), { recursive: true });
  symlinkSync(at('open', 'proj'), at('secret', 'proj'));
  expect(policy.resolve(at('secret', 'proj')), { class: 'ignore', governingFile: at('secret', '.hypignore') });
  expect(policy.resolve(at('open', 'proj')), { class: 'full' });
});

test('list entries match over symlinked and NFC-folded spellings on both sides', () => {
  const { at, list, policy } = sandbox();
  mkdirSync(at('physical'), { recursive: true });
  symlinkSync(at('physical'), at('logical'));
  const nfc = at('caf\u00e9');
  const nfd = at('cafe\u0301');
  list({ version: 1, dirs: [at('logical'), nfc, at('nai\u0308ve')] });
  expect(policy.resolve(at('physical', 'x')), { class: 'local-only', listEntry: at('logical') });
  expect(policy.resolve(join(nfd, 'x')), { class: 'local-only', listEntry: nfc });
  expect(policy.resolve(at('na\u00efve')), { class: 'local-only', listEntry: at('nai\u0308ve') });
});

test('a channel scope that does not exist is governed by a .hypignore above it', () => {
  const { at, dotfile, policy } = sandbox();
  const home = at('home');
  dotfile(join(home, '.hermes', 'channels'), 'local-only\n');
  const telegram = join(home, '.hermes', 'channels', 'telegram');
  expect(policy.resolve(telegram), {
    class: 'local-only', scope: telegram, governingFile: join(home, '.hermes', 'channels', '.hypignore'),
    reason: `${join(home, '.hermes', 'channels', '.hypignore')} says local-only`,
  });
  symlinkSync(home, at('home-link'));
  expect(policy.resolve(at('home-link', '.hermes', 'channels', 'discord')), { class: 'local-only' });
});

test('a relative scope is treated as ignore (fail-safe)', () => {
  const { policy } = sandbox();
  expect(policy.resolve('projects/x'), {
    class: 'ignore', clamped: true, governingFile: null,
    reason: 'scope "projects/x" is not an absolute path, so it is treated as ignore (fail-safe)',
  });
});

// Tests for the machine-local usage-policy list: versions, fail-closed errors, and which entry governs a folder.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { cannotDropRoot, unprivileged } from '../../shared/testing/unprivileged.js';
import { isWithin, localListPath, matchLocalList, parseLocalList, readLocalList } from './local-list.js';

const root = mkdtempSync(join(tmpdir(), 'hermetic-list-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh state folder whose list file holds `text` (or no list at all when text is undefined). */
function stateWith(text?: string): { stateDir: string; file: string } {
  const stateDir = join(root, `state-${n++}`);
  const file = localListPath(stateDir);
  mkdirSync(join(stateDir, 'usage-policy'), { recursive: true });
  if (text !== undefined) writeFileSync(file, text);
  return { stateDir, file };
}

function throwsPolicyList(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_POLICY_LIST');
    assert.equal(e.message, message);
    return true;
  });
}

test('the list lives at <state>/usage-policy/local-only.json', () => {
  assert.equal(localListPath('/var/h'), '/var/h/usage-policy/local-only.json');
});

test('a missing list (or state folder) means no entries', () => {
  const { stateDir, file } = stateWith();
  assert.deepEqual(readLocalList(stateDir), { file, entries: [] });
  assert.deepEqual(readLocalList(join(root, 'never-made')).entries, []);
});

test('version 1 lists dirs that are all local-only; dirs are normalized for matching and kept as written', () => {
  const { stateDir, file } = stateWith(JSON.stringify({ version: 1, dirs: ['/a/b/', '/c/./d/../e'] }));
  assert.deepEqual(readLocalList(stateDir), {
    file,
    entries: [
      { written: '/a/b/', dir: '/a/b', class: 'local-only' },
      { written: '/c/./d/../e', dir: '/c/e', class: 'local-only' },
    ],
  });
});

test('version 2 lists entries with their own class', () => {
  const text = JSON.stringify({ version: 2, entries: [{ dir: '/a', class: 'ignore' }, { dir: '/a/b', class: 'full' }, { dir: '/c', class: 'local-only' }] });
  assert.deepEqual(parseLocalList(text, '/s/l.json').entries, [
    { written: '/a', dir: '/a', class: 'ignore' },
    { written: '/a/b', dir: '/a/b', class: 'full' },
    { written: '/c', dir: '/c', class: 'local-only' },
  ]);
});

test('a malformed list throws HERMETIC_POLICY_LIST naming the file and the fault', () => {
  const f = '/s/usage-policy/local-only.json';
  const cases: Array<[string, string]> = [
    ['{"version": 1, "dirs": [', 'is not valid JSON'],
    ['[]', 'is not a JSON object with a "version" field'],
    ['{"dirs": []}', 'has no "version" field'],
    ['{"version": 3, "entries": []}', 'has version 3, but only versions 1 and 2 are known'],
    ['{"version": "1", "dirs": []}', 'has version "1", but only versions 1 and 2 are known'],
    ['{"version": 1, "entries": []}', 'is version 1 but has no "dirs" array'],
    ['{"version": 2, "dirs": ["/a"]}', 'is version 2 but has no "entries" array'],
    ['{"version": 1, "dirs": ["/a", "relative/b"]}', 'has dirs[1] = "relative/b", but it must be an absolute path'],
    ['{"version": 1, "dirs": [7]}', 'has dirs[0] = 7, but it must be an absolute path'],
    ['{"version": 2, "entries": ["/a"]}', 'has entries[0] that is not a {dir, class} object'],
    ['{"version": 2, "entries": [{"dir": "/a", "class": "public"}]}', 'has entries[0].class = "public", but it must be ignore, local-only or full'],
    ['{"version": 2, "entries": [{"dir": "/a"}]}', 'has no entries[0].class (it must be ignore, local-only or full)'],
    ['{"version": 2, "entries": [{"class": "full"}]}', 'has no entries[0].dir (it must be an absolute path)'],
    ['{"version": 2, "entries": [{"dir": "~/x", "class": "ignore"}]}', 'has entries[0].dir = "~/x", but it must be an absolute path'],
  ];
  for (const [text, fault] of cases) {
    throwsPolicyList(() => parseLocalList(text, f), `The usage-policy list ${f} ${fault}.`);
  }
});

test('a list that exists but cannot be read throws HERMETIC_POLICY_LIST (fail closed)', () => {
  const folder = stateWith();
  mkdirSync(folder.file);
  throwsPolicyList(() => readLocalList(folder.stateDir), `The usage-policy list ${folder.file} exists but cannot be read (it is a folder).`);
});

test('a list this user may not read (chmod 000) throws HERMETIC_POLICY_LIST (fail closed)', { skip: cannotDropRoot }, () => {
  const locked = stateWith('{"version": 1, "dirs": []}');
  chmodSync(locked.file, 0o000);
  // Root reads a chmod 000 file anyway: as root, the list is read without root's overrides of file modes.
  const bound = unprivileged(new URL('./local-list.ts', import.meta.url), { readLocalList });
  try {
    throwsPolicyList(() => bound.readLocalList(locked.stateDir), `The usage-policy list ${locked.file} cannot be read: permission denied (on the file, or on a folder above it).`);
  } finally {
    chmodSync(locked.file, 0o644);
  }
});

test('a list this user may not reach is not said to exist: a folder above it may be what is denied', () => {
  const denied = (path: string): string => {
    throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' });
  };
  throwsPolicyList(() => readLocalList('/home/u/.hermetic', denied), 'The usage-policy list /home/u/.hermetic/usage-policy/local-only.json cannot be read: permission denied (on the file, or on a folder above it).');
});

test('an entry governs its own dir and path-segment descendants only (/a/bc is not under /a/b)', () => {
  assert.equal(isWithin('/a/b', '/a/b'), true);
  assert.equal(isWithin('/a/b/c', '/a/b'), true);
  assert.equal(isWithin('/a/bc', '/a/b'), false);
  assert.equal(isWithin('/a', '/a/b'), false);
  assert.equal(isWithin('/anything', '/'), true);
  const { entries } = parseLocalList('{"version": 1, "dirs": ["/a/b"]}', '/s/l.json');
  assert.equal(matchLocalList(entries, '/a/bc'), null);
  assert.equal(matchLocalList(entries, '/a/bc/d'), null);
  assert.equal(matchLocalList(entries, '/a/b/c')?.written, '/a/b');
});

test('among nested entries the deepest wins, even when it is less restrictive', () => {
  const { entries } = parseLocalList(JSON.stringify({
    version: 2,
    entries: [{ dir: '/a', class: 'ignore' }, { dir: '/a/b/c', class: 'local-only' }, { dir: '/a/b', class: 'full' }],
  }), '/s/l.json');
  assert.equal(matchLocalList(entries, '/a/x')?.class, 'ignore');
  assert.equal(matchLocalList(entries, '/a/b/x')?.class, 'full');
  assert.equal(matchLocalList(entries, '/a/b/c/d')?.class, 'local-only');
});

test('a tie between entries for the same dir goes to the more restrictive class, in any order', () => {
  for (const order of [['full', 'ignore', 'local-only'], ['ignore', 'local-only', 'full'], ['local-only', 'full', 'ignore']]) {
    const text = JSON.stringify({ version: 2, entries: order.map((c, i) => ({ dir: i === 1 ? '/a/b/' : '/a/b', class: c })) });
    assert.equal(matchLocalList(parseLocalList(text, '/s/l.json').entries, '/a/b/c')?.class, 'ignore');
  }
});

// Tests for the .hypignore format and what missing or unreadable files mean.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cannotDropRoot, unprivileged } from '../../shared/testing/unprivileged.js';
import { parseDotfile, readDotfile } from './dotfile.js';

const root = mkdtempSync(join(tmpdir(), 'hermetic-dotfile-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the two implemented tokens are read as written', () => {
  assert.deepEqual(parseDotfile('ignore\n'), { class: 'ignore', declared: 'ignore', clamped: false });
  assert.deepEqual(parseDotfile('local-only'), { class: 'local-only', declared: 'local-only', clamped: false });
});

test('comments (also inline), blank lines, CRLF and a BOM are skipped before the class token', () => {
  const text = '# why this folder is private\n\n   \n  local-only   # synced elsewhere\nignore\n';
  assert.deepEqual(parseDotfile(text), { class: 'local-only', declared: 'local-only', clamped: false });
  assert.deepEqual(parseDotfile('local-only#no space before the comment'), { class: 'local-only', declared: 'local-only', clamped: false });
  assert.deepEqual(parseDotfile('\r\n# crlf\r\nlocal-only\r\n'), { class: 'local-only', declared: 'local-only', clamped: false });
  assert.deepEqual(parseDotfile('\uFEFFlocal-only\n'), { class: 'local-only', declared: 'local-only', clamped: false });
});

test('only the first token of the first meaningful line counts; later lines are reserved', () => {
  assert.deepEqual(parseDotfile('local-only ignore\n*.log\n'), { class: 'local-only', declared: 'local-only', clamped: false });
});

test('an empty or comment-only file means ignore, with no declared token', () => {
  assert.deepEqual(parseDotfile(''), { class: 'ignore', declared: null, clamped: false });
  assert.deepEqual(parseDotfile('# nothing but a note\n\n  # another\n'), { class: 'ignore', declared: null, clamped: false });
});

test('any other token, full included, clamps to ignore with the warning flag', () => {
  assert.deepEqual(parseDotfile('full\n'), { class: 'ignore', declared: 'full', clamped: true });
  assert.deepEqual(parseDotfile('# new syntax\nshare-with-team # later\n'), { class: 'ignore', declared: 'share-with-team', clamped: true });
  assert.deepEqual(parseDotfile('Local-Only'), { class: 'ignore', declared: 'Local-Only', clamped: true });
});

test('a folder without .hypignore (or that does not exist) has no verdict', () => {
  const dir = join(root, 'missing');
  mkdirSync(dir);
  assert.equal(readDotfile(dir), null);
  assert.equal(readDotfile(join(root, 'no-such-folder', 'deeper')), null);
});

test('the .hypignore in the folder is read and parsed', () => {
  const dir = join(root, 'present');
  mkdirSync(dir);
  writeFileSync(join(dir, '.hypignore'), 'local-only\n');
  assert.deepEqual(readDotfile(dir), { class: 'local-only', declared: 'local-only', clamped: false });
});

test('an existing .hypignore that cannot be read (chmod 000) means ignore, flagged', { skip: cannotDropRoot }, () => {
  const dir = join(root, 'unreadable');
  mkdirSync(dir);
  const file = join(dir, '.hypignore');
  writeFileSync(file, 'local-only\n');
  chmodSync(file, 0o000);
  // Root reads a chmod 000 file anyway: as root, readDotfile runs as bound.
  const bound = unprivileged(new URL('./dotfile.ts', import.meta.url), { readDotfile });
  try {
    assert.deepEqual(bound.readDotfile(dir), { class: 'ignore', declared: null, clamped: true });
  } finally {
    chmodSync(file, 0o644);
  }
});

test('a folder or a dangling link named .hypignore exists but cannot be read: ignore, flagged', () => {
  const folder = join(root, 'folder-named');
  mkdirSync(join(folder, '.hypignore'), { recursive: true });
  assert.deepEqual(readDotfile(folder), { class: 'ignore', declared: null, clamped: true });
  const dangling = join(root, 'dangling');
  mkdirSync(dangling);
  symlinkSync(join(root, 'nowhere'), join(dangling, '.hypignore'));
  assert.deepEqual(readDotfile(dangling), { class: 'ignore', declared: null, clamped: true });
});

test('an injected reader: EACCES means ignore, ENOENT means no file', () => {
  const eacces = () => { throw Object.assign(new Error('denied'), { code: 'EACCES' }); };
  const enoent = () => { throw Object.assign(new Error('none'), { code: 'ENOENT' }); };
  assert.deepEqual(readDotfile('/x', eacces), { class: 'ignore', declared: null, clamped: true });
  assert.equal(readDotfile('/x', enoent), null);
});

test('a reader that could not look (out of descriptors or memory) is no verdict: HERMETIC_POLICY_UNREAD, not ignore', () => {
  for (const [code, words] of [['EMFILE', 'this process has too many files open (EMFILE)'], ['ENFILE', 'the system has too many files open (ENFILE)'], ['ENOMEM', 'out of memory (ENOMEM)']]) {
    const failing = () => { throw Object.assign(new Error(code!), { code }); };
    assert.throws(() => readDotfile('/x', failing), (e: Error & { code?: string }) => e.code === 'HERMETIC_POLICY_UNREAD'
      && e.message === `Cannot look for /x/.hypignore: ${words}; the session is judged again later, not taken as ignored.`);
  }
});

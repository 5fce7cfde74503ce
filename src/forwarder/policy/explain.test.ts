// Tests for the lines `hermetic policy check PATH` prints, reached through the module's public face.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainPolicy, type Verdict } from './index.js';

const base: Verdict = {
  class: 'full', scope: '/x', governingFile: null, declared: null, listEntry: null, clamped: false,
  reason: 'no .hypignore above /x and no list entry: full',
};

test('a scope with no policy: class, no file, no entry, the reason', () => {
  assert.deepEqual(explainPolicy(base), [
    'class: full', 'scope: /x', 'governing file: none', 'list entry: none', 'reason: no .hypignore above /x and no list entry: full',
  ]);
  assert.deepEqual(explainPolicy({ ...base, scope: null, reason: 'no scope (the session has no cwd): full' }), [
    'class: full', 'scope: none', 'governing file: none', 'list entry: none', 'reason: no scope (the session has no cwd): full',
  ]);
});

test('a governing file shows its declared token, and a list entry is named', () => {
  const v: Verdict = {
    class: 'ignore', scope: '/p/q', governingFile: '/p/.hypignore', declared: 'local-only', listEntry: '/p', clamped: false,
    reason: '/p/.hypignore says local-only and /s/usage-policy/local-only.json lists /p as ignore: ignore',
  };
  assert.deepEqual(explainPolicy(v), [
    'class: ignore', 'scope: /p/q', 'governing file: /p/.hypignore', 'declared token: local-only', 'list entry: /p',
    'reason: /p/.hypignore says local-only and /s/usage-policy/local-only.json lists /p as ignore: ignore',
  ]);
  assert.equal(explainPolicy({ ...v, declared: null })[3], 'declared token: none (empty or comment-only file)');
});

test('a clamp is a warning line: unknown token, unreadable file, relative scope', () => {
  const file = { ...base, class: 'ignore' as const, governingFile: '/p/.hypignore', clamped: true };
  assert.deepEqual(explainPolicy({ ...file, declared: 'full', reason: 'r' }).slice(3), [
    'declared token: full', 'list entry: none',
    'warning: "full" is not a .hypignore class (only ignore and local-only are); clamped to ignore (fail-safe)', 'reason: r',
  ]);
  assert.deepEqual(explainPolicy({ ...file, reason: 'r' }).slice(3), [
    'declared token: unknown (the file cannot be read)', 'list entry: none',
    'warning: /p/.hypignore exists but cannot be read; treated as ignore (fail-safe)', 'reason: r',
  ]);
  assert.deepEqual(explainPolicy({ ...base, class: 'ignore', scope: 'rel', clamped: true, reason: 'r' }).slice(3), [
    'list entry: none', 'warning: fail-safe applied; treated as ignore', 'reason: r',
  ]);
});

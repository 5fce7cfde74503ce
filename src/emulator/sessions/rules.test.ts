import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPathUnsafe, normalizeSource, parseQueryInt, queryBool, sanitizeTitle, sessionIdProblem, TitleTooLong } from './rules.js';
import { pyInt } from '../../shared/python/index.js';

test('sanitize_title: controls and format characters dropped, whitespace collapsed, blank is none, over 100 throws', () => {
  assert.equal(sanitizeTitle('  a \t b '), 'a b');
  assert.equal(sanitizeTitle('x\u200by\u0000z\u202e'), 'xyz');
  assert.equal(sanitizeTitle('line\none\r\ntwo'), 'line one two');
  assert.equal(sanitizeTitle('a\u3000\u00a0b'), 'a b');
  assert.equal(sanitizeTitle('   '), null);
  assert.equal(sanitizeTitle(''), null);
  assert.equal(sanitizeTitle('\ud800ok'), '\ufffdok');
  assert.equal(sanitizeTitle('é'.repeat(100)), 'é'.repeat(100));
  assert.throws(() => sanitizeTitle('x'.repeat(101)), (e: unknown) => e instanceof TitleTooLong && e.message === 'Title too long (101 chars, max 100)');
  // Astral characters count once, as Python's len().
  assert.equal(sanitizeTitle('😀'.repeat(100)), '😀'.repeat(100));
});

test('session ids: path-unsafe shapes, control characters, length in code points', () => {
  for (const id of ['../x', 'a/b', 'a\\b', 'C:x', 'é:x', 'a..b']) assert.equal(isPathUnsafe(id), true, id);
  for (const id of ['api_1_abcdef12', '1:x', 'a:b:c'.slice(1), 'my-session']) assert.equal(isPathUnsafe(id), false, id);
  assert.equal(sessionIdProblem('a\nb'), 'Invalid session ID');
  assert.equal(sessionIdProblem(''), 'Invalid session ID');
  assert.equal(sessionIdProblem('😀'.repeat(256)), null);
  assert.equal(sessionIdProblem('a'.repeat(257)), 'Session ID too long');
});

test('source allow-list', () => {
  assert.equal(normalizeSource(' Browser '), 'hermes_browser');
  assert.equal(normalizeSource('TELEGRAM'), 'telegram');
  assert.equal(normalizeSource('bot_peer_dm'), 'api_server');
});

test('Python int() and the query parsers', () => {
  assert.equal(pyInt(' 7 '), 7n);
  assert.equal(pyInt('+7'), 7n);
  assert.equal(pyInt('-3'), -3n);
  assert.equal(pyInt('1_000'), 1000n);
  assert.equal(pyInt('\u0663\u0664'), 34n, 'Arabic-Indic digits');
  assert.equal(pyInt('\u{1d7d9}'), 1n, 'a mathematical digit one');
  // Python's ints are exact at any size ...
  assert.equal(pyInt('9007199254740993'), 9007199254740993n);
  // ... up to sys.get_int_max_str_digits() (4300 on Python 3.11): more digits (underscores not counted) is ValueError.
  assert.equal(pyInt('9'.repeat(4300)), BigInt('9'.repeat(4300)));
  assert.equal(pyInt(`-${'0'.repeat(4299)}1`), -1n);
  assert.equal(pyInt('1_'.repeat(4300).slice(0, -1)), BigInt('1'.repeat(4300)));
  assert.equal(pyInt('1'.repeat(4301)), null);
  assert.equal(parseQueryInt('1'.repeat(4301), 50, 200), 50, 'a ValueError falls back to the default');
  assert.equal(parseQueryInt('1'.repeat(4300), 50, 200), 200);
  for (const bad of ['', '7.5', '1__0', '_1', '1_', 'abc', '0x10', '\u00b2']) assert.equal(pyInt(bad), null, bad);
  assert.equal(parseQueryInt(undefined, 50, 200), 50);
  assert.equal(parseQueryInt('-1', 50, 200), 50);
  assert.equal(parseQueryInt('1000', 50, 200), 200);
  assert.equal(parseQueryInt('0', 50, 200), 0);
  assert.equal(queryBool(' On ', false), true);
  assert.equal(queryBool('no', true), false);
  assert.equal(queryBool('2', false), false);
});

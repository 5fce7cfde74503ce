import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePyJson } from '../../shared/python/index.js';
import { UnhandledHermesException } from './hermes-errors.js';
import { steerText } from './steer-text.js';
import { parseSessionKey, validateRunBody, validIdempotencyKey } from './validate.js';

test('session keys are Python-stripped (Unicode whitespace too) and checked for CR, LF, NUL and length', () => {
  assert.deepEqual(parseSessionKey(undefined), { key: '' });
  assert.deepEqual(parseSessionKey('\u00a0 k \u0085'), { key: 'k' });
  assert.deepEqual(parseSessionKey('a\rb'), { invalid: 'Invalid session key' });
  assert.deepEqual(parseSessionKey('a\x00b'), { invalid: 'Invalid session key' });
  assert.deepEqual(parseSessionKey('😀'.repeat(256)), { key: '😀'.repeat(256) }, '256 code points is fine');
  assert.deepEqual(parseSessionKey('a'.repeat(257)), { invalid: 'Session key too long' });
});

test('Idempotency-Key: 1–255 visible ASCII', () => {
  assert.equal(validIdempotencyKey('k-1'), true);
  assert.equal(validIdempotencyKey('k'.repeat(255)), true);
  assert.equal(validIdempotencyKey('k'.repeat(256)), false);
  assert.equal(validIdempotencyKey('é'), false);
  assert.equal(validIdempotencyKey('a\tb'), false);
});

test('earlier input elements become history (list content flattened with spaces), others skipped', () => {
  const r = validateRunBody(parsePyJson('{"input":[{"role":"system","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]},"x",{"role":"","content":"skip"},{"role":"user","content":"now"}]}'));
  assert.ok(!('status' in r));
  assert.deepEqual(r.history, [{ role: 'system', content: 'a b' }]);
  assert.equal(r.userMessage, 'now');
});

test('where Python would raise, validation raises (aiohttp answers 500)', () => {
  assert.throws(() => validateRunBody(parsePyJson('[]')), UnhandledHermesException);
  assert.throws(() => validateRunBody(parsePyJson('{"input":["x"]}')), UnhandledHermesException);
});

test('NaN is truthy as in Python: {"input": NaN} has no user message rather than no input', () => {
  const r = validateRunBody(parsePyJson('{"input":NaN}'));
  assert.ok('status' in r && r.message === 'No user message found in input');
});

test('steer text: parts joined with newlines, typed parts only, scalars stringified, 65,536-character cap', () => {
  assert.equal(steerText(parsePyJson('["a",{"type":"input_text","text":"b"},{"type":"image","text":"no"},["c"]]')), 'a\nb\nc');
  assert.equal(steerText(parsePyJson('5')), '5');
  assert.equal(steerText(parsePyJson('true')), 'True');
  assert.equal(steerText(parsePyJson('{"a":1}')), "{'a': 1}");
  assert.equal(steerText('x'.repeat(70000)).length, 65536);
});

test('durations round as Python round(x, 3): half to even on the exact binary value', async () => {
  const { pyRound } = await import('../../shared/python/index.js');
  // Expected values from CPython 3.11.
  assert.equal(pyRound(0.7714, 3), 0.771);
  assert.equal(pyRound(0.0625, 3), 0.062);
  assert.equal(pyRound(0.1875, 3), 0.188);
  assert.equal(pyRound(2.675, 2), 2.67);
  assert.equal(pyRound(1.0005, 3), 1.0);
  assert.equal(pyRound(-0.0625, 3), -0.062);
  assert.equal(pyRound(12345.6789, 3), 12345.679);
});

// SessionDB's model_config merge (decision 0147), checked against what CPython 3.11's json made of the same rows:
// the tolerant read, keys kept in order and merged in place, json.dumps' bytes, and where Python raises instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PyFloat, PyJsonError, type PyValue } from '../../shared/python/index.js';
import { BROWSER_MODEL_LOCK, mergeModelConfig, parseModelConfig } from './model-config.js';

const LOCK = new Map<string, PyValue>([
  ['provider', ''], ['model', 'm'], ['model_options', new Map()], ['route_source', 'raw_request'], ['confirmed', true],
  ['updated_at', new PyFloat(1789169800)],
]);
const LOCK_TEXT = '{"provider": "", "model": "m", "model_options": {}, "route_source": "raw_request", "confirmed": true, "updated_at": 1789169800.0}';
const lock = (stored: unknown) => mergeModelConfig(stored, new Map([[BROWSER_MODEL_LOCK, LOCK]]));

test('a row with nothing usable (NULL, blank, not JSON, JSON of another shape, not text) takes the lock alone', () => {
  // '\u3000' strips to nothing in Python; a BOM is JSONDecodeError to json.loads of a str.
  for (const stored of [null, '', '   ', '\u3000', 'not json', '[1,2]', '"s"', '5', 'null', 7, 7n, Buffer.from('{}'), '\ufeff{"a":1}']) {
    assert.equal(lock(stored), `{"browser_model_lock": ${LOCK_TEXT}}`, String(stored));
  }
});

test('the row\'s keys stay in their order, re-dumped as json.dumps writes them; a lock already there is replaced in place', () => {
  const stored = '{"a":1,"a":2,"b":1e5,"c":"\u00e9","d":[1.0,-0.0,1E-7],"e":NaN,"f":12345678901234567890123,"g":{"x":null},"h":"\\ud800"}';
  assert.equal(lock(stored),
    '{"a": 2, "b": 100000.0, "c": "\\u00e9", "d": [1.0, -0.0, 1e-07], "e": NaN, "f": 12345678901234567890123, "g": {"x": null}, ' +
    `"h": "\\ud800", "browser_model_lock": ${LOCK_TEXT}}`);
  assert.equal(lock(' \n{"a": 1}'), `{"a": 1, "browser_model_lock": ${LOCK_TEXT}}`);
  assert.equal(lock('{"_branched_from":"p","browser_model_lock":{"model":"old"},"yolo_mode":true}'),
    `{"_branched_from": "p", "browser_model_lock": ${LOCK_TEXT}, "yolo_mode": true}`);
});

test('a null in the patch removes its key; nothing left is NULL', () => {
  assert.equal(mergeModelConfig('{"browser_model_lock":{"model":"x"},"k":1}', new Map([[BROWSER_MODEL_LOCK, null]])), '{"k": 1}');
  assert.equal(mergeModelConfig('{"browser_model_lock":{"model":"x"}}', new Map([[BROWSER_MODEL_LOCK, null]])), null);
  assert.equal(mergeModelConfig(null, new Map([['gone', null]])), null);
});

test('past json.loads\' limits Python raises (RecursionError, ValueError), and so does the merge', () => {
  for (const stored of ['['.repeat(2000) + ']'.repeat(2000), `{"n":${'1'.repeat(5000)}}`]) {
    assert.throws(() => parseModelConfig(stored), PyJsonError);
    assert.throws(() => lock(stored), PyJsonError);
  }
});

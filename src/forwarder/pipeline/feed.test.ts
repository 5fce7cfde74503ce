// `auto` reads with the worker only when it wins (issue 16 §4): with a core free, judged by the core count and the
// last minute's load.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreFree } from './feed.js';

test('a core is free with two or more cores and a load below one less than their number; never with one core', () => {
  assert.deepEqual([coreFree(2, 0.3), coreFree(2, 0.99), coreFree(2, 1), coreFree(2, 4.5), coreFree(1, 0), coreFree(8, 6.5), coreFree(8, 7.2)], [true, true, false, false, false, true, false]);
});

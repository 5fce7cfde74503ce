import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lagText } from './status.js';

test('a lag reads in the two largest units a person needs', () => {
  assert.deepEqual([0, 42.4, 59.6, 60, 3599, 3600, 3659, 3660, 86399, 86400, 90000, 12 * 86400 + 3 * 3600 + 5].map(lagText),
    ['0 s', '42 s', '1 min', '1 min', '59 min', '1 h', '1 h', '1 h 1 min', '23 h 59 min', '1 d', '1 d 1 h', '12 d 3 h']);
  assert.equal(lagText(-5), '0 s');
});

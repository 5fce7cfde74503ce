// One duration reader for every command and the control plane.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { durationSeconds } from './duration.js';

test('a duration is a number and a unit, or a sum of them; anything else is none', () => {
  assert.deepEqual(['10s', '5m', ' 2h ', '7d', '1w', '500ms', '1h30m', '1h 30m', '1.5s'].map(durationSeconds), [10, 300, 7200, 604800, 604800, 0.5, 5400, 5400, 1.5]);
  assert.deepEqual(['', 'often', '10', 's', '10x', '-5s', '1h-30m'].map(durationSeconds), [null, null, null, null, null, null, null]);
});

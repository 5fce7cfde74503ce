// The epoch window that tells Hermes's times from garbage doubles (spec state-db §3, forwarding §6.3 item 21).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EPOCH_MAX, EPOCH_MIN, validEpoch } from './time.js';

test('the window is 2000-01-01 (inclusive) to 2100-01-01 (exclusive), in epoch seconds', () => {
  assert.equal(new Date(EPOCH_MIN * 1000).toISOString(), '2000-01-01T00:00:00.000Z');
  assert.equal(new Date(EPOCH_MAX * 1000).toISOString(), '2100-01-01T00:00:00.000Z');
  assert.equal(validEpoch(EPOCH_MIN), true);
  assert.equal(validEpoch(EPOCH_MIN - 0.001), false);
  assert.equal(validEpoch(EPOCH_MAX - 0.001), true);
  assert.equal(validEpoch(EPOCH_MAX), false);
});

test('a real Hermes time is valid; the salvaged 5e+246, milliseconds, NaN, infinities and non-numbers are not', () => {
  assert.equal(validEpoch(1780272123.456789), true);
  for (const v of [5e246, 1780272123456, Number.NaN, Infinity, -Infinity, 0, '1780272123', null, undefined, 1780272123n]) {
    assert.equal(validEpoch(v), false, String(v));
  }
});

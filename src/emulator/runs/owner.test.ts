import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimOwner, ownerAlive, releaseOwner } from './owner.js';

test('an owner in this process is alive until released; a restart makes a new identity', () => {
  const first = claimOwner();
  assert.equal(ownerAlive(first.pid, first.started), true);
  releaseOwner(first);
  const second = claimOwner();
  assert.notEqual(second.started, first.started);
  assert.equal(ownerAlive(first.pid, first.started), false);
  assert.equal(ownerAlive(second.pid, second.started), true);
  releaseOwner(second);
});

test('pid 0 is dead; another live process is alive; a missing process is dead', () => {
  assert.equal(ownerAlive(0, 0), false);
  assert.equal(ownerAlive(1, 0), true);
  assert.equal(ownerAlive(2 ** 22 + 12345, 0), false);
});

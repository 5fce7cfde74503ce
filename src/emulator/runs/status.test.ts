import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dumps, PyFloat } from '../../shared/python/index.js';
import { nextStatus } from './lifecycle.js';
import { applyUpdate, newStatus } from './status.js';

test('a new status has Hermes key order, updated_at before created_at', () => {
  assert.equal(
    dumps(newStatus('run_x', 1.5, 'run_x', 'hermes-agent')),
    '{"object": "hermes.run", "run_id": "run_x", "status": "queued", "updated_at": 1.5, "created_at": 1.5, "session_id": "run_x", "model": "hermes-agent"}',
  );
});

test('updates overwrite in place, append new keys in order, and drop approval unless parked', () => {
  const s = newStatus('run_x', 1, 'run_x', 'm');
  applyUpdate(s, 'waiting_for_approval', 2, [['last_event', 'approval.request'], ['approval', new Map([['command', 'ls']])]]);
  assert.deepEqual([...s.keys()].slice(-2), ['last_event', 'approval']);
  applyUpdate(s, 'running', 3, [['last_event', 'approval.responded']]);
  assert.equal(s.has('approval'), false);
  assert.deepEqual(s.get('updated_at'), new PyFloat(3));
});

test('persistence follows Hermes: status changes, terminal statuses and the result fields', () => {
  const s = newStatus('run_x', 1, 'run_x', 'm');
  assert.equal(applyUpdate(s, 'running', 2), true, 'status change');
  assert.equal(applyUpdate(s, 'running', 3, [['last_event', 'tool.started']]), false, 'pure progress');
  assert.equal(applyUpdate(s, 'running', 4, [['error', 'x']]), true, 'error field');
  assert.equal(applyUpdate(s, 'completed', 5), true);
  assert.equal(applyUpdate(s, 'completed', 6), true, 'terminal again');
});

test('the interruption rewrite is a plain update: a stale approval survives', () => {
  const s = newStatus('run_x', 1, 'run_x', 'm');
  applyUpdate(s, 'waiting_for_approval', 2, [['approval', new Map()]]);
  assert.equal(applyUpdate(s, 'interrupted', 3, [['error', 'gone']], true), true);
  assert.equal(s.has('approval'), true);
});

test('the transition table carries Hermes quirks as rows', () => {
  assert.equal(nextStatus('stopping', 'approvalResponded'), 'running', 'approval resolved while stopping flips back to running');
  assert.equal(nextStatus('stopping', 'complete'), 'completed', 'completion can win against a stop');
  assert.equal(nextStatus('waiting_for_approval', 'progress'), 'waiting_for_approval', 'progress keeps the status');
  // The steer handler's gate is `running`, but the run may change while its body arrives (decision 0177).
  assert.equal(nextStatus('waiting_for_approval', 'steered'), 'running', 'a steer read after an approval parked the run');
  assert.equal(nextStatus('completed', 'steered'), 'running', 'a steer read after the run ended: its one way back');
  assert.equal(nextStatus('completed', 'stop'), null, 'terminal statuses are otherwise never rewritten');
  assert.equal(nextStatus('stopping', 'start'), 'running', 'a stop while queued: the task still sets running');
});

// Lineage kinds of a child session (spec state-db §8, forwarding §6.4 item 26).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineageKind } from './lineage.js';

const child = (fields: Record<string, unknown>) => ({ id: 'c', source: 'cli', parent_session_id: 'p', model_config: null, ...fields });

test('a root session has no lineage kind', () => {
  assert.equal(lineageKind({ id: 'r', source: 'cli', parent_session_id: null }, undefined), null);
  assert.equal(lineageKind({ id: 'r', source: 'cli', parent_session_id: '' }, undefined), null);
});

test('markers in model_config decide first: delegate, branch, reset', () => {
  const parent = { id: 'p', end_reason: 'compression' };
  assert.equal(lineageKind(child({ model_config: '{"_delegate_from": "p", "goal": "x"}' }), parent), 'delegate');
  assert.equal(lineageKind(child({ model_config: '{"_branched_from": "p"}' }), parent), 'branch');
  assert.equal(lineageKind(child({ model_config: '{"_reset_from": "p"}' }), parent), 'reset');
});

test('a subagent source is a delegate even without the marker (stores before v16)', () => {
  assert.equal(lineageKind(child({ source: 'subagent' }), { id: 'p', end_reason: null }), 'delegate');
});

test('without a marker the parent end reason decides: compression continuation or branch', () => {
  assert.equal(lineageKind(child({}), { id: 'p', end_reason: 'compression' }), 'compression');
  assert.equal(lineageKind(child({}), { id: 'p', end_reason: 'branched' }), 'branch');
});

test('a parent with no marker and another end reason (or a missing parent row) is a plain child', () => {
  assert.equal(lineageKind(child({}), { id: 'p', end_reason: 'user_exit' }), 'child');
  assert.equal(lineageKind(child({}), undefined), 'child');
  assert.equal(lineageKind(child({ model_config: 'not json' }), undefined), 'child');
  assert.equal(lineageKind(child({ model_config: '["_delegate_from"]' }), undefined), 'child');
});

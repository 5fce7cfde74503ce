import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute } from './routes.js';

test('routes match by segment; run ids are percent-decoded', () => {
  const m = matchRoute('GET', '/v1/runs/run%20x');
  assert.ok(m.kind === 'route');
  assert.equal(m.params.run_id, 'run x');
});

test('a known path with another method lists the allowed methods; HEAD is not implied', () => {
  assert.deepEqual(matchRoute('GET', '/v1/runs'), { kind: 'method-not-allowed', allowed: ['POST'] });
  assert.deepEqual(matchRoute('HEAD', '/v1/runs/x'), { kind: 'method-not-allowed', allowed: ['GET'] });
});

test('an empty id or a trailing slash does not match', () => {
  assert.equal(matchRoute('GET', '/v1/runs/').kind, 'not-found');
  assert.equal(matchRoute('GET', '/v1/runs/x/').kind, 'not-found');
  assert.equal(matchRoute('GET', '/v1/runs/a%7Bb').kind, 'not-found');
});

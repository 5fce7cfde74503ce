import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute, ROUTES } from './routes.js';

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

test('the routes Hermes serves and the emulator does not: the key where Hermes checks it first, draining where it admits a turn', () => {
  const unsupported = ROUTES.filter((r) => r.operation === 'unsupported').map((r) => `${r.method} ${r.path} ${r.auth}${r.admits ? ' admits' : ''}`);
  assert.deepEqual(unsupported, [
    'GET /health/detailed key',
    'GET /v1/models key',
    'GET /api/model/options key',
    'POST /v1/chat/completions key admits',
    'POST /v1/responses key admits',
    'GET /v1/skills key',
    'GET /v1/toolsets key',
    'POST /api/sessions/{session_id}/fork key',
    'POST /api/sessions/{session_id}/chat/stream key admits',
    'POST /api/sessions/{session_id}/model key',
    // The browser-control flag comes first in Hermes (off at the pin's defaults: 404), so no key is asked.
    'POST /v1/browser-control/register none',
    'GET /v1/browser-control/ws none',
    'POST /v1/artifacts/upload none',
    'GET /v1/artifacts/download/{artifact_id} none',
  ]);
  const match = matchRoute('GET', '/v1/models');
  assert.ok(match.kind === 'route' && match.route.operation === 'unsupported' && match.route.auth === 'key');
});

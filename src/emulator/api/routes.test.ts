import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeSegment, matchRoute, ROUTES } from './routes.js';

test('routes match by segment; run ids are percent-decoded', () => {
  const m = matchRoute('GET', '/v1/runs/run%20x');
  assert.ok(m.kind === 'route');
  assert.equal(m.params.run_id, 'run x');
});

test("path segments decode as yarl's path_safe and aiohttp's _unquote_path_safe: escape by escape", () => {
  const cases: Array<[string, string]> = [
    ['run%20x', 'run x'], ['a%2Fb', 'a/b'], ['%2f', '/'], ['%E2%82%AC', '\u20ac'], ['%F0%9F%98%80', '\u{1f600}'], ['%2B', '+'],
    // What does not decode stays as written, and the escapes around it still decode.
    ['%41%zz', 'A%zz'], ['%41%ff', 'A%ff'], ['%C3%25', '%C3%'], ['%E2%82A', '%E2%82A'], ['%ED%A0%80', '%ED%A0%80'],
    ['%ff%2F', '%ff/'], ['%%2F', '%/'], ['%2%25', '%2%'], ['abc%', 'abc%'],
    // %25 and %2F are decoded once, whatever follows.
    ['%252F', '%2F'], ['%2525', '%25'],
  ];
  for (const [raw, decoded] of cases) assert.equal(decodeSegment(raw), decoded, raw);
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

test('the routes Hermes serves and the emulator does not: the key where Hermes checks it first, then the rest of its guard', () => {
  const unsupported = ROUTES.filter((r) => r.operation === 'unsupported').map((r) => `${r.method} ${r.path} ${r.auth} ${r.guard}`);
  assert.deepEqual(unsupported, [
    'GET /health/detailed key key',
    'GET /v1/models key key',
    'GET /api/model/options key key',
    'POST /v1/chat/completions key admitted',
    'POST /v1/responses key admitted',
    'GET /v1/skills key key',
    'GET /v1/toolsets key key',
    // The browser-control flag comes first in Hermes (off at the pin's defaults: 404), so no key is asked; register
    // and upload return a JSON 404, ws and download raise aiohttp's.
    'POST /v1/browser-control/register none feature',
    'GET /v1/browser-control/ws none feature-page',
    'POST /v1/artifacts/upload none feature',
    'GET /v1/artifacts/download/{artifact_id} none feature-page',
    // Registered by Hermes, not listed by /v1/capabilities (decision 0049, addendum).
    'GET /v1/responses/{response_id} key key',
    'DELETE /v1/responses/{response_id} key key',
    'POST /api/platforms/{platform}/events none platform',
    'GET /api/jobs key key',
    'POST /api/jobs key key',
    'GET /api/jobs/{job_id} key key',
    'PATCH /api/jobs/{job_id} key key',
    'DELETE /api/jobs/{job_id} key key',
    'POST /api/jobs/{job_id}/pause key key',
    'POST /api/jobs/{job_id}/resume key key',
    'POST /api/jobs/{job_id}/run key draining',
    'POST /v1/room-members/invitations key key',
    'GET /v1/room-members/capabilities none room',
    'POST /v1/room-members/grants/refresh none room-refresh',
    'POST /v1/room-members/grants/revoke none room-revoke',
    'POST /api/cron/fire none fire-token',
  ]);
  const match = matchRoute('GET', '/v1/models');
  assert.ok(match.kind === 'route' && match.route.operation === 'unsupported' && match.route.auth === 'key');
});

test('the unlisted routes keep aiohttp\'s method handling: a known path with another method is a 405 naming its methods', () => {
  assert.deepEqual(matchRoute('POST', '/v1/responses/resp_1'), { kind: 'method-not-allowed', allowed: ['GET', 'DELETE'] });
  assert.deepEqual(matchRoute('PUT', '/api/jobs'), { kind: 'method-not-allowed', allowed: ['GET', 'POST'] });
  assert.deepEqual(matchRoute('POST', '/api/jobs/abc'), { kind: 'method-not-allowed', allowed: ['GET', 'PATCH', 'DELETE'] });
  assert.deepEqual(matchRoute('GET', '/api/cron/fire'), { kind: 'method-not-allowed', allowed: ['POST'] });
  assert.deepEqual(matchRoute('GET', '/v1/room-members/grants/revoke'), { kind: 'method-not-allowed', allowed: ['POST'] });
  assert.equal(matchRoute('POST', '/v1/room-members/grants/revoke-exact').kind, 'not-found', 'a later Hermes\'s route, not the pin\'s');
  assert.equal(matchRoute('GET', '/v1/responses').kind, 'method-not-allowed');
});

test('the remembered last answer is the answer for that method and path only, and cannot be changed', () => {
  const a = matchRoute('GET', '/v1/runs/run_a');
  assert.equal(matchRoute('GET', '/v1/runs/run_a'), a, 'asked again: the same answer');
  assert.ok(a.kind === 'route' && a.params.run_id === 'run_a');
  assert.throws(() => { (a as { params: Record<string, string> }).params.run_id = 'x'; }, TypeError);
  const b = matchRoute('GET', '/v1/runs/run_b');
  assert.ok(b.kind === 'route' && b.params.run_id === 'run_b', 'another path is matched afresh');
  assert.deepEqual(matchRoute('PUT', '/v1/runs/run_b'), { kind: 'method-not-allowed', allowed: ['GET'] }, 'another method too');
  const again = matchRoute('GET', '/v1/runs/run_a');
  assert.ok(again.kind === 'route' && again.params.run_id === 'run_a', 'and the first path again after them');
});

// The Hermes routes the emulator does not reproduce, over both transports: each is guarded as Hermes's handler begins
// (decision 0049). With a key configured, a missing or wrong key is Hermes's own 401 (the bytes and headers of the
// /v1 routes' 401), the agent turns then refuse while draining, and only a request Hermes would serve gets the 501;
// the middlewares (profile, CORS, body limit) and the router still answer first; with no key configured every request
// goes through; the browser-control routes, whose feature flag Hermes checks first, ask no key.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, K, std, type Harness, type Reply } from '../../../test/support/harness.js';
import { UNEMULATED_ROUTES } from './endpoints.js';

const AUTH_401 = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
const ALICE_KEY = 'alice-key-0123456789';
const ALICE = { Authorization: `Bearer ${ALICE_KEY}` };

/** Hermes's handlers that call `_check_auth` first (api_server.py at the pin), by capabilities order. */
const KEY_FIRST: Array<[string, string]> = [
  ['GET', '/health/detailed'],
  ['GET', '/v1/models'],
  ['GET', '/api/model/options'],
  ['GET', '/v1/skills'],
  ['GET', '/v1/toolsets'],
  ['POST', '/api/sessions/s1/fork'],
  ['POST', '/api/sessions/s1/model'],
];
/** `@_admit_api_agent_request`: the same key check, then the draining 503. */
const ADMITTED: Array<[string, string]> = [
  ['POST', '/v1/chat/completions'],
  ['POST', '/v1/responses'],
  ['POST', '/api/sessions/s1/chat/stream'],
];
/** The browser-control flag (off) comes before the key: no 401 to give. */
const FLAG_FIRST: Array<[string, string]> = [
  ['POST', '/v1/browser-control/register'],
  ['GET', '/v1/browser-control/ws'],
  ['POST', '/v1/artifacts/upload'],
  ['GET', '/v1/artifacts/download/a1'],
];
const GUARDED = [...KEY_FIRST, ...ADMITTED];
const ALL = [...GUARDED, ...FLAG_FIRST];

const bodyFor = (method: string): string | undefined => (method === 'POST' ? '{}' : undefined);

function notEmulated(reply: Reply, what: string): void {
  assert.equal(reply.status, 501, `${what}: ${reply.text}`);
  assert.equal(reply.json().error.code, 'HERMETIC_UNSUPPORTED_ROUTE', what);
}

/** Status, body and every header but Date: two answers a client cannot tell apart. */
function sameAnswer(a: Reply, b: Reply, what: string): void {
  const headers = (r: Reply) => Object.entries(r.headers).filter(([k]) => k !== 'date').sort(([x], [y]) => x.localeCompare(y));
  assert.deepEqual([a.status, a.text, headers(a)], [b.status, b.text, headers(b)], what);
}

async function send(h: Harness, method: string, path: string, options: Parameters<Harness['request']>[2] = {}): Promise<Reply> {
  return h.request(method, path, { body: bodyFor(method), ...options });
}

describeTransports('routes Hermes serves and the emulator does not', (open) => {
  it('the table: every route is guarded as Hermes\'s handler begins', () => {
    const guards = new Map(UNEMULATED_ROUTES.map(([method, path, guard]) => [`${method} ${path}`, guard]));
    const sample = (path: string) => path.replace('/s1/', '/{session_id}/').replace('/a1', '/{artifact_id}');
    assert.deepEqual(
      [...guards.keys()].sort(),
      ALL.map(([m, p]) => `${m} ${sample(p)}`).sort(),
      'every endpoint /v1/capabilities lists and the emulator does not serve',
    );
    for (const [m, p] of KEY_FIRST) assert.equal(guards.get(`${m} ${sample(p)}`), 'key', p);
    for (const [m, p] of ADMITTED) assert.equal(guards.get(`${m} ${sample(p)}`), 'admitted', p);
    for (const [m, p] of FLAG_FIRST) assert.equal(guards.get(`${m} ${sample(p)}`), 'feature', p);
  });

  it('a key configured: no key, a wrong key or a room grant is Hermes\'s 401, the same answer as /v1/capabilities\' own', async () => {
    const h = await open();
    const reference = await h.request('GET', '/v1/capabilities', { auth: false });
    assert.equal(reference.status, 401);
    assert.equal(reference.text, AUTH_401);
    for (const [method, path] of GUARDED) {
      sameAnswer(await send(h, method, path, { auth: false }), reference, `${method} ${path} without a key`);
      sameAnswer(await send(h, method, path, { headers: { Authorization: 'Bearer wrong' } }), reference, `${method} ${path} with a wrong key`);
      sameAnswer(await send(h, method, path, { headers: { Authorization: `bearer ${K}` } }), reference, `${method} ${path}: the scheme is case-sensitive`);
      // `_check_auth` knows no room grants: the API-key 401, not invalid_room_grant.
      sameAnswer(await send(h, method, path, { headers: { Authorization: 'HermesRoom grant.token' } }), reference, `${method} ${path} with a grant`);
      // The key comes before the body is read: a body that is not JSON changes nothing.
      if (method === 'POST') sameAnswer(await send(h, method, path, { auth: false, body: 'not json' }), reference, `${method} ${path}, body not JSON`);
      // The right key: Hermes would serve it; the emulator says it does not.
      notEmulated(await send(h, method, path), `${method} ${path} with the key`);
    }
  });

  it('profiles: the profile\'s own key opens its routes, the listener\'s does not; /p/default is the listener\'s', async () => {
    const h = await open({ profiles: { alice: { apiKey: ALICE_KEY }, bob: { apiKey: null } } });
    for (const [method, path] of GUARDED) {
      const what = `${method} ${path}`;
      assert.equal((await send(h, method, `/p/alice${path}`)).text, AUTH_401, `${what}: the listener's key under /p/alice`);
      notEmulated(await send(h, method, `/p/alice${path}`, { headers: ALICE }), `${what} with alice's key`);
      notEmulated(await send(h, method, `/p/default${path}`), `${what} under /p/default`);
      // A named profile without a key of its own fails closed, as Hermes's _check_auth does.
      assert.equal((await send(h, method, `/p/bob${path}`, { auth: false })).text, AUTH_401, `${what} under keyless /p/bob`);
    }
  });

  it('a namespace not created yet refuses at the front door with the same bytes, and is not created', async () => {
    const h = await open();
    for (const [method, path] of GUARDED) {
      const reply = await send(h, method, `/ns/unseen${path}`, { auth: false });
      assert.equal(reply.status, 401, `${method} ${path}`);
      assert.equal(reply.text, AUTH_401, `${method} ${path}`);
    }
    assert.ok(!(await h.admin.namespaces()).namespaces.some((n) => n.name === 'unseen'), 'a refused request creates no namespace');
    notEmulated(await send(h, 'GET', '/ns/seen/v1/models'), 'the key opens another namespace too');
  });

  it('what comes before the key check still does: the profile prefix, CORS, the body limit, the router', async () => {
    const h = await open({ corsOrigins: ['http://app.test'] });
    for (const [method, path] of GUARDED) {
      const what = `${method} ${path}`;
      const profile = await send(h, method, `/p/nobody${path}`, { auth: false });
      assert.deepEqual([profile.status, profile.text], [404, '{"error": "Unknown or unconfigured profile"}'], what);
      const origin = await send(h, method, path, { auth: false, headers: { Origin: 'http://evil.test' } });
      assert.deepEqual([origin.status, origin.text], [403, ''], what);
      const preflight = await h.request('OPTIONS', path, { auth: false, headers: { Origin: 'http://app.test' } });
      assert.deepEqual([preflight.status, preflight.headers['access-control-allow-origin']], [200, 'http://app.test'], what);
      // An allowed Origin: the 401 carries the CORS headers, as any answer of the middleware chain does.
      const cors = await send(h, method, path, { auth: false, headers: { Origin: 'http://app.test' } });
      assert.deepEqual([cors.status, cors.text, cors.headers['access-control-allow-origin'], cors.headers.vary], [401, AUTH_401, 'http://app.test', 'Origin'], what);
      const other = method === 'GET' ? 'POST' : 'GET';
      const wrongMethod = await h.request(other, path, { auth: false });
      assert.deepEqual([wrongMethod.status, wrongMethod.text, wrongMethod.headers.allow], [405, '405: Method Not Allowed', method], what);
      if (method === 'POST') {
        const big = await h.request(method, path, { auth: false, headers: { 'Content-Length': '10000001' } });
        assert.deepEqual([big.status, big.text], [413, std('Request body too large.', 'body_too_large')], what);
      }
    }
  });

  it('no key configured: every request goes through to the 501, whatever it presents', async () => {
    const h = await open({ apiKey: null });
    for (const [method, path] of ALL) {
      notEmulated(await send(h, method, path, { auth: false }), `${method} ${path} without a key`);
      notEmulated(await send(h, method, path, { headers: { Authorization: 'Bearer anything' } }), `${method} ${path} with a key`);
      notEmulated(await send(h, method, path, { headers: { Authorization: 'HermesRoom grant.token' } }), `${method} ${path} with a grant`);
    }
  });

  it('the agent turns refuse while the gateway drains, after the key; the other routes do not drain', async () => {
    const h = await open();
    await h.admin.gateway({ draining: true });
    for (const [method, path] of ADMITTED) {
      assert.equal((await send(h, method, path, { auth: false })).text, AUTH_401, `${path}: the key first`);
      const drained = await send(h, method, path);
      assert.deepEqual([drained.status, drained.text, drained.headers['retry-after']], [503, std('Gateway is draining existing work; retry shortly.', 'gateway_draining'), '1'], path);
      assert.equal(drained.headers['content-type'], 'application/json; charset=utf-8', path);
      assert.equal(drained.headers['x-content-type-options'], 'nosniff', `${path}: the security headers`);
    }
    for (const [method, path] of [...KEY_FIRST, ...FLAG_FIRST]) notEmulated(await send(h, method, path), `${method} ${path} while draining`);
    await h.admin.gateway({ draining: false });
    for (const [method, path] of ADMITTED) notEmulated(await send(h, method, path), `${path} after draining`);
  });

  it('routes Hermes does not guard stay open: the browser-control routes (flag first), /health and /v1/health', async () => {
    const h = await open();
    for (const [method, path] of FLAG_FIRST) notEmulated(await send(h, method, path, { auth: false }), `${method} ${path}`);
    for (const path of ['/health', '/v1/health']) assert.equal((await h.request('GET', path, { auth: false })).status, 200, path);
    // /health/detailed is not one of them: Hermes asks its key.
    assert.equal((await h.request('GET', '/health/detailed', { auth: false })).text, AUTH_401);
  });

  it('a room grant where Hermes knows none: with no key configured it passes, where grants are taken it is refused', async () => {
    const h = await open({ apiKey: null });
    const grant = { Authorization: 'HermesRoom grant.token' };
    assert.equal((await h.request('GET', '/v1/capabilities', { headers: grant })).status, 200);
    assert.equal((await h.request('GET', '/api/sessions', { headers: grant })).status, 200);
    const runs = await h.request('POST', '/v1/runs', { headers: grant, body: '{"input": "x"}' });
    assert.deepEqual([runs.status, runs.text], [401, std('Room authorization is invalid or expired.', 'invalid_room_grant', 'gateway_auth_error')]);
  });
});

// The Hermes routes the emulator does not reproduce, over both transports: each is guarded as Hermes's handler begins
// (decision 0049 and its addendum). With a key configured, a missing or wrong key is Hermes's own 401 (the bytes and
// headers of the /v1 routes' 401), the agent turns (and the jobs run trigger) then refuse while draining, and only a
// request Hermes would serve gets the 501; the middlewares (profile, CORS, body limit) and the router still answer
// first; with no key configured every key-guarded request goes through; the browser-control and artifact routes,
// whose feature flag Hermes checks first, answer Hermes's 404 to every request (the flag is off at its defaults):
// JSON from register and upload, aiohttp's raised page from ws and download. The routes Hermes registers without
// listing them in /v1/capabilities are here too, and those of them with credentials of their own (room grants, the
// cron fire token, platform events) get Hermes's refusal whatever API key they present, as Hermes gives it without a
// room authority, Chronos settings or a platform adapter.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, K, std, type Harness, type Reply } from '../../../test/support/harness.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { ENDPOINTS, UNEMULATED_ROUTES, UNLISTED_ROUTES } from './endpoints.js';
import { matchRoute } from './routes.js';

const AUTH_401 = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
const ALICE_KEY = 'alice-key-0123456789';
const ALICE = { Authorization: `Bearer ${ALICE_KEY}` };

/** [method, a request path, the route's template]. */
type Case = readonly [string, string, string];

/** Hermes's handlers that call `_check_auth` first (api_server.py at the pin), listed ones by capabilities order. */
const KEY_FIRST: Case[] = [
  ['GET', '/health/detailed', '/health/detailed'],
  ['GET', '/v1/models', '/v1/models'],
  ['GET', '/api/model/options', '/api/model/options'],
  ['GET', '/v1/skills', '/v1/skills'],
  ['GET', '/v1/toolsets', '/v1/toolsets'],
  // Registered by Hermes, not listed by /v1/capabilities.
  ['GET', '/v1/responses/resp_1', '/v1/responses/{response_id}'],
  ['DELETE', '/v1/responses/resp_1', '/v1/responses/{response_id}'],
  ['GET', '/api/jobs', '/api/jobs'],
  ['POST', '/api/jobs', '/api/jobs'],
  ['GET', '/api/jobs/0123456789ab', '/api/jobs/{job_id}'],
  ['PATCH', '/api/jobs/0123456789ab', '/api/jobs/{job_id}'],
  ['DELETE', '/api/jobs/0123456789ab', '/api/jobs/{job_id}'],
  ['POST', '/api/jobs/0123456789ab/pause', '/api/jobs/{job_id}/pause'],
  ['POST', '/api/jobs/0123456789ab/resume', '/api/jobs/{job_id}/resume'],
  ['POST', '/v1/room-members/invitations', '/v1/room-members/invitations'],
];
/** `@_admit_api_agent_request`: the same key check, then the draining 503. */
const ADMITTED: Case[] = [
  ['POST', '/v1/chat/completions', '/v1/chat/completions'],
  ['POST', '/v1/responses', '/v1/responses'],
];
/** `_check_auth`, then `_draining_response()`, in the handler itself: the same answers. */
const DRAINING: Case[] = [['POST', '/api/jobs/0123456789ab/run', '/api/jobs/{job_id}/run']];
/** The browser-control flag (off) comes before the key, and the handler returns its JSON 404. */
const FLAG_JSON: Case[] = [
  ['POST', '/v1/browser-control/register', '/v1/browser-control/register'],
  ['POST', '/v1/artifacts/upload', '/v1/artifacts/upload'],
];
/** The same flag, but the handler raises `web.HTTPNotFound()`: aiohttp's page. */
const FLAG_PAGE: Case[] = [
  ['GET', '/v1/browser-control/ws', '/v1/browser-control/ws'],
  ['GET', '/v1/artifacts/download/a1', '/v1/artifacts/download/{artifact_id}'],
];
const FLAG_FIRST = [...FLAG_JSON, ...FLAG_PAGE];
/** A HermesRoom grant checked first (`_room_grant_claims`), never the API key. */
const ROOM: Case[] = [['GET', '/v1/room-members/capabilities', '/v1/room-members/capabilities']];
/** `_read_json_body`, the route's field rule, then the grant. */
const ROOM_BODY: Case[] = [
  ['POST', '/v1/room-members/grants/refresh', '/v1/room-members/grants/refresh'],
  ['POST', '/v1/room-members/grants/revoke', '/v1/room-members/grants/revoke'],
];
/** The Chronos fire token, never the API key. */
const FIRE: Case[] = [['POST', '/api/cron/fire', '/api/cron/fire']];
/** The platform name, then the platform's adapter, never the API key. */
const PLATFORM: Case[] = [['POST', '/api/platforms/telegram/events', '/api/platforms/{platform}/events']];

const GUARDED = [...KEY_FIRST, ...ADMITTED, ...DRAINING];
/** The routes whose own credentials the emulator cannot honour: Hermes's refusal, never the 501. */
const OWN_CREDENTIALS = [...ROOM, ...ROOM_BODY, ...FIRE, ...PLATFORM];
const ALL = [...GUARDED, ...FLAG_FIRST, ...OWN_CREDENTIALS];

/** `_openai_error("Browser control is not enabled on this server.", code="browser_control_disabled")`, status 404. */
const FLAG_404 = '{"error": {"message": "Browser control is not enabled on this server.", "type": "invalid_request_error", "param": null, "code": "browser_control_disabled"}}';
const PAGE_404 = '404: Not Found';

const ROOM_401 = std('Room authorization is invalid or expired.', 'invalid_room_grant', 'gateway_auth_error');
const FIRE_401 = '{"error": "invalid fire token"}';
const PLATFORM_503 = std('Platform adapter is not connected', 'platform_unavailable');
/** Hermes's first answer on each own-credentials route, for a request with an empty JSON object body. */
const REFUSAL: Record<string, [number, string]> = {
  '/v1/room-members/capabilities': [401, ROOM_401],
  '/v1/room-members/grants/refresh': [401, ROOM_401],
  '/v1/room-members/grants/revoke': [401, ROOM_401],
  '/api/cron/fire': [401, FIRE_401],
  '/api/platforms/telegram/events': [503, PLATFORM_503],
};

const bodyFor = (method: string): string | undefined => (method === 'POST' || method === 'PATCH' ? '{}' : undefined);

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

async function refusalOf(h: Harness, method: string, path: string, options: Parameters<Harness['request']>[2] = {}): Promise<[number, string]> {
  const reply = await send(h, method, path, options);
  return [reply.status, reply.text];
}

/** A transport-neutral request, to read an answer's headers in wire order. */
function plain(method: string, path: string, headers: Record<string, string> = {}, body = ''): HttpRequest {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  let read = false;
  return {
    method,
    path,
    query: '',
    header: (name) => lower.get(name),
    readBody: async () => {
      const bytes = read ? new Uint8Array(0) : new TextEncoder().encode(body);
      read = true;
      return bytes;
    },
  };
}

const bodyText = (r: HttpResponse): string => (r.body === null ? '' : typeof r.body === 'string' ? r.body : new TextDecoder().decode(r.body));

describeTransports('routes Hermes serves and the emulator does not', (open) => {
  it('the table: every route is guarded as Hermes\'s handler begins', () => {
    const guards = new Map(UNEMULATED_ROUTES.map(([method, path, guard]) => [`${method} ${path}`, guard]));
    assert.deepEqual([...guards.keys()].sort(), ALL.map(([m, , t]) => `${m} ${t}`).sort(), 'every route Hermes registers and the emulator does not serve');
    const expect = (cases: Case[], guard: string) => {
      for (const [m, p, t] of cases) {
        assert.equal(guards.get(`${m} ${t}`), guard, `${m} ${t}`);
        const match = matchRoute(m, p);
        assert.ok(match.kind === 'route' && match.route.path === t, `${m} ${p} routes to ${t}`);
      }
    };
    expect(KEY_FIRST, 'key');
    expect(ADMITTED, 'admitted');
    expect(DRAINING, 'draining');
    expect(FLAG_JSON, 'feature');
    expect(FLAG_PAGE, 'feature-page');
    expect(ROOM, 'room');
    expect([ROOM_BODY[0]!], 'room-refresh');
    expect([ROOM_BODY[1]!], 'room-revoke');
    expect(FIRE, 'fire-token');
    expect(PLATFORM, 'platform');
    // Routes Hermes does not list stay out of the capabilities document (meta.ts reads ENDPOINTS only).
    const listed = new Set(ENDPOINTS.map(([, m, p]) => `${m} ${p}`));
    for (const [m, p] of UNLISTED_ROUTES) assert.ok(!listed.has(`${m} ${p}`), `${m} ${p} is not in /v1/capabilities`);
  });

  it('/v1/capabilities lists only what Hermes lists: none of the unlisted routes', async () => {
    const h = await open();
    const reply = await h.request('GET', '/v1/capabilities');
    assert.equal(reply.status, 200);
    const endpoints = reply.json().endpoints as Record<string, { method: string; path: string }>;
    assert.deepEqual(Object.entries(endpoints).map(([name, e]) => [name, e.method, e.path]), ENDPOINTS);
    for (const [, path] of UNLISTED_ROUTES) assert.ok(!reply.text.includes(`"${path}"`), path);
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
      if (bodyFor(method)) sameAnswer(await send(h, method, path, { auth: false, body: 'not json' }), reference, `${method} ${path}, body not JSON`);
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
      // aiohttp's router: a method the path does not have is its 405, naming the path's methods.
      const wrongMethod = await h.request('PUT', path, { auth: false });
      const allowed = matchRoute('PUT', path);
      assert.ok(allowed.kind === 'method-not-allowed', what);
      assert.deepEqual([wrongMethod.status, wrongMethod.text, wrongMethod.headers.allow], [405, '405: Method Not Allowed', [...allowed.allowed].sort().join(',')], what);
      if (bodyFor(method)) {
        const big = await h.request(method, path, { auth: false, headers: { 'Content-Length': '10000001' } });
        assert.deepEqual([big.status, big.text], [413, std('Request body too large.', 'body_too_large')], what);
      }
    }
  });

  it('the 501 names what the emulator does serve: the runs, every session route of the table, health and capabilities', async () => {
    const h = await open();
    const reply = await send(h, 'GET', '/v1/models');
    notEmulated(reply, 'GET /v1/models');
    assert.equal(
      reply.json().error.message,
      'Hermes serves GET /v1/models, but Hermetic emulates only /v1/runs, /api/sessions (list, create, get, update, delete, messages, fork, chat, chat stream, model lock), /health, /v1/health and /v1/capabilities.',
    );
  });

  it('no key configured: every key-guarded request goes through to the 501, whatever it presents', async () => {
    const h = await open({ apiKey: null });
    for (const [method, path] of GUARDED) {
      notEmulated(await send(h, method, path, { auth: false }), `${method} ${path} without a key`);
      notEmulated(await send(h, method, path, { headers: { Authorization: 'Bearer anything' } }), `${method} ${path} with a key`);
      notEmulated(await send(h, method, path, { headers: { Authorization: 'HermesRoom grant.token' } }), `${method} ${path} with a grant`);
    }
  });

  it('the agent turns and the jobs run trigger refuse while the gateway drains, after the key; the other routes do not drain', async () => {
    const h = await open();
    await h.admin.gateway({ draining: true });
    for (const [method, path] of [...ADMITTED, ...DRAINING]) {
      assert.equal((await send(h, method, path, { auth: false })).text, AUTH_401, `${path}: the key first`);
      const drained = await send(h, method, path);
      assert.deepEqual([drained.status, drained.text, drained.headers['retry-after']], [503, std('Gateway is draining existing work; retry shortly.', 'gateway_draining'), '1'], path);
      assert.equal(drained.headers['content-type'], 'application/json; charset=utf-8', path);
      assert.equal(drained.headers['x-content-type-options'], 'nosniff', `${path}: the security headers`);
    }
    for (const [method, path] of KEY_FIRST) notEmulated(await send(h, method, path), `${method} ${path} while draining`);
    for (const [method, path] of FLAG_JSON) assert.deepEqual(await refusalOf(h, method, path), [404, FLAG_404], `${path} while draining`);
    for (const [method, path] of FLAG_PAGE) assert.deepEqual(await refusalOf(h, method, path), [404, PAGE_404], `${path} while draining`);
    // The own-credentials refusals come before any draining check Hermes makes (the cron fire's is after its token).
    for (const [method, path] of OWN_CREDENTIALS) assert.deepEqual(await refusalOf(h, method, path), REFUSAL[path], `${path} while draining`);
    await h.admin.gateway({ draining: false });
    for (const [method, path] of [...ADMITTED, ...DRAINING]) notEmulated(await send(h, method, path), `${path} after draining`);
  });

  it('routes Hermes does not guard stay open: /health and /v1/health', async () => {
    const h = await open();
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

  it('the room-member routes that take a grant: Hermes\'s 401 invalid_room_grant for no grant, any grant, the API key, or no key configured', async () => {
    const h = await open();
    // The same answer, headers included, as the grant refusal of /v1/runs.
    const reference = await h.request('POST', '/v1/runs', { headers: { Authorization: 'HermesRoom grant.token' }, body: '{"input": "x"}' });
    assert.deepEqual([reference.status, reference.text], [401, ROOM_401]);
    for (const [method, path] of [...ROOM, ...ROOM_BODY]) {
      for (const headers of [{}, { Authorization: 'HermesRoom grant.token' }, { Authorization: `Bearer ${K}` }, { Authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
        sameAnswer(await send(h, method, path, { auth: false, headers }), reference, `${method} ${path} ${JSON.stringify(headers)}`);
      }
    }
    const keyless = await open({ apiKey: null });
    for (const [method, path] of [...ROOM, ...ROOM_BODY]) assert.deepEqual(await refusalOf(keyless, method, path, { auth: false }), [401, ROOM_401], `${path}, no key configured`);
  });

  it('grant refresh and revoke read the body first: Hermes\'s 400s before the grant is looked at', async () => {
    const h = await open();
    const grant = { Authorization: 'HermesRoom grant.token' };
    for (const [method, path] of ROOM_BODY) {
      assert.deepEqual(await refusalOf(h, method, path, { headers: grant, body: 'not json' }), [400, std('Invalid JSON in request body')], path);
      assert.deepEqual(await refusalOf(h, method, path, { headers: grant, body: '[]' }), [400, std('Request body must be a JSON object')], path);
      assert.deepEqual(await refusalOf(h, method, path, { auth: false, body: '"x"' }), [400, std('Request body must be a JSON object')], `${path}: no grant either`);
    }
    const refresh = ROOM_BODY[0]![1];
    assert.deepEqual(await refusalOf(h, 'POST', refresh, { headers: grant, body: '{"ttl_seconds": 60, "grant": "x"}' }), [400, std('Grant refresh accepts only ttl_seconds.', 'invalid_room_grant_refresh')]);
    assert.deepEqual(await refusalOf(h, 'POST', refresh, { headers: grant, body: '{"ttl_seconds": 60}' }), [401, ROOM_401]);
    const revoke = ROOM_BODY[1]![1];
    assert.deepEqual(await refusalOf(h, 'POST', revoke, { headers: grant, body: '{"ttl_seconds": 60}' }), [400, std('Grant revoke accepts no fields.', 'invalid_room_grant_revoke')]);
    assert.deepEqual(await refusalOf(h, 'POST', revoke, { headers: grant, body: '{}' }), [401, ROOM_401]);
  });

  it('the cron fire: Hermes\'s 401 invalid fire token whatever is presented (no Chronos settings), the API key included', async () => {
    for (const apiKey of [K, null]) {
      const h = await open({ apiKey });
      for (const headers of [{}, { Authorization: `Bearer ${K}` }, { Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig' }, { Authorization: 'HermesRoom grant.token' }] as Array<Record<string, string>>) {
        const reply = await send(h, 'POST', '/api/cron/fire', { auth: false, headers, body: '{"job_id": "0123456789ab"}' });
        assert.deepEqual([reply.status, reply.text], [401, FIRE_401], JSON.stringify(headers));
        assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(reply.headers['x-frame-options'], 'DENY', 'the security headers');
      }
    }
  });

  it('platform events: the name first (400), then no adapter connected (503); the API server itself takes none', async () => {
    const h = await open();
    const unsupported = std('Platform adapter does not support HTTP events', 'platform_http_events_unsupported');
    const cases: Array<[string, number, string]> = [
      ['telegram', 503, PLATFORM_503],
      ['Google-Chat', 503, PLATFORM_503],
      ['%20slack%09', 503, PLATFORM_503],
      ['api_server', 503, unsupported],
      ['API-Server', 503, unsupported],
      ['bad.name', 400, std('Invalid platform name', 'invalid_platform')],
      ['%20', 400, std('Invalid platform name', 'invalid_platform')],
      ['t%C3%A9l%C3%A9gram', 400, std('Invalid platform name', 'invalid_platform')],
    ];
    for (const [platform, status, text] of cases) {
      const path = `/api/platforms/${platform}/events`;
      for (const headers of [{}, { Authorization: `Bearer ${K}` }] as Array<Record<string, string>>) {
        assert.deepEqual(await refusalOf(h, 'POST', path, { auth: false, headers, body: 'not json' }), [status, text], `${platform} ${JSON.stringify(headers)}`);
      }
    }
  });

  it('the routes that refuse every request answer a namespace not created yet with the same bytes, and create nothing', async () => {
    const h = await open();
    const cases: Array<[string, string, string | undefined]> = [
      ['GET', '/v1/room-members/capabilities', undefined],
      ['POST', '/v1/room-members/grants/refresh', '{"ttl_seconds": 60}'],
      ['POST', '/v1/room-members/grants/revoke', 'not json'],
      ['POST', '/api/cron/fire', '{"job_id": "0123456789ab"}'],
      ['POST', '/api/platforms/telegram/events', '{}'],
      ['POST', '/api/platforms/bad.name/events', '{}'],
    ];
    for (const [method, path, body] of cases) {
      const known = await send(h, method, path, { auth: false, ...(body === undefined ? {} : { body }) });
      const fresh = await send(h, method, `/ns/never${path}`, { auth: false, ...(body === undefined ? {} : { body }) });
      sameAnswer(fresh, known, `${method} ${path}`);
    }
    assert.ok(!(await h.admin.namespaces()).namespaces.some((n) => n.name === 'never'), 'a request that can only be refused creates no namespace');
  });

  it('the own-credentials routes still answer after the middlewares: the profile prefix, CORS, the body limit, the router', async () => {
    const h = await open({ corsOrigins: ['http://app.test'], profiles: { alice: { apiKey: ALICE_KEY } } });
    for (const [method, path] of OWN_CREDENTIALS) {
      const what = `${method} ${path}`;
      const profile = await send(h, method, `/p/nobody${path}`, { auth: false });
      assert.deepEqual([profile.status, profile.text], [404, '{"error": "Unknown or unconfigured profile"}'], what);
      assert.deepEqual(await refusalOf(h, method, `/p/alice${path}`, { auth: false }), REFUSAL[path], `${what} under /p/alice`);
      const origin = await send(h, method, path, { auth: false, headers: { Origin: 'http://evil.test' } });
      assert.deepEqual([origin.status, origin.text], [403, ''], what);
      const cors = await send(h, method, path, { auth: false, headers: { Origin: 'http://app.test' } });
      assert.deepEqual([cors.status, cors.text, cors.headers['access-control-allow-origin']], [...REFUSAL[path]!, 'http://app.test'], what);
      const wrongMethod = await h.request(method === 'GET' ? 'POST' : 'GET', path, { auth: false });
      assert.deepEqual([wrongMethod.status, wrongMethod.headers.allow], [405, method], what);
      if (method === 'POST') {
        const big = await h.request(method, path, { auth: false, headers: { 'Content-Length': '10000001' } });
        assert.deepEqual([big.status, big.text], [413, std('Request body too large.', 'body_too_large')], what);
      }
    }
  });

  it('the browser-control and artifact routes: Hermes\'s 404 to every request, before any key (the flag is off at Hermes\'s defaults)', async () => {
    for (const apiKey of [K, null]) {
      const h = await open({ apiKey });
      assert.equal((await h.request('GET', '/v1/capabilities')).json().features.browser_extension_control.enabled, false, 'as /v1/capabilities says');
      for (const headers of [{}, { Authorization: `Bearer ${K}` }, { Authorization: 'Bearer wrong' }, { Authorization: 'HermesRoom grant.token' }] as Array<Record<string, string>>) {
        const what = `key ${apiKey === null ? 'none' : 'configured'}, ${JSON.stringify(headers)}`;
        // Nothing past the flag is looked at: not the key, not the body, not the artifact's headers.
        for (const [method, path] of FLAG_JSON) {
          for (const body of ['{}', 'not json', '\u0089PNG']) {
            const reply = await send(h, method, path, { auth: false, headers: { ...headers, 'Content-Type': 'image/png', 'X-Artifact-Filename': 'a.png' }, body });
            assert.deepEqual([reply.status, reply.text, reply.headers['content-type']], [404, FLAG_404, 'application/json; charset=utf-8'], `${path} ${what}`);
            assert.equal(reply.headers['x-content-type-options'], 'nosniff', `${path}: returned by the handler, so the security headers are added`);
          }
        }
        // The ticket (in the query or a WebSocket subprotocol) comes after the flag too: no 401.
        for (const [method, path] of FLAG_PAGE) {
          for (const [target, extra] of [[path, {}], [`${path}?ticket=abc`, { 'Sec-WebSocket-Protocol': 'hermes-browser-control, ticket.abc' }]] as Array<[string, Record<string, string>]>) {
            const reply = await send(h, method, target, { auth: false, headers: { ...headers, ...extra } });
            assert.deepEqual([reply.status, reply.text, reply.headers['content-type']], [404, PAGE_404, 'text/plain; charset=utf-8'], `${target} ${what}`);
            assert.equal(reply.headers['x-content-type-options'], undefined, `${target}: raised, so no middleware adds a header`);
          }
        }
      }
    }
  });

  it('the JSON 404 is Hermes\'s web.json_response refusal and the page aiohttp\'s raised 404: the headers, in order, of the emulator\'s other answers of each kind', async () => {
    const h = await open({ corsOrigins: ['http://app.test'] });
    for (const origin of [{}, { Origin: 'http://app.test' }] as Array<Record<string, string>>) {
      // Another handler's `web.json_response(_openai_error(…), status=…)` refusal, checking no key: the platform events'.
      const reference = await h.emulator.handle(plain('POST', '/api/platforms/telegram/events', origin));
      for (const [method, path] of FLAG_JSON) {
        const answer = await h.emulator.handle(plain(method, path, origin, '{}'));
        assert.equal(answer.status, 404);
        assert.equal(bodyText(answer), FLAG_404);
        assert.deepEqual(answer.headers.map(([k, v]) => [k, k === 'Content-Length' ? '*' : v]), reference.headers.map(([k, v]) => [k, k === 'Content-Length' ? '*' : v]), `${path} ${JSON.stringify(origin)}`);
      }
      // An unknown path: the router's raised 404, which no middleware touches (no CORS headers either).
      const unknown = await h.emulator.handle(plain('GET', '/v1/browser-control/nothing', origin));
      for (const [method, path] of FLAG_PAGE) {
        const answer = await h.emulator.handle(plain(method, path, origin));
        assert.deepEqual([answer.status, bodyText(answer), answer.headers], [unknown.status, bodyText(unknown), unknown.headers], `${path} ${JSON.stringify(origin)}`);
        assert.equal(bodyText(answer), PAGE_404);
      }
    }
    // Over the transport too: a client cannot tell the page from an unknown path's.
    for (const [method, path] of FLAG_PAGE) sameAnswer(await send(h, method, path), await send(h, method, '/v1/browser-control/nothing'), path);
  });

  it('the browser-control and artifact routes still answer after the middlewares: the profile prefix, CORS, the body limit, the router', async () => {
    const h = await open({ corsOrigins: ['http://app.test'], profiles: { alice: { apiKey: ALICE_KEY } } });
    for (const [method, path] of FLAG_FIRST) {
      const what = `${method} ${path}`;
      const expected: [number, string] = [404, FLAG_JSON.some(([, p]) => p === path) ? FLAG_404 : PAGE_404];
      const profile = await send(h, method, `/p/nobody${path}`, { auth: false });
      assert.deepEqual([profile.status, profile.text], [404, '{"error": "Unknown or unconfigured profile"}'], what);
      // A profile this gateway serves: the same 404, whatever key (the flag is global, and comes first).
      assert.deepEqual(await refusalOf(h, method, `/p/alice${path}`, { auth: false }), expected, `${what} under /p/alice`);
      assert.deepEqual(await refusalOf(h, method, `/p/default${path}`, { headers: ALICE }), expected, `${what} under /p/default`);
      const origin = await send(h, method, path, { auth: false, headers: { Origin: 'http://evil.test' } });
      assert.deepEqual([origin.status, origin.text], [403, ''], what);
      const preflight = await h.request('OPTIONS', path, { auth: false, headers: { Origin: 'http://app.test' } });
      assert.deepEqual([preflight.status, preflight.headers['access-control-allow-origin']], [200, 'http://app.test'], what);
      // An allowed Origin: the JSON 404 is returned through the CORS middleware, which adds its headers; the raised
      // page passes it untouched.
      const cors = await send(h, method, path, { auth: false, headers: { Origin: 'http://app.test' } });
      const page = expected[1] === PAGE_404;
      assert.deepEqual([cors.status, cors.text, cors.headers['access-control-allow-origin']], [...expected, page ? undefined : 'http://app.test'], what);
      const wrongMethod = await h.request(method === 'GET' ? 'POST' : 'GET', path, { auth: false });
      assert.deepEqual([wrongMethod.status, wrongMethod.text, wrongMethod.headers.allow], [405, '405: Method Not Allowed', method], what);
      if (method === 'POST') {
        const big = await h.request(method, path, { auth: false, headers: { 'Content-Length': '10000001' } });
        assert.deepEqual([big.status, big.text], [413, std('Request body too large.', 'body_too_large')], what);
      }
    }
  });

  it('the browser-control and artifact routes answer a namespace not created yet with the same bytes, and create nothing', async () => {
    const h = await open({ corsOrigins: ['http://app.test'] });
    for (const [method, path] of FLAG_FIRST) {
      for (const headers of [{}, { Origin: 'http://app.test' }] as Array<Record<string, string>>) {
        const known = await send(h, method, path, { auth: false, headers });
        const fresh = await send(h, method, `/ns/never${path}`, { auth: false, headers });
        sameAnswer(fresh, known, `${method} ${path} ${JSON.stringify(headers)}`);
      }
    }
    assert.ok(!(await h.admin.namespaces()).namespaces.some((n) => n.name === 'never'), 'a request that can only be refused creates no namespace');
  });
});

// Hermes's CORS middleware answers with bare aiohttp `web.Response(status=…)` objects. Recorded from aiohttp 3.14.3,
// its 403s carry `Content-Type: application/octet-stream` after `Content-Length: 0` (then Date and Server), though that
// tag's source would set none on an empty answer (decision 0029); the allowed preflight carries only the CORS headers,
// Content-Length: 0, Date and Server (decision 0015).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, type Reply } from '../support/harness.js';
import { SECURITY } from '../support/runs.js';

const BARE = ['content-length', 'date', 'server'];
/** The recorded 403: aiohttp's prepare() order, Content-Length (Response._start), then its setdefaults. */
const FORBIDDEN = ['content-length', 'content-type', 'date', 'server'];

function assertForbidden(reply: Reply, transport: 'fetch' | 'http', what: string): void {
  assert.equal(reply.status, 403, what);
  assert.equal(reply.text, '', what);
  assert.equal(reply.headers['content-length'], '0', what);
  assert.equal(reply.headers['content-type'], 'application/octet-stream', what);
  assertHeaders(reply, transport, FORBIDDEN);
}
const ALLOW = {
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
};

/**
 * Exactly these headers (over HTTP also in this order, then the `Connection: close` both servers send to a client that
 * asked for it; fetch's Headers sorts them).
 */
function assertHeaders(reply: Reply, transport: 'fetch' | 'http', names: string[]): void {
  const got = Object.keys(reply.headers);
  if (transport === 'http') assert.deepEqual(got, [...names, 'connection']);
  else assert.deepEqual(got.sort(), [...names].sort());
}

describeTransports('CORS answers are bare aiohttp responses', (open, transport) => {
  it('a disallowed Origin is 403 with no body and Content-Type: application/octet-stream, before auth, on every method', async () => {
    for (const origins of [[], ['http://app.test']]) {
      const h = await open({ corsOrigins: origins });
      for (const [method, path] of [['POST', '/v1/runs'], ['GET', '/v1/runs/run_x'], ['GET', '/nowhere'], ['OPTIONS', '/v1/runs']]) {
        const reply = await h.request(method!, path!, { headers: { Origin: 'http://evil.test' }, auth: false });
        assertForbidden(reply, transport, `${method} ${path} (origins ${origins.join(',') || 'none'})`);
      }
    }
  });

  it('a preflight without an Origin, or with origins unconfigured, is the same 403', async () => {
    const configured = await open({ corsOrigins: ['http://app.test'] });
    const none = await open();
    assertForbidden(await configured.request('OPTIONS', '/v1/runs'), transport, 'no Origin');
    assertForbidden(await none.request('OPTIONS', '/v1/runs', { headers: { Origin: 'http://app.test' } }), transport, 'origins unconfigured');
    assertForbidden(await none.request('OPTIONS', '/v1/runs'), transport, 'neither');
  });

  it('an allowed preflight is 200 with the CORS headers only (no Content-Type), on any path', async () => {
    const h = await open({ corsOrigins: ['http://app.test'] });
    for (const path of ['/v1/runs', '/not/routed']) {
      const reply = await h.request('OPTIONS', path, { headers: { Origin: 'http://app.test' }, auth: false });
      assert.equal(reply.status, 200);
      assert.equal(reply.text, '');
      const cors = { ...ALLOW, 'access-control-allow-origin': 'http://app.test', vary: 'Origin', 'access-control-max-age': '600' };
      for (const [k, v] of Object.entries(cors)) assert.equal(reply.headers[k], v, k);
      assertHeaders(reply, transport, [...Object.keys(cors), ...BARE]);
    }
    const star = await open({ corsOrigins: ['*'] });
    const reply = await star.request('OPTIONS', '/v1/runs', { headers: { Origin: 'http://any.test' }, auth: false });
    assert.equal(reply.status, 200);
    assertHeaders(reply, transport, [...Object.keys(ALLOW), 'access-control-allow-origin', 'access-control-max-age', ...BARE]);
    assert.equal(reply.headers['access-control-allow-origin'], '*');
  });

  it('an allowed Origin on a handler answer gets the security headers, then the CORS headers', async () => {
    const h = await open({ corsOrigins: ['http://app.test'] });
    const reply = await h.request('GET', '/v1/runs/run_x', { headers: { Origin: 'http://app.test' } });
    assert.equal(reply.status, 404);
    assertHeaders(reply, transport, [
      'content-type', ...Object.keys(SECURITY), ...Object.keys(ALLOW), 'access-control-allow-origin', 'vary', 'access-control-max-age', ...BARE,
    ]);
  });
});

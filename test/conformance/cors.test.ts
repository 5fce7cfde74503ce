// Hermes's CORS middleware answers with bare aiohttp `web.Response(status=…)` objects. aiohttp 3.14.3 (since 3.10.6,
// aio-libs/aiohttp#8858) sets no Content-Type on a response without content, so these carry only Content-Length: 0,
// Date and Server (plus the CORS headers on an allowed preflight) — decision 0015.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, type Reply } from '../support/harness.js';
import { SECURITY } from '../support/runs.js';

const BARE = ['content-length', 'date', 'server'];
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
  it('a disallowed Origin is 403 with no body and no Content-Type, before auth, on every method', async () => {
    for (const origins of [[], ['http://app.test']]) {
      const h = await open({ corsOrigins: origins });
      for (const [method, path] of [['POST', '/v1/runs'], ['GET', '/v1/runs/run_x'], ['GET', '/nowhere'], ['OPTIONS', '/v1/runs']]) {
        const reply = await h.request(method!, path!, { headers: { Origin: 'http://evil.test' }, auth: false });
        assert.equal(reply.status, 403, `${method} ${path}`);
        assert.equal(reply.text, '');
        assert.equal(reply.headers['content-length'], '0');
        assertHeaders(reply, transport, BARE);
      }
    }
  });

  it('a preflight without an Origin, or with origins unconfigured, is the same bare 403', async () => {
    const configured = await open({ corsOrigins: ['http://app.test'] });
    const none = await open();
    for (const reply of [await configured.request('OPTIONS', '/v1/runs'), await none.request('OPTIONS', '/v1/runs')]) {
      assert.equal(reply.status, 403);
      assert.equal(reply.text, '');
      assertHeaders(reply, transport, BARE);
    }
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

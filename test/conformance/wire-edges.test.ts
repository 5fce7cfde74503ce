// Wire edges settled in decision 0046, over both transports: where a handler's own headers go, request bodies with a
// Content-Encoding (decoded as aiohttp's parser does), a zstd body refused by the parser, and the /p/<name>/ prefix,
// which Hermes's profile middleware checks only on a request that matched a route.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describeTransports, type Reply } from '../support/harness.js';
import { submit } from '../support/runs.js';

const INVALID_JSON = '{"error": {"message": "Invalid JSON", "type": "invalid_request_error", "param": null, "code": null}}';
const UNKNOWN_PROFILE = '{"error": "Unknown or unconfigured profile"}';

/** The header names before Content-Length, in wire order over HTTP (fetch's Headers sort them). */
function leading(reply: Reply, transport: 'fetch' | 'http', names: string[]): void {
  const got = Object.keys(reply.headers);
  if (transport === 'http') assert.deepEqual(got.slice(0, names.length), names);
  else for (const n of names) assert.ok(got.includes(n), n);
}

describeTransports('wire edges (decision 0046)', (open, transport) => {
  it("a handler's own headers come before Content-Type: new run, replay, capacity, draining", async () => {
    const h = await open({ maxConcurrentRuns: 1 });
    const key = { 'X-Hermes-Session-Key': 'chan-1', 'Idempotency-Key': 'k1' };
    const created = await h.request('POST', '/v1/runs', { body: '{"input":"a"}', headers: key });
    assert.equal(created.status, 202);
    leading(created, transport, ['x-hermes-session-key', 'content-type', 'content-security-policy']);
    const replay = await h.request('POST', '/v1/runs', { body: '{"input":"a"}', headers: key });
    assert.equal(replay.headers['idempotency-replayed'], 'true');
    leading(replay, transport, ['idempotency-replayed', 'x-hermes-session-key', 'content-type']);
    const full = await h.request('POST', '/v1/runs', { body: '{"input":"b"}' });
    assert.equal(full.status, 429);
    leading(full, transport, ['retry-after', 'content-type']);
    await h.admin.gateway({ draining: true });
    const draining = await h.request('POST', '/v1/runs', { body: '{"input":"c"}' });
    assert.equal(draining.status, 503);
    leading(draining, transport, ['retry-after', 'content-type']);
  });

  it('an event stream says Transfer-Encoding: chunked before Date and Server, as aiohttp prepares it', async (t) => {
    if (transport === 'fetch') return t.skip('chunking is the HTTP transport\'s');
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.deepEqual(Object.keys(stream.headers), ['content-type', 'cache-control', 'x-accel-buffering', 'transfer-encoding', 'date', 'server', 'connection']);
    stream.close();
  });

  it('gzip, deflate (zlib or raw) and br bodies are decoded before request.json(); a body labelled gzip that is not is Invalid JSON', async () => {
    const h = await open();
    const body = Buffer.from('{"input": "hi"}');
    for (const [coding, bytes] of [['gzip', gzipSync(body)], ['deflate', deflateSync(body)], ['deflate', deflateRawSync(body)], ['br', brotliCompressSync(body)],
      // aiohttp picks the decompressor by the exact value: anything else it decodes (GZIP) is zlib's deflate.
      ['GZIP', deflateSync(body)]] as const) {
      const reply = await h.request('POST', '/v1/runs', { body: new Uint8Array(bytes), headers: { 'Content-Encoding': coding } });
      assert.equal(reply.status, 202, coding);
    }
    for (const [coding, bytes] of [['gzip', body], ['br', body], ['GZIP', gzipSync(body)]] as const) {
      const reply = await h.request('POST', '/v1/runs', { body: new Uint8Array(bytes), headers: { 'Content-Encoding': coding } });
      assert.equal(reply.status, 400, coding);
      assert.equal(reply.text, INVALID_JSON, coding);
    }
    // An encoding aiohttp does not know passes the body on as sent.
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input":"x"}', headers: { 'Content-Encoding': 'x-gzip' } })).status, 202);
  });

  it('a decompression bomb past client_max_size is Invalid JSON (and steer\'s own text), without inflating it whole', async () => {
    const h = await open();
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(40_000_000, 0x20)));
    const reply = await h.request('POST', '/v1/runs', { body: bomb, headers: { 'Content-Encoding': 'gzip' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.text, INVALID_JSON);
    const runId = await submit(h);
    const steer = await h.request('POST', `/v1/runs/${runId}/steer`, { body: bomb, headers: { 'Content-Encoding': 'gzip' } });
    assert.equal(steer.status, 400);
    assert.equal(steer.text, '{"error": {"message": "Invalid JSON in request body", "type": "invalid_request_error", "param": null, "code": null}}');
  });

  it('a zstd body is refused by the parser before any Hermes code: a 400 text page, no security headers', async () => {
    const h = await open();
    const reply = await h.request('GET', '/nowhere', { headers: { 'Content-Encoding': 'zstd' }, auth: false });
    assert.equal(reply.status, 400);
    assert.equal(reply.text, 'Can not decode content-encoding: zstandard (zstd). Please install `backports.zstd`');
    assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(reply.headers['x-frame-options'], undefined);
    assert.equal(reply.headers.connection, undefined);
  });

  it('/p/<name>/ without profiles: a route under an unknown name is the profile 404; unrouted paths and wrong methods are aiohttp\'s', async () => {
    const h = await open();
    const routed = await h.request('POST', '/p/ghost/v1/runs', { body: '{"input":"x"}' });
    assert.equal(routed.status, 404);
    assert.equal(routed.text, UNKNOWN_PROFILE);
    const unrouted = await h.request('GET', '/p/ghost/nowhere');
    assert.equal(unrouted.status, 404);
    assert.equal(unrouted.text, '404: Not Found');
    const method = await h.request('GET', '/p/ghost/v1/runs');
    assert.equal(method.status, 405);
    assert.equal(method.headers.allow, 'POST');
    assert.equal(method.text, '405: Method Not Allowed');
    // No profile to check on an unrouted path, so the CORS middleware answers first there.
    const origin = await h.request('GET', '/p/ghost/nowhere', { headers: { Origin: 'http://evil.test' } });
    assert.equal(origin.status, 403);
    // The gateway's own profile prefixes any route; a blank name is no prefix at all.
    assert.equal((await h.request('GET', '/p/default/health')).status, 200);
    assert.equal((await h.request('GET', '/p/%20/v1/capabilities')).status, 200);
  });

  it('/p/<name>/ with profiles: an unknown name on a route is the profile 404, its wrong method a 405', async () => {
    const h = await open({ profiles: { coder: { apiKey: 'coder-key-0123456789abcdef' } } });
    assert.equal((await h.request('GET', '/p/ghost/v1/runs/run_x')).text, UNKNOWN_PROFILE);
    assert.equal((await h.request('DELETE', '/p/ghost/v1/runs/run_x')).status, 405);
    assert.equal((await h.request('GET', '/p/coder/health')).status, 200);
  });
});

// Spec runs-api §18 vectors 1–8: transport, auth, CORS, body limit, draining.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, K, std } from '../support/harness.js';
import { assertJson, assertNoSecurityHeaders, assertSecurityHeaders, runningBody, status, submit } from '../support/runs.js';

const AUTH_401 = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';

describeTransports('vectors 1–8: transport and auth', (open) => {
  it('1: POST /v1/runs without Authorization is 401 with the three-key envelope (127 bytes), security headers, no run', async () => {
    const h = await open({ maxConcurrentRuns: 1 });
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', auth: false });
    assertJson(reply, 401, AUTH_401);
    assert.equal(reply.headers['content-length'], '127');
    assertSecurityHeaders(reply);
    // With a cap of 1, a run created by the refused request would make this one a 429.
    await submit(h, '{"input":"hi"}');
    await h.close();
  });

  it('2: a lower-case "bearer" scheme is refused', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { Authorization: `bearer ${K}` } });
    assertJson(reply, 401, AUTH_401);
    await h.close();
  });

  it('3: spaces around the key are stripped', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { Authorization: `Bearer   ${K}  ` } });
    assert.equal(reply.status, 202);
    await h.close();
  });

  it('4: auth precedes lookup: GET of an unknown run with a wrong key is 401', async () => {
    const h = await open();
    const reply = await h.request('GET', '/v1/runs/run_doesnotexist', { headers: { Authorization: 'Bearer wrong-key-0123456789' } });
    assertJson(reply, 401, AUTH_401);
    await h.close();
  });

  it('5: an Origin header with no allowed origins is a bare 403 with an empty body (octet-stream, as recorded: decision 0029)', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { Origin: 'http://localhost:3000' } });
    assert.equal(reply.status, 403);
    assert.equal(reply.text, '');
    assert.equal(reply.headers['content-type'], 'application/octet-stream');
    assertNoSecurityHeaders(reply);
    await h.close();
  });

  it('6: Content-Length above 10,000,000 is 413 body_too_large, before the body is read', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { headers: { 'Content-Length': '10000001' } });
    assertJson(reply, 413, std('Request body too large.', 'body_too_large'));
    assertNoSecurityHeaders(reply);
    await h.close();
  });

  it('7: while draining, POST /v1/runs is 503 with Retry-After: 1, even for a replay', async () => {
    const h = await open();
    await submit(h, '{"input":"hi"}', { 'Idempotency-Key': 'k1' });
    await h.admin.gateway({ draining: true });
    const body = std('Gateway is draining existing work; retry shortly.', 'gateway_draining');
    for (const headers of [{}, { 'Idempotency-Key': 'k1' }] as Array<Record<string, string>>) {
      const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers });
      assertJson(reply, 503, body);
      assert.equal(reply.headers['retry-after'], '1');
    }
    await h.close();
  });

  it('8: while draining, GET of an existing run still answers 200', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.gateway({ draining: true });
    assertJson(await status(h, runId), 200, runningBody(runId));
    await h.close();
  });
});

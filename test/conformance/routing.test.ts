// aiohttp's routing answers for the emulated surface: unrouted paths, wrong methods, and HEAD on GET routes.
// Hermes registers its routes with router.add_route(method, path, handler), which adds no implicit HEAD
// (decision 0003, "HEAD on GET routes"), so HEAD is a 405 like any other unregistered method.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports } from '../support/harness.js';
import { submit } from '../support/runs.js';

describeTransports('routing', (open) => {
  it('an unrouted path is aiohttp\'s plain 404 without security headers', async () => {
    const h = await open();
    const reply = await h.request('GET', '/v1/nothing');
    assert.equal(reply.status, 404);
    assert.equal(reply.text, '404: Not Found');
    assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(reply.headers['x-frame-options'], undefined);
    await h.close();
  });

  it('a wrong method is 405 with the sorted Allow header, before authentication', async () => {
    const h = await open();
    const reply = await h.request('DELETE', '/v1/runs/run_x', { auth: false });
    assert.equal(reply.status, 405);
    assert.equal(reply.headers.allow, 'GET');
    assert.equal(reply.text, '405: Method Not Allowed');
    const post = await h.request('GET', '/v1/runs');
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'POST');
    await h.close();
  });

  it('HEAD on a GET route is 405 (no implicit HEAD route), even for a run that exists', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"hi"}');
    for (const path of [`/v1/runs/${runId}`, `/v1/runs/${runId}/events`, '/health', '/v1/capabilities']) {
      const reply = await h.request('HEAD', path);
      assert.equal(reply.status, 405, path);
      assert.equal(reply.headers.allow, 'GET', path);
      // A HEAD answer carries its headers but no body, over HTTP and in process alike.
      assert.equal(reply.text, '', path);
      assert.equal(reply.headers['content-length'], '23', path);
    }
    await h.close();
  });
});

// Namespaces are bounded (decision 0028): a request refused for its credentials creates no namespace (and gets the
// same bytes an existing namespace would answer); past --max-namespaces the idle namespace used least recently is
// forgotten, and when every one is busy a new one is refused with 503 HERMETIC_NAMESPACE_LIMIT.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, T0, type Harness, type Reply } from '../support/harness.js';

const ADMIN = 'admin-key-0123456789abcdef';
const asAdmin = { 'x-hermetic-admin-key': ADMIN };

async function names(h: Harness): Promise<string[]> {
  const reply = await h.request('GET', '/__admin/namespaces', { headers: asAdmin });
  assert.equal(reply.status, 200, reply.text);
  return (reply.json() as { namespaces: Array<{ name: string }> }).namespaces.map((n) => n.name);
}

/** Status, headers but Date, and body: what must be equal byte for byte. */
const shape = (r: Reply) => ({ status: r.status, headers: Object.entries(r.headers).filter(([k]) => k !== 'date'), text: r.text });

describeTransports('namespace bounds', (open) => {
  it('a request refused for its credentials creates no namespace, and is answered as an existing one answers it', async () => {
    const h = await open({ adminKey: ADMIN });
    assert.deepEqual(await names(h), ['default']);
    const refusals: Array<[string, string, Record<string, string>, Record<string, string>]> = [
      // [method, path in a new namespace, headers, the same request's headers in the default namespace]
      ['GET', '/ns/aaa/__admin/runs', {}, {}],
      ['GET', '/ns/aab/__admin/runs', { 'x-hermetic-admin-key': 'wrong' }, { 'x-hermetic-admin-key': 'wrong' }],
      ['GET', '/__admin/nothing-here', { 'x-hermetic-namespace': 'aac' }, {}],
      ['GET', '/v1/runs/run_x', { 'x-hermetic-namespace': 'bbb' }, {}],
      ['GET', '/ns/bbc/v1/runs/run_x', { Authorization: 'Bearer wrong-key' }, { Authorization: 'Bearer wrong-key' }],
      ['POST', '/ns/bbd/v1/runs', { Authorization: 'HermesRoom grant' }, { Authorization: 'HermesRoom grant' }],
      ['GET', '/ns/bbe/v1/capabilities', {}, {}],
      ['POST', '/ns/bbf/api/sessions', {}, {}],
    ];
    for (const [method, path, headers, defaultHeaders] of refusals) {
      const body = method === 'POST' ? '{"input":"x"}' : undefined;
      const refused = await h.request(method, path, { headers, body, auth: false });
      const plain = path.replace(/^\/ns\/[^/]+/, '');
      const reference = await h.request(method, plain, { headers: defaultHeaders, body, auth: false });
      assert.equal(refused.status, 401, `${method} ${path}: ${refused.text}`);
      assert.deepEqual(shape(refused), shape(reference), `${method} ${path} is answered as the default namespace answers it`);
    }
    assert.deepEqual(await names(h), ['default'], 'no refused request created a namespace');
    // The same requests with their credentials do create one (a read that finds nothing costs a few KB).
    assert.equal((await h.request('GET', '/ns/aaa/__admin/runs', { headers: asAdmin })).status, 200);
    assert.equal((await h.request('GET', '/v1/runs/run_x', { headers: { 'x-hermetic-namespace': 'bbb' } })).status, 404);
    assert.deepEqual(await names(h), ['default', 'aaa', 'bbb']);
    // A 401 in a namespace that exists is journaled there, as before.
    assert.equal((await h.request('GET', '/ns/bbb/v1/runs/run_y', { auth: false })).status, 401);
    const journal = await h.request('GET', '/ns/bbb/__admin/requests', { headers: asAdmin });
    assert.deepEqual(
      (journal.json() as { requests: Array<{ status: number }> }).requests.map((r) => r.status),
      [404, 401],
    );
  });

  it('past --max-namespaces the idle namespace used least recently is forgotten; with none idle, 503 HERMETIC_NAMESPACE_LIMIT', async () => {
    const h = await open({ maxNamespaces: 3 });
    const clockOf = async (ns: string) => (await h.request('GET', `/ns/${ns}/__admin/clock`)).json().now as number;
    assert.equal((await h.request('GET', '/ns/a/v1/runs/run_x')).status, 404);
    assert.equal((await h.request('GET', '/ns/b/v1/runs/run_x')).status, 404);
    assert.deepEqual(await names(h), ['default', 'a', 'b']);
    // a is used again, so b is the idlest: c takes its place.
    assert.equal((await h.request('POST', '/ns/a/__admin/clock', { body: '{"advance": 5}' })).status, 200);
    assert.equal((await h.request('GET', '/ns/c/v1/runs/run_x')).status, 404);
    assert.deepEqual(await names(h), ['default', 'a', 'c']);
    // Now a was used before c: b comes back new in a's place, and a's moved clock is gone with it.
    assert.equal(await clockOf('b'), T0);
    assert.deepEqual(await names(h), ['default', 'c', 'b']);
    // Live runs keep c and b; the default is never evicted: nothing can go, so a new namespace is refused.
    for (const ns of ['c', 'b']) assert.equal((await h.request('POST', `/ns/${ns}/v1/runs`, { body: '{"input":"hold"}' })).status, 202);
    const refused = await h.request('GET', '/ns/d/v1/runs/run_x');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(refused.json(), {
      error: {
        code: 'HERMETIC_NAMESPACE_LIMIT',
        message:
          'This server already holds 3 namespaces (--max-namespaces 3), and every one but the default (never evicted) has a run, a stream or a request in progress, so none can be evicted; reset some (POST /__admin/reset) or raise the cap.',
      },
    });
    assert.deepEqual(await names(h), ['default', 'c', 'b'], 'the refused request created nothing');
    // Once its run ends, c is idle again and makes room.
    const runs = await h.request('GET', '/ns/c/__admin/runs');
    const runId = (runs.json() as { runs: Array<{ run_id: string }> }).runs[0]!.run_id;
    assert.equal((await h.request('POST', `/ns/c/__admin/runs/${runId}/complete`, { body: '{"output":"done"}' })).status, 200);
    assert.equal((await h.request('GET', '/ns/d/v1/runs/run_x')).status, 404);
    assert.deepEqual(await names(h), ['default', 'b', 'd']);
    const metrics = await h.request('GET', '/__admin/metrics');
    assert.match(metrics.text, /^hermetic_namespaces_evicted_total 3$/m);
    assert.match(metrics.text, /^hermetic_namespaces_max 3$/m);
    assert.match(metrics.text, /^hermetic_namespaces 3$/m);
    // A reset of every namespace forgets the others.
    assert.deepEqual((await h.request('POST', '/__admin/reset', { body: '{"all": true}' })).json(), { reset: ['default', 'b', 'd'] });
    assert.deepEqual(await names(h), ['default']);
  });

  it('with --max-namespaces 1 (the default alone) every other namespace is refused, and the 503 says the cap is why', async () => {
    const h = await open({ maxNamespaces: 1 });
    assert.equal((await h.request('GET', '/v1/runs/run_x')).status, 404, 'the default namespace serves');
    for (const [path, headers] of [['/ns/a/v1/runs/run_x', {}], ['/v1/runs/run_x', { 'x-hermetic-namespace': 'b' }]] as const) {
      const refused = await h.request('GET', path, { headers });
      assert.equal(refused.status, 503);
      // No namespace is busy and a reset frees nothing: the message says neither.
      assert.deepEqual(refused.json(), {
        error: {
          code: 'HERMETIC_NAMESPACE_LIMIT',
          message: 'This server holds only the default namespace (--max-namespaces 1), which is never evicted, so no other can be made; raise the cap.',
        },
      });
    }
    assert.deepEqual(await names(h), ['default']);
  });
});

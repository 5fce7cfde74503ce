// Namespaces (decision 0019): each is a whole gateway, chosen by the x-hermetic-namespace header or a /ns/<name>
// prefix; isolated runs, keys, time and settings; reset one or all; bad names refused before any route.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, T0, type Harness } from '../support/harness.js';

/** How a worker addresses its namespace: a header, or a path prefix. */
type Via = 'header' | 'prefix';
const at = (via: Via, ns: string, path: string) => (via === 'prefix' ? `/ns/${ns}${path}` : path);
const nsHeaders = (via: Via, ns: string): Record<string, string> => (via === 'header' ? { 'x-hermetic-namespace': ns } : {});

async function submitIn(h: Harness, via: Via, ns: string, body = '{"input":"hi"}', headers: Record<string, string> = {}) {
  const reply = await h.request('POST', at(via, ns, '/v1/runs'), { body, headers: { ...nsHeaders(via, ns), ...headers } });
  assert.equal(reply.status, 202, reply.text);
  return reply.json() as { run_id: string; replayed: boolean };
}

async function adminIn(h: Harness, via: Via, ns: string, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, at(via, ns, `/__admin${path}`), {
    headers: nsHeaders(via, ns),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(reply.status < 300, `${method} ${path} in ${ns}: ${reply.status} ${reply.text}`);
  return reply.json();
}

describeTransports('namespaces', (open) => {
  it('a run, its key and its clock belong to one namespace, by header or by prefix', async () => {
    const h = await open();
    for (const via of ['header', 'prefix'] as const) {
      const ns = `w-${via}`;
      const { run_id } = await submitIn(h, via, ns, '{"input":"a"}', { 'Idempotency-Key': 'k1' });
      // Unseen by the default namespace and by another namespace.
      assert.equal((await h.request('GET', `/v1/runs/${run_id}`)).status, 404);
      assert.equal((await h.request('GET', `/ns/other/v1/runs/${run_id}`)).status, 404);
      assert.equal((await h.request('GET', at(via, ns, `/v1/runs/${run_id}`), { headers: nsHeaders(via, ns) })).status, 200);
      // The same key elsewhere is a new run, not a replay.
      const elsewhere = await submitIn(h, via, `${ns}-b`, '{"input":"a"}', { 'Idempotency-Key': 'k1' });
      assert.notEqual(elsewhere.run_id, run_id);
      assert.equal(elsewhere.replayed, false);
      const again = await submitIn(h, via, ns, '{"input":"a"}', { 'Idempotency-Key': 'k1' });
      assert.deepEqual([again.run_id, again.replayed], [run_id, true]);
      // Time moves per namespace.
      assert.deepEqual(await adminIn(h, via, ns, 'POST', '/clock', { advance: 60 }), { now: T0 + 60, frozen: true });
      assert.deepEqual(await h.admin.getClock(), { now: T0, frozen: true });
      // Its control plane sees its runs only.
      const runs = (await adminIn(h, via, ns, 'GET', '/runs')).runs.map((r: { run_id: string }) => r.run_id);
      assert.deepEqual(runs, [run_id]);
    }
    assert.deepEqual((await h.admin.runs()).runs, []);
  });

  it('the Date header follows the namespace clock; profiles work under a namespace', async () => {
    const h = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789abcdef' } } });
    await adminIn(h, 'prefix', 'p1', 'POST', '/clock', { advance: 86_400 });
    const reply = await h.request('GET', '/ns/p1/health');
    assert.equal(reply.headers.date, new Date((T0 + 86_400) * 1000).toUTCString());
    const profiled = await h.request('POST', '/ns/p1/p/alice/v1/runs', { body: '{"input":"x"}', headers: { Authorization: 'Bearer alice-key-0123456789abcdef' } });
    assert.equal(profiled.status, 202, profiled.text);
  });

  it('settings are per namespace: draining one leaves the others admitting', async () => {
    const h = await open();
    await adminIn(h, 'header', 'drained', 'POST', '/gateway', { draining: true });
    const refused = await h.request('POST', '/v1/runs', { body: '{"input":"x"}', headers: { 'x-hermetic-namespace': 'drained' } });
    assert.equal(refused.status, 503);
    await submitIn(h, 'header', 'open');
    await submitIn(h, 'prefix', 'default');
  });

  it('bad names and a header that disagrees with the prefix are clear 400s, on Hermes and admin routes alike', async () => {
    const h = await open();
    for (const [path, headers, fragment] of [
      ['/ns/bad!name/v1/runs', {}, 'The path prefix /ns/bad!name'],
      ['/v1/runs', { 'x-hermetic-namespace': '-dash-first' }, 'The x-hermetic-namespace header'],
      ['/ns/' + 'x'.repeat(65) + '/__admin/clock', {}, 'is not a namespace name'],
      ['/ns/a/v1/runs', { 'x-hermetic-namespace': 'b' }, 'says "b" but the path prefix says "a"'],
    ] as const) {
      const reply = await h.request('POST', path, { body: '{"input":"x"}', headers });
      assert.equal(reply.status, 400, path);
      assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(reply.json().error.code, 'HERMETIC_NAMESPACE_INVALID');
      assert.ok(reply.json().error.message.includes(fragment), reply.json().error.message);
    }
    // Nothing was created by a refused request.
    assert.deepEqual((await h.admin.namespaces()).namespaces.map((n) => n.name), ['default']);
  });

  it('lists namespaces with run counts; reset makes one as new; reset all forgets the others', async () => {
    const h = await open();
    await submitIn(h, 'prefix', 'default');
    const { run_id } = await submitIn(h, 'prefix', 'a', '{"input":"x"}', { 'Idempotency-Key': 'k' });
    await submitIn(h, 'header', 'b');
    await adminIn(h, 'prefix', 'a', 'POST', '/clock', { advance: 5 });
    await adminIn(h, 'prefix', 'a', 'POST', '/gateway', { max_concurrent_runs: 1 });
    const listed = (await h.admin.namespaces()).namespaces.map(({ name, runs, live_runs }) => ({ name, runs, live_runs }));
    assert.deepEqual(listed, [
      { name: 'default', runs: 1, live_runs: 1 },
      { name: 'a', runs: 1, live_runs: 1 },
      { name: 'b', runs: 1, live_runs: 1 },
    ]);
    assert.deepEqual(await adminIn(h, 'prefix', 'a', 'POST', '/reset', {}), { reset: ['a'] });
    assert.deepEqual((await adminIn(h, 'prefix', 'a', 'GET', '/runs')).runs, []);
    assert.deepEqual(await adminIn(h, 'prefix', 'a', 'GET', '/clock'), { now: T0, frozen: true });
    assert.equal((await adminIn(h, 'prefix', 'a', 'GET', '/gateway')).max_concurrent_runs, 10);
    // The durable row went too: the key admits a new run.
    const fresh = await submitIn(h, 'prefix', 'a', '{"input":"x"}', { 'Idempotency-Key': 'k' });
    assert.equal(fresh.replayed, false);
    assert.equal(fresh.run_id, run_id, 'a reset namespace draws the same seeded ids again');
    // Untouched neighbours.
    assert.equal((await adminIn(h, 'header', 'b', 'GET', '/runs')).runs.length, 1);
    const all = await h.request('POST', '/__admin/reset?all=1', { body: '{}' });
    assert.deepEqual(all.json(), { reset: ['default', 'a', 'b'] });
    assert.deepEqual((await h.admin.namespaces()).namespaces.map(({ name, runs }) => ({ name, runs })), [{ name: 'default', runs: 0 }]);
    assert.deepEqual((await adminIn(h, 'header', 'b', 'GET', '/runs')).runs, []);
  });

  it('eight concurrent workers sharing one server never see each other’s runs, time, faults or journal entries', async () => {
    const h = await open();
    const worker = async (i: number) => {
      const via: Via = i % 2 === 0 ? 'header' : 'prefix';
      const ns = `worker-${i}`;
      const mine: string[] = [];
      // Each worker's own fault: its first poll answers a Hermes-shaped 404 that names the worker.
      const envelope = { error: { message: `worker ${i}`, type: 'invalid_request_error', param: null, code: 'run_not_found' } };
      await adminIn(h, via, ns, 'POST', '/faults', { id: `teapot-${i}`, operation: 'get', times: 1, action: 'respond', status: 404, body: envelope, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
      for (let n = 0; n < 5; n++) {
        mine.push((await submitIn(h, via, ns, `{"input":"w${i}-${n}"}`, { 'Idempotency-Key': `same-key-${n}` })).run_id);
        await adminIn(h, via, ns, 'POST', '/clock', { advance: i + 1 });
      }
      for (const id of mine.slice(0, 2)) await adminIn(h, via, ns, 'POST', `/runs/${id}/complete`, { output: `done ${i}` });
      const teapot = await h.request('GET', at(via, ns, `/v1/runs/${mine[4]}`), { headers: nsHeaders(via, ns) });
      assert.deepEqual([teapot.status, teapot.json().error.message], [404, `worker ${i}`]);
      return { i, via, ns, mine };
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => worker(i)));
    const everyRun = results.flatMap((r) => r.mine);
    assert.equal(new Set(everyRun).size, 40, 'every worker got runs of its own, same keys notwithstanding');
    for (const { i, via, ns, mine } of results) {
      const seen = (await adminIn(h, via, ns, 'GET', '/runs')).runs.map((r: { run_id: string }) => r.run_id);
      assert.deepEqual(seen, mine, `worker ${i} sees exactly its runs`);
      assert.deepEqual(await adminIn(h, via, ns, 'GET', '/clock'), { now: T0 + 5 * (i + 1), frozen: true });
      for (const other of everyRun.filter((id) => !mine.includes(id)).slice(0, 8)) {
        const reply = await h.request('GET', at(via, ns, `/v1/runs/${other}`), { headers: nsHeaders(via, ns) });
        assert.equal(reply.status, 404, `worker ${i} cannot read ${other}`);
      }
      const done = await h.request('GET', at(via, ns, `/v1/runs/${mine[0]}`), { headers: nsHeaders(via, ns) });
      assert.equal(done.json().output, `done ${i}`);
      // Its fault is its own and spent; its journal holds its own requests only.
      const faults = (await adminIn(h, via, ns, 'GET', '/faults')).faults;
      assert.deepEqual(faults.map((f: { id: string }) => f.id), [`teapot-${i}`]);
      const journal = (await adminIn(h, via, ns, 'GET', '/requests?operation=submit')).requests;
      assert.equal(journal.length, 5, `worker ${i} journal`);
      assert.ok(journal.every((e: { run_id: string | null }) => e.run_id === null || mine.includes(e.run_id)));
      const teapots = (await adminIn(h, via, ns, 'GET', '/requests?status=404&operation=get')).requests;
      assert.deepEqual(teapots.map((e: { fault_id: string | null }) => e.fault_id).filter(Boolean), [`teapot-${i}`]);
      assert.equal(teapots.length, 9, 'its fault, then the 8 runs of others it could not read');
    }
    assert.deepEqual((await h.admin.runs()).runs, []);
    assert.deepEqual((await h.admin.faults()).faults, []);
    assert.equal((await h.admin.countRequests({ operation: 'submit' })).count, 0);
  });

  it('a control call for a run of another namespace says whose it is and the path that reaches it', async () => {
    const h = await open();
    const { run_id } = await submitIn(h, 'prefix', 'w-own');
    const there = await h.request('POST', `/__admin/runs/${run_id}/complete`, { body: '{"output":"x"}' });
    assert.deepEqual([there.status, there.json()], [404, { error: { code: 'HERMETIC_RUN_UNKNOWN', message: `No live run ${run_id} in this gateway (unknown id, or lost in a restart). It is a run of namespace "w-own", not of this one ("default"): /ns/w-own/__admin/… reaches it.` } }]);
    // And from another namespace to the default's.
    const mine = (await submitIn(h, 'prefix', 'default')).run_id;
    const back = await h.request('POST', `/ns/w-other/__admin/runs/${mine}/complete`, { body: '{"output":"x"}' });
    assert.match(back.json().error.message, /It is a run of namespace "default", not of this one \("w-other"\): \/__admin\/… reaches it\.$/);
    // A run no namespace knows is said as before.
    assert.deepEqual((await h.request('POST', '/__admin/runs/run_nope/complete', { body: '{}' })).json().error.message, 'No live run run_nope in this gateway (unknown id, or lost in a restart).');
  });
});

// The control plane's own behaviour: plain HERMETIC_* errors, listing, unsupported Hermes routes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports } from '../support/harness.js';
import { submit } from '../support/runs.js';

describeTransports('control plane', (open) => {
  it('an unknown run, a finished run and an unknown field each get a code and a sentence', async () => {
    const h = await open();
    const unknown = await h.request('POST', '/__admin/runs/run_nope/complete', { body: '{}' });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json(), { error: { code: 'HERMETIC_RUN_UNKNOWN', message: 'No live run run_nope in this gateway (unknown id, or lost in a restart).' } });
    const runId = await submit(h);
    await h.admin.complete(runId, {});
    const done = await h.request('POST', `/__admin/runs/${runId}/fail`, { body: '{"error":"x"}' });
    assert.equal(done.status, 409);
    assert.equal(done.json().error.code, 'HERMETIC_RUN_TERMINAL');
    const typo = await h.request('POST', '/__admin/clock', { body: '{"advnce": 5}' });
    assert.equal(typo.status, 400);
    assert.equal(typo.json().error.message, 'Unknown field "advnce" for the clock. Did you mean "advance"?');
    const notJson = await h.request('POST', '/__admin/gateway', { body: '{' });
    assert.equal(notJson.json().error.code, 'HERMETIC_ADMIN_BAD_JSON');
    const badEvent = await h.request('POST', `/__admin/runs/${await submit(h)}/event`, { body: '{"event":5}' });
    assert.equal(badEvent.json().error.code, 'HERMETIC_ADMIN_BAD_FIELD');
    const route = await h.request('DELETE', '/__admin/clock');
    assert.equal(route.status, 404);
    assert.equal(route.json().error.message, 'DELETE is not allowed on /__admin/clock; use POST or GET.');
  });

  it('a refused gateway change changes nothing, the fields before the bad one included', async () => {
    const h = await open();
    const before = await h.admin.getGateway();
    const cases: Array<[string, string]> = [
      ['{"draining": true, "max_concurrent_runs": 1.5}', 'Field "max_concurrent_runs" must be an integer (0 disables the cap).'],
      ['{"draining": true, "max_concurrent_runs": 3, "api_key": ""}', 'Field "api_key" must be a non-empty string, or null for no key.'],
      ['{"max_concurrent_runs": 3, "draining": "yes"}', 'Field "draining" must be true or false.'],
    ];
    for (const [body, message] of cases) {
      const reply = await h.request('POST', '/__admin/gateway', { body });
      assert.deepEqual([reply.status, reply.json()], [400, { error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message } }], body);
      assert.deepEqual(await h.admin.getGateway(), before, body);
    }
    const run = await h.request('POST', '/v1/runs', { body: '{"input": "still admitted"}' });
    assert.equal(run.status, 202, run.text);
  });

  it('GET /__admin lists the control routes and says where the OpenAPI document, the console and the docs are', async () => {
    const h = await open();
    const index = await h.admin.index();
    assert.deepEqual([index.emulator, index.openapi, index.console, index.docs], ['hermetic', '/__admin/openapi.json', '/__admin/ui/', 'docs/reference/admin-api.md']);
    assert.ok(index.routes.includes('POST /__admin/runs/{run_id}/complete') && index.routes.includes('GET /__admin/health'), index.routes.join(', '));
    // Not journaled: it is the test's own plumbing, as every control route.
    assert.deepEqual((await h.admin.requests()).requests, []);
  });

  it('a change with a query parameter it does not read, or ?namespace= anywhere, is refused and changes nothing', async () => {
    const h = await open();
    const runId = await submit(h);
    const reset = await h.request('POST', '/__admin/reset?namespace=qq', { body: '{}' });
    assert.equal(reset.status, 400);
    assert.deepEqual(reset.json().error, { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Unknown query parameter "namespace" on POST /__admin/reset: it takes "all". A namespace is chosen by the path (/ns/<name>/__admin/…) or the X-Hermetic-Namespace header.' });
    assert.deepEqual((await h.admin.runs()).runs.map((r) => r.run_id), [runId], 'the default namespace was not reset');
    const fault = await h.request('POST', '/__admin/faults?x=1', { body: '{"action":"respond","status":500}' });
    assert.equal(fault.json().error.message, 'Unknown query parameter "x" on POST /__admin/faults: it takes none.');
    assert.deepEqual((await h.admin.faults()).faults, []);
    assert.equal((await h.request('GET', '/__admin/runs?namespace=qq')).status, 400);
    assert.equal((await h.request('POST', '/__admin/reset?all=1', { body: '{}' })).status, 200, 'a parameter the route reads is fine');
  });

  it('matches each request afresh where the last one differs in method or path, and never keeps a refusal', async () => {
    // The dispatcher remembers its last match (a script drives one run through one path many times).
    const h = await open();
    const runId = await submit(h);
    for (let i = 0; i < 2; i++) {
      const event = await h.request('POST', `/__admin/runs/${runId}/event`, { body: '{"event":"tool.started","tool":"t"}' });
      assert.deepEqual(event.json(), { run_id: runId, event: 'tool.started', dropped: false });
    }
    const other = await h.request('GET', `/__admin/runs/${runId}/event`);
    assert.equal(other.status, 404);
    assert.equal(other.json().error.message, `GET is not allowed on /__admin/runs/${runId}/event; use POST.`);
    assert.equal((await h.request('GET', `/__admin/runs/${runId}`)).json().run_id, runId);
    assert.equal((await h.request('GET', `/__admin/runs/${runId}?verbose=1`)).json().run_id, runId, 'a query string is not part of the path');
    for (let i = 0; i < 2; i++) {
      const bad = await h.request('POST', '/__admin/runs/run_%zz/event', { body: '{"event":"tool.started"}' });
      assert.equal(bad.json().error.code, 'HERMETIC_ADMIN_BAD_FIELD', `asked ${i + 1} times`);
    }
    const again = await h.request('POST', `/__admin/runs/${runId}/event`, { body: '{"event":"tool.completed","tool":"t"}' });
    assert.equal(again.json().event, 'tool.completed');
  });

  it('lists the runs in memory and reads the clock', async () => {
    const h = await open();
    const a = await submit(h, '{"input":"a"}', { 'Idempotency-Key': 'a' });
    const b = await submit(h);
    await h.admin.event(b, { event: 'tool.started', tool: 't' });
    assert.deepEqual((await h.admin.runs()).runs, [
      { run_id: a, status: 'running', live: true, keyed: true, last_event: null },
      { run_id: b, status: 'running', live: true, keyed: false, last_event: 'tool.started' },
    ]);
    assert.deepEqual(await h.admin.clock({ advance: 1.5 }), { now: 1789169801.5, frozen: true });
  });

  it('a Hermes route the emulator does not reproduce is a plain 501, not a Hermes-looking 404', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/chat/completions', { body: '{}' });
    assert.equal(reply.status, 501);
    assert.equal(reply.json().error.code, 'HERMETIC_UNSUPPORTED_ROUTE');
    assert.equal((await h.request('GET', '/v1/nothing')).text, '404: Not Found');
  });
});

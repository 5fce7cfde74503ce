// The request journal and metrics name the fault rule that affected a request; a dropped answer is status 0.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports } from '../support/harness.js';

describeTransports('request journal with faults', (open) => {
  it('an entry names the fault rule that answered it; a lost answer is status 0 with the run Hermes admitted', async () => {
    const h = await open();
    const add = async (rule: object) => {
      const reply = await h.request('POST', '/__admin/faults', { body: JSON.stringify(rule) });
      assert.equal(reply.status, 200, reply.text);
    };
    await add({ id: 'boom', operation: 'get', action: 'respond', status: 500, body: 'down', times: 1 });
    await add({ id: 'lost', preset: 'hermes_submit_accepted_drop' });
    assert.equal((await h.request('GET', '/v1/runs/run_a')).status, 500);
    assert.equal((await h.request('GET', '/v1/runs/run_a')).status, 404);
    await assert.rejects(h.request('POST', '/v1/runs', { body: '{"input":"x"}' }));
    const { requests } = await h.admin.requests();
    assert.deepEqual(
      requests.map((e) => [e.operation, e.status, e.fault_id]),
      [['get', 500, 'boom'], ['get', 404, null], ['submit', 0, 'lost']],
    );
    const [lost] = (await h.admin.requests({ status: 0 })).requests;
    assert.match(lost!.run_id ?? '', /^run_/);
    assert.equal(lost!.replayed, false);
    assert.deepEqual((await h.admin.runs()).runs.map((r) => r.run_id), [lost!.run_id]);
    const metrics = await h.admin.metrics();
    assert.match(metrics, /^hermetic_faults_fired_total\{namespace="default"\} 2$/m);
    assert.match(metrics, /^hermetic_fault_rule_fired_total\{namespace="default",fault_id="boom"\} 1$/m);
    assert.match(metrics, /^hermetic_fault_rule_fired_total\{namespace="default",fault_id="lost"\} 1$/m);
    assert.match(metrics, /^hermetic_requests_total\{namespace="default",operation="submit",status="0"\} 1$/m);
  });
});

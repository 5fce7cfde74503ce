// Fault rules for every namespace (decision 0066): `"namespace": "*"` makes one rule, with one count, that every
// namespace tries after its own rules — namespaces that exist and those made later. Without the field a rule is the
// namespace's own, as before. Over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FaultRuleInput } from '../../src/emulator/admin/client.js';
import { describeTransports, type Harness } from '../support/harness.js';

/** Who answered a poll: the rule whose name its 404 carries, or "hermes" (Hermes's own 404). */
async function get(h: Harness, ns: string | null, runId = 'run_x'): Promise<string> {
  const path = `/v1/runs/${runId}`;
  const reply = await h.request('GET', ns ? `/ns/${ns}${path}` : path);
  assert.equal(reply.status, 404);
  const { message } = reply.json().error;
  return message === `Run not found: ${runId}` ? 'hermes' : message;
}

async function control(h: Harness, ns: string | null, method: string, path: string, body?: unknown) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  // Framed by its length: node's client sends a DELETE's body unframed otherwise.
  const headers: Record<string, string> = text === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(text)) };
  const reply = await h.request(method, `${ns ? `/ns/${ns}` : ''}/__admin${path}`, { body: text, headers });
  return { status: reply.status, json: reply.text ? reply.json() : null };
}

/** A rule answering a poll with a Hermes-shaped 404 whose message is `name`. */
const teapot = (name: string, extra: FaultRuleInput = {}): FaultRuleInput => ({
  operation: 'get', action: 'respond', status: 404, headers: { 'Content-Type': 'application/json; charset=utf-8' },
  body: { error: { message: name, type: 'invalid_request_error', param: null, code: 'run_not_found' } }, ...extra,
});

describeTransports('fault rules for every namespace', (open) => {
  it('without "namespace" a rule is the namespace\'s own: it answers in a, Hermes in b', async () => {
    const h = await open();
    assert.equal((await control(h, 'a', 'POST', '/faults', teapot('mine'))).json.namespace, null);
    assert.deepEqual([await get(h, 'a'), await get(h, 'b')], ['mine', 'hermes']);
  });

  it('"*" applies to every namespace, those made later too; one rule, one count; listed everywhere after each namespace\'s own', async () => {
    const h = await open();
    await get(h, 'early');
    const added = await control(h, 'a', 'POST', '/faults', teapot('all', { namespace: '*', times: 3 }));
    assert.equal(added.status, 200);
    assert.deepEqual([added.json.id, added.json.namespace, added.json.remaining], ['fault_all_1', '*', 3]);
    assert.deepEqual([await get(h, 'a'), await get(h, 'early'), await get(h, 'later'), await get(h, 'a')], ['all', 'all', 'all', 'hermes']);
    const later = await control(h, 'later', 'GET', '/faults');
    assert.deepEqual(later.json.faults.map((f: { id: string; fired: number; namespace: string }) => [f.id, f.fired, f.namespace]), [['fault_all_1', 3, '*']]);
    assert.equal(later.json.fired_total, 1, 'each namespace counts the requests rules affected in it');
    const journal = await control(h, 'early', 'GET', '/requests');
    assert.deepEqual(journal.json.requests.map((e: { status: number; fault_id: string }) => [e.status, e.fault_id]), [[404, null], [404, 'fault_all_1']]);
  });

  it('a namespace\'s own rules are tried first; by id any namespace reads or deletes a rule for every namespace', async () => {
    const h = await open();
    await control(h, null, 'POST', '/faults', teapot('everywhere', { id: 'everywhere', namespace: '*' }));
    await control(h, 'b', 'POST', '/faults', teapot('mine', { id: 'mine' }));
    assert.deepEqual([await get(h, null), await get(h, 'b')], ['everywhere', 'mine']);
    const listed = await control(h, 'b', 'GET', '/faults');
    assert.deepEqual(listed.json.faults.map((f: { id: string; namespace: string | null }) => [f.id, f.namespace]), [['mine', null], ['everywhere', '*']]);
    assert.equal((await control(h, 'b', 'GET', '/faults/everywhere')).json.fired, 1);
    // DELETE /__admin/faults clears this namespace's own; {"namespace": "*"} those for every namespace.
    assert.deepEqual((await control(h, 'b', 'DELETE', '/faults')).json, { deleted: 1 });
    assert.equal(await get(h, 'b'), 'everywhere');
    assert.equal((await control(h, 'b', 'DELETE', '/faults/everywhere')).json.id, 'everywhere');
    assert.deepEqual([await get(h, null), await get(h, 'b')], ['hermes', 'hermes']);
    await control(h, 'b', 'POST', '/faults', teapot('one', { namespace: '*' }));
    await control(h, 'b', 'POST', '/faults', teapot('two', { namespace: '*' }));
    assert.deepEqual((await control(h, null, 'DELETE', '/faults', { namespace: '*' })).json, { deleted: 2 });
    assert.equal(await get(h, 'b'), 'hermes');
  });

  it('a namespace\'s reset and checkpoints leave the rules for every namespace alone; a reset of every namespace clears them', async () => {
    const h = await open();
    await control(h, 'a', 'POST', '/checkpoints', {});
    await control(h, 'a', 'POST', '/faults', teapot('all', { namespace: '*' }));
    await control(h, 'a', 'POST', '/checkpoints/cp_1@a/restore', {});
    await control(h, 'a', 'POST', '/reset', {});
    assert.deepEqual([await get(h, 'a'), await get(h, 'b')], ['all', 'all']);
    await control(h, 'b', 'POST', '/reset', { all: true });
    assert.deepEqual([await get(h, 'a'), await get(h, null)], ['hermes', 'hermes']);
  });

  it('refusals: another namespace\'s name, a name that is none, an id the other list holds; the namespace\'s own name is its own rule', async () => {
    const h = await open();
    const other = await control(h, 'a', 'POST', '/faults', teapot('x', { namespace: 'b' }));
    assert.deepEqual([other.status, other.json.error], [400, { code: 'HERMETIC_FAULT_INVALID', message: 'Fault rule: field "namespace" is "b", but this request is for namespace "a"; add it through /ns/b/__admin/faults, or give "*" for every namespace.' }]);
    const bad = await control(h, 'a', 'POST', '/faults', teapot('x', { namespace: 'no/such' }));
    assert.deepEqual([bad.status, bad.json.error.code], [400, 'HERMETIC_FAULT_INVALID']);
    assert.match(bad.json.error.message, /^Fault rule: field "namespace" must be "\*" \(every namespace\), a namespace's name or null: "no\/such" is not a namespace name/);
    const own = await control(h, 'a', 'POST', '/faults/presets/hermes_server_error', { id: 'x', namespace: 'a', operation: 'stop' });
    assert.deepEqual([own.status, own.json.namespace], [200, null]);
    const clash = await control(h, 'a', 'POST', '/faults', teapot('x', { id: 'x', namespace: '*' }));
    assert.deepEqual([clash.status, clash.json.error.message], [400, 'Fault rule: the id "x" names a rule of this namespace; give the rule for every namespace another id, or delete that one first.']);
    await control(h, 'b', 'POST', '/faults', teapot('y', { id: 'y', namespace: '*' }));
    const hidden = await control(h, 'a', 'POST', '/faults', teapot('y', { id: 'y' }));
    assert.deepEqual([hidden.status, hidden.json.error.message], [400, 'Fault rule: the id "y" names a rule for every namespace; give this one another id, or delete that one first (DELETE /__admin/faults/y).']);
    const clear = await control(h, 'a', 'DELETE', '/faults', { namespace: 'b' });
    assert.deepEqual([clear.status, clear.json.error.code], [400, 'HERMETIC_ADMIN_BAD_FIELD']);
  });

  it('the faults option: "*" is one rule for every namespace, a name that namespace alone, none each namespace\'s own copy', async () => {
    const h = await open({ faults: [teapot('once', { id: 'once', namespace: '*', times: 1 }), teapot('w3', { id: 'w3-only', namespace: 'w3' }), teapot('each', { id: 'each', run_id: 'run_each', times: 1 })] });
    assert.deepEqual([await get(h, 'w3'), await get(h, 'w3'), await get(h, 'w4')], ['w3', 'w3', 'once'], 'w3 tries its own rule first; the one-shot for every namespace is spent in w4');
    assert.deepEqual([await get(h, null), await get(h, 'w4')], ['hermes', 'hermes'], 'one count for every namespace');
    assert.deepEqual([await get(h, 'w4', 'run_each'), await get(h, 'w5', 'run_each'), await get(h, 'w5', 'run_each')], ['each', 'each', 'hermes'], 'a count of its own in each');
    const w4 = await control(h, 'w4', 'GET', '/faults');
    assert.deepEqual(w4.json.faults.map((f: { id: string; namespace: string | null }) => [f.id, f.namespace]), [['each', null], ['once', '*']]);
    const text = await h.admin.metrics();
    assert.match(text, /^hermetic_fault_rule_fired_total\{namespace="\*",fault_id="once"\} 1$/m);
    assert.doesNotMatch(text, /namespace="default",fault_id="once"/);
  });

  it('a rule for every namespace may not take an id the faults option gives namespaces: each would get it back at its start or reset', async () => {
    const h = await open({ faults: [teapot('each', { id: 'each', run_id: 'run_each' }), teapot('w3', { id: 'w3-only', namespace: 'w3' })] });
    // Deleted in a, the option's rule is still every other namespace's (and a's again after a reset).
    assert.equal((await control(h, 'a', 'DELETE', '/faults/each')).status, 200);
    for (const id of ['each', 'w3-only']) {
      const clash = await control(h, 'a', 'POST', '/faults', teapot('all', { id, namespace: '*' }));
      assert.deepEqual([clash.status, clash.json.error], [400, {
        code: 'HERMETIC_FAULT_INVALID',
        message: `Fault rule: the id "${id}" names a rule the faults option gives namespaces (each gets it back when it starts or is reset); give the rule for every namespace another id.`,
      }]);
    }
    // Nothing was added: new namespaces and a reset still work.
    assert.deepEqual([await get(h, 'b'), await get(h, 'w3')], ['hermes', 'w3']);
    assert.equal((await control(h, null, 'POST', '/reset', {})).status, 200);
    assert.deepEqual([await get(h, null, 'run_each'), await get(h, 'c', 'run_each')], ['each', 'each']);
    // An id of the option's is not handed out to a rule for every namespace either.
    const k = await open({ faults: [teapot('each', { id: 'fault_all_1' })] });
    assert.equal((await control(k, 'a', 'POST', '/faults', teapot('all', { namespace: '*' }))).json.id, 'fault_all_2');
    assert.equal(await get(k, 'b'), 'each');
  });
});

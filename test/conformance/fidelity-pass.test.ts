// Decision 0177: what an adversarial fidelity pass over the emulator found, each case over both transports and
// named by the Hermes function whose behaviour decides it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, heldRequest, std } from '../support/harness.js';
import { assertJson, status, submit } from '../support/runs.js';
import { assertBytes, py, S, wrapped } from '../support/sessions.js';

const MISSING = std('require_model_lock was set but no model/provider was provided', 'missing_model');

describeTransports('decision 0177: the emulator against Hermes, adversarially', (open, transport) => {
  it('a bool-ish string is stripped as Python strips: \\x1c and \\x85 are whitespace, U+FEFF is not (_coerce_request_bool)', async () => {
    const h = await open();
    const create = (body: string) => h.request('POST', '/api/sessions', { body });
    for (const flag of ['\\u001ctrue', '\\u0085yes', 'on\\u001f']) {
      assertBytes(await create(`{"require_model_lock": "${flag}"}`), 400, MISSING);
    }
    // Not whitespace to Python: neither a true nor a false string, so the default (no lock asked for).
    assertBytes(await create('{"id": "bom", "require_model_lock": "\\ufefftrue"}'), 201, wrapped(S('bom', null)));
  });

  it('provider::model keeps what Python\'s strip keeps of the model (_split_provider_prefixed_model)', async () => {
    const h = await open();
    const create = (body: string) => h.request('POST', '/api/sessions', { body });
    assertBytes(await create('{"id": "fs", "model": "openrouter::\\u001cm2\\u001d"}'), 201,
      wrapped(S('fs', null, { model: 'm2', has_model_config: true })));
    assertBytes(await create('{"id": "bom", "model": "openrouter::\\ufeffm2"}'), 201,
      wrapped(S('bom', null, { model: py('"\\ufeffm2"'), has_model_config: true })));
  });

  it('a steer whose body arrives after the run parked on an approval forces running, the approval dropped (_handle_steer_run)', async (t) => {
    // Said before a harness is opened (node 20 runs no afterEach for a test skipped from inside). Over HTTP the same
    // code runs; only the test's hold on the body needs the in-process transport.
    if (transport !== 'fetch') return t.skip('needs a body stream the test controls');
    const h = await open();
    const runId = await submit(h);
    const steer = heldRequest(h, 'POST', `/v1/runs/${runId}/steer`);
    await steer.reached;
    await h.admin.approvalRequest(runId, { command: 'rm -rf /' });
    const parked = (await status(h, runId)).text;
    assert.match(parked, /"status": "waiting_for_approval", .*"last_event": "approval.request", "approval": \{/);
    // Hermes read the agent before the body, and agent.steer() stashes the text whatever the agent is doing; then
    // _set_run_status(..., "running", last_event="run.steered") drops the approval from the status.
    const reply = await steer.send('{"input": "use the staging host"}');
    assert.equal(await reply.text(), `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`);
    const steered = parked.replace('"waiting_for_approval"', '"running"').replace('"approval.request"', '"run.steered"')
      .replace(/, "approval": \{.*\}\}$/, '}');
    assertJson(await status(h, runId), 200, steered);
    // The agent still waits for its approval: answering it is as before.
    assert.equal((await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice": "once"}' })).status, 200);
  });

  it('a steer whose body arrives after the run ended is accepted and sets it running again, for good (_handle_steer_run)', async (t) => {
    if (transport !== 'fetch') return t.skip('needs a body stream the test controls');
    const h = await open();
    const runId = await submit(h, '{"input": "hello"}', { 'Idempotency-Key': 'late-steer' });
    const steer = heldRequest(h, 'POST', `/v1/runs/${runId}/steer`);
    await steer.reached;
    await h.admin.complete(runId, { output: 'Done.' });
    const done = (await status(h, runId)).text;
    assert.match(done, /"status": "completed", .*"last_event": "run.completed"\}$/);
    const reply = await steer.send('{"input": "one more thing"}');
    assert.equal(reply.status, 200);
    assert.equal(await reply.text(), `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`);
    // The status setter overwrites the terminal status (output and usage kept) and persists it: a status change.
    const running = done.replace('"completed"', '"running"').replace('"run.completed"', '"run.steered"');
    assertJson(await status(h, runId), 200, running);
    // Nothing in the process runs it any more: stop finds no task or agent, steer no agent, the approval no session.
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`), 409,
      std(`Run is not active in this gateway process: ${runId}`, 'run_not_active'));
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input": "again"}' }), 409,
      std(`Run is not currently accepting steer input: ${runId}`, 'run_not_accepting_steer'));
    // The 1-hour sweep drops only completed, failed and cancelled statuses; a restart finds the row's owner gone.
    await h.admin.restart();
    assert.match((await status(h, runId)).text, /"status": "interrupted"/);
  });
});

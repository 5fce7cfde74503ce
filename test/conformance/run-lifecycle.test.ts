// The adversarial run-lifecycle pass (decision 0076): behaviour read line by line in Hermes's runs module at the pin
// side (api_server_runs.py at 4a0f27ab) and its approval wait (tools/approval_gateway_wait.py), over both transports.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { assertJson, status, submit } from '../support/runs.js';
import { waitFor } from '../support/wait.js';

const storePath = () => join(mkdtempSync(join(tmpdir(), 'hermetic-test-')), 'runs_idempotency.db');

describeTransports('run lifecycle: the events route does not hydrate a durable run (decision 0076)', (open) => {
  it('after a restart, /events is 404 without rewriting the run: the first status read stamps `interrupted`', async () => {
    const h = await open({ db: storePath() });
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.restart();
    const events = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(events.status, 404);
    assert.equal(events.body, std(`Run not found: ${runId}`, 'run_not_found'));
    await h.admin.clock({ advance: 5 });
    // Hermes's events handler asks only _request_owns_run (the durable row exists); _durable_run_status, which
    // rewrites a dead owner's run to interrupted with updated_at = now, first runs here, 5 s later.
    const body = `{"created_at": 1789169800.0, "model": "hermes-agent", "object": "hermes.run", "run_id": "${runId}", "session_id": "${runId}", "status": "interrupted", "updated_at": 1789169805.0, "error": "The gateway restarted before this run settled.", "last_event": "run.interrupted"}`;
    assertJson(await status(h, runId), 200, body);
  });
});

describeTransports('run lifecycle: approval.request reaches the queue the run was admitted with (decision 0076)', (open) => {
  it('two subscribers, one leaves: later events are dropped, but approval.request still reaches the one left', async () => {
    const h = await open();
    const runId = await submit(h);
    const a = await h.events(`/v1/runs/${runId}/events`);
    const b = await h.events(`/v1/runs/${runId}/events`);
    a.close();
    // The server notices a's departure on a write to it (a's handler exits and deletes the run's buffer).
    let i = 0;
    await waitFor(async () => {
      await h.admin.event(runId, { event: 'reasoning.available', text: `probe ${i++}` });
      return (await h.admin.run(runId)).buffered_events === null;
    }, 'the server to notice the departure');
    // Hermes's _approval_notify puts on the queue it captured at admission (not gated on _run_streams), so b, still
    // waiting on that queue, gets it; the progress, approval.responded and terminal events look the buffer up, and go.
    await h.admin.approvalRequest(runId, { command: 'rm -rf build', request_id: 'REQ' });
    await b.until((t) => t.includes('"event": "approval.request"'));
    await h.admin.event(runId, { event: 'tool.started', tool: 'marker', preview: null });
    assert.equal((await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' })).status, 200);
    await h.admin.complete(runId, { output: 'Done.' });
    await h.admin.clock({ advance: 30 });
    await b.until((t) => t.endsWith(': keepalive\n\n'));
    assert.ok(!b.text().includes('marker'), b.text());
    assert.ok(!b.text().includes('approval.responded'), b.text());
    assert.ok(!b.text().includes(': stream closed'), b.text());
    b.close();
  });
});

describeTransports('run lifecycle: a stop releases a pending approval at the wait\'s next poll (decision 0076)', (open) => {
  const REQUEST = { command: 'rm -rf build', description: 'recursive delete', request_id: 'REQ' };

  it('an agent that holds the stop: within the first second an answer still resolves (and flips the status to running)', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    await h.admin.approvalRequest(runId, REQUEST);
    assert.equal((await h.request('POST', `/v1/runs/${runId}/stop`)).text, `{"run_id": "${runId}", "status": "stopping"}`);
    await h.admin.clock({ advance: 0.5 });
    const answer = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' });
    assert.equal(answer.text, `{"object": "hermes.run.approval_response", "run_id": "${runId}", "choice": "once", "resolved": 1}`);
    assert.equal((await status(h, runId)).json().status, 'running');
  });

  it('an agent that holds the stop: from the wait\'s next 1 s poll on, the approval is gone (denied) and the run stays stopping', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    await h.admin.approvalRequest(runId, REQUEST);
    await h.admin.clock({ advance: 2.5 });
    await h.request('POST', `/v1/runs/${runId}/stop`);
    // The wait started at T0 and polls is_interrupted() at T0+1, T0+2, T0+3: the stop at T0+2.5 is seen at T0+3.
    await h.admin.clock({ advance: 0.4 });
    assert.equal((await h.admin.run(runId)).pending_approvals.length, 1);
    await h.admin.clock({ advance: 0.1 });
    assert.equal((await h.admin.run(runId)).pending_approvals.length, 0);
    const answer = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' });
    assertJson(answer, 409, std(`Run has no pending approval: ${runId}`, 'approval_not_pending'));
    const after = (await status(h, runId)).json();
    assert.equal(after.status, 'stopping');
    assert.equal(after.last_event, 'run.stopping');
    assert.equal(after.approval, undefined);
  });

  it('a checkpoint taken inside that second restores the pending release at the same poll', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    await h.admin.approvalRequest(runId, REQUEST);
    await h.admin.clock({ advance: 0.5 });
    await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.equal((await h.request('POST', '/__admin/checkpoints', { body: '{}' })).status, 200);
    await h.admin.clock({ advance: 1 });
    assert.equal((await h.admin.run(runId)).pending_approvals.length, 0);
    assert.equal((await h.request('POST', '/__admin/checkpoints/cp_1/restore', { body: '{}' })).status, 200);
    assert.equal((await h.admin.getClock()).now, 1789169800.5);
    assert.deepEqual((await h.admin.run(runId)).pending_approvals, ['REQ']);
    await h.admin.clock({ advance: 0.5 });
    assert.equal((await h.admin.run(runId)).pending_approvals.length, 0);
    assert.equal((await status(h, runId)).json().status, 'stopping');
  });

  it('an approval requested after the stop is released at once (the wait checks the interrupt flag first)', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.stopPolicy(runId, { acknowledge: false });
    await h.request('POST', `/v1/runs/${runId}/stop`);
    await h.admin.approvalRequest(runId, REQUEST);
    // _approval_notify ran: the status parks with its approval, and nothing resets it (spec §7.2).
    const parked = (await status(h, runId)).json();
    assert.equal(parked.status, 'waiting_for_approval');
    assert.equal(parked.approval.request_id, 'REQ');
    const answer = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' });
    assertJson(answer, 409, std(`Run has no pending approval: ${runId}`, 'approval_not_pending'));
  });
});

describeTransports('run lifecycle: a cooperative agent parked on an approval returns only when its wait does (decision 0076)', (open) => {
  const REQUEST = { command: 'rm -rf build', description: 'recursive delete', request_id: 'REQ' };

  it('stopped while parked: stopping until the wait\'s next poll, then run.cancelled', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.approvalRequest(runId, REQUEST);
    await h.request('POST', `/v1/runs/${runId}/stop`);
    await h.admin.clock({ advance: 0.5 });
    assert.equal((await status(h, runId)).json().status, 'stopping');
    await h.admin.clock({ advance: 0.5 });
    await waitFor(async () => (await status(h, runId)).json().status === 'cancelled', 'the run to be cancelled');
    const text = await stream.ended;
    assert.match(text, /^data: \{"command": "rm -rf build", [^\n]*"event": "approval\.request"[^\n]*\n\ndata: \{"event": "run\.cancelled", "run_id": "run_[0-9a-f]{32}", "timestamp": 1789169801\.0\}\n\n: stream closed\n\n$/);
  });

  it('an answer inside that second wakes the wait: approval.responded (status running), then the agent returns cancelled', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, REQUEST);
    await h.request('POST', `/v1/runs/${runId}/stop`);
    const answer = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"deny"}' });
    assert.equal(answer.status, 200);
    await waitFor(async () => (await status(h, runId)).json().status === 'cancelled', 'the run to be cancelled');
    const done = (await status(h, runId)).json();
    assert.equal(done.last_event, 'run.cancelled');
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const text = await stream.ended;
    assert.deepEqual([...text.matchAll(/"event": "([a-z._]+)"/g)].map((m) => m[1]), ['approval.request', 'approval.responded', 'run.cancelled']);
  });
});

describeTransports('run lifecycle: checked and already as Hermes has it (decision 0076)', (open) => {
  it('answering twice: each answer takes the oldest pending request; with none left, 409 approval_not_pending', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, { command: 'a', request_id: 'R1' });
    await h.admin.approvalRequest(runId, { command: 'b', request_id: 'R2' });
    const once = (await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' })).json();
    assert.equal(once.resolved, 1);
    assert.deepEqual((await h.admin.run(runId)).pending_approvals, ['R2']);
    assert.equal((await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' })).status, 200);
    const third = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' });
    assertJson(third, 409, std(`Run has no pending approval: ${runId}`, 'approval_not_pending'));
  });

  it('an unknown choice is refused before the run\'s approval state is looked at (a completed run too)', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.' });
    const reply = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"maybe"}' });
    assertJson(reply, 400, std('Invalid approval choice; expected one of: always, deny, once, session', 'invalid_approval_choice'));
    const late = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' });
    assertJson(late, 409, std(`Run has no active approval session: ${runId}`, 'approval_not_active'));
  });

  it('after a stop is acknowledged, steer and approval find no live run; stop answers the cancelled status', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.request('POST', `/v1/runs/${runId}/stop`);
    await waitFor(async () => (await status(h, runId)).json().status === 'cancelled', 'the run to be cancelled');
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' }), 409, std(`Run is not currently accepting steer input: ${runId}`, 'run_not_accepting_steer'));
    assertJson(await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' }), 409, std(`Run has no active approval session: ${runId}`, 'approval_not_active'));
    const again = await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.equal(again.text, (await status(h, runId)).text);
  });
});

// Spec runs-api §18 vectors 62–69: approvals.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { assertJson, status, submit } from '../support/runs.js';

const REQUEST = { command: 'rm -rf build', pattern_key: 'recursive delete', description: 'recursive delete', request_id: 'REQ' };

describeTransports('vectors 62–69: approval', (open) => {
  it('62: APPROVE resolves the oldest request as once; status back to running; approval.responded streamed', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, REQUEST);
    const parked = (await status(h, runId)).json();
    assert.equal(parked.status, 'waiting_for_approval');
    assert.equal(parked.approval.request_id, 'REQ');
    const reply = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"APPROVE"}' });
    assertJson(reply, 200, `{"object": "hermes.run.approval_response", "run_id": "${runId}", "choice": "once", "resolved": 1}`);
    const after = (await status(h, runId)).json();
    assert.equal(after.status, 'running');
    assert.equal(after.approval, undefined);
    assert.equal(after.last_event, 'approval.responded');
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const text = await stream.until((t) => t.includes('approval.responded'));
    assert.ok(text.endsWith(`data: {"event": "approval.responded", "run_id": "${runId}", "timestamp": 1789169800.0, "choice": "once", "resolved": 1}\n\n`));
  });

  it('63: deny with an exact request_id echoes it', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, REQUEST);
    const reply = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"deny","request_id":"REQ"}' });
    assertJson(reply, 200, `{"object": "hermes.run.approval_response", "run_id": "${runId}", "choice": "deny", "request_id": "REQ", "resolved": 1}`);
  });

  it('64: an unknown choice is 400 invalid_approval_choice', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, REQUEST);
    assertJson(
      await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"maybe"}' }),
      400,
      std('Invalid approval choice; expected one of: always, deny, once, session', 'invalid_approval_choice'),
    );
  });

  it('65: an empty or non-string request_id is 400 invalid_approval_request', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, REQUEST);
    for (const body of ['{"choice":"once","request_id":""}', '{"choice":"once","request_id":5}']) {
      assertJson(await h.request('POST', `/v1/runs/${runId}/approval`, { body }), 400, std('Approval request_id is invalid.', 'invalid_approval_request'));
    }
  });

  it('66: a running run with nothing pending is 409 approval_not_pending', async () => {
    const h = await open();
    const runId = await submit(h);
    assertJson(await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' }), 409, std(`Run has no pending approval: ${runId}`, 'approval_not_pending'));
  });

  it('67: a completed run is 409 approval_not_active', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, {});
    assertJson(await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once"}' }), 409, std(`Run has no active approval session: ${runId}`, 'approval_not_active'));
  });

  it('68: invalid JSON is 400 on a visible run, 404 on an unknown one (visibility first)', async () => {
    const h = await open();
    const runId = await submit(h);
    assertJson(await h.request('POST', `/v1/runs/${runId}/approval`, { body: 'not json' }), 400, std('Invalid JSON'));
    assertJson(await h.request('POST', '/v1/runs/run_nope/approval', { body: 'not json' }), 404, std('Run not found: run_nope', 'run_not_found'));
  });

  it('69: approval.request frames keep the approval subsystem key order, then event, run_id, timestamp, choices', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.approvalRequest(runId, REQUEST);
    await h.admin.approvalRequest(runId, { ...REQUEST, request_id: 'R2', allow_permanent: false });
    await h.admin.approvalRequest(runId, { ...REQUEST, request_id: 'R3', smart_denied: true, allow_permanent: false, allow_session: false });
    const text = await stream.until((t) => t.split('\n\n').length >= 4);
    const frame = (id: string, flags: string, choices: string) =>
      `data: {"command": "rm -rf build", "pattern_key": "recursive delete", "pattern_keys": ["recursive delete"], "description": "recursive delete", ${flags}"request_id": "${id}", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0, "choices": ${choices}}\n\n`;
    assert.equal(
      text,
      frame('REQ', '"allow_permanent": true, "allow_session": true, ', '["once", "session", "always", "deny"]') +
        frame('R2', '"allow_permanent": false, "allow_session": true, ', '["once", "session", "deny"]') +
        frame('R3', '"allow_permanent": false, "allow_session": false, "smart_denied": true, ', '["once", "deny"]'),
    );
    // resolve_all clears every pending request at once.
    const all = await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once","all":"yes"}' });
    assert.equal(all.json().resolved, 3);
  });
});

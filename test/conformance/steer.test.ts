// Spec runs-api §18 vectors 70–76: steer.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { assertJson, assertSecurityHeaders, runningBody, status, submit } from '../support/runs.js';

const usage = '{"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}';

/** The run completed with 'Done.' and `pending` (pending_steer's JSON) last in run.completed, the stream's end, and last in its status. */
async function assertCompletedWith(h: Harness, runId: string, text: string, pending: string): Promise<void> {
  assert.ok(
    text.endsWith(`data: {"event": "run.completed", "run_id": "${runId}", "timestamp": 1789169800.0, "output": "Done.", "usage": ${usage}, "pending_steer": ${pending}}\n\n: stream closed\n\n`),
    text,
  );
  assertJson(
    await status(h, runId),
    200,
    runningBody(runId, `, "last_event": "run.completed", "output": "Done.", "usage": ${usage}, "pending_steer": ${pending}`).replace('"running"', '"completed"'),
  );
}

describeTransports('vectors 70–76: steer', (open) => {
  it('70: steering a running run is accepted and streamed as run.steered (text not echoed)', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"focus on tests"}' }), 200, `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`);
    assert.equal(await stream.until((t) => t.includes('run.steered')), `data: {"event": "run.steered", "run_id": "${runId}", "timestamp": 1789169800.0, "accepted": true}\n\n`);
    assert.equal((await status(h, runId)).json().last_event, 'run.steered');
  });

  it('71: message parts are joined with newlines; text accepted after the last tool boundary comes back as pending_steer', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"message":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}' });
    await h.admin.complete(runId, { output: 'Done.' });
    const body = (await status(h, runId)).json();
    assert.equal(body.pending_steer, 'a\nb');
    // last_event already existed (run.steered), so only output, usage and pending_steer are appended.
    assert.deepEqual(Object.keys(body).slice(-4), ['last_event', 'output', 'usage', 'pending_steer']);
  });

  it('71b: steer text delivered at a tool boundary is not returned as pending_steer', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"text":"use pytest"}' });
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal', preview: 'pytest' });
    await h.admin.complete(runId, { output: 'Done.' });
    assert.equal((await status(h, runId)).json().pending_steer, undefined);
  });

  it('72: an empty or blank steer is 400 invalid_steer_input', async () => {
    const h = await open();
    const runId = await submit(h);
    for (const body of ['{}', '{"input":"   "}']) {
      assertJson(
        await h.request('POST', `/v1/runs/${runId}/steer`, { body }),
        400,
        std("Missing non-empty steer text; expected 'input', 'message', or 'text'.", 'invalid_steer_input'),
      );
    }
  });

  it('73: malformed JSON and non-object bodies have their own messages', async () => {
    const h = await open();
    const runId = await submit(h);
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: 'not json' }), 400, std('Invalid JSON in request body'));
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '[1]' }), 400, std('Request body must be a JSON object'));
  });

  it('74: stopping, parked and completed runs refuse steer before reading the body', async () => {
    const h = await open();
    const parked = await submit(h);
    await h.admin.approvalRequest(parked, { command: 'rm -rf /' });
    const stopping = await submit(h);
    await h.admin.stopPolicy(stopping, { acknowledge: false });
    await h.request('POST', `/v1/runs/${stopping}/stop`);
    const done = await submit(h);
    await h.admin.complete(done, {});
    for (const runId of [parked, stopping, done]) {
      assertJson(
        await h.request('POST', `/v1/runs/${runId}/steer`, { body: 'not json' }),
        409,
        std(`Run is not currently accepting steer input: ${runId}`, 'run_not_accepting_steer'),
      );
    }
  });

  it('75: an agent that declines is 409 steer_not_accepted', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.steerPolicy(runId, { accept: false });
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' }), 409, std(`Run did not accept steer text: ${runId}`, 'steer_not_accepted'));
  });

  it('76: a HermesRoom grant on steer is the API-key 401', async () => {
    const h = await open();
    const runId = await submit(h);
    const reply = await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}', headers: { Authorization: 'HermesRoom some.grant' } });
    assertJson(reply, 401, '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}');
    const status401 = await h.request('GET', `/v1/runs/${runId}`, { headers: { Authorization: 'hermesroom some.grant' } });
    assertJson(status401, 401, std('Room authorization is invalid or expired.', 'invalid_room_grant', 'gateway_auth_error'));
  });

  it('75b: an agent.steer() that raises is 500 steer_failed with the exception text; nothing is recorded', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.deepEqual(await h.admin.steerPolicy(runId, { raise: 'steer queue is closed' }), { run_id: runId, accept: true, raise: 'steer queue is closed' });
    const reply = await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' });
    assertJson(reply, 500, std('steer queue is closed', 'steer_failed'));
    assertSecurityHeaders(reply);
    // Raising wins over a declining policy; an empty exception text is an empty message.
    await h.admin.steerPolicy(runId, { accept: false, raise: '' });
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' }), 500, std('', 'steer_failed'));
    assert.equal((await h.admin.run(runId)).steer_raises, '');
    await h.admin.steerPolicy(runId, { raise: null, accept: true });
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' }), 200, `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`);
    await h.admin.complete(runId, { output: 'Done.' });
    // Only the accepted steer reached the stream.
    const text = await stream.ended;
    assert.equal(text.split('run.steered').length - 1, 1);
    assert.equal((await status(h, runId)).json().pending_steer, 'x');
  });

  it('75c: a steer policy with neither field is refused', async () => {
    const h = await open();
    const runId = await submit(h);
    const reply = await h.request('POST', `/__admin/runs/${runId}/steer-policy`, { body: '{}' });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json(), {
      error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Field "accept" (true or false) or "raise" (a string, or null to stop raising) is required.' },
    });
  });
});

describeTransports('pending_steer on completion (redaction.md §5)', (open) => {
  it('steer texts accepted after the last tool boundary join with newlines, after usage in run.completed and at the end of the status', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', duration: 1 });
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"  first  "}' });
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"text":"second"}' });
    await h.admin.complete(runId, { output: 'Done.' });
    await assertCompletedWith(h, runId, await stream.ended, '"first\\nsecond"');
  });

  it('an explicit pending_steer from the agent result is used as given; with no prior event it lands after last_event', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.', pending_steer: 'replay me' });
    assertJson(
      await status(h, runId),
      200,
      runningBody(runId, `, "output": "Done.", "usage": ${usage}, "last_event": "run.completed", "pending_steer": "replay me"`).replace('"running"', '"completed"'),
    );
  });

  it('an explicit empty or null pending_steer leaves the key out, even with undelivered steer text', async () => {
    const h = await open();
    for (const pending of ['', null]) {
      const runId = await submit(h);
      await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"late"}' });
      await h.admin.complete(runId, { output: 'Done.', pending_steer: pending });
      assertJson(
        await status(h, runId),
        200,
        runningBody(runId, `, "last_event": "run.completed", "output": "Done.", "usage": ${usage}`).replace('"running"', '"completed"'),
      );
    }
  });
});

describeTransports('steer delivered at tool boundaries, approvals included (decision 0029)', (open) => {
  const REQUEST = { command: 'rm -rf build', pattern_key: 'recursive delete', description: 'recursive delete' };

  it('a steer, then two approvals raised from tool calls and resolved, then completion: no pending_steer anywhere', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"focus on tests"}' }), 200, `{"object": "hermes.run.steer", "run_id": "${runId}", "accepted": true}`);
    await h.admin.approvalRequest(runId, { ...REQUEST, request_id: 'REQ1' });
    assertJson(
      await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"once","request_id":"REQ1"}' }),
      200,
      `{"object": "hermes.run.approval_response", "run_id": "${runId}", "choice": "once", "request_id": "REQ1", "resolved": 1}`,
    );
    await h.admin.approvalRequest(runId, { ...REQUEST, request_id: 'REQ2' });
    assertJson(
      await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"deny","all":true}' }),
      200,
      `{"object": "hermes.run.approval_response", "run_id": "${runId}", "choice": "deny", "resolved": 1}`,
    );
    assert.deepEqual((await h.admin.run(runId)).pending_steer, []);
    await h.admin.complete(runId, { output: 'Done.' });
    const request = (id: string) =>
      `data: {"command": "rm -rf build", "pattern_key": "recursive delete", "description": "recursive delete", "request_id": "${id}", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0, "choices": ["once", "session", "always", "deny"]}\n\n`;
    assert.equal(
      await stream.ended,
      `data: {"event": "run.steered", "run_id": "${runId}", "timestamp": 1789169800.0, "accepted": true}\n\n` +
        request('REQ1') +
        `data: {"event": "approval.responded", "run_id": "${runId}", "timestamp": 1789169800.0, "choice": "once", "request_id": "REQ1", "resolved": 1}\n\n` +
        request('REQ2') +
        `data: {"event": "approval.responded", "run_id": "${runId}", "timestamp": 1789169800.0, "choice": "deny", "resolved": 1}\n\n` +
        `data: {"event": "run.completed", "run_id": "${runId}", "timestamp": 1789169800.0, "output": "Done.", "usage": ${usage}}\n\n: stream closed\n\n`,
    );
    assertJson(
      await status(h, runId),
      200,
      runningBody(runId, `, "last_event": "run.completed", "output": "Done.", "usage": ${usage}`).replace('"running"', '"completed"'),
    );
  });

  it('a steer accepted after the last approval was resolved (no boundary after it) is still pending_steer', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"delivered"}' });
    await h.admin.approvalRequest(runId, { ...REQUEST, request_id: 'REQ1' });
    await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice":"session"}' });
    await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"focus on tests"}' });
    assert.deepEqual((await h.admin.run(runId)).pending_steer, ['focus on tests']);
    await h.admin.complete(runId, { output: 'Done.' });
    await assertCompletedWith(h, runId, await stream.ended, '"focus on tests"');
  });
});

// Decision 0096: orderings and texts read in Hermes's own handlers (the pinned runs module and its API server), each
// checked over both transports. Every case names the Hermes function whose order of checks decides it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { assertJson, assertNoSecurityHeaders, assertSecurityHeaders, submit } from '../support/runs.js';

describeTransports('decision 0096: orders of checks read in Hermes source', (open) => {
  it('POST /v1/runs: the Idempotency-Key is refused before a non-object body is touched (_handle_runs)', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '[]', headers: { 'Idempotency-Key': 'a b' } });
    assertJson(reply, 400, std('Idempotency-Key must be 1-255 visible ASCII characters', 'invalid_idempotency_key'));
    assertSecurityHeaders(reply);
    // The session-key header is checked before the body is even parsed.
    const long = await h.request('POST', '/v1/runs', { body: 'not json', headers: { 'X-Hermes-Session-Key': 'k'.repeat(257) } });
    assertJson(long, 400, '{"error": {"message": "Session key too long", "type": "invalid_request_error"}}');
  });

  it('POST /v1/runs: earlier input items that are not objects are skipped, only the last one must be (_handle_runs)', async () => {
    const h = await open();
    await submit(h, '{"input":["junk",7,{"role":"user","content":"hi"}]}');
    assertJson(
      await h.request('POST', '/v1/runs', { body: '{"input":"hi","conversation_history":[7]}' }),
      400,
      std("conversation_history[0] must have 'role' and 'content' fields"),
    );
  });

  it('approval: request_id is checked before choice; str(None) is "none"; aliases before the pending check (_handle_run_approval)', async () => {
    const h = await open();
    const runId = await submit(h);
    const approve = (body: string) => h.request('POST', `/v1/runs/${runId}/approval`, { body });
    assertJson(await approve('{"choice":"bogus","request_id":5}'), 400, std('Approval request_id is invalid.', 'invalid_approval_request'));
    assertJson(await approve('{"choice":"once","request_id":"   "}'), 400, std('Approval request_id is invalid.', 'invalid_approval_request'));
    const invalidChoice = std('Invalid approval choice; expected one of: always, deny, once, session', 'invalid_approval_choice');
    assertJson(await approve('{"choice":null}'), 400, invalidChoice);
    assertJson(await approve('{"choice":true}'), 400, invalidChoice);
    const notPending = std(`Run has no pending approval: ${runId}`, 'approval_not_pending');
    assertJson(await approve('{"choice":" APPROVE ","request_id":null}'), 409, notPending);
  });

  it('steer: the status gate comes before the body; then the strict object reader (_handle_steer_run, _read_json_body)', async () => {
    const h = await open({ agent: { startDelay: 30 } });
    const queued = await submit(h);
    assertJson(
      await h.request('POST', `/v1/runs/${queued}/steer`, { body: 'not json' }),
      409,
      std(`Run is not currently accepting steer input: ${queued}`, 'run_not_accepting_steer'),
    );
    const h2 = await open();
    const running = await submit(h2);
    assertJson(await h2.request('POST', `/v1/runs/${running}/steer`, { body: '[]' }), 400, std('Request body must be a JSON object'));
    assertJson(await h2.request('POST', `/v1/runs/${running}/steer`, { body: '{' }), 400, std('Invalid JSON in request body'));
  });

  it('stop never reads its body; an unknown run is 404 at once on every run route (_handle_stop_run, _request_owns_run)', async () => {
    const h = await open();
    const runId = await submit(h);
    assertJson(await h.request('POST', `/v1/runs/${runId}/stop`, { body: 'not json' }), 200, `{"run_id": "${runId}", "status": "stopping"}`);
    for (const [method, path] of [['GET', '/v1/runs/run_nope'], ['GET', '/v1/runs/run_nope/events'], ['POST', '/v1/runs/run_nope/stop'], ['POST', '/v1/runs/run_nope/steer']] as const) {
      const reply = await h.request(method, path, { body: method === 'POST' ? '{}' : undefined });
      assertJson(reply, 404, std('Run not found: run_nope', 'run_not_found'));
      assertSecurityHeaders(reply);
    }
  });

  it('routes are added with add_route: no implicit HEAD, a wrong method is 405 with Allow, no security headers (connect)', async () => {
    const h = await open();
    const put = await h.request('PUT', '/v1/runs', { body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.text, '405: Method Not Allowed');
    assert.equal(put.headers.allow, 'POST');
    assertNoSecurityHeaders(put);
    const sessions = await h.request('PUT', '/api/sessions', { body: '{}' });
    assert.equal(sessions.status, 405);
    assert.equal(sessions.headers.allow, 'GET,POST');
    const slash = await h.request('GET', '/v1/runs/');
    assert.equal(slash.status, 404);
    assert.equal(slash.text, '404: Not Found');
    assertNoSecurityHeaders(slash);
  });
});

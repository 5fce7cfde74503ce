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

describeTransports('decision 0096: the listener key, not the profile key, where Hermes reads self._api_key', (open) => {
  const alice = { Authorization: 'Bearer alice-key-0123456789abcdef' };

  it('a session key needs the listener key configured, even under a profile with its own key (_parse_session_key_header)', async () => {
    const h = await open({ apiKey: null, profiles: { alice: { apiKey: 'alice-key-0123456789abcdef' } } });
    const needsKey = std('X-Hermes-Session-Key requires API key authentication. Configure API_SERVER_KEY to enable this feature.');
    for (const [path, prefix] of [['/v1/runs', ''], ['/v1/runs', '/p/alice']] as const) {
      const reply = await h.request('POST', `${prefix}${path}`, {
        auth: false,
        headers: { ...(prefix ? alice : {}), 'X-Hermes-Session-Key': 'agent:main' },
        body: '{"input":"hi"}',
      });
      assertJson(reply, 403, needsKey);
    }
    // A whitespace-only header is no session key at all.
    const blank = await h.request('POST', '/p/alice/v1/runs', { auth: false, headers: { ...alice, 'X-Hermes-Session-Key': '   ' }, body: '{"input":"hi"}' });
    assert.equal(blank.status, 202);
    const session = await h.request('POST', '/api/sessions', { auth: false, body: '{"id":"s1"}' });
    assert.equal(session.status, 201);
    const chat = await h.request('POST', '/p/alice/api/sessions/s1/chat', { auth: false, headers: { ...alice, 'X-Hermes-Session-Key': 'agent:main' }, body: '{"message":"hi"}' });
    assertJson(chat, 403, needsKey);
  });

  it('capabilities say auth.required from the listener key (_handle_capabilities)', async () => {
    const h = await open({ apiKey: null, profiles: { alice: { apiKey: 'alice-key-0123456789abcdef' } } });
    const plain = await h.request('GET', '/v1/capabilities', { auth: false });
    assert.equal(JSON.stringify(plain.json().auth), '{"type":"bearer","required":false}');
    const profiled = await h.request('GET', '/p/alice/v1/capabilities', { auth: false, headers: alice });
    assert.equal(JSON.stringify(profiled.json().auth), '{"type":"bearer","required":false}');
    const keyed = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789abcdef' } } });
    const withKey = await keyed.request('GET', '/p/alice/v1/capabilities', { auth: false, headers: alice });
    assert.equal(JSON.stringify(withKey.json().auth), '{"type":"bearer","required":true}');
  });
});

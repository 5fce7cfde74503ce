// Spec runs-api §18 vectors 62–69: approvals.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness, type Reply } from '../support/harness.js';
import { assertJson, runningBody, status, submit } from '../support/runs.js';

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
    const full = (flags: Record<string, unknown>, id: string) => ({
      command: 'rm -rf build', pattern_key: 'recursive delete', pattern_keys: ['recursive delete'], description: 'recursive delete',
      allow_permanent: true, allow_session: true, ...flags, request_id: id,
    });
    await h.admin.approvalRequest(runId, full({}, 'REQ'));
    await h.admin.approvalRequest(runId, full({ allow_permanent: false }, 'R2'));
    await h.admin.approvalRequest(runId, full({ allow_permanent: false, allow_session: false, smart_denied: true }, 'R3'));
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

/** POST a raw approval-request body (exact bytes: key order and Python number types survive). */
async function notify(h: Harness, runId: string, body: string): Promise<{ reply: Reply; requestId: string }> {
  const reply = await h.request('POST', `/__admin/runs/${runId}/approval-request`, { body });
  assert.equal(reply.status, 200, reply.text);
  return { reply, requestId: reply.json().request_id };
}

describeTransports('approval notification dict (decision 0015)', (open) => {
  it('a bare {"command"} gets no defaulted keys: only request_id (32 hex) is added, then the gateway keys', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const { reply, requestId } = await notify(h, runId, '{"command": "rm -rf /"}');
    assert.match(requestId, /^[0-9a-f]{32}$/);
    const dict = `{"command": "rm -rf /", "request_id": "${requestId}", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0, "choices": ["once", "session", "always", "deny"]}`;
    assert.equal(reply.text, dict);
    assert.equal(await stream.until((t) => t.includes('approval.request')), `data: ${dict}\n\n`);
    // The status `approval` is the same dict.
    assertJson(await status(h, runId), 200, runningBody(runId, `, "last_event": "approval.request", "approval": ${dict}`).replace('"status": "running"', '"status": "waiting_for_approval"'));
  });

  it('the given keys keep their order and types; keys the gateway sets keep their position', async () => {
    const h = await open();
    const runId = await submit(h);
    const body = '{"choices": "mine", "description": "d", "allow_session": 1, "allow_permanent": 0, "pattern_keys": [], "extra": {"n": 2.50}, "command": "ls", "request_id": ""}';
    const { reply } = await notify(h, runId, body);
    // allow_session 1 and allow_permanent 0 are not exactly False: all four choices. request_id "" is kept (setdefault).
    assert.equal(
      reply.text,
      `{"choices": ["once", "session", "always", "deny"], "description": "d", "allow_session": 1, "allow_permanent": 0, "pattern_keys": [], "extra": {"n": 2.5}, "command": "ls", "request_id": "", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0}`,
    );
  });

  it('choices: smart_denied truthy or allow_session exactly false → once, deny; allow_permanent exactly false → no always', async () => {
    const h = await open();
    const runId = await submit(h);
    const cases: Array<[string, string]> = [
      ['{"smart_denied": "yes"}', '["once", "deny"]'],
      ['{"smart_denied": 0}', '["once", "session", "always", "deny"]'],
      ['{"allow_session": false}', '["once", "deny"]'],
      ['{"allow_session": null}', '["once", "session", "always", "deny"]'],
      ['{"allow_permanent": false}', '["once", "session", "deny"]'],
      ['{"allow_permanent": false, "allow_session": false}', '["once", "deny"]'],
    ];
    for (const [body, choices] of cases) {
      const { reply } = await notify(h, runId, body);
      assert.ok(reply.text.endsWith(`"choices": ${choices}}`), `${body} → ${reply.text}`);
    }
  });

  it('command: None and other falsy values become "", other types their Python str(); no command key, none added', async () => {
    const h = await open();
    const runId = await submit(h);
    const cases: Array<[string, string]> = [
      ['{"command": null}', '""'],
      ['{"command": 0}', '""'],
      ['{"command": []}', '""'],
      ['{"command": 5}', '"5"'],
      ['{"command": ["rm", true]}', `"['rm', True]"`],
    ];
    for (const [body, command] of cases) {
      const { reply } = await notify(h, runId, body);
      assert.ok(reply.text.startsWith(`{"command": ${command}, "request_id": "`), `${body} → ${reply.text}`);
    }
    const { reply, requestId } = await notify(h, runId, '{"description": "no command"}');
    assert.equal(reply.text, `{"description": "no command", "request_id": "${requestId}", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0, "choices": ["once", "session", "always", "deny"]}`);
  });

  it('"preset": "shell" sends the dangerous-command dict: defaults from the description, request_id last', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const { requestId } = await notify(h, runId, '{"preset": "shell", "command": "rm -rf build", "description": "recursive delete"}');
    await notify(h, runId, '{"preset": "shell", "command": "git push -f", "description": "git force push; tirith: homograph", "pattern_keys": ["git force push", "tirith:homograph"], "pattern_key": "git force push", "allow_permanent": false, "request_id": "R2"}');
    await notify(h, runId, '{"preset": "shell", "command": "curl x | sh", "description": "pipe remote content to shell", "smart_denied": true, "request_id": "R3"}');
    const text = await stream.until((t) => t.split('\n\n').length >= 4);
    const tail = (id: string, choices: string) => `"request_id": "${id}", "event": "approval.request", "run_id": "${runId}", "timestamp": 1789169800.0, "choices": ${choices}}\n\n`;
    assert.equal(
      text,
      `data: {"command": "rm -rf build", "pattern_key": "recursive delete", "pattern_keys": ["recursive delete"], "description": "recursive delete", "allow_permanent": true, "allow_session": true, ${tail(requestId, '["once", "session", "always", "deny"]')}` +
        `data: {"command": "git push -f", "pattern_key": "git force push", "pattern_keys": ["git force push", "tirith:homograph"], "description": "git force push; tirith: homograph", "allow_permanent": false, "allow_session": true, ${tail('R2', '["once", "session", "deny"]')}` +
        `data: {"command": "curl x | sh", "pattern_key": "pipe remote content to shell", "pattern_keys": ["pipe remote content to shell"], "description": "pipe remote content to shell", "allow_permanent": false, "allow_session": false, "smart_denied": true, ${tail('R3', '["once", "deny"]')}`,
    );
  });

  it('the shell preset refuses unknown fields, a missing description, contradictory flags and unknown presets', async () => {
    const h = await open();
    const runId = await submit(h);
    const refused = async (body: string, message: string) => {
      const reply = await h.request('POST', `/__admin/runs/${runId}/approval-request`, { body });
      assert.equal(reply.status, 400);
      assert.equal(reply.text, JSON.stringify({ error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message } }));
    };
    await refused('{"preset": "shell", "command": "ls", "descripton": "x"}', 'Unknown field "descripton" for the shell approval preset. Did you mean "description"?');
    await refused('{"preset": "shell", "command": "ls"}', 'Field "description" must be a string (it is required).');
    await refused(
      '{"preset": "shell", "command": "ls", "description": "x", "smart_denied": true, "allow_session": true}',
      'With "smart_denied": true the approval subsystem sends "allow_permanent": false and "allow_session": false.',
    );
    await refused('{"preset": "mcp", "command": "ls"}', 'Field "preset" must be "shell"; got "mcp". Without "preset" the body is sent as given.');
    assert.equal((await status(h, runId)).json().status, 'running');
  });
});

// Spec runs-api §18 vectors 9–37: submission validation, successful submission and polling.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, RUN_ID, std, type Reply } from '../support/harness.js';
import { assertJson, assertSecurityHeaders, runningBody, status, submit, USAGE_250 } from '../support/runs.js';

const REJECTIONS: Array<[number, string, string]> = [
  [9, 'not json', std('Invalid JSON')],
  [10, '', std('Invalid JSON')],
  [11, '{}', std("Missing 'input' field")],
  [12, '{"input":""}', std("Missing 'input' field")],
  [13, '{"input":[]}', std("Missing 'input' field")],
  [14, '{"input":[{"role":"user","content":""}]}', std('No user message found in input')],
  [15, '{"input":42}', std('No user message found in input')],
  [16, '{"input":{"content":"hi"}}', std('No user message found in input')],
  [17, '{"input":"hi","conversation_history":"nope"}', std("'conversation_history' must be an array of message objects")],
  [18, '{"input":"hi","conversation_history":[{"role":"user","content":"a"},{"role":"assistant"}]}', std("conversation_history[1] must have 'role' and 'content' fields")],
];

describeTransports('vectors 9–22: submission validation', (open) => {
  for (const [n, body, expected] of REJECTIONS) {
    it(`${n}: body ${JSON.stringify(body)} is 400 with Hermes's message`, async () => {
      const h = await open();
      const reply = await h.request('POST', '/v1/runs', { body });
      assertJson(reply, 400, expected);
      assertSecurityHeaders(reply);
      await h.close();
    });
  }

  for (const [n, body] of [
    [19, '{"input":"hi","conversation_history":{}}'],
    [20, '{"input":"   "}'],
    [21, '{"input":[{"role":"assistant","content":"x"}]}'],
  ] as const) {
    it(`${n}: body ${body} is admitted (202)`, async () => {
      const h = await open();
      const reply = await h.request('POST', '/v1/runs', { body });
      assert.equal(reply.status, 202);
      assert.match(reply.json().run_id, RUN_ID);
      await h.close();
    });
  }

  it('22: a session key longer than 256 characters is the two-key 400, checked before the body', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: 'not json', headers: { 'X-Hermes-Session-Key': 'a'.repeat(257) } });
    assertJson(reply, 400, '{"error": {"message": "Session key too long", "type": "invalid_request_error"}}');
    await h.close();
  });
});

describeTransports('vectors 29–37: submission and polling', (open) => {
  it('29: a new run is 202 {"run_id", "status": "started", "replayed": false} without replay or session-key headers', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}' });
    const runId = reply.json().run_id;
    assert.match(runId, RUN_ID);
    assertJson(reply, 202, `{"run_id": "${runId}", "status": "started", "replayed": false}`);
    assert.equal(reply.headers['idempotency-replayed'], undefined);
    assert.equal(reply.headers['x-hermes-session-key'], undefined);
    await h.close();
  });

  it('30: the session key is echoed on the 202', async () => {
    const h = await open();
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'X-Hermes-Session-Key': ' agent:main:webui:dm:user-42 ' } });
    assert.equal(reply.status, 202);
    assert.equal(reply.headers['x-hermes-session-key'], 'agent:main:webui:dm:user-42');
    await h.close();
  });

  it('31: polling right after admission shows the run running, in insertion key order', async () => {
    const h = await open();
    const runId = await submit(h);
    const reply = await status(h, runId);
    assertJson(reply, 200, runningBody(runId));
    assertSecurityHeaders(reply);
    await h.close();
  });

  it('32: session_id comes from the body', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"hi","session_id":"s1"}');
    assertJson(await status(h, runId), 200, runningBody(runId, '', '"s1"'));
    await h.close();
  });

  it('33: model is the body value whenever the key is present, null included', async () => {
    const h = await open();
    const a = await submit(h, '{"input":"hi","model":null}');
    assertJson(await status(h, a), 200, runningBody(a, '', `"${a}"`, 'null'));
    const b = await submit(h, '{"input":"hi","model":"gpt-x"}');
    assertJson(await status(h, b), 200, runningBody(b, '', `"${b}"`, '"gpt-x"'));
    await h.close();
  });

  it('34: a completion without prior events appends output, usage, last_event', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200, total_tokens: 250 } });
    const body = `{"object": "hermes.run", "run_id": "${runId}", "status": "completed", "updated_at": 1789169800.0, "created_at": 1789169800.0, "session_id": "${runId}", "model": "hermes-agent", "output": "Done.", "usage": ${USAGE_250}, "last_event": "run.completed"}`;
    assertJson(await status(h, runId), 200, body);
    await h.close();
  });

  it('35: after a tool event, last_event comes before output and usage', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal', preview: 'ls' });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'terminal', duration: 0.7714, error: false });
    await h.admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200 } });
    const body = `{"object": "hermes.run", "run_id": "${runId}", "status": "completed", "updated_at": 1789169800.0, "created_at": 1789169800.0, "session_id": "${runId}", "model": "hermes-agent", "last_event": "run.completed", "output": "Done.", "usage": ${USAGE_250}}`;
    assertJson(await status(h, runId), 200, body);
    await h.close();
  });

  it('36: a failure records error then last_event, and the stream carries run.failed', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.fail(runId, { error: 'boom' });
    const body = `{"object": "hermes.run", "run_id": "${runId}", "status": "failed", "updated_at": 1789169800.0, "created_at": 1789169800.0, "session_id": "${runId}", "model": "hermes-agent", "error": "boom", "last_event": "run.failed"}`;
    assertJson(await status(h, runId), 200, body);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(
      await stream.ended,
      `data: {"event": "run.failed", "run_id": "${runId}", "timestamp": 1789169800.0, "error": "boom"}\n\n: stream closed\n\n`,
    );
    await h.close();
  });

  it('36b: an empty failure text reads "agent run failed"', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.fail(runId, { error: '' });
    assert.equal((await status(h, runId)).json().error, 'agent run failed');
    await h.close();
  });

  it('37: an unknown run is 404 run_not_found', async () => {
    const h = await open();
    assertJson(await status(h, 'run_doesnotexist'), 404, std('Run not found: run_doesnotexist', 'run_not_found'));
    await h.close();
  });
});

describeTransports("where Hermes raises: aiohttp's 500 page (hermes-api.md, 'Where Hermes answers 500')", (open) => {
  const PAGE = '500 Internal Server Error\n\nServer got itself in trouble';
  const assertPage = (reply: Reply, what: string) => {
    assert.equal(reply.status, 500, what);
    assert.equal(reply.text, PAGE, what);
    assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8', what);
    assert.equal(reply.headers.connection, 'close', what);
    assert.equal(reply.headers['x-frame-options'], undefined, `${what}: no security headers`);
  };

  it('non-object JSON roots, a non-object last input item, and a lone surrogate with an Idempotency-Key', async () => {
    const h = await open();
    for (const body of ['[]', '[1]', '"x"', 'null', '1', 'true', '{"input":[1]}', '{"input":["x"]}', '{"input":[null]}']) {
      assertPage(await h.request('POST', '/v1/runs', { body }), body);
    }
    // With a key the fingerprint comes first, so the surrogate wins even over a missing input; without one, no 500.
    for (const body of ['{"input":"a\\ud800"}', '{"input":"","note":"\\udc00"}']) {
      assertPage(await h.request('POST', '/v1/runs', { body, headers: { 'Idempotency-Key': 'k' } }), body);
    }
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input":"a\\ud800"}' })).status, 202);
    assert.equal((await h.admin.runs()).runs.length, 1, 'nothing admitted by the 500s');
  });

  it('a previous_response_id SQLite cannot bind: an object, a list, an int past 64 bits, a lone surrogate (decision 0113)', async () => {
    const h = await open();
    // Hermes looks the id up in its SQLite response store (`ResponseStore.get`) when no explicit history was given;
    // the sqlite3 module refuses to bind these values, and the handler does not catch it.
    for (const id of ['{"a":1}', '["r"]', '9223372036854775808', '-9223372036854775809', '"resp\\udc00"']) {
      const body = `{"input":"hi","previous_response_id":${id}}`;
      assertPage(await h.request('POST', '/v1/runs', { body }), body);
      // After the body's 400s (input, then explicit history), before the Idempotency-Key lookup.
      assertJson(await h.request('POST', '/v1/runs', { body: `{"previous_response_id":${id}}` }), 400, std("Missing 'input' field"));
      assertJson(
        await h.request('POST', '/v1/runs', { body: `{"input":"hi","conversation_history":[1],"previous_response_id":${id}}` }),
        400,
        std("conversation_history[0] must have 'role' and 'content' fields"),
      );
    }
    // What binds is looked up (and, unknown, ignored); falsy values and explicit history skip the lookup.
    const fine = ['"resp_x"', '9223372036854775807', '1.5', 'true', '{}', '[]', '0', 'null'];
    for (const id of fine) assert.equal((await h.request('POST', '/v1/runs', { body: `{"input":"hi","previous_response_id":${id}}` })).status, 202, id);
    const withHistory = '{"input":"hi","conversation_history":[{"role":"user","content":"a"}],"previous_response_id":{"a":1}}';
    assert.equal((await h.request('POST', '/v1/runs', { body: withHistory })).status, 202, 'explicit history wins');
    // With a key, the 500 comes before the lookup: a replay of the same body is a 500 too, never a 202.
    const keyed = { body: '{"input":"hi","previous_response_id":["r"]}', headers: { 'Idempotency-Key': 'prev-500' } };
    assertPage(await h.request('POST', '/v1/runs', keyed), 'keyed');
    assertPage(await h.request('POST', '/v1/runs', keyed), 'keyed again');
    assert.equal((await h.admin.runs()).runs.length, fine.length + 1, 'nothing admitted by the 500s');
    await h.close();
  });

  it('a non-object approval body on any visible run; an unknown run is its 404 first', async () => {
    const h = await open();
    const runId = await submit(h);
    assertPage(await h.request('POST', `/v1/runs/${runId}/approval`, { body: '[1]' }), 'running');
    await h.admin.approvalRequest(runId, { command: 'x' });
    assertPage(await h.request('POST', `/v1/runs/${runId}/approval`, { body: '"x"' }), 'waiting');
    await h.admin.complete(runId, {});
    assertPage(await h.request('POST', `/v1/runs/${runId}/approval`, { body: 'null' }), 'finished');
    assertJson(await h.request('POST', '/v1/runs/run_nope/approval', { body: '[1]' }), 404, std('Run not found: run_nope', 'run_not_found'));
  });
});

// POST /api/sessions/{id}/chat (the sync turn of `hermes peer dm`) and GET …/messages pagination, over both
// transports: Hermes's order of checks, its error texts, the answer's usage and runtime, the agent ending the turn
// through the control plane or a scenario, and what the messages route shows of it (spec sessions-api §6).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { assertBytes, createSession } from '../support/sessions.js';
import { waitFor } from '../support/wait.js';

const RUNTIME = '{"provider": "", "model": "hermes-agent", "route_source": "global", "requested": {"provider": "", "model": ""}}';

/** The one live run (a chat turn), once the agent has it. */
async function turn(h: Harness): Promise<string> {
  return waitFor(async () => {
    const live = (await h.admin.runs()).runs.filter((r) => r.live);
    return live.length === 1 ? live[0]!.run_id : null;
  }, 'a chat turn');
}

const chatAnswer = (id: string, content: string, usage = '"input_tokens": 0, "output_tokens": 0, "total_tokens": 0', runtime = RUNTIME) =>
  `{"object": "hermes.session.chat.completion", "session_id": "${id}", "message": {"role": "assistant", "content": ${content}}, ` +
  `"usage": {${usage}, "runtime": ${runtime}}, "runtime": ${runtime}}`;

describeTransports('session chat and messages', (open) => {
  it('refusals in Hermes\'s order: 404 before the body, then the body, the message, the system message, the lock', async () => {
    const h = await open();
    const E = std;
    assertBytes(await h.request('POST', '/api/sessions/nope/chat', { body: 'not json' }), 404, E('Session not found: nope', 'session_not_found'));
    const id = await createSession(h, '{}');
    const chat = (body: string) => h.request('POST', `/api/sessions/${id}/chat`, { body });
    assertBytes(await chat('not json'), 400, E('Invalid JSON in request body'));
    assertBytes(await chat('[]'), 400, E('Request body must be a JSON object'));
    for (const body of ['{}', '{"message": "   "}', '{"message": ["text only"]}', '{"message": [{"type": "text", "text": " "}]}', '{"message": 5}']) {
      assertBytes(await chat(body), 400, E("Missing 'message' field", 'missing_message'));
    }
    const param = (message: string, code: string) =>
      `{"error": {"message": ${JSON.stringify(message)}, "type": "invalid_request_error", "param": "message", "code": "${code}"}}`;
    assertBytes(await chat('{"message": [{"type": "text", "text": "hi"}, {"type": "input_file", "file_id": "f"}]}'), 400,
      param('Inline image inputs are supported, but uploaded files and document inputs are not supported on this endpoint.', 'unsupported_content_type'));
    assertBytes(await chat('{"message": [{"type": "image_url", "image_url": {"url": "ftp://x"}}]}'), 400,
      param('Image inputs must use http(s) URLs or data:image/... URLs.', 'invalid_image_url'));
    assertBytes(await chat('{"message": [{"type": "text", "text": "hi"}, {"type": "audio"}]}'), 400,
      param("Unsupported content part type 'audio'. Only text and image_url/input_image parts are supported.", 'unsupported_content_type'));
    assertBytes(await chat('{"message": "hi", "system_message": 5}'), 400, E('system_message must be a string', 'invalid_system_message'));
    assertBytes(await chat('{"message": "hi", "require_model_lock": true}'), 400, E('require_model_lock was set but no model/provider was provided', 'missing_model'));
    // Nothing was played.
    assert.equal((await h.admin.runs()).runs.length, 0);
  });

  it('draining refuses a chat after auth; the session key is checked before the session', async () => {
    const h = await open();
    const id = await createSession(h, '{}');
    await h.admin.gateway({ draining: true });
    const drained = await h.request('POST', `/api/sessions/${id}/chat`, { body: '{"message": "hi"}' });
    assertBytes(drained, 503, std('Gateway is draining existing work; retry shortly.', 'gateway_draining'));
    assert.equal(drained.headers['retry-after'], '1');
    await h.admin.gateway({ draining: false });
    const badKey = await h.request('POST', '/api/sessions/nope/chat', { body: '{}', headers: { 'X-Hermes-Session-Key': 'k'.repeat(257) } });
    assertBytes(badKey, 400, '{"error": {"message": "Session key too long", "type": "invalid_request_error"}}');
  });

  it('the agent\'s reply, usage and runtime; the session key echoed; the turn recorded in the session', async () => {
    const h = await open();
    const id = await createSession(h, '{"id": "dm"}');
    const pending = h.request('POST', '/api/sessions/dm/chat', { body: '{"input": "what is 2+2?"}', headers: { 'X-Hermes-Session-Key': ' team-7 ' } });
    const runId = await turn(h);
    await h.admin.event(runId, { event: 'tool.started', tool: 'calculator', preview: '2+2', arguments: { expr: '2+2' } });
    await h.admin.event(runId, { event: 'tool.completed', tool: 'calculator', duration: 0.1, result: '4' });
    await h.admin.complete(runId, { output: '4', usage: { input_tokens: 10, output_tokens: 1 } });
    const reply = await pending;
    assertBytes(reply, 200, chatAnswer(id, '"4"', '"input_tokens": 10, "output_tokens": 1, "total_tokens": 11'));
    assert.equal(reply.headers['x-hermes-session-id'], 'dm');
    assert.equal(reply.headers['x-hermes-session-key'], 'team-7');
    const session = (await h.request('GET', '/api/sessions/dm')).json().session;
    assert.deepEqual([session.message_count, session.tool_call_count, session.input_tokens, session.output_tokens, session.ended_at], [4, 1, 10, 1, null]);
    const messages = (await h.request('GET', '/api/sessions/dm/messages')).json();
    assert.deepEqual(messages.data.map((m: { role: string }) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(messages.data[1].tool_calls[0].function.arguments, '{"expr":"2+2"}');
    assert.equal(messages.data[2].tool_call_id, messages.data[1].tool_calls[0].id);
  });

  it('on a frozen clock a session\'s messages never go back in time: a run\'s turn, then a chat turn, then a restart', async () => {
    const h = await open({ time: 1_789_169_800, frozen: true });
    await createSession(h, '{"id": "sx"}');
    const run = JSON.parse((await h.request('POST', '/v1/runs', { body: '{"input": "first", "session_id": "sx"}' })).text).run_id as string;
    await h.admin.event(run, { event: 'tool.started', tool: 'ls', preview: 'ls', arguments: {} });
    await h.admin.event(run, { event: 'tool.completed', tool: 'ls', duration: 0.1, result: 'a b' });
    await h.admin.complete(run, { output: 'done' });
    await waitFor(async () => ((await h.request('GET', '/api/sessions/sx')).json().session.message_count === 4 ? true : null), 'the run\'s turn recorded');
    const chat = async (input: string) => {
      const pending = h.request('POST', '/api/sessions/sx/chat', { body: JSON.stringify({ input }) });
      await h.admin.complete(await turn(h), { output: `re: ${input}` });
      assert.equal((await pending).status, 200);
    };
    await chat('second');
    await h.admin.restart();
    await chat('third');
    const messages = (await h.request('GET', '/api/sessions/sx/messages')).json().data as { id: number; timestamp: number }[];
    assert.equal(messages.length, 8);
    for (let i = 1; i < messages.length; i++) assert.ok(messages[i]!.timestamp > messages[i - 1]!.timestamp, `message ${messages[i]!.id} comes after ${messages[i - 1]!.id}`);
    const session = (await h.request('GET', '/api/sessions')).json().data.find((x: { id: string }) => x.id === 'sx');
    assert.equal(session.last_active, messages.at(-1)!.timestamp, 'the list\'s last_active is the newest message');
  });

  it('a model asked for is the one the agent runs; a failed loop answers content null; an exception is the 500 page', async () => {
    const h = await open();
    const id = await createSession(h, '{}');
    const chat = (body: string) => h.request('POST', `/api/sessions/${id}/chat`, { body });
    const routed = chat('{"message": "hi", "model": "openrouter::gpt-x"}');
    await h.admin.complete(await turn(h), { output: 'ok' });
    const lockless = '{"provider": "openrouter", "model": "gpt-x", "route_source": "raw_request", "requested": {"provider": "openrouter", "model": "gpt-x"}}';
    assertBytes(await routed, 200, chatAnswer(id, '"ok"', '"input_tokens": 0, "output_tokens": 0, "total_tokens": 0', lockless));
    // The first turn's agent gave the row (created without a model) its model, as create_session's upsert does
    // (decision 0078): later turns run the session's stored model.
    assert.equal((await h.request('GET', `/api/sessions/${id}`)).json().session.model, 'gpt-x');
    const failed = chat('{"message": "hi"}');
    await h.admin.fail(await turn(h), { error: 'boom' });
    const stored = '{"provider": "", "model": "gpt-x", "route_source": "global", "requested": {"provider": "", "model": ""}}';
    assertBytes(await failed, 200, chatAnswer(id, 'null', undefined, stored));
    const raised = chat('{"message": "hi"}');
    await h.admin.raise(await turn(h), { message: 'kaboom' });
    const page = await raised;
    assert.equal(page.status, 500);
    assert.equal(page.text, '500 Internal Server Error\n\nServer got itself in trouble');
    const auth = chat('{"message": "hi"}');
    await h.admin.raise(await turn(h), { kind: 'provider_auth', message: 'no key' });
    assertBytes(await auth, 200,
      `{"object": "hermes.session.chat.completion", "session_id": "${id}", "message": {"role": "assistant", "content": "\\u26a0\\ufe0f Provider authentication failed: no key"}, ` +
        `"usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}, "runtime": {"provider": "", "model": "", "route_source": "global", "requested": {"provider": "", "model": ""}}}`);
  });

  it('a scenario answers the chat on the namespace\'s clock', async () => {
    const h = await open();
    const id = await createSession(h, '{}');
    await h.admin.scenarios({ scenarios: [{ name: 'pong', match: { input: 'ping' }, steps: [{ at: 2, complete: { output: 'pong', usage: 'from_input' } }] }] });
    const pending = h.request('POST', `/api/sessions/${id}/chat`, { body: '{"message": "ping"}' });
    await turn(h);
    await h.admin.clock({ advance: 2 });
    assertBytes(await pending, 200, chatAnswer(id, '"pong"', '"input_tokens": 1, "output_tokens": 1, "total_tokens": 2'));
  });

  it('messages: latest 500 by default, oldest with a limit, offset, order; bad values are 400 invalid_pagination', async () => {
    const h = await open();
    const id = await createSession(h, '{"id": "p"}');
    for (const text of ['one', 'two', 'three']) {
      const runId = (await h.request('POST', '/v1/runs', { body: JSON.stringify({ input: text, session_id: id }) })).json().run_id;
      await h.admin.complete(runId, { output: `${text}!` });
    }
    const page = async (q: string) => (await h.request('GET', `/api/sessions/p/messages${q}`)).json();
    const contents = (p: { data: Array<{ content: string }> }) => p.data.map((m) => m.content);
    const all = await page('');
    assert.deepEqual(contents(all), ['one', 'one!', 'two', 'two!', 'three', 'three!']);
    assert.deepEqual(all.pagination, { limit: 500, offset: 0, order: 'latest', returned: 6 });
    assert.deepEqual(contents(await page('?limit=2')), ['one', 'one!']);
    assert.deepEqual((await page('?limit=2')).pagination, { limit: 2, offset: 0, order: 'oldest', returned: 2 });
    assert.deepEqual(contents(await page('?limit=2&order=latest')), ['three', 'three!']);
    assert.deepEqual(contents(await page('?limit=2&offset=2&order=latest')), ['two', 'two!']);
    assert.deepEqual(contents(await page('?offset=4')), ['one', 'one!'], 'no limit: the latest page, offset from the end');
    assert.equal((await page('?limit=9999')).pagination.limit, 500);
    const E = std;
    for (const q of ['?order=newest', '?order=']) {
      assertBytes(await h.request('GET', `/api/sessions/p/messages${q}`), 400, E('order must be one of: oldest, latest', 'invalid_pagination'));
    }
    for (const q of ['?limit=-1', '?limit=x', '?offset=-1', '?offset=1.5', '?limit=']) {
      assertBytes(await h.request('GET', `/api/sessions/p/messages${q}`), 400, E('limit and offset must be non-negative integers', 'invalid_pagination'));
    }
    const first = all.data[0];
    assert.deepEqual(Object.keys(first), [
      'id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'token_count',
      'finish_reason', 'reasoning', 'reasoning_content', 'display_kind',
    ]);
    assertBytes(await h.request('GET', '/api/sessions/nope/messages?order=bad'), 404, E('Session not found: nope', 'session_not_found'));
  });
});

// The API server's session routes: every vector of spec sessions-api §10 (1–23) over both transports, exact bytes.
// The peer client's own vectors (24–31) are in peer.test.ts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { API_ID, assertBytes, createSession, L, list, py, S, wrapped } from '../support/sessions.js';

const BOT_CHAT = '{"title": "Bot Chat", "source": "bot_peer_dm"}';
const LOOKUP = '/api/sessions?limit=200&title=Bot+Chat&include_hidden=1';
const E = std;

async function hiddenBotChat(h: Harness): Promise<string> {
  const id = await createSession(h, BOT_CHAT);
  assert.equal((await h.request('PATCH', `/api/sessions/${id}`, { body: '{"hidden": true}' })).status, 200);
  return id;
}

describeTransports('session routes (spec sessions-api §10)', (open) => {
  it('1–2: no key, or a wrong key before an unreadable body, is the three-key 401', async () => {
    const h = await open();
    const auth = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
    assertBytes(await h.request('GET', '/api/sessions', { auth: false }), 401, auth);
    assertBytes(await h.request('POST', '/api/sessions', { body: 'not json', headers: { Authorization: 'Bearer wrong' } }), 401, auth);
    for (const [method, path] of [['GET', '/api/sessions/x'], ['PATCH', '/api/sessions/x'], ['DELETE', '/api/sessions/x'], ['GET', '/api/sessions/x/messages'], ['POST', '/api/sessions/x/chat']]) {
      assertBytes(await h.request(method!, path!, { auth: false, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' }), 401, auth);
    }
    // A HermesRoom grant is no key: these routes take none.
    assertBytes(await h.request('GET', '/api/sessions', { headers: { Authorization: 'HermesRoom abc' } }), 401, auth);
  });

  it('3–4: an empty store lists nothing, with the parsed limit', async () => {
    const h = await open();
    const empty = await h.request('GET', '/api/sessions');
    assertBytes(empty, 200, list([]));
    assert.equal(empty.headers['x-frame-options'], 'DENY');
    assertBytes(await h.request('GET', LOOKUP), 200, list([], 200));
  });

  it('5–7: the peer creates "Bot Chat" (a minted api_ id, source api_server), a second create is refused, the lookup finds it', async () => {
    const h = await open();
    const created = await h.request('POST', '/api/sessions', { body: BOT_CHAT });
    const id = created.json().session.id as string;
    assert.match(id, API_ID);
    assert.ok(id.startsWith('api_1789169800_'));
    assertBytes(created, 201, wrapped(S(id, 'Bot Chat')));
    assertBytes(await h.request('POST', '/api/sessions', { body: BOT_CHAT }), 400, E(`Title already in use by session ${id}`, 'invalid_title'));
    assertBytes(await h.request('GET', '/api/sessions'), 200, list([L(id, 'Bot Chat')]));
    assertBytes(await h.request('GET', LOOKUP), 200, list([L(id, 'Bot Chat')], 200));
    assertBytes(await h.request('GET', '/api/sessions?limit=200&title=Bot%20Chat&include_hidden=1'), 200, list([L(id, 'Bot Chat')], 200));
  });

  it('8: a hidden Bot Chat is listed only by a title lookup with include_hidden', async () => {
    const h = await open();
    const id = await hiddenBotChat(h);
    const hidden = L(id, 'Bot Chat', { hidden: true });
    for (const q of ['', '?title=Bot+Chat', '?include_hidden=1', '?title=Bot+Chat&include_hidden=2']) {
      assertBytes(await h.request('GET', `/api/sessions${q}`), 200, list([]));
    }
    for (const v of ['1', 'true', 'YES', '%20on%20']) {
      assertBytes(await h.request('GET', `/api/sessions?title=Bot+Chat&include_hidden=${v}`), 200, list([hidden]));
    }
  });

  it('9: the title lookup is exact and case-sensitive, although the search under it is a substring', async () => {
    const h = await open();
    for (const title of ['Bot Chat #2', 'bot chat', 'My Bot Chat']) await createSession(h, JSON.stringify({ title }));
    assertBytes(await h.request('GET', LOOKUP), 200, list([], 200));
    assert.equal((await h.request('GET', '/api/sessions')).json().data.length, 3);
  });

  it('10: limit and offset as Python int() reads them, capped; has_more counts the page', async () => {
    const h = await open();
    for (let i = 0; i < 3; i++) await createSession(h, '{}');
    const page = async (q: string) => (await h.request('GET', `/api/sessions${q}`)).json();
    assert.equal((await page('?limit=abc')).limit, 50);
    assert.equal((await page('?limit=-1')).limit, 50);
    assert.equal((await page('?limit=1000')).limit, 200);
    assert.equal((await page('?limit=%207%20')).limit, 7);
    assert.equal((await page('?limit=%2B7')).limit, 7);
    assert.equal((await page('?limit=1_0')).limit, 10);
    assert.equal((await page('?limit=7.5')).limit, 50);
    assert.equal((await page('?limit=')).limit, 50);
    const two = await page('?limit=2');
    assert.deepEqual([two.data.length, two.has_more], [2, true]);
    const zero = await h.request('GET', '/api/sessions?limit=0');
    assert.match(zero.text, /^\{"object": "list", "data": \[\], "limit": 0, "offset": 0, "has_more": true\}$/);
    assert.equal((await page('?offset=-3')).offset, 0);
    const far = await page('?offset=5000000');
    assert.deepEqual([far.offset, far.data], [1_000_000, []]);
    assert.equal((await page('?limit=3')).has_more, true);
    assert.equal((await page('?limit=4')).has_more, false);
  });

  it('11: newest activity first: started_at, then the newest message', async () => {
    const h = await open();
    const a = await createSession(h, '{"id": "A"}');
    await h.admin.clock({ advance: 10 });
    const b = await createSession(h, '{"id": "B"}');
    const ids = async () => (await h.request('GET', '/api/sessions')).json().data.map((s: { id: string }) => s.id);
    assert.deepEqual(await ids(), [b, a]);
    await h.admin.clock({ advance: 10 });
    const runId = await submit(h, '{"input": "hello A", "session_id": "A"}');
    await h.admin.complete(runId, { output: 'hi' });
    assert.deepEqual(await ids(), [a, b]);
    const rows = await h.request('GET', '/api/sessions');
    assert.ok(rows.text.includes(`"parent_session_id": null, "last_active": 1789169820.000001, "preview": "hello A"`), rows.text);
  });

  it('12: an archived row is never listed; an accidentally archived Bot Chat is resurrected by the lookup', async () => {
    const h = await open();
    const kept = await createSession(h, '{"title": "Kept"}');
    await h.request('PATCH', `/api/sessions/${kept}`, { body: '{"archived": true}' });
    for (const q of ['', '?title=Kept', '?title=Kept&include_hidden=1']) {
      assert.deepEqual((await h.request('GET', `/api/sessions${q}`)).json().data, [], q);
    }
    const bot = await createSession(h, BOT_CHAT);
    await h.request('PATCH', `/api/sessions/${bot}`, { body: '{"archived": true, "hidden": true, "end_reason": "ws_orphan_reap"}' });
    // A Bot Chat lookup that finds nothing un-archives it (and clears the accidental end), then lists again: still
    // hidden here, so only the lookup with include_hidden shows it.
    assertBytes(await h.request('GET', '/api/sessions?title=Bot+Chat'), 200, list([]));
    assertBytes(await h.request('GET', LOOKUP), 200, list([L(bot, 'Bot Chat', { hidden: true })], 200));
    assertBytes(await h.request('GET', `/api/sessions/${bot}`), 200, wrapped(S(bot, 'Bot Chat', { hidden: true })));
    // A deliberate archive (no recoverable reason) stays archived.
    await h.request('PATCH', `/api/sessions/${bot}`, { body: '{"archived": true, "end_reason": "user_exit"}' });
    assertBytes(await h.request('GET', LOOKUP), 200, list([], 200));
  });

  it('13: a body that is not JSON, empty, or not an object', async () => {
    const h = await open();
    assertBytes(await h.request('POST', '/api/sessions', { body: 'not json' }), 400, E('Invalid JSON in request body'));
    assertBytes(await h.request('POST', '/api/sessions', { body: '' }), 400, E('Invalid JSON in request body'));
    assertBytes(await h.request('POST', '/api/sessions', { body: '[1, 2]' }), 400, E('Request body must be a JSON object'));
  });

  it('14–15: ids: refused shapes, too long, minted when falsy, explicit, and a second create of one id', async () => {
    const h = await open();
    for (const body of ['{"id": "../x"}', '{"id": "a/b"}', '{"id": "C:x"}', '{"id": "a\\nb"}', '{"id": "a\\\\b"}', '{"session_id": " \\u00e9:x"}']) {
      assertBytes(await h.request('POST', '/api/sessions', { body }), 400, E('Invalid session ID', 'invalid_session_id'));
    }
    assertBytes(await h.request('POST', '/api/sessions', { body: JSON.stringify({ id: 'a'.repeat(257) }) }), 400, E('Session ID too long', 'invalid_session_id'));
    assert.equal((await h.request('POST', '/api/sessions', { body: JSON.stringify({ id: 'a'.repeat(256) }) })).status, 201);
    for (const body of ['{"id": ""}', '{"id": 0}', '{"id": null, "session_id": false}']) {
      assert.match(await createSession(h, body), API_ID);
    }
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "my-session"}' }), 201, wrapped(S('my-session', null)));
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "my-session"}' }), 409, E('Session already exists: my-session', 'session_exists'));
    // `session_id` when `id` is falsy; str() and strip of what is given.
    assert.equal(await createSession(h, '{"session_id": "  other  "}'), 'other');
    assert.equal(await createSession(h, '{"id": 42}'), '42');
  });

  it('16: source: the allow-list, browser as hermes_browser, anything else api_server', async () => {
    const h = await open();
    const source = async (body: string) => (await h.request('POST', '/api/sessions', { body })).json().session;
    const plain = await source('{}');
    assert.deepEqual([plain.source, plain.title, plain.model], ['api_server', null, null]);
    assert.equal((await source('{"source": " Browser "}')).source, 'hermes_browser');
    assert.equal((await source('{"source": "telegram"}')).source, 'telegram');
    assert.equal((await source('{"source": "bot_peer_dm"}')).source, 'api_server');
    assert.equal((await source('{"source": 7}')).source, 'api_server');
  });

  it('17: system_prompt must be a string; its presence shows as has_system_prompt', async () => {
    const h = await open();
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"system_prompt": 5}' }), 400, E('system_prompt must be a string', 'invalid_system_prompt'));
    const reply = await h.request('POST', '/api/sessions', { body: '{"id": "sp", "system_prompt": "be terse"}' });
    assertBytes(reply, 201, wrapped(S('sp', null, { has_system_prompt: true })));
  });

  it('18: titles are sanitized; blank is none; a title too long is aiohttp\'s 500 page', async () => {
    const h = await open();
    const title = async (t: string) => (await h.request('POST', '/api/sessions', { body: `{"title": ${t}}` })).json().session.title;
    assert.equal(await title('"   "'), null);
    assert.equal(await title('"  a \\t b "'), 'a b');
    assert.equal(await title('42'), '42');
    assert.equal(await title('"x\\u200by\\u0000z"'), 'xyz');
    assert.equal(await title('true'), 'True');
    const long = await h.request('POST', '/api/sessions', { body: JSON.stringify({ title: 'x'.repeat(101) }) });
    assert.equal(long.status, 500);
    assert.equal(long.text, '500 Internal Server Error\n\nServer got itself in trouble');
    assert.equal((await h.request('GET', '/api/sessions')).json().data.length, 5, 'nothing of the failed create is kept');
  });

  it('19: the advertised model name is no model; another model is stored with a lock config', async () => {
    const h = await open();
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "m1", "model": "hermes-agent"}' }), 201, wrapped(S('m1', null)));
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "m2", "model": "gpt-x"}' }), 201, wrapped(S('m2', null, { model: 'gpt-x', has_model_config: true })));
    assertBytes(
      await h.request('POST', '/api/sessions', { body: '{"require_model_lock": true}' }),
      400,
      E('require_model_lock was set but no model/provider was provided', 'missing_model'),
    );
  });

  it('20: get one: 404 with the id, else the 24-key object', async () => {
    const h = await open();
    assertBytes(await h.request('GET', '/api/sessions/nope'), 404, E('Session not found: nope', 'session_not_found'));
    const id = await createSession(h, BOT_CHAT);
    assertBytes(await h.request('GET', `/api/sessions/${id}`), 200, wrapped(S(id, 'Bot Chat')));
  });

  it('21: PATCH: unknown fields sorted, flags must be booleans, hidden keeps the lookup finding it', async () => {
    const h = await open();
    const id = await createSession(h, BOT_CHAT);
    assertBytes(await h.request('PATCH', '/api/sessions/nope', { body: 'not json' }), 404, E('Session not found: nope', 'session_not_found'));
    assertBytes(await h.request('PATCH', `/api/sessions/${id}`, { body: '{"color": "red", "a": 1}' }), 400, E('Unsupported session fields: a, color', 'unsupported_session_field'));
    assertBytes(await h.request('PATCH', `/api/sessions/${id}`, { body: '{"hidden": "yes"}' }), 400, E("'hidden' must be a boolean", 'invalid_session_field'));
    assertBytes(await h.request('PATCH', `/api/sessions/${id}`, { body: '{"hidden": true}' }), 200, wrapped(S(id, 'Bot Chat', { hidden: true })));
    assertBytes(await h.request('GET', LOOKUP), 200, list([L(id, 'Bot Chat', { hidden: true })], 200));
    assertBytes(await h.request('GET', '/api/sessions'), 200, list([]));
    // Titles: renamed, collisions and length refused with SessionDB's texts, cleared with null.
    const other = await createSession(h, '{"title": "Other"}');
    assertBytes(await h.request('PATCH', `/api/sessions/${other}`, { body: '{"title": "Bot Chat"}' }), 400, E(`Title 'Bot Chat' is already in use by session ${id}`, 'invalid_title'));
    assertBytes(await h.request('PATCH', `/api/sessions/${other}`, { body: JSON.stringify({ title: 'y'.repeat(120) }) }), 400, E('Title too long (120 chars, max 100)', 'invalid_title'));
    assert.equal((await h.request('PATCH', `/api/sessions/${other}`, { body: '{"title": null, "pinned": true, "unread": true}' })).json().session.title, null);
    await h.admin.clock({ advance: 5 });
    const ended = await h.request('PATCH', `/api/sessions/${other}`, { body: '{"end_reason": "done"}' });
    assertBytes(ended, 200, wrapped(S(other, null, { pinned: true, ended_at: py('1789169805.0'), end_reason: 'done' })));
    // The first end reason wins.
    assert.equal((await h.request('PATCH', `/api/sessions/${other}`, { body: '{"end_reason": "later"}' })).json().session.end_reason, 'done');
  });

  it('22: delete answers the id and true; the session is gone', async () => {
    const h = await open();
    const id = await createSession(h, BOT_CHAT);
    assertBytes(await h.request('DELETE', `/api/sessions/${id}`), 200, `{"object": "hermes.session.deleted", "id": "${id}", "deleted": true}`);
    assertBytes(await h.request('GET', `/api/sessions/${id}`), 404, E(`Session not found: ${id}`, 'session_not_found'));
    assertBytes(await h.request('DELETE', `/api/sessions/${id}`), 404, E(`Session not found: ${id}`, 'session_not_found'));
    // The title is free again.
    assert.equal((await h.request('POST', '/api/sessions', { body: BOT_CHAT })).status, 201);
  });

  it('23: profiles: an unknown one is 404, a configured one has its own sessions and key', async () => {
    const h = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789' } } });
    assertBytes(await h.request('GET', '/p/ghost/api/sessions'), 404, '{"error": "Unknown or unconfigured profile"}');
    const alice = { Authorization: 'Bearer alice-key-0123456789' };
    const mine = await createSession(h, BOT_CHAT);
    assertBytes(await h.request('GET', '/p/alice/api/sessions', { headers: alice }), 200, list([]));
    const hers = await createSession(h, BOT_CHAT, '/p/alice/api/sessions', alice);
    assert.notEqual(hers, mine);
    assertBytes(await h.request('GET', '/p/alice/api/sessions', { headers: alice }), 200, list([L(hers, 'Bot Chat')]));
    assertBytes(await h.request('GET', '/api/sessions'), 200, list([L(mine, 'Bot Chat')]));
    assertBytes(await h.request('GET', `/p/alice/api/sessions/${mine}`, { headers: alice }), 404, E(`Session not found: ${mine}`, 'session_not_found'));
    assert.equal((await h.request('GET', '/p/alice/api/sessions')).status, 401, 'the listener key is not alice\'s');
    // /p/default/ is the unprefixed gateway.
    assertBytes(await h.request('GET', '/p/default/api/sessions'), 200, list([L(mine, 'Bot Chat')]));
  });

  it('a method the path does not have is aiohttp\'s 405 with Allow; capabilities list the session endpoints', async () => {
    const h = await open();
    const put = await h.request('PUT', '/api/sessions');
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'GET,POST');
    assert.equal((await h.request('POST', '/api/sessions/x/messages', { body: '{}' })).headers.allow, 'GET');
    const caps = (await h.request('GET', '/v1/capabilities')).json();
    assert.deepEqual(caps.endpoints.session_chat, { method: 'POST', path: '/api/sessions/{session_id}/chat' });
    assert.equal(caps.features.session_resources, true);
    // The routes Hermes has that are not emulated say so.
    // fork, the model lock and the chat stream are served (decisions 0141, 0142, 0145: session-fork.test.ts,
    // session-model-lock.test.ts, session-chat-stream.test.ts); an unknown session is Hermes's 404.
    for (const path of ['/api/sessions/x/fork', '/api/sessions/x/model', '/api/sessions/x/chat/stream']) {
      assert.equal((await h.request('POST', path, { body: '{}' })).json().error.code, 'session_not_found', path);
    }
  });

  it('the chat stream checks the key first: Hermes\'s 401, the profile\'s own key; routes not emulated then say 501', async () => {
    const auth = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
    const alice = { Authorization: 'Bearer alice-key-0123456789' };
    const h = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789' } } });
    const notEmulated = async (reply: { status: number; json(): any }, what: string) => {
      assert.equal(reply.status, 501, what);
      assert.equal(reply.json().error.code, 'HERMETIC_UNSUPPORTED_ROUTE', what);
    };
    const missing = (reply: { status: number; json(): any }, what: string) => {
      assert.equal(reply.status, 404, what);
      assert.equal(reply.json().error.code, 'session_not_found', what);
    };
    for (const path of ['/api/sessions/s2/chat/stream']) {
      // spec sessions-api §2: the key check comes before anything else the handler does.
      assertBytes(await h.request('POST', path, { auth: false, body: '{}' }), 401, auth);
      assertBytes(await h.request('POST', path, { auth: false }), 401, auth);
      assertBytes(await h.request('POST', path, { body: 'not json', headers: { Authorization: 'Bearer wrong' } }), 401, auth);
      assertBytes(await h.request('POST', path, { headers: { Authorization: 'HermesRoom abc' }, body: '{}' }), 401, auth);
      // A namespace not created yet refuses at the front door with the same bytes, and is not created by it.
      assertBytes(await h.request('POST', `/ns/unseen${path}`, { auth: false, body: '{}' }), 401, auth);
      // The profile's own key, not the listener's.
      assertBytes(await h.request('POST', `/p/alice${path}`, { body: '{}' }), 401, auth);
      missing(await h.request('POST', `/p/alice${path}`, { headers: alice, body: '{}' }), `alice ${path}`);
      // The right key: the route is served (decision 0145), and the session is unknown.
      missing(await h.request('POST', path, { body: '{}' }), path);
    }
    assert.ok(!(await h.admin.namespaces()).namespaces.some((n) => n.name === 'unseen'), 'a refused request creates no namespace');
    // Routes outside /api/sessions that Hermes guards with the key refuse the same way (decision 0049).
    assertBytes(await h.request('GET', '/v1/models', { auth: false }), 401, auth);
    await notEmulated(await h.request('GET', '/v1/models'), '/v1/models');
  });

  it('without any API key configured, the chat stream and the model lock reach the session', async () => {
    const h = await open({ apiKey: null });
    // Both are served (decisions 0142, 0145): with no key configured they reach the session.
    for (const path of ['/api/sessions/s2/chat/stream', '/api/sessions/s2/model']) {
      const reply = await h.request('POST', path, { auth: false, body: '{}' });
      assert.equal(reply.json().error.code, 'session_not_found', path);
    }
  });

  it('pinned sessions outside the window are appended and do not count towards has_more', async () => {
    const h = await open();
    const old = await createSession(h, '{"id": "old"}');
    await h.request('PATCH', `/api/sessions/${old}`, { body: '{"pinned": true}' });
    for (let i = 1; i <= 2; i++) {
      await h.admin.clock({ advance: 1 });
      await createSession(h, `{"id": "new${i}"}`);
    }
    const page = (await h.request('GET', '/api/sessions?limit=1')).json();
    assert.deepEqual(page.data.map((s: { id: string }) => s.id), ['new2', 'old']);
    assert.equal(page.has_more, true);
    const all = (await h.request('GET', '/api/sessions?limit=3')).json();
    assert.deepEqual(all.data.map((s: { id: string }) => s.id), ['new2', 'new1', 'old']);
    assert.equal(all.has_more, false, 'the pinned row inside the window does not count either');
  });
});

// Decision 0118: what running Hermes's own session handlers beside the emulator found — a str Python's sqlite3 cannot
// bind (a lone surrogate) raises where Hermes binds it, a query value's %EF%BB%BF is U+FEFF, and a chat confirming a
// model lock rewrites the row's model and system prompt. Over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { assertBytes, chatReply, createSession } from '../support/sessions.js';

const ABORT = '500 Internal Server Error\n\nServer got itself in trouble';


const chatTurn = async (h: Harness, id: string, body: string): Promise<number> => (await chatReply(h, id, body)).status;

describeTransports('session routes beside Hermes (decision 0118)', (open) => {
  it('create: an id, system_prompt or model holding a lone surrogate is the 500 page at the bind, nothing written; the 400s and 409 come first', async () => {
    const h = await open();
    const post = (body: string) => h.request('POST', '/api/sessions', { body });
    for (const body of [
      '{"id": "\\ud800"}',
      '{"session_id": "x\\udfff"}',
      '{"id": "s1", "system_prompt": "\\ud800"}',
      '{"id": "s2", "model": "m\\ud800"}',
      '{"id": "s3", "model": "\\udc00", "provider": "p", "title": "T"}',
    ]) {
      const reply = await post(body);
      assert.equal(reply.status, 500, body);
      assert.equal(reply.text, ABORT, body);
    }
    // The transaction rolled back: no row, and the title is free.
    assertBytes(await h.request('GET', '/api/sessions/s3'), 404, std('Session not found: s3', 'session_not_found'));
    assert.equal((await post('{"id": "t", "title": "T"}')).status, 201);
    // Hermes's earlier answers win: the system_prompt type, the model lock, an id already there (the INSERT never runs).
    assertBytes(await post('{"id": "\\ud800", "system_prompt": 5}'), 400, std('system_prompt must be a string', 'invalid_system_prompt'));
    assertBytes(await post('{"id": "\\ud800", "require_model_lock": true}'), 400,
      std('require_model_lock was set but no model/provider was provided', 'missing_model'));
    assertBytes(await post('{"id": "t", "system_prompt": "\\ud800"}'), 409, std('Session already exists: t', 'session_exists'));
    // What Hermes does not bind as given: a title (sanitize_title scrubs it), a provider (json.dumps escapes it in model_config).
    const titled = (await post('{"id": "u", "title": "a\\ud800"}')).json().session;
    assert.equal(titled.title, 'a\ufffd');
    assert.equal((await post('{"id": "v", "provider": "\\ud800"}')).status, 201);
    assert.deepEqual((await h.request('GET', '/api/sessions')).json().data.map((r: { id: string }) => r.id).sort(), ['t', 'u', 'v']);
  });

  it('PATCH: an end_reason holding a lone surrogate is the 500 page after the title and flags are committed', async () => {
    const h = await open();
    await createSession(h, '{"id": "p"}');
    const reply = await h.request('PATCH', '/api/sessions/p', { body: '{"title": "New", "pinned": true, "hidden": true, "end_reason": "\\ud800"}' });
    assert.equal(reply.status, 500);
    assert.equal(reply.text, ABORT);
    const row = (await h.request('GET', '/api/sessions/p')).json().session;
    assert.deepEqual([row.title, row.pinned, row.hidden, row.ended_at, row.end_reason], ['New', true, true, null, null]);
    // str() of a dict escapes the surrogate (repr): that binds, and ends the session.
    const ended = (await h.request('PATCH', '/api/sessions/p', { body: '{"end_reason": {"k": "\\ud800"}}' })).json().session;
    assert.equal(ended.end_reason, "{'k': '\\ud800'}");
    // A title conflict is still the 400, before anything is written.
    await createSession(h, '{"id": "q", "title": "Taken"}');
    assertBytes(await h.request('PATCH', '/api/sessions/p', { body: '{"title": "Taken", "end_reason": "\\ud800"}' }), 400,
      std("Title 'Taken' is already in use by session q", 'invalid_title'));
  });

  it('a %EF%BB%BF in a query value is the character U+FEFF (urllib unquote), not a byte-order mark to drop', async () => {
    const h = await open();
    await createSession(h, '{"id": "b", "title": "Bot Chat"}');
    const titles = async (q: string) => (await h.request('GET', `/api/sessions?${q}`)).json().data.map((r: { id: string }) => r.id);
    assert.deepEqual(await titles('title=Bot+Chat'), ['b']);
    // str.strip() keeps U+FEFF, so the exact title never matches.
    assert.deepEqual(await titles('title=%EF%BB%BFBot+Chat'), []);
    // int('\ufeff5') is a ValueError: the default.
    assert.equal((await h.request('GET', '/api/sessions?limit=%EF%BB%BF5')).json().limit, 50);
    assertBytes(await h.request('GET', '/api/sessions/b/messages?order=%EF%BB%BFoldest'), 400,
      std('order must be one of: oldest, latest', 'invalid_pagination'));
  });

  it('a chat that confirms a model lock gives the row the lock\'s model and clears its system prompt (update_session_runtime_lock)', async () => {
    const h = await open();
    await createSession(h, '{"id": "d", "system_prompt": "be terse", "model": "orig"}');
    const before = (await h.request('GET', '/api/sessions/d')).json().session;
    assert.deepEqual([before.model, before.has_system_prompt, before.has_model_config], ['orig', true, true]);
    assert.equal(await chatTurn(h, 'd', '{"message": "hi", "require_model_lock": true, "model": "openrouter::m2"}'), 200);
    const after = (await h.request('GET', '/api/sessions/d')).json().session;
    assert.deepEqual([after.model, after.has_system_prompt, after.has_model_config], ['m2', false, true]);
    // A lock whose model sqlite3 cannot bind fails its write: the handler's 500, no turn, the row as it was.
    await createSession(h, '{"id": "s", "system_prompt": "sp"}');
    assertBytes(await chatReply(h, 's', '{"message": "hi", "require_model_lock": true, "model": "m\\ud800"}'), 500,
      std('Could not persist the requested session model lock', 'model_lock_persistence_failed'));
    const kept = (await h.request('GET', '/api/sessions/s')).json().session;
    assert.deepEqual([kept.has_system_prompt, kept.has_model_config, kept.message_count], [true, false, 0]);
    // A lock the row already holds is not written again; a turn without a lock changes neither.
    await createSession(h, '{"id": "e", "system_prompt": "keep me"}');
    assert.equal(await chatTurn(h, 'e', '{"message": "hi", "model": "gpt-x"}'), 200);
    assert.equal((await h.request('GET', '/api/sessions/e')).json().session.has_system_prompt, true);
  });
});

// POST /api/sessions/{id}/model (the Browser model lock) as Hermes's _handle_session_model_lock does it (decision
// 0142), over both transports: the lock's answer, the row it leaves (as a chat's confirmed lock leaves it), the chats
// that then run under it, _runtime_lock_error's refusals, the key, the session, the body, profiles and --state-db.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { describeTransports, std, type Harness, type Reply } from '../support/harness.js';
import { assertBytes, chatReply, createSession, S, wrapped } from '../support/sessions.js';

const AUTH = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
const ALICE = { Authorization: 'Bearer alice-key-0123456789' };
const MISSING = std('require_model_lock was set but no model/provider was provided', 'missing_model');
const UNROUTABLE = std('Requested Browser model lock cannot be routed; refusing silent global fallback', 'model_lock_unavailable');
const NOT_SAVED = std('Could not persist the requested session model lock', 'model_lock_persistence_failed');

const lock = (h: Harness, id: string, body: string, path = '') =>
  h.request('POST', `${path}/api/sessions/${id}/model`, { body, headers: path ? ALICE : {} });

/** The answer's bytes: `_sanitize_runtime_metadata` of the accepted lock. */
const accepted = (id: string, provider: string, model: string) =>
  `{"object": "hermes.session.model_lock", "session_id": "${id}", "runtime": {"provider": "${provider}", "model": "${model}", ` +
  `"route_source": "raw_request", "requested": {"provider": "${provider}", "model": "${model}"}, "model_lock": "accepted"}}`;


const chatRuntime = (reply: Reply) => JSON.stringify(reply.json().runtime);

describeTransports('session model lock (decision 0142)', (open) => {
  it('a lock accepted: 200 with its runtime; the row takes its model, loses its prompt, holds the lock; chats run under it', async () => {
    const h = await open();
    await createSession(h, '{"id": "s", "system_prompt": "be terse", "model": "orig"}');
    assertBytes(await lock(h, 's', '{"model": "openrouter::m2", "require_model_lock": false}'), 200, accepted('s', 'openrouter', 'm2'));
    // GET shows it as a chat's confirmed lock leaves the row (update_session_runtime_lock).
    assertBytes(await h.request('GET', '/api/sessions/s'), 200, wrapped(S('s', null, { model: 'm2', has_model_config: true })));
    // A chat without a model runs under the stored lock; one that names a model runs that model, the lock kept.
    const under = await chatReply(h, 's', '{"message": "hi"}');
    assert.equal(under.status, 200, under.text);
    assert.equal(chatRuntime(under), JSON.stringify({ provider: 'openrouter', model: 'm2', route_source: 'session_model_lock', requested: { provider: 'openrouter', model: 'm2' }, model_lock: 'confirmed' }));
    const other = await chatReply(h, 's', '{"message": "hi", "model": "gpt-x"}');
    assert.equal(chatRuntime(other), JSON.stringify({ provider: '', model: 'gpt-x', route_source: 'raw_request', requested: { provider: '', model: 'gpt-x' } }));
    assert.equal(JSON.parse(chatRuntime(await chatReply(h, 's', '{"message": "again"}'))).route_source, 'session_model_lock');
    // A second lock replaces the first: `model_id` and `provider_id`, stripped.
    assertBytes(await lock(h, 's', '{"model_id": " gpt-5 ", "provider_id": "openai"}'), 200, accepted('s', 'openai', 'gpt-5'));
    assert.equal(JSON.parse(chatRuntime(await chatReply(h, 's', '{"message": "hi"}'))).model, 'gpt-5');
    // A model alone: no provider. A session without a prompt or model takes the lock the same way.
    await createSession(h, '{"id": "bare"}');
    assertBytes(await lock(h, 'bare', '{"model": "llama", "model_options": {"fast": true}}'), 200, accepted('bare', '', 'llama'));
    assertBytes(await h.request('GET', '/api/sessions/bare'), 200, wrapped(S('bare', null, { model: 'llama', has_model_config: true })));
  });

  it('_runtime_lock_error: no model or provider is the 400, a provider alone the 409; a model sqlite3 cannot bind the 500', async () => {
    const h = await open();
    await createSession(h, '{"id": "s", "system_prompt": "sp"}');
    for (const body of ['{}', '{"model": "   "}', '{"model": "hermes-agent"}', `{"model": "${'m'.repeat(201)}"}`, '{"model": "a\\nb"}', '{"provider": null}']) {
      assertBytes(await lock(h, 's', body), 400, MISSING);
    }
    for (const body of ['{"provider": "openrouter"}', '{"model": "hermes-agent", "provider": "openrouter"}', '{"provider_id": "x", "model": ""}']) {
      assertBytes(await lock(h, 's', body), 409, UNROUTABLE);
    }
    assertBytes(await lock(h, 's', '{"model": "m\\ud800"}'), 500, NOT_SAVED);
    // Nothing was written by a refusal.
    assertBytes(await h.request('GET', '/api/sessions/s'), 200, wrapped(S('s', null, { has_system_prompt: true })));
  });

  it('401 before anything; 404 for an unknown session before the body; the body\'s 400s; draining does not refuse it', async () => {
    const h = await open();
    assertBytes(await h.request('POST', '/api/sessions/s/model', { auth: false, body: 'not json' }), 401, AUTH);
    assertBytes(await h.request('POST', '/api/sessions/s/model', { headers: { Authorization: 'HermesRoom abc' }, body: '{}' }), 401, AUTH);
    assertBytes(await h.request('POST', '/ns/unseen/api/sessions/s/model', { auth: false, body: '{}' }), 401, AUTH);
    assertBytes(await lock(h, 'nope', 'not json'), 404, std('Session not found: nope', 'session_not_found'));
    await createSession(h, '{"id": "s"}');
    assertBytes(await lock(h, 's', 'not json'), 400, std('Invalid JSON in request body'));
    assertBytes(await lock(h, 's', '[]'), 400, std('Request body must be a JSON object'));
    assertBytes(await lock(h, 's', ''), 400, std('Invalid JSON in request body'));
    await h.admin.gateway({ draining: true });
    assertBytes(await lock(h, 's', '{"model": "m"}'), 200, accepted('s', '', 'm'));
    await h.admin.gateway({ draining: false });
    // The journal names the operation.
    const ops = (await h.admin.requests({ operation: 'session_model_lock' })).requests.map((r) => r.status);
    assert.deepEqual(ops, [401, 401, 404, 400, 400, 400, 200]);
  });

  it('under /p/alice/ the lock reads and writes alice\'s sessions only, with alice\'s key', async () => {
    const h = await open({ profiles: { alice: { apiKey: ALICE.Authorization.slice(7) } } });
    await createSession(h, '{"id": "s", "model": "mine"}');
    assertBytes(await h.request('POST', '/p/alice/api/sessions/s/model', { body: '{"model": "m"}' }), 401, AUTH);
    assertBytes(await lock(h, 's', '{"model": "m"}', '/p/alice'), 404, std('Session not found: s', 'session_not_found'));
    await createSession(h, '{"id": "s", "model": "hers"}', '/p/alice/api/sessions', ALICE);
    // A one-letter prefix is no provider (_split_provider_prefixed_model wants 2–64 of [a-zA-Z0-9_.-]).
    assertBytes(await lock(h, 's', '{"model": "p::m"}', '/p/alice'), 200, accepted('s', '', 'p::m'));
    assertBytes(await lock(h, 's', '{"model": "pp::m"}', '/p/alice'), 200, accepted('s', 'pp', 'm'));
    assert.equal((await h.request('GET', '/p/alice/api/sessions/s', { headers: ALICE })).json().session.model, 'm');
    assert.equal((await h.request('GET', '/api/sessions/s')).json().session.model, 'mine');
  });

  it('--state-db: the row as update_session_runtime_lock writes it (the lock in model_config, the model, no prompt)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-lock-')), 'state.db');
    const h = await open({ stateDb: path });
    await createSession(h, '{"id": "s", "system_prompt": "Be brief.", "model": "orig"}');
    assert.equal((await lock(h, 's', '{"model": "openrouter::m2", "model_options": {"reasoning": {"effort": "high"}}}')).status, 200);
    await createSession(h, '{"id": "t"}');
    assert.equal((await lock(h, 't', '{"provider": "x"}')).status, 409);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT id, model, model_config, system_prompt, system_prompt_hash FROM sessions ORDER BY id').all();
      assert.deepEqual(rows, [
        {
          id: 's', model: 'm2', system_prompt: null, system_prompt_hash: null,
          model_config: '{"browser_model_lock": {"provider": "openrouter", "model": "m2", "model_options": {"reasoning": {"effort": "high"}}, "route_source": "raw_request", "confirmed": true, "updated_at": 1789169800.0}}',
        },
        { id: 't', model: null, model_config: null, system_prompt: null, system_prompt_hash: null },
      ]);
    } finally {
      db.close();
    }
  });
});

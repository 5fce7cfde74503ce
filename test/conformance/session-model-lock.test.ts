// POST /api/sessions/{id}/model (the Browser model lock) as Hermes's _handle_session_model_lock does it (decision
// 0142), over both transports: the lock's answer, the row it leaves (as a chat's confirmed lock leaves it), the chats
// that then run under it, _runtime_lock_error's refusals, the key, the session, the body, profiles and --state-db.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { createStore, LATEST_LEVEL } from '../../src/state-db/schema/index.js';
import { describeTransports, std, type Harness, type Reply } from '../support/harness.js';
import { submit } from '../support/runs.js';
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

/** The lock update_session_runtime_lock stores, as json.dumps writes it, at the frozen test time. */
const LOCK = (provider: string, model: string, options = '{}') =>
  `{"provider": "${provider}", "model": "${model}", "model_options": ${options}, "route_source": "raw_request", "confirmed": true, "updated_at": 1789169800.0}`;

/** A store Hermes wrote before the emulator records into it: `rows` inserted as they are, prompts content-addressed. */
function hermesStore(path: string, rows: Array<{ id: string; model?: string; model_config: unknown; system_prompt_hash?: string }>): void {
  const db = createStore({ path, level: LATEST_LEVEL });
  try {
    const prompt = db.prepare('INSERT INTO system_prompts (hash, prompt) VALUES (?, ?)');
    const insert = db.prepare("INSERT INTO sessions (id, source, model, model_config, system_prompt_hash, started_at) VALUES (?, 'cli', ?, ?, ?, 1789160000)");
    for (const r of rows) {
      if (r.system_prompt_hash) prompt.run(r.system_prompt_hash, `prompt ${r.system_prompt_hash}`);
      insert.run(r.id, r.model ?? null, r.model_config, r.system_prompt_hash ?? null);
    }
  } finally {
    db.close();
  }
}

function readRows(path: string, sql: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

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
  it('the lock is merged into the row\'s model_config: a delegate subagent\'s session keeps its marker and goes with its parent', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-lock-')), 'state.db');
    const h = await open({ stateDb: path });
    const run = await submit(h, '{"input": "research", "session_id": "parent-1"}');
    await h.admin.event(run, { event: 'subagent.start', goal: 'find papers', subagent_id: 'sa-1', child_session_id: 'child-1', model: 'm' });
    await h.admin.event(run, { event: 'subagent.complete', subagent_id: 'sa-1', child_session_id: 'child-1', status: 'completed', summary: 'Found 3.' });
    await h.admin.complete(run, { output: 'done' });
    assertBytes(await lock(h, 'child-1', '{"model": "m2"}'), 200, accepted('child-1', '', 'm2'));
    // A chat's require_model_lock merges the same way, replacing the lock in place.
    const chat = await chatReply(h, 'child-1', '{"message": "hi", "model": "openrouter::m3", "require_model_lock": true}');
    assert.equal(chat.status, 200, chat.text);
    const child = (await h.request('GET', '/api/sessions/child-1')).json().session;
    assert.deepEqual([child.model, child.parent_session_id, child.has_model_config], ['m3', 'parent-1', true]);
    // The recording merged the lock into the row it wrote for the child (its marker first, as Hermes's merge keeps it).
    assert.deepEqual(readRows(path, "SELECT model_config FROM sessions WHERE id = 'child-1'"), [
      { model_config: `{"_delegate_from": "parent-1", "browser_model_lock": ${LOCK('openrouter', 'm3')}}` },
    ]);
    // Still a delegate child: SessionDB.delete_session takes it with its parent (a lock written as the whole
    // model_config lost the marker, and the child outlived its parent).
    assert.equal((await h.request('DELETE', '/api/sessions/parent-1')).json().deleted, true);
    assertBytes(await h.request('GET', '/api/sessions/child-1'), 404, std('Session not found: child-1', 'session_not_found'));
  });

  it('--state-db: a row Hermes wrote keeps its other model_config keys, in order, as json.dumps rewrites them', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-lock-')), 'state.db');
    hermesStore(path, [
      {
        id: 'kept', model: 'claude', system_prompt_hash: 'h1',
        model_config: '{"_branched_from":"p","browser_model_lock":{"model":"old","confirmed":true},"yolo_mode":true,"provider":"anthropic","n":1e5,"s":"\u00e9","dup":1,"dup":2}',
      },
      { id: 'lineage', model_config: '{"_reset_from": "old-1", "gateway_runtime": {"provider": "nous"}}' },
      { id: 'garbage', model_config: 'not json' },
      { id: 'array', model_config: '[1, 2]' },
      { id: 'blank', model_config: '   ' },
      { id: 'bystander', model_config: '{"a":1}', system_prompt_hash: 'h2' },
    ]);
    const h = await open({ stateDb: path });
    // The API routes know these sessions once created; the recording keeps the rows the file already has.
    for (const id of ['kept', 'lineage', 'garbage', 'array', 'blank']) await createSession(h, `{"id": "${id}"}`);
    assertBytes(await lock(h, 'kept', '{"model": "openrouter::m2"}'), 200, accepted('kept', 'openrouter', 'm2'));
    for (const id of ['garbage', 'array', 'blank']) assert.equal((await lock(h, id, '{"model": "m"}')).status, 200);
    const chat = await chatReply(h, 'lineage', '{"message": "hi", "model": "m3", "model_options": {"fast": true}, "require_model_lock": true}');
    assert.equal(chat.status, 200, chat.text);
    // The API's own rows held nothing else: its answers are as before.
    assertBytes(await h.request('GET', '/api/sessions/kept'), 200, wrapped(S('kept', null, { model: 'm2', has_model_config: true })));
    await h.close();
    assert.deepEqual(readRows(path, 'SELECT id, model, model_config, system_prompt_hash FROM sessions ORDER BY id'), [
      { id: 'array', model: 'm', model_config: `{"browser_model_lock": ${LOCK('', 'm')}}`, system_prompt_hash: null },
      { id: 'blank', model: 'm', model_config: `{"browser_model_lock": ${LOCK('', 'm')}}`, system_prompt_hash: null },
      { id: 'bystander', model: null, model_config: '{"a":1}', system_prompt_hash: 'h2' },
      { id: 'garbage', model: 'm', model_config: `{"browser_model_lock": ${LOCK('', 'm')}}`, system_prompt_hash: null },
      {
        id: 'kept', model: 'm2', system_prompt_hash: null,
        model_config: `{"_branched_from": "p", "browser_model_lock": ${LOCK('openrouter', 'm2')}, "yolo_mode": true, "provider": "anthropic", "n": 100000.0, "s": "\\u00e9", "dup": 2}`,
      },
      {
        id: 'lineage', model: 'm3', system_prompt_hash: null,
        model_config: `{"_reset_from": "old-1", "gateway_runtime": {"provider": "nous"}, "browser_model_lock": ${LOCK('', 'm3', '{"fast": true}')}}`,
      },
    ]);
    // The prompt no row references any more is gone (_delete_unreferenced_system_prompts); the other stays.
    assert.deepEqual(readRows(path, 'SELECT hash FROM system_prompts ORDER BY hash'), [{ hash: 'h2' }]);
  });

  it('--state-home: a named profile\'s lock is merged into the row its own store already holds', async () => {
    const home = join(mkdtempSync(join(tmpdir(), 'hermetic-lock-home-')), 'hermes');
    mkdirSync(join(home, 'profiles', 'alice'), { recursive: true });
    const store = join(home, 'profiles', 'alice', 'state.db');
    hermesStore(store, [{ id: 's', model_config: '{"_branched_from": "p", "yolo_mode": false}' }]);
    const h = await open({ stateHome: home, profiles: { alice: { apiKey: ALICE.Authorization.slice(7) } } });
    await createSession(h, '{"id": "s", "model": "mine"}');
    await createSession(h, '{"id": "s"}', '/p/alice/api/sessions', ALICE);
    assertBytes(await lock(h, 's', '{"model": "pp::m"}', '/p/alice'), 200, accepted('s', 'pp', 'm'));
    await h.close();
    assert.deepEqual(readRows(store, "SELECT model, model_config FROM sessions WHERE id = 's'"), [
      { model: 'm', model_config: `{"_branched_from": "p", "yolo_mode": false, "browser_model_lock": ${LOCK('pp', 'm')}}` },
    ]);
    // The default profile's session of the same id is untouched.
    assert.deepEqual(readRows(join(home, 'state.db'), "SELECT model, model_config FROM sessions WHERE id = 's'"), [{ model: 'mine', model_config: `{"browser_model_lock": {"provider": "", "model": "mine", "model_options": {}, "route_source": "raw_request", "confirmed": false, "updated_at": 1789169800.0}}` }]);
  });
});

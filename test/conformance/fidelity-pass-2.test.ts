// Decision 0178: what a second adversarial fidelity pass over the emulator found (profiles, a fork racing a delete),
// each case over both transports where it can be, named by the Hermes function whose behaviour decides it.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { openChatStream } from '../support/chat-stream.js';
import { describeTransports, std } from '../support/harness.js';
import { status } from '../support/runs.js';
import { assertBytes, createSession, heldPastDelete, list, S, wrapped } from '../support/sessions.js';

const AUTH = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
const UNKNOWN_PROFILE = '{"error": "Unknown or unconfigured profile"}';
const PAGE_500 = '500 Internal Server Error\n\nServer got itself in trouble';

describeTransports('decision 0178: the emulator against Hermes, adversarially', (open, transport) => {
  it('/p/<name>/ without profiles: "default" in any case names the gateway\'s own home (profile_matches_home)', async () => {
    const h = await open();
    const plain = await h.request('GET', '/api/sessions');
    for (const name of ['DEFAULT', 'Default', 'dEfAuLt', '%44efault']) {
      const prefixed = await h.request('GET', `/p/${name}/api/sessions`);
      assertBytes(prefixed, 200, plain.text);
    }
    // Served as the unprefixed listener: the same key and the same owner scope, so the run is found either way.
    const run = await h.request('POST', '/p/DEFAULT/v1/runs', { body: '{"input": "hi"}' });
    assert.equal(run.status, 202, run.text);
    assert.equal((await status(h, run.json().run_id)).status, 200);
    // Only "default" folds: any other spelling is a profile this gateway does not serve.
    for (const name of ['defaults', 'DEFAULT.', 'd%C3%A9fault']) {
      assertBytes(await h.request('GET', `/p/${name}/api/sessions`), 404, UNKNOWN_PROFILE);
    }
  });

  it('/p/<name>/ with profiles: only the served names themselves, so "DEFAULT" is unknown (profiles_to_serve)', async () => {
    const h = await open({ profiles: { coder: { apiKey: 'coder-key-0123456789abcdef' } } });
    assert.equal((await h.request('GET', '/p/default/api/sessions')).status, 200);
    assertBytes(await h.request('GET', '/p/DEFAULT/api/sessions'), 404, UNKNOWN_PROFILE);
    assertBytes(await h.request('GET', '/p/Coder/api/sessions'), 404, UNKNOWN_PROFILE);
  });

  it("a named profile's key shorter than 16 characters fails closed: every request 401 (has_usable_secret)", async () => {
    // A header carries bytes: the key's UTF-8, as a client sends it (aiohttp decodes it back).
    const bearer = (key: string) => ({ Authorization: `Bearer ${Buffer.from(key, 'utf8').toString('latin1')}` });
    // Python's len counts code points: eight emoji are 8 characters (16 UTF-16 units), sixteen are 16.
    const [eight, sixteen] = ['\u{1F511}'.repeat(8), '\u{1F511}'.repeat(16)];
    const h = await open({ profiles: {
      short: { apiKey: 'short-key' }, eight: { apiKey: eight }, padded: { apiKey: ` ${'p'.repeat(15)} ` },
      placeholder: { apiKey: 'YOUR_API_KEY_HERE' }, sixteen: { apiKey: sixteen }, ok: { apiKey: 'k'.repeat(16) },
    } });
    for (const [name, key] of [['short', 'short-key'], ['eight', eight], ['padded', 'p'.repeat(15)], ['placeholder', 'YOUR_API_KEY_HERE']]) {
      assertBytes(await h.request('GET', `/p/${name}/api/sessions`, { headers: bearer(key!) }), 401, AUTH);
    }
    for (const [name, key] of [['sixteen', sixteen], ['ok', 'k'.repeat(16)]]) {
      assert.equal((await h.request('GET', `/p/${name}/api/sessions`, { headers: bearer(key!) })).status, 200, name);
    }
  });

  it('a fork whose source is deleted while its body arrives fails the foreign key: the 500 page, nothing written (create_session)', async (t) => {
    // Said before a harness is opened (node 20 runs no afterEach for a test skipped from inside). Over HTTP the same
    // code runs; only the test's hold on the body needs the in-process transport.
    if (transport !== 'fetch') return t.skip('needs a body stream the test controls');
    const h = await open();
    const send = await heldPastDelete(h, 'POST', '/api/sessions/src/fork', 'src', '{"id": "src", "title": "Trip"}');
    // _handle_fork_session read the source before the body; end_session then changes nothing, and create_session's
    // INSERT names a parent that is gone: SessionDB's connection enforces foreign keys, so it raises.
    const reply = await send('{"id": "b1"}');
    assert.deepEqual([reply.status, await reply.text()], [500, PAGE_500]);
    assertBytes(await h.request('GET', '/api/sessions/b1'), 404, std('Session not found: b1', 'session_not_found'));
    assertBytes(await h.request('GET', '/api/sessions'), 200, list([]));
  });

  it("a session deleted while its chat streams takes none of the turn's later rows (messages' foreign key)", async () => {
    const h = await open();
    await createSession(h, '{"id": "s"}');
    const { stream, runId } = await openChatStream(h, 's', '{"message": "hi"}');
    assert.equal((await h.request('DELETE', '/api/sessions/s')).status, 200);
    // The agent made its row once, at the turn's start; its flush at the end appends into a session that is gone,
    // which SessionDB refuses (the frames are the agent's own, and still come).
    await h.admin.complete(runId, { output: 'Late.', usage: { input_tokens: 3, output_tokens: 5 } });
    assert.match(await stream.ended, /event: run\.completed\n/);
    assertBytes(await h.request('GET', '/api/sessions/s'), 404, std('Session not found: s', 'session_not_found'));
    // The id made again is a new session: none of the old turn's rows, no counters.
    await createSession(h, '{"id": "s"}');
    assertBytes(await h.request('GET', '/api/sessions/s'), 200, wrapped(S('s', null)));
    const messages = (await h.request('GET', '/api/sessions/s/messages')).json();
    assert.deepEqual(messages.data, []);
  });
});

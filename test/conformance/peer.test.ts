// The real `hermes peer` client's request sequence against the emulator (spec sessions-api §9.3–§9.6), over both
// transports, asserting the exact bytes it sends and receives and what it prints: a first `run` that creates "Bot
// Chat", a second that finds it, a replay, `status`, `stop`, `dm`, a hidden Bot Chat, a wrong key, a profile target,
// and the peer vectors of §10 (24–31). The client is test/support/peer.ts, a transcription of the pinned peer.py.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, K, RUN_ID, type Harness, type Reply } from '../support/harness.js';
import { Peer, type PeerTarget } from '../support/peer.js';
import { L, list, py, S, wrapped } from '../support/sessions.js';
import { waitFor } from '../support/wait.js';

const T: PeerTarget = { name: 't', url: '', key: K };
const LOOKUP = '/api/sessions?limit=200&title=Bot+Chat&include_hidden=1';
const CREATE_BODY = '{"title": "Bot Chat", "source": "bot_peer_dm"}';

/** The one run the agent is playing (a dm's turn is listed by the control plane, not by GET /v1/runs). */
async function liveRun(h: Harness): Promise<string> {
  return waitFor(async () => {
    const live = (await h.admin.runs()).runs.filter((r) => r.live);
    return live.length === 1 ? live[0]!.run_id : null;
  }, 'a live run');
}

describeTransports('hermes peer against the emulator (spec sessions-api §9)', (open) => {
  it('24: a first run on an empty peer: capabilities, lookup, create "Bot Chat", submit — exact requests, answers and output', async () => {
    const h = await open();
    const peer = new Peer(h, T);
    const result = await peer.run('hello from peer', { idempotencyKey: 'ticket-123' });
    assert.equal(result.stderr, '', 'a durable peer prints no warning');
    assert.equal(result.exit, 0);
    const [caps, lookup, create, submit] = result.sent;
    assert.deepEqual(result.sent.map((r) => `${r.method} ${r.path}`), [
      'GET /v1/capabilities',
      `GET ${LOOKUP}`,
      'POST /api/sessions',
      'POST /v1/runs',
    ]);
    assert.equal(caps!.status, 200);
    assert.equal(lookup!.answer, list([], 200));
    assert.equal(create!.body, CREATE_BODY);
    assert.equal(Buffer.byteLength(create!.body!), 46);
    assert.equal(create!.status, 201);
    const id = JSON.parse(create!.answer!).session.id as string;
    assert.equal(create!.answer, wrapped(S(id, 'Bot Chat')));
    assert.equal(submit!.body, `{"input": "hello from peer", "session_id": "${id}"}`);
    assert.equal(submit!.headers['Idempotency-Key'], 'ticket-123');
    const runId = JSON.parse(submit!.answer!).run_id as string;
    assert.match(runId, RUN_ID);
    assert.equal(submit!.answer, `{"run_id": "${runId}", "status": "started", "replayed": false}`);
    assert.equal(result.stdout, `${runId}: started\nsession_id: ${id}\nidempotency_key: ticket-123\n`);
    // The run belongs to the Bot Chat: its turn shows in the session once the agent returns, and the agent's
    // create_session gave the row (created without a model) the model it ran (decision 0078).
    await h.admin.complete(runId, { output: 'Done.', usage: { input_tokens: 3, output_tokens: 4 } });
    const row = L(id, 'Bot Chat', {
      model: 'hermes-agent', message_count: 2, input_tokens: 3, output_tokens: 4, api_call_count: 1, estimated_cost_usd: py('0.0'), last_active: py('1789169800.000001'), preview: 'hello from peer',
    });
    assert.equal((await h.request('GET', LOOKUP)).text, list([row], 200));
  });

  it('a second run finds the Bot Chat (three requests); 26: the same command again is a replay', async () => {
    const h = await open();
    const peer = () => new Peer(h, T);
    const first = await peer().run('hello from peer', { idempotencyKey: 'ticket-123' });
    const id = first.stdout.split('\n')[1]!.slice('session_id: '.length);
    const runId = first.stdout.split(':')[0]!;
    await h.admin.complete(runId, { output: 'Done.' });
    const second = await peer().run('again', { idempotencyKey: 'ticket-456' });
    assert.deepEqual(second.sent.map((r) => `${r.method} ${r.path}`), ['GET /v1/capabilities', `GET ${LOOKUP}`, 'POST /v1/runs']);
    assert.equal(second.sent[2]!.body, `{"input": "again", "session_id": "${id}"}`);
    assert.equal(second.exit, 0);
    const replay = await peer().run('hello from peer', { idempotencyKey: 'ticket-123' });
    assert.equal(replay.sent[2]!.answer, `{"run_id": "${runId}", "status": "completed", "replayed": true}`);
    assert.equal(replay.stdout, `${runId}: completed (replayed)\nsession_id: ${id}\nidempotency_key: ticket-123\n`);
    const json = await peer().run('hello from peer', { idempotencyKey: 'ticket-123', json: true });
    assert.equal(
      json.stdout,
      `{"peer": "t", "profile": null, "session_id": "${id}", "run_id": "${runId}", "status": "completed", "idempotency_key": "ticket-123", "replayed": true}\n`,
    );
  });

  it('25: a hidden Bot Chat is found by the lookup: no create, the run carries its id', async () => {
    const h = await open();
    const created = await h.request('POST', '/api/sessions', { body: CREATE_BODY });
    const b = created.json().session.id as string;
    await h.request('PATCH', `/api/sessions/${b}`, { body: '{"hidden": true}' });
    const result = await new Peer(h, T).run('to the hidden chat');
    assert.deepEqual(result.sent.map((r) => `${r.method} ${r.path}`), ['GET /v1/capabilities', `GET ${LOOKUP}`, 'POST /v1/runs']);
    assert.equal(result.sent[1]!.answer, list([L(b, 'Bot Chat', { hidden: true })], 200));
    assert.equal(result.sent[2]!.body, `{"input": "to the hidden chat", "session_id": "${b}"}`);
    assert.match(result.sent[2]!.headers['Idempotency-Key']!, /^peer-[0-9a-f]{32}$/);
    assert.equal(result.exit, 0);
  });

  it('30: status of an unknown run, of a completed one; stop sends {} and prints stopping', async () => {
    const h = await open();
    const peer = () => new Peer(h, T);
    const unknown = await peer().control('status', 'run_x');
    assert.deepEqual([unknown.exit, unknown.stdout, unknown.stderr], [1, '', "Peer 't' rejected the request (HTTP 404): Run not found: run_x\n"]);
    const running = await peer().run('work');
    const runId = running.stdout.split(':')[0]!;
    const stop = await peer().control('stop', runId);
    assert.equal(stop.sent[0]!.body, '{}');
    assert.equal(stop.sent[0]!.headers['Idempotency-Key'], undefined);
    assert.equal(stop.sent[0]!.answer, `{"run_id": "${runId}", "status": "stopping"}`);
    assert.deepEqual([stop.exit, stop.stdout], [0, `${runId}: stopping\n`]);
    const done = await peer().run('more');
    const doneId = done.stdout.split(':')[0]!;
    await h.admin.complete(doneId, { output: 'All done.' });
    const status = await peer().control('status', doneId);
    assert.deepEqual([status.exit, status.stdout, status.stderr], [0, `${doneId}: completed\nAll done.\n`, '']);
    const cancelled = await peer().control('status', runId);
    assert.deepEqual([cancelled.exit, cancelled.stdout], [0, `${runId}: cancelled\n`]);
  });

  it('dm: finds or creates the Bot Chat, then the sync chat answers with the agent\'s reply; the turn is in the session', async () => {
    const h = await open();
    const dm = new Peer(h, T).dm('ping');
    const runId = await liveRun(h);
    // The dm's turn is not a client's run.
    assert.equal((await h.request('GET', `/v1/runs/${runId}`)).status, 404);
    await h.admin.complete(runId, { output: 'pong', usage: { input_tokens: 1, output_tokens: 2 } });
    const result = await dm;
    assert.deepEqual([result.exit, result.stdout, result.stderr], [0, 'pong\n', '']);
    assert.deepEqual(result.sent.map((r) => `${r.method} ${r.path}`), [`GET ${LOOKUP}`, 'POST /api/sessions', `POST /api/sessions/${JSON.parse(result.sent[1]!.answer!).session.id}/chat`]);
    const chat = result.sent[2]!;
    assert.equal(chat.body, '{"message": "ping"}');
    const runtime = '{"provider": "", "model": "hermes-agent", "route_source": "global", "requested": {"provider": "", "model": ""}}';
    const id = JSON.parse(result.sent[1]!.answer!).session.id as string;
    assert.equal(
      chat.answer,
      `{"object": "hermes.session.chat.completion", "session_id": "${id}", "message": {"role": "assistant", "content": "pong"}, ` +
        `"usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3, "runtime": ${runtime}}, "runtime": ${runtime}}`,
    );
    const messages = (await h.request('GET', `/api/sessions/${id}/messages`)).json();
    assert.deepEqual(messages.data.map((m: { role: string; content: string }) => [m.role, m.content]), [['user', 'ping'], ['assistant', 'pong']]);
    // A second dm goes to the same session; --json.
    const again = new Peer(h, T).dm('ping 2', { json: true });
    await h.admin.complete(await liveRun(h), { output: 'pong 2' });
    assert.equal((await again).stdout, `{"peer": "t", "profile": null, "session_id": "${id}", "reply": "pong 2"}\n`);
  });

  it('29: a wrong key: the capabilities 401 is a warning, the lookup 401 ends it', async () => {
    const h = await open();
    const result = await new Peer(h, { ...T, key: 'wrong-key' }).run('hello');
    assert.equal(result.exit, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'Warning: this peer does not advertise restart-durable run replay; keep the run ID and avoid blind retries after a gateway restart.\n' +
        "Peer 't' rejected the request (HTTP 401): Invalid gateway API key (API_SERVER_KEY)\n",
    );
    assert.deepEqual(result.sent.map((r) => `${r.method} ${r.path}`), ['GET /v1/capabilities', `GET ${LOOKUP}`]);
    const dm = await new Peer(h, { ...T, key: 'wrong-key' }).dm('hello');
    assert.deepEqual([dm.exit, dm.stderr], [1, "Peer 't' rejected the request (HTTP 401): Invalid gateway API key (API_SERVER_KEY)\n"]);
  });

  it('a profile target (<peer>/<profile>): its own key, its own Bot Chat, runs and dm in that profile', async () => {
    const h = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789' } } });
    const alice: PeerTarget = { ...T, profile: 'alice', key: 'alice-key-0123456789' };
    const result = await new Peer(h, alice).run('for alice', { idempotencyKey: 'a-1', json: true });
    assert.equal(result.exit, 0, result.stderr);
    assert.deepEqual(result.sent.map((r) => r.path), ['/p/alice/v1/capabilities', `/p/alice${LOOKUP}`, '/p/alice/api/sessions', '/p/alice/v1/runs']);
    const out = JSON.parse(result.stdout);
    assert.equal(out.profile, 'alice');
    await h.admin.complete(out.run_id, { output: 'ok' });
    const headers = { Authorization: 'Bearer alice-key-0123456789' };
    const row = (await h.request('GET', '/p/alice/api/sessions', { headers })).json().data[0];
    assert.deepEqual([row.id, row.title, row.message_count, row.preview], [out.session_id, 'Bot Chat', 2, 'for alice']);
    assert.equal((await h.request('GET', '/api/sessions')).text, list([]), 'the default profile has none');
    const status = await new Peer(h, alice).control('status', out.run_id);
    assert.equal(status.stdout, `${out.run_id}: completed\nok\n`);
    const dm = new Peer(h, alice).dm('hi alice');
    await h.admin.complete(await liveRun(h), { output: 'hello alice' });
    const answered = await dm;
    assert.equal(answered.stdout, 'hello alice\n');
    assert.equal(answered.sent[1]!.path, `/p/alice/api/sessions/${out.session_id}/chat`);
    // The listener's key does not open alice's profile.
    const wrong = await new Peer(h, { ...alice, key: K }).run('x');
    assert.equal(wrong.exit, 1);
  });

  it('27: a server answering 501 on the lookup stops the run before it is submitted', async () => {
    const h = await open();
    // A server that does not serve /api/sessions (what Hermetic answered before these routes were emulated).
    const older = {
      request: (method: string, path: string, o?: Parameters<Harness['request']>[2]): Promise<Reply> =>
        method === 'GET' && path.startsWith('/api/sessions')
          ? Promise.resolve({ status: 501, headers: {}, text: '{"error": {"message": "M", "code": "HERMETIC_UNSUPPORTED_ROUTE"}}', json: () => ({}) })
          : h.request(method, path, o),
    };
    const result = await new Peer(older, T).run('hello');
    assert.deepEqual([result.exit, result.stdout, result.stderr], [1, '', "Peer 't' rejected the request (HTTP 501): M\n"]);
    assert.ok(!result.sent.some((r) => r.path === '/v1/runs'));
    assert.equal((await h.admin.runs()).runs.length, 0);
  });

  it('28: against a lookup that cannot see hidden rows, the hidden Bot Chat makes the create 400 and the client explains', async () => {
    const h = await open();
    const x = (await h.request('POST', '/api/sessions', { body: CREATE_BODY })).json().session.id as string;
    await h.request('PATCH', `/api/sessions/${x}`, { body: '{"hidden": true}' });
    // A pre-#92854 gateway: its list ignores include_hidden (a fault rule answers the lookup as it would).
    await h.admin.addFault({ operation: 'sessions', action: 'respond', status: 200, body: { object: 'list', data: [], limit: 200, offset: 0, has_more: false } });
    const result = await new Peer(h, T).run('hello');
    assert.equal(result.sent[2]!.answer, `{"error": {"message": "Title already in use by session ${x}", "type": "invalid_request_error", "param": null, "code": "invalid_title"}}`);
    assert.equal(result.exit, 1);
    assert.equal(
      result.stderr,
      `Could not reach peer 't': Peer already has a 'Bot Chat' session but it is hidden and the peer's gateway is too old to expose hidden sessions to this lookup (HTTP 400: Title already in use by session ${x}). Update the peer's hermes-agent, or unhide the session there: PATCH /api/sessions/<id> {"hidden": false}.\n`,
    );
  });

  it('31: a bad idempotency key or no message sends nothing', async () => {
    const h = await open();
    for (const key of ['a\nb', 'k'.repeat(256)]) {
      const result = await new Peer(h, T).run('hello', { idempotencyKey: key });
      assert.deepEqual([result.exit, result.stderr, result.sent.length], [2, 'Idempotency key must be 1-255 characters without control newlines.\n', 0]);
    }
    const blank = await new Peer(h, T).run('   ');
    assert.deepEqual([blank.exit, blank.stderr, blank.sent.length], [2, 'Message required (argument or stdin).\n', 0]);
    assert.equal((await h.admin.countRequests({})).count, 0);
  });
});

// Decision 0078: the session routes' edges an adversarial client finds — query integers Python reads exactly (and
// refuses past 4300 digits), ids with odd characters, long transcripts, runs and their sessions. Over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { assertBytes, createSession, heldPastDelete } from '../support/sessions.js';

const PAGE = 'limit and offset must be non-negative integers';
const ABORT = '500 Internal Server Error\n\nServer got itself in trouble';

describeTransports('session routes: adversarial edges (decision 0078)', (open, transport) => {
  it('list: limit and offset past Python\'s 4300-digit int() limit are a ValueError, so the defaults', async () => {
    const h = await open();
    await createSession(h, '{"id": "s1"}');
    const page = async (q: string) => (await h.request('GET', `/api/sessions?${q}`)).json();
    const long = '1'.repeat(4301);
    assert.deepEqual([(await page(`limit=${long}`)).limit, (await page(`offset=${long}`)).offset], [50, 0]);
    // 4300 digits is still an int: capped.
    const most = '1'.repeat(4300);
    assert.deepEqual([(await page(`limit=${most}`)).limit, (await page(`offset=${most}`)).offset], [200, 1_000_000]);
  });

  it('messages: an offset past 2**53 is echoed exactly, past SQLite\'s INTEGER is aiohttp\'s 500, past 4300 digits a 400', async () => {
    const h = await open();
    await createSession(h, '{"id": "s1"}');
    const exact = await h.request('GET', '/api/sessions/s1/messages?offset=9007199254740993');
    assertBytes(exact, 200, '{"object": "list", "session_id": "s1", "data": [], "pagination": {"limit": 500, "offset": 9007199254740993, "order": "latest", "returned": 0}}');
    const top = await h.request('GET', '/api/sessions/s1/messages?order=oldest&limit=3&offset=9223372036854775807');
    assertBytes(top, 200, '{"object": "list", "session_id": "s1", "data": [], "pagination": {"limit": 3, "offset": 9223372036854775807, "order": "oldest", "returned": 0}}');
    // get_messages binds the offset: sqlite3 raises OverflowError past 2**63 - 1, which no handler catches.
    for (const offset of ['9223372036854775808', '99999999999999999999999']) {
      const over = await h.request('GET', `/api/sessions/s1/messages?offset=${offset}`);
      assert.equal(over.status, 500, offset);
      assert.equal(over.text, ABORT);
    }
    for (const q of [`limit=${'1'.repeat(4301)}`, `offset=${'1'.repeat(4301)}`]) {
      assertBytes(await h.request('GET', `/api/sessions/s1/messages?${q}`), 400, std(PAGE, 'invalid_pagination'));
    }
    // A huge limit within the digit limit is capped at 500.
    assert.equal((await h.request('GET', `/api/sessions/s1/messages?limit=${'9'.repeat(4300)}`)).json().pagination.limit, 500);
    // The 404 comes first, whatever the query.
    assert.equal((await h.request('GET', '/api/sessions/nope/messages?offset=99999999999999999999999')).status, 404);
  });

  it('delete: the delegate subagent sessions a run spawned go with their parent, messages and all (SessionDB.delete_session)', async () => {
    const h = await open();
    const run = await submit(h, '{"input": "research", "session_id": "parent-1"}');
    await h.admin.event(run, { event: 'subagent.start', goal: 'find papers', subagent_id: 'sa-1', child_session_id: 'child-1', model: 'm' });
    await h.admin.event(run, { event: 'subagent.complete', subagent_id: 'sa-1', child_session_id: 'child-1', status: 'completed', summary: 'Found 3.' });
    await h.admin.complete(run, { output: 'done' });
    const child = await h.request('GET', '/api/sessions/child-1');
    assert.equal(child.status, 200, child.text);
    assert.equal(child.json().session.parent_session_id, 'parent-1');
    assert.ok((await h.request('GET', '/api/sessions/child-1/messages')).json().data.length > 0);
    assertBytes(await h.request('DELETE', '/api/sessions/parent-1'), 200, '{"object": "hermes.session.deleted", "id": "parent-1", "deleted": true}');
    assertBytes(await h.request('GET', '/api/sessions/child-1'), 404, std('Session not found: child-1', 'session_not_found'));
    // Its messages went too: a new session of that id starts empty.
    await createSession(h, '{"id": "child-1"}');
    assertBytes(await h.request('GET', '/api/sessions/child-1/messages'), 200, '{"object": "list", "session_id": "child-1", "data": [], "pagination": {"limit": 500, "offset": 0, "order": "latest", "returned": 0}}');
  });

  it('a run in a session created without a model gives the row the agent\'s model (create_session keeps a model already there)', async () => {
    const h = await open();
    const bot = await createSession(h, '{"title": "Bot Chat", "source": "bot_peer_dm"}');
    await createSession(h, '{"id": "pinned-model", "model": "gpt-x"}');
    for (const [session, model] of [[bot, 'm-1'], ['pinned-model', 'm-2']] as const) {
      const run = await submit(h, JSON.stringify({ input: 'hi', session_id: session, model }));
      await h.admin.complete(run, { output: 'ok' });
    }
    const model = async (id: string) => (await h.request('GET', `/api/sessions/${id}`)).json().session.model;
    assert.equal(await model(bot), 'm-1');
    assert.equal(await model('pinned-model'), 'gpt-x');
    // A later run with another model changes nothing: the first model written stays.
    const again = await submit(h, JSON.stringify({ input: 'hi', session_id: bot, model: 'm-3' }));
    await h.admin.complete(again, { output: 'ok' });
    assert.equal(await model(bot), 'm-1');
    // The row keeps what the route created: its source, title and start.
    const row = (await h.request('GET', `/api/sessions/${bot}`)).json().session;
    assert.deepEqual([row.source, row.title, row.has_model_config], ['api_server', 'Bot Chat', false]);
  });

  it('PATCH racing a DELETE: a session deleted after the 404 check is answered 200 with the row as first read', async (t) => {
    // Only in process can the test hold the PATCH between its 404 check and its body without a clock: the body is a
    // stream whose first read tells the test the handler got there. Over HTTP the same code runs.
    // Said before a harness is opened: node 20 runs no afterEach for a test skipped from inside, so an HTTP harness
    // opened first would stay open and hold the process.
    if (transport !== 'fetch') return t.skip('needs a body stream the test controls');
    const h = await open();
    const send = await heldPastDelete(h, 'PATCH', '/api/sessions/gone', 'gone', '{"id": "gone", "title": "Old"}');
    const reply = await send('{"title": "New", "pinned": true}');
    assert.equal(reply.status, 200);
    const session = (await reply.json()).session;
    assert.deepEqual([session.id, session.title, session.pinned], ['gone', 'Old', false]);
    assert.equal((await h.request('GET', '/api/sessions/gone')).status, 404);
  });
});


// POST /api/sessions/{id}/fork as Hermes's _handle_fork_session does it (decision 0141), over both transports: the
// source ended `branched`, a child session under it holding a copy of its messages, titled by the body or by the
// source's lineage (`#2`, `#3`, …), and what the --state-db recording then holds.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { API_ID, assertBytes, createSession, S, wrapped } from '../support/sessions.js';

const AUTH = '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}';
const ALICE = { Authorization: 'Bearer alice-key-0123456789' };

const fork = (h: Harness, source: string, body = '{}', path = '') =>
  h.request('POST', `${path}/api/sessions/${source}/fork`, { body, headers: path ? ALICE : {} });

/** A session with a finished run's turn in it: the user message and the answer. */
async function sessionWithTurn(h: Harness, id: string, input = 'hello'): Promise<void> {
  const run = await submit(h, JSON.stringify({ input, session_id: id }));
  await h.admin.complete(run, { output: `re: ${input}` });
}

/** A message page's rows without their ids and session ids (the fork's copies get new ones). */
const bodies = (page: { data: Array<Record<string, unknown>> }) => page.data.map(({ id: _i, session_id: _s, ...rest }) => rest);

describeTransports('session fork (decision 0141)', (open) => {
  it('a fork with id and title: 201 with the child; the source ends `branched`; the messages are copied with new ids', async () => {
    const h = await open();
    await sessionWithTurn(h, 'src');
    await h.request('PATCH', '/api/sessions/src', { body: '{"title": "Trip plan"}' });
    const reply = await fork(h, 'src', '{"id": " b1 ", "title": "My branch"}');
    assertBytes(reply, 201, wrapped(S('b1', 'My branch', { parent_session_id: 'src', model: 'hermes-agent', message_count: 2 })));
    assertBytes(await h.request('GET', '/api/sessions/src'), 200, wrapped(S('src', 'Trip plan', {
      model: 'hermes-agent', message_count: 2, ended_at: { py: '1789169800.0' }, end_reason: 'branched',
      estimated_cost_usd: { py: '0.0' }, api_call_count: 1,
    })));
    const source = (await h.request('GET', '/api/sessions/src/messages')).json();
    const copy = (await h.request('GET', '/api/sessions/b1/messages')).json();
    assert.deepEqual(bodies(copy), bodies(source));
    assert.deepEqual(source.data.map((m: { id: number }) => m.id), [1, 2]);
    assert.deepEqual(copy.data.map((m: { id: number; session_id: string }) => [m.id, m.session_id]), [[3, 'b1'], [4, 'b1']]);
    // The source's own rows and counters are untouched; a second fork keeps the first end reason.
    assert.equal((await fork(h, 'src', '{"session_id": "b2"}')).status, 201);
    assert.equal((await h.request('GET', '/api/sessions/src')).json().session.end_reason, 'branched');
  });

  it('without a title: the next in the source\'s lineage (#2, #3; a source titled `x #4` gives `x #5`; no title: fork, fork #2)', async () => {
    const h = await open();
    await createSession(h, '{"id": "a", "title": "my session"}');
    const titles = [];
    for (const id of ['a2', 'a3']) titles.push((await fork(h, 'a', `{"id": "${id}"}`)).json().session.title);
    titles.push((await fork(h, 'a2', '{"id": "a4"}')).json().session.title);
    assert.deepEqual(titles, ['my session #2', 'my session #3', 'my session #4']);
    await createSession(h, '{"id": "x", "title": "x #4"}');
    assert.equal((await fork(h, 'x', '{"id": "x5", "title": null}')).json().session.title, 'x #5');
    // LIKE's wildcards are escaped: `50% off_` finds no `50X offY #9`.
    await createSession(h, '{"id": "p", "title": "50% off_"}');
    await createSession(h, '{"id": "q", "title": "50X offY #9"}');
    assert.equal((await fork(h, 'p', '{"id": "p2"}')).json().session.title, '50% off_ #2');
    await createSession(h, '{"id": "u"}');
    const untitled = [];
    for (const id of ['u1', 'u2']) untitled.push((await fork(h, 'u', `{"id": "${id}"}`)).json().session.title);
    assert.deepEqual(untitled, ['fork', 'fork #2']);
  });

  it('without an id: a minted api_<time>_<hex8>; the body\'s title is str()-ed', async () => {
    const h = await open();
    await createSession(h, '{"id": "s"}');
    const reply = await fork(h, 's', '{"id": "", "session_id": 0, "title": true}');
    assert.equal(reply.status, 201, reply.text);
    const { id, title, parent_session_id } = reply.json().session;
    assert.match(id, API_ID);
    assert.ok(id.startsWith('api_1789169800_'));
    assert.deepEqual([title, parent_session_id], ['True', 's']);
    // Only POST /api/sessions refuses path-like or long ids; the fork takes them.
    assert.equal((await fork(h, 's', JSON.stringify({ id: `../${'x'.repeat(300)}` }))).status, 201);
  });

  it('401 before anything; 404 for an unknown source before the body; the body\'s 400s', async () => {
    const h = await open();
    assertBytes(await h.request('POST', '/api/sessions/s/fork', { auth: false, body: 'not json' }), 401, AUTH);
    assertBytes(await h.request('POST', '/api/sessions/s/fork', { headers: { Authorization: 'HermesRoom abc' }, body: '{}' }), 401, AUTH);
    assertBytes(await h.request('POST', '/ns/unseen/api/sessions/s/fork', { auth: false, body: '{}' }), 401, AUTH);
    assertBytes(await fork(h, 'nope', 'not json'), 404, std('Session not found: nope', 'session_not_found'));
    await createSession(h, '{"id": "s"}');
    assertBytes(await fork(h, 's', 'not json'), 400, std('Invalid JSON in request body'));
    assertBytes(await fork(h, 's', '[]'), 400, std('Request body must be a JSON object'));
    for (const body of ['{"id": "  "}', '{"id": "a\\nb"}', '{"session_id": "a\\u0000b"}', '{"id": "a\\rb"}']) {
      assertBytes(await fork(h, 's', body), 400, std('Invalid session ID', 'invalid_session_id'));
    }
    // Nothing was written by a refusal: the source is still open.
    assert.equal((await h.request('GET', '/api/sessions/s')).json().session.end_reason, null);
  });

  it('409 when the id exists (the source itself included); nothing is ended', async () => {
    const h = await open();
    await createSession(h, '{"id": "s"}');
    await createSession(h, '{"id": "t"}');
    for (const id of ['t', 's']) assertBytes(await fork(h, 's', `{"id": "${id}"}`), 409, std(`Session already exists: ${id}`, 'session_exists'));
    assert.equal((await h.request('GET', '/api/sessions/s')).json().session.end_reason, null);
  });

  it('a title set_session_title refuses is the 400 invalid_title, with the fork left created and the source ended', async () => {
    const h = await open();
    await createSession(h, '{"id": "s", "title": "taken"}');
    assertBytes(await fork(h, 's', '{"id": "f1", "title": "taken"}'), 400, std("Title 'taken' is already in use by session s", 'invalid_title'));
    assertBytes(await h.request('GET', '/api/sessions/f1'), 200, wrapped(S('f1', null, { parent_session_id: 's' })));
    assert.equal((await h.request('GET', '/api/sessions/s')).json().session.end_reason, 'branched');
    assertBytes(await fork(h, 's', JSON.stringify({ id: 'f2', title: 'y'.repeat(101) })), 400, std('Title too long (101 chars, max 100)', 'invalid_title'));
    // A lineage title past 100 characters is refused the same way.
    await createSession(h, JSON.stringify({ id: 'long', title: 'z'.repeat(99) }));
    assertBytes(await fork(h, 'long', '{"id": "f3"}'), 400, std('Title too long (102 chars, max 100)', 'invalid_title'));
    assert.equal((await h.request('GET', '/api/sessions/f3')).json().session.title, null);
  });

  it('a fork is listed (a branch child), and GET shows it', async () => {
    const h = await open();
    await sessionWithTurn(h, 'src');
    assert.equal((await fork(h, 'src', '{"id": "b"}')).status, 201);
    const listed = (await h.request('GET', '/api/sessions')).json().data.map((s: { id: string; parent_session_id: string | null; preview: string }) => [s.id, s.parent_session_id, s.preview]);
    assert.deepEqual(listed.sort(), [['b', 'src', 'hello'], ['src', null, 'hello']]);
  });

  it('under /p/alice/ the fork reads and writes alice\'s sessions only', async () => {
    const h = await open({ profiles: { alice: { apiKey: ALICE.Authorization.slice(7) } } });
    await createSession(h, '{"id": "s", "title": "mine"}');
    await createSession(h, '{"id": "s", "title": "hers"}', '/p/alice/api/sessions', ALICE);
    assertBytes(await h.request('POST', '/p/alice/api/sessions/s/fork', { body: '{}' }), 401, AUTH);
    const reply = await fork(h, 's', '{"id": "b"}', '/p/alice');
    assertBytes(reply, 201, wrapped(S('b', 'hers #2', { parent_session_id: 's' })));
    assert.equal((await h.request('GET', '/api/sessions/b')).status, 404);
    assert.equal((await h.request('GET', '/api/sessions/s')).json().session.end_reason, null);
    assert.equal((await h.request('GET', '/p/alice/api/sessions/s', { headers: ALICE })).json().session.end_reason, 'branched');
    // The default profile's lineage is its own.
    assert.equal((await fork(h, 's', '{"id": "b"}')).json().session.title, 'mine #2');
  });

  it('--state-db: the source ended `branched`, the child with its parent, prompt and copied messages, as SessionDB writes them', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-fork-')), 'state.db');
    const h = await open({ stateDb: path });
    await createSession(h, '{"id": "src", "title": "Plan", "system_prompt": "Be brief."}');
    await sessionWithTurn(h, 'src', 'first');
    await sessionWithTurn(h, 'src', 'second');
    assert.equal((await fork(h, 'src', '{"id": "kid"}')).status, 201);
    await createSession(h, '{"id": "bare"}');
    assert.equal((await fork(h, 'bare', '{"id": "bare2"}')).status, 201);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT id, source, parent_session_id, end_reason, ended_at, started_at, title, title_source, message_count, system_prompt, system_prompt_hash IS NOT NULL AS hashed FROM sessions ORDER BY id').all();
      // `src`, open in the emulated Hermes, ends `branched`: the `done` the recorder stamped at its runs' end gives way.
      assert.deepEqual(rows, [
        { id: 'bare', source: 'api_server', parent_session_id: null, end_reason: 'branched', ended_at: 1789169800, started_at: 1789169800, title: null, title_source: null, message_count: 0, system_prompt: null, hashed: 0 },
        { id: 'bare2', source: 'api_server', parent_session_id: 'bare', end_reason: null, ended_at: null, started_at: 1789169800, title: 'fork', title_source: 'user', message_count: 0, system_prompt: null, hashed: 0 },
        { id: 'kid', source: 'api_server', parent_session_id: 'src', end_reason: null, ended_at: null, started_at: 1789169800, title: 'Plan #2', title_source: 'user', message_count: 4, system_prompt: null, hashed: 1 },
        { id: 'src', source: 'api_server', parent_session_id: null, end_reason: 'branched', ended_at: 1789169800, started_at: 1789169800, title: 'Plan', title_source: null, message_count: 4, system_prompt: 'Be brief.', hashed: 0 },
      ]);
      const messages = (session: string) => db.prepare('SELECT id, role, content, timestamp, display_identity FROM messages WHERE session_id = ? ORDER BY id').all(session) as Array<Record<string, unknown>>;
      const [from, to] = [messages('src'), messages('kid')];
      assert.deepEqual(to.map(({ id: _, ...rest }) => rest), from.map(({ id: _, ...rest }) => rest));
      assert.ok((to[0]!.id as number) > (from.at(-1)!.id as number));
    } finally {
      db.close();
    }
  });
  it('--state-db: an end the emulated Hermes makes on an open session replaces a run\'s `done` stamp, and later runs keep it; an earlier end stays', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-fork-')), 'state.db');
    const h = await open({ stateDb: path });
    // Hermes's API server leaves a run's session open; the recorder stamps `done` when the run ends (decision 0004).
    await sessionWithTurn(h, 'ran');
    await sessionWithTurn(h, 'patched');
    const live = await submit(h, '{"input": "still going", "session_id": "live"}');
    // Ended by the client before the fork: end_session keeps that first end, in Hermes and in the recording.
    await createSession(h, '{"id": "closed"}');
    assert.equal((await h.request('PATCH', '/api/sessions/closed', { body: '{"end_reason": "done"}' })).status, 200);
    await h.admin.clock({ advance: 5 });
    for (const source of ['ran', 'live', 'closed']) assert.equal((await fork(h, source, `{"id": "${source}-2"}`)).status, 201);
    assert.equal((await h.request('PATCH', '/api/sessions/patched', { body: '{"end_reason": "user_exit"}' })).status, 200);
    // A run that ends after the fork leaves the `branched` end as it is (the first reason wins); a later run in a
    // session Hermes ended leaves that end too (the API server's agent reopens nothing; only the recorder's stamp goes).
    await h.admin.complete(live, { output: 'finished' });
    await sessionWithTurn(h, 'ran', 'again');
    await sessionWithTurn(h, 'patched', 'again');
    const ends: Array<[string, string, number]> = [];
    for (const id of ['closed', 'live', 'patched', 'ran']) {
      const { end_reason, ended_at } = (await h.request('GET', `/api/sessions/${id}`)).json().session;
      ends.push([id, end_reason, ended_at]);
    }
    assert.deepEqual(ends, [['closed', 'done', 1789169800], ['live', 'branched', 1789169805], ['patched', 'user_exit', 1789169805], ['ran', 'branched', 1789169805]]);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      // The recording holds the same ends, so Hermes's list would show each fork as a branch child of its source.
      const recorded = db.prepare("SELECT id, end_reason, ended_at FROM sessions WHERE id IN ('closed', 'live', 'patched', 'ran') ORDER BY id").raw().all();
      assert.deepEqual(recorded, ends);
      const branches = db.prepare(`SELECT c.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id
        WHERE p.end_reason = 'branched' AND c.started_at >= p.ended_at ORDER BY c.id`).pluck().all();
      assert.deepEqual(branches, ['live-2', 'ran-2']);
    } finally {
      db.close();
    }
  });
  it('--state-db: a client\'s end named as a run\'s stamp (`done`, `failed`, `cancelled`) stays through later runs, as in the API', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hermetic-fork-')), 'state.db');
    const h = await open({ stateDb: path });
    await sessionWithTurn(h, 'ran');
    await createSession(h, '{"id": "fresh"}');
    await h.admin.clock({ advance: 5 });
    // The client ends both, `ran` after its run's end was stamped (the API store's row was open: the end takes effect).
    for (const [id, reason] of [['ran', 'cancelled'], ['fresh', 'done']]) {
      assert.equal((await h.request('PATCH', `/api/sessions/${id}`, { body: `{"end_reason": "${reason}"}` })).status, 200);
    }
    await h.admin.clock({ advance: 5 });
    await sessionWithTurn(h, 'ran', 'again');
    await sessionWithTurn(h, 'fresh', 'again');
    const ends: Array<[string, string, number]> = [];
    for (const id of ['fresh', 'ran']) {
      const { end_reason, ended_at } = (await h.request('GET', `/api/sessions/${id}`)).json().session;
      ends.push([id, end_reason, ended_at]);
    }
    assert.deepEqual(ends, [['fresh', 'done', 1789169805], ['ran', 'cancelled', 1789169805]]);
    await h.close();
    const db = new Database(path, { readonly: true });
    try {
      assert.deepEqual(db.prepare("SELECT id, end_reason, ended_at FROM sessions WHERE id IN ('fresh', 'ran') ORDER BY id").raw().all(), ends);
    } finally {
      db.close();
    }
  });
});

// Where the sessions live (decision 0026): in the store, committed before any answer shows them, kept across restarts
// like Hermes's state.db, per namespace (reset and checkpoints included), written into --state-db as SessionDB writes
// them; a locked or failed store fails one request with Hermes's 503 `session_db_unavailable`, never the process.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { createEmulator } from '../../src/emulator/index.js';
import { describeTransports, DEFAULTS, K, std, T0, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { assertBytes, createSession, L, list, S, wrapped } from '../support/sessions.js';
import { waitFor } from '../support/wait.js';

const freshDir = () => mkdtempSync(join(tmpdir(), 'hermetic-sessions-'));
const UNAVAILABLE = std('Session database unavailable', 'session_db_unavailable');
const auth = { Authorization: `Bearer ${K}` };

async function ids(h: Harness, prefix = ''): Promise<string[]> {
  return (await h.request('GET', `${prefix}/api/sessions`)).json().data.map((s: { id: string }) => s.id);
}

/** One turn in a new session of the namespace under `prefix`: the ids of the session's messages. */
async function turn(h: Harness, prefix: string, session: string): Promise<number[]> {
  await createSession(h, JSON.stringify({ id: session }), `${prefix}/api/sessions`);
  const run = await h.request('POST', `${prefix}/v1/runs`, { body: JSON.stringify({ input: 'hello', session_id: session }) });
  assert.equal(run.status, 202, run.text);
  const done = await h.request('POST', `${prefix}/__admin/runs/${run.json().run_id}/complete`, { body: '{"output": "hi"}' });
  assert.equal(done.status, 200, done.text);
  const messages = await h.request('GET', `${prefix}/api/sessions/${session}/messages`);
  assert.equal(messages.status, 200, messages.text);
  return messages.json().data.map((m: { id: number }) => m.id);
}

describeTransports('session store', (open) => {
  it('sessions and their messages survive an emulated restart, and a new process on the same --db file', async () => {
    const db = join(freshDir(), 'runs.db');
    const h = await open({ db });
    const id = await createSession(h, '{"title": "Bot Chat"}');
    const runId = await submit(h, `{"input": "remember me", "session_id": "${id}"}`);
    await h.admin.complete(runId, { output: 'Noted.' });
    await h.admin.restart();
    assert.deepEqual(await ids(h), [id]);
    // Another process on the file (no close first: every answer was committed before it left).
    const again = createEmulator({ ...DEFAULTS, db });
    try {
      const res = await again.fetch(new Request(`http://x/api/sessions/${id}/messages`, { headers: auth }));
      const messages = (await res.json()) as { data: Array<{ role: string; content: string }> };
      assert.deepEqual(messages.data.map((m) => [m.role, m.content]), [['user', 'remember me'], ['assistant', 'Noted.']]);
    } finally {
      await again.close();
    }
  });

  it('without --db, sessions outlive emulated restarts (Hermes\'s state.db is not its run store)', async () => {
    for (const db of [undefined, ':memory:']) {
      const h = await open(db ? { db } : {});
      const id = await createSession(h, '{}');
      await h.admin.restart();
      assert.deepEqual(await ids(h), [id], String(db));
    }
  });

  it('a namespace has sessions of its own; a reset removes them; a checkpoint restores them', async () => {
    const h = await open();
    const a = await createSession(h, '{"title": "Bot Chat"}', '/ns/a/api/sessions');
    const b = await createSession(h, '{"title": "Bot Chat"}', '/ns/b/api/sessions');
    assert.notEqual(a, b);
    assert.deepEqual(await ids(h, '/ns/a'), [a]);
    assert.deepEqual(await ids(h), []);
    const cp = await h.request('POST', '/ns/a/__admin/checkpoints');
    const cpId = cp.json().id as string;
    const runId = (await h.request('POST', '/ns/a/v1/runs', { body: `{"input": "later", "session_id": "${a}"}` })).json().run_id;
    await h.request('POST', `/ns/a/__admin/runs/${runId}/complete`, { body: '{"output": "x"}' });
    await h.request('DELETE', `/ns/a/api/sessions/${a}`);
    const other = await createSession(h, '{}', '/ns/a/api/sessions');
    assert.deepEqual(await ids(h, '/ns/a'), [other]);
    assert.equal((await h.request('POST', `/ns/a/__admin/checkpoints/${cpId}/restore`)).status, 200);
    assertBytes(await h.request('GET', '/ns/a/api/sessions'), 200, list([L(a, 'Bot Chat')]));
    assert.equal((await h.request('POST', '/ns/a/__admin/reset')).status, 200);
    assertBytes(await h.request('GET', '/ns/a/api/sessions'), 200, list([]));
    assert.deepEqual(await ids(h, '/ns/b'), [b], 'another namespace keeps its sessions');
    // After the reset, the title is free and ids mint from the seed's start again.
    assert.equal(await createSession(h, '{"title": "Bot Chat"}', '/ns/a/api/sessions'), a);
  });

  it('message ids start from 1 after a reset, as in a new state.db, on a file or in memory; namespaces count on their own', async () => {
    for (const db of [join(freshDir(), 'runs.db'), undefined]) {
      const h = await open(db ? { db } : {});
      const where = db ? 'file' : 'memory';
      assert.deepEqual(await turn(h, '', 's1'), [1, 2], where);
      assert.deepEqual(await turn(h, '', 's2'), [3, 4], where);
      assert.deepEqual(await turn(h, '/ns/a', 's1'), [1, 2], `${where}: another namespace numbers its own`);
      assert.equal((await h.request('POST', '/__admin/reset')).status, 200);
      assert.deepEqual(await turn(h, '', 's1'), [1, 2], `${where}: after a reset`);
      assert.equal((await h.request('POST', '/__admin/reset')).status, 200);
      assert.deepEqual(await turn(h, '', 's1'), [1, 2], `${where}: after another reset`);
      assert.deepEqual(await turn(h, '/ns/a', 's2'), [3, 4], `${where}: the default's reset leaves other namespaces be`);
      assert.equal((await h.request('POST', '/ns/a/__admin/reset')).status, 200);
      assert.deepEqual(await turn(h, '/ns/a', 's1'), [1, 2], `${where}: a reset of another namespace`);
      assert.deepEqual(await turn(h, '', 's2'), [3, 4], `${where}: and the default keeps counting`);
      await h.close();
    }
  });

  it('a checkpoint restore continues message ids from the checkpoint\'s counter, deleted messages included', async () => {
    const h = await open({ db: join(freshDir(), 'runs.db') });
    for (const prefix of ['', '/ns/b']) {
      assert.deepEqual(await turn(h, prefix, 's1'), [1, 2], prefix);
      const first = (await h.request('POST', `${prefix}/__admin/checkpoints`)).json().id as string;
      assert.deepEqual(await turn(h, prefix, 's2'), [3, 4], prefix);
      // AUTOINCREMENT never hands out a deleted message's id again: the counter stays at 4.
      assert.equal((await h.request('DELETE', `${prefix}/api/sessions/s1`)).status, 200);
      assert.equal((await h.request('DELETE', `${prefix}/api/sessions/s2`)).status, 200);
      const emptied = (await h.request('POST', `${prefix}/__admin/checkpoints`)).json().id as string;
      assert.equal((await h.request('POST', `${prefix}/__admin/checkpoints/${first}/restore`)).status, 200);
      assert.deepEqual(await ids(h, prefix), ['s1'], prefix);
      assert.deepEqual(await turn(h, prefix, 's3'), [3, 4], `${prefix}: from the first checkpoint's counter`);
      assert.equal((await h.request('POST', `${prefix}/__admin/reset`)).status, 200);
      assert.equal((await h.request('POST', `${prefix}/__admin/checkpoints/${emptied}/restore`)).status, 200);
      assert.deepEqual(await ids(h, prefix), [], prefix);
      assert.deepEqual(await turn(h, prefix, 's4'), [5, 6], `${prefix}: a store with no messages left still counts past them`);
      assert.equal((await h.request('POST', `${prefix}/__admin/reset`)).status, 200);
      assert.deepEqual(await turn(h, prefix, 's5'), [1, 2], `${prefix}: and a reset starts over`);
    }
  });

  it('a lock held by another connection: a write answers 503 session_db_unavailable after the lock timeout, the server lives on', async () => {
    const db = join(freshDir(), 'runs.db');
    const h = await open({ db, lockTimeout: 0.2 });
    const id = await createSession(h, '{"id": "before"}');
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    let runId = '';
    try {
      assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "during"}' }), 503, UNAVAILABLE);
      assertBytes(await h.request('PATCH', `/api/sessions/${id}`, { body: '{"pinned": true}' }), 503, UNAVAILABLE);
      assertBytes(await h.request('DELETE', `/api/sessions/${id}`), 503, UNAVAILABLE);
      // Reads are not blocked by a writer (WAL); everything that does not need the store answers.
      assertBytes(await h.request('GET', '/api/sessions'), 200, list([L(id, null)]));
      assert.equal((await h.request('GET', '/health')).status, 200);
      const keyless = await h.request('POST', '/v1/runs', { body: '{"input": "keyless"}' });
      assert.equal(keyless.status, 202);
      runId = keyless.json().run_id;
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    assertBytes(await h.request('POST', '/api/sessions', { body: '{"id": "during"}' }), 201, wrapped(S('during', null)));
    // The keyless run's own session (its session_id is its run id), opened while the lock was held, was kept waiting.
    assert.deepEqual((await ids(h)).sort(), ['before', 'during', runId].sort());
  });

  it('a run that ends while the lock is held: its turn waits, in order, and readers wait for it', async () => {
    const db = join(freshDir(), 'runs.db');
    // The lock is let go after 100 ms; the timeout is only the deadline for a machine too busy to fire that timer.
    const h = await open({ db, lockTimeout: 60 });
    const id = await createSession(h, '{"id": "s"}');
    const runId = await submit(h, '{"input": "during the lock", "session_id": "s"}');
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    let released = false;
    const completing = h.admin.complete(runId, { output: 'done' });
    setTimeout(() => {
      released = true;
      other.exec('COMMIT');
      other.close();
    }, 100);
    await completing;
    const reply = await h.request('GET', `/api/sessions/${id}/messages`);
    assert.ok(released, 'the read waited for the lock');
    assert.deepEqual(reply.json().data.map((m: { content: string }) => m.content), ['during the lock', 'done']);
  });

  it('a store that fails (its table gone) answers 503 on every session route; the process lives', async () => {
    const db = join(freshDir(), 'runs.db');
    const h = await open({ db, lockTimeout: 0.2 });
    const id = await createSession(h, '{}');
    const other = new Database(db);
    other.exec('DROP TABLE api_session_messages; DROP TABLE api_sessions;');
    other.close();
    for (const [method, path, body] of [
      ['GET', '/api/sessions'],
      ['POST', '/api/sessions', '{}'],
      ['GET', `/api/sessions/${id}`],
      ['PATCH', `/api/sessions/${id}`, '{}'],
      ['DELETE', `/api/sessions/${id}`],
      ['GET', `/api/sessions/${id}/messages`],
      ['POST', `/api/sessions/${id}/chat`, '{"message": "hi"}'],
    ] as const) {
      assertBytes(await h.request(method, path, { body }), 503, UNAVAILABLE);
    }
    assert.equal((await h.request('GET', '/health')).status, 200);
    assert.equal(h.bugs.length, 0, 'a failing store is not a bug of Hermetic');
  });

  it('with --state-db, sessions created through the API are written as SessionDB writes them, and their runs continue them', async () => {
    const stateDb = join(freshDir(), 'state.db');
    const h = await open({ stateDb });
    const id = await createSession(h, '{"title": "Bot Chat", "source": "bot_peer_dm", "system_prompt": "be terse"}');
    const runId = await submit(h, `{"input": "hello", "session_id": "${id}"}`);
    await h.admin.complete(runId, { output: 'hi', usage: { input_tokens: 2, output_tokens: 3 } });
    await h.request('PATCH', `/api/sessions/${id}`, { body: '{"hidden": true, "pinned": true}' });
    const gone = await createSession(h, '{"id": "to-delete"}');
    await h.request('DELETE', `/api/sessions/${gone}`);
    await h.close();
    const file = new Database(stateDb, { readonly: true });
    try {
      const row = file.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>;
      assert.deepEqual(
        [row.source, row.title, row.model, row.system_prompt, row.started_at, row.message_count, row.input_tokens, row.output_tokens, row.hidden, row.pinned, row.archived],
        ['api_server', 'Bot Chat', 'hermes-agent', 'be terse', T0, 2, 2, 3, 1, 1, 0],
      );
      const messages = file.prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id').all(id);
      assert.deepEqual(messages, [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }]);
      assert.equal(file.prepare('SELECT COUNT(*) FROM sessions WHERE id = ?').pluck().get(gone), 0);
    } finally {
      file.close();
    }
  });

  it('a dm crashed by an emulated restart drops its connection; what its agent had persisted, the user message, stays (decision 0133)', async () => {
    const h = await open();
    const id = await createSession(h, '{}');
    const chat = h.request('POST', `/api/sessions/${id}/chat`, { body: '{"message": "lost"}' }).then(
      () => 'answered',
      () => 'dropped',
    );
    await waitFor(async () => (await h.admin.runs()).runs.some((r) => r.live), 'the chat turn to go live');
    await h.admin.restart();
    assert.equal(await chat, 'dropped');
    assert.equal((await h.request('GET', `/api/sessions/${id}`)).json().session.message_count, 1);
    const kept = (await h.request('GET', `/api/sessions/${id}/messages`)).json().data as Array<{ role: string; content: string }>;
    assert.deepEqual(kept.map((m) => [m.role, m.content]), [['user', 'lost']]);
  });
});

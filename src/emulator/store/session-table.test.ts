// Message ids per profile (migration 007, decision 0051): each profile numbers its messages as its own state.db would
// (AUTOINCREMENT: from 1, never an id handed out before, deleted messages included), a checkpoint keeps every profile's
// counter, a reset starts them all over, and a store written before 007 keeps its ids. The store's statements first,
// then the same over both transports through the session routes.
import assert from 'node:assert/strict';
import { it, test } from 'node:test';
import Database from 'better-sqlite3';
import { freshFile, testLock } from '../../../test/support/run-table-conformance.js';
import { describeTransports, K, type Harness } from '../../../test/support/harness.js';
import type { NewMessage, NewSession, SessionOps, SessionsSnapshot } from '../sessions/table.js';
import { openEmulatorStore } from './db.js';
import { MIGRATIONS } from './migrations/index.js';
import { SqliteSessionTable } from './session-table.js';

const message = (role: string, content: string, timestamp: number): NewMessage => ({
  role, content, tool_call_id: null, tool_calls: null, tool_name: null, timestamp, token_count: null, finish_reason: null,
  reasoning: null, reasoning_content: null, display_kind: null,
});
const session = (profile: string, id: string): NewSession => ({ profile, id, source: 'api_server', model: null, model_config: null, system_prompt: null, started_at: 1 });

function table(file = ':memory:'): { write: <T>(fn: (ops: SessionOps) => T) => T; close: () => void } {
  const t = new SqliteSessionTable(openEmulatorStore(file), testLock(5_000));
  return { write: (fn) => t.writeNow('test', fn), close: () => t.close() };
}

/** One turn (a user message and the answer) in a new session of the profile: the ids the profile gave them. */
function turn(ops: SessionOps, profile: string, id: string): number[] {
  ops.ensure(session(profile, id));
  ops.append(profile, id, [message('user', 'hello', 1), message('assistant', 'hi', 2)], null);
  return ops.messages(profile, id, { limit: 100, offset: 0, latest: false }).map((m) => m.id);
}

test('each profile numbers its messages from 1, on its own, as its own state.db would', () => {
  const t = table();
  t.write((ops) => {
    assert.deepEqual(turn(ops, 'default', 's1'), [1, 2]);
    assert.deepEqual(turn(ops, 'alice', 's1'), [1, 2], 'another profile, even for the same session id');
    assert.deepEqual(turn(ops, 'alice', 's2'), [3, 4]);
    assert.deepEqual(turn(ops, 'default', 's2'), [3, 4]);
    assert.deepEqual(turn(ops, 'bob', 's9'), [1, 2]);
    // A deleted session's ids are not handed out again in its profile, and the other profiles do not notice.
    assert.ok(ops.delete('alice', 's2'));
    assert.deepEqual(turn(ops, 'alice', 's3'), [5, 6]);
    assert.deepEqual(turn(ops, 'default', 's3'), [5, 6]);
    assert.deepEqual(ops.messages('alice', 's1', { limit: 100, offset: 0, latest: false }).map((m) => [m.profile, m.session_id, m.content]), [
      ['alice', 's1', 'hello'],
      ['alice', 's1', 'hi'],
    ]);
  });
  t.close();
});

test('delete_session: delegate subagents go with their parent, recursively; a branch child is orphaned; another profile is untouched', () => {
  const t = table();
  t.write((ops) => {
    const delegate = (profile: string, id: string, parent: string): void =>
      ops.ensure({ ...session(profile, id), source: 'subagent', parent_session_id: parent, model_config: JSON.stringify({ _delegate_from: parent }) });
    turn(ops, 'default', 'p');
    delegate('default', 'kid', 'p');
    delegate('default', 'grandkid', 'kid');
    ops.append('default', 'grandkid', [message('user', 'deep', 3)], null);
    ops.ensure({ ...session('default', 'branch'), parent_session_id: 'p', model_config: JSON.stringify({ _branched_from: 'p' }) });
    turn(ops, 'alice', 'p');
    delegate('alice', 'kid', 'p');
    assert.equal(ops.delete('default', 'p'), true);
    for (const id of ['p', 'kid', 'grandkid']) assert.equal(ops.get('default', id), undefined, id);
    assert.deepEqual(ops.messages('default', 'grandkid', { limit: 10, offset: 0, latest: false }), []);
    assert.equal(ops.get('default', 'branch')?.parent_session_id, null);
    assert.equal(ops.get('alice', 'kid')?.parent_session_id, 'p');
  });
  t.close();
});

test('a snapshot keeps every profile\'s counter; replaceAll puts them back, and an empty one starts every profile over', () => {
  const t = table();
  const snapshot = t.write((ops) => {
    turn(ops, 'default', 's1');
    turn(ops, 'alice', 's1');
    turn(ops, 'alice', 's2');
    ops.delete('alice', 's2');
    return ops.snapshot();
  });
  assert.deepEqual(snapshot.messageSeqs, { alice: 4, default: 2 });
  assert.deepEqual(snapshot.messages.map((m) => [m.profile, m.id]), [['default', 1], ['default', 2], ['alice', 1], ['alice', 2]]);
  t.write((ops) => {
    turn(ops, 'alice', 's3');
    turn(ops, 'bob', 's1');
    ops.replaceAll(snapshot);
    assert.deepEqual(ops.snapshot(), snapshot, 'restored as it was');
    assert.deepEqual(turn(ops, 'alice', 's4'), [5, 6], 'past the deleted messages the snapshot counted');
    assert.deepEqual(turn(ops, 'bob', 's1'), [1, 2], 'a profile the snapshot did not have');
    const empty: SessionsSnapshot = { sessions: [], messages: [], messageSeqs: {} };
    ops.replaceAll(empty);
    assert.deepEqual(ops.snapshot(), empty);
    assert.deepEqual(turn(ops, 'alice', 's1'), [1, 2]);
    assert.deepEqual(turn(ops, 'default', 's1'), [1, 2]);
  });
  t.close();
});

test('a store written before migration 007 keeps its message ids; each profile it holds counts on past the old counter', () => {
  const file = freshFile();
  const old = new Database(file);
  for (const sql of MIGRATIONS.slice(0, 6)) old.exec(sql);
  old.pragma('user_version = 6');
  const insertSession = old.prepare('INSERT INTO api_sessions (profile, id, source, started_at) VALUES (?, ?, ?, 1)');
  const insertMessage = old.prepare('INSERT INTO api_session_messages (profile, session_id, role, content, timestamp) VALUES (?, ?, ?, ?, 1)');
  insertSession.run('default', 's1', 'api_server');
  insertSession.run('alice', 's1', 'api_server');
  // Numbered across the profiles, as before: default 1, 2, 5; alice 3, 4; then 6 and 7 (alice) deleted.
  for (const [profile, content] of [['default', 'a'], ['default', 'b'], ['alice', 'c'], ['alice', 'd'], ['default', 'e'], ['alice', 'f'], ['alice', 'g']]) {
    insertMessage.run(profile, 's1', 'user', content);
  }
  old.prepare('DELETE FROM api_session_messages WHERE id > 5').run();
  old.close();

  const t = table(file);
  t.write((ops) => {
    const ids = (profile: string) => ops.messages(profile, 's1', { limit: 100, offset: 0, latest: false }).map((m) => [m.id, m.content]);
    assert.deepEqual(ids('default'), [[1, 'a'], [2, 'b'], [5, 'e']], 'the ids a client may have seen');
    assert.deepEqual(ids('alice'), [[3, 'c'], [4, 'd']]);
    assert.deepEqual(ops.snapshot().messageSeqs, { alice: 7, default: 7 }, 'the old counter, for every profile it held');
    assert.deepEqual(turn(ops, 'alice', 's2'), [8, 9], 'never an id the store handed out before');
    assert.deepEqual(turn(ops, 'default', 's2'), [8, 9]);
    assert.deepEqual(turn(ops, 'bob', 's1'), [1, 2], 'a profile the store never held starts at 1');
  });
  t.close();
  const db = openEmulatorStore(file);
  assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_sequence WHERE name = 'api_session_messages'").pluck().get(), 0, 'no AUTOINCREMENT counter is left');
  assert.deepEqual(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'api_session_messages' AND sql IS NOT NULL").pluck().all(), ['idx_api_session_messages_session']);
  db.close();
});

test('a store written before migration 007 with no messages upgrades to counters that start at 1', () => {
  const file = freshFile();
  const old = new Database(file);
  for (const sql of MIGRATIONS.slice(0, 6)) old.exec(sql);
  old.pragma('user_version = 6');
  old.prepare("INSERT INTO api_sessions (profile, id, source, started_at) VALUES ('default', 's1', 'api_server', 1)").run();
  old.close();
  const t = table(file);
  t.write((ops) => {
    assert.deepEqual(ops.snapshot().messageSeqs, {});
    assert.deepEqual(turn(ops, 'default', 's1'), [1, 2]);
  });
  t.close();
});

const ALICE_KEY = 'alice-key-0123456789';
const KEYS: Record<string, string> = { '': K, '/p/alice': ALICE_KEY, '/p/bob': 'bob-key-0123456789ab' };

/** One run's turn in a new session of the profile under `prefix` (namespace and profile): its messages' ids. */
async function routeTurn(h: Harness, ns: string, profile: string, id: string): Promise<number[]> {
  const headers = { Authorization: `Bearer ${KEYS[profile]}` };
  const created = await h.request('POST', `${ns}${profile}/api/sessions`, { headers, body: JSON.stringify({ id }) });
  assert.equal(created.status, 201, created.text);
  const run = await h.request('POST', `${ns}${profile}/v1/runs`, { headers, body: JSON.stringify({ input: 'hello', session_id: id }) });
  assert.equal(run.status, 202, run.text);
  const done = await h.request('POST', `${ns}/__admin/runs/${run.json().run_id}/complete`, { body: '{"output": "hi"}' });
  assert.equal(done.status, 200, done.text);
  const messages = await h.request('GET', `${ns}${profile}/api/sessions/${id}/messages`, { headers });
  assert.equal(messages.status, 200, messages.text);
  return messages.json().data.map((m: { id: number }) => m.id);
}

describeTransports('message ids per profile', (open) => {
  const profiles = { alice: { apiKey: ALICE_KEY }, bob: { apiKey: KEYS['/p/bob']! } };

  it('a client talking to two profiles sees each number its messages from 1, on its own; /p/default is the listener\'s', async () => {
    const h = await open({ profiles });
    assert.deepEqual(await routeTurn(h, '', '', 's1'), [1, 2]);
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's1'), [1, 2]);
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's2'), [3, 4]);
    assert.deepEqual(await routeTurn(h, '', '', 's2'), [3, 4]);
    assert.equal((await h.request('DELETE', '/p/alice/api/sessions/s2', { headers: { Authorization: `Bearer ${ALICE_KEY}` } })).status, 200);
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's3'), [5, 6], 'a deleted session\'s ids are not handed out again');
    assert.deepEqual(await routeTurn(h, '', '/p/bob', 's1'), [1, 2]);
    // /p/default is the listener's own profile: the same counter as no prefix.
    const viaDefault = await h.request('GET', '/p/default/api/sessions/s2/messages');
    assert.deepEqual(viaDefault.json().data.map((m: { id: number }) => m.id), [3, 4]);
    // Another namespace counts on its own too.
    assert.deepEqual(await routeTurn(h, '/ns/other', '/p/alice', 's1'), [1, 2]);
  });

  it('a checkpoint restore continues every profile from its own counter; a reset starts them all over', async () => {
    const h = await open({ profiles });
    await routeTurn(h, '', '', 's1');
    await routeTurn(h, '', '/p/alice', 's1');
    await routeTurn(h, '', '/p/alice', 's2');
    const cp = (await h.request('POST', '/__admin/checkpoints')).json().id as string;
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's3'), [5, 6]);
    assert.deepEqual(await routeTurn(h, '', '/p/bob', 's1'), [1, 2]);
    assert.equal((await h.request('POST', `/__admin/checkpoints/${cp}/restore`)).status, 200);
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's3'), [5, 6], 'alice from the checkpoint\'s counter');
    assert.deepEqual(await routeTurn(h, '', '', 's2'), [3, 4], 'the default profile from its own');
    assert.deepEqual(await routeTurn(h, '', '/p/bob', 's1'), [1, 2], 'bob had none at the checkpoint');
    assert.equal((await h.request('POST', '/__admin/reset')).status, 200);
    assert.deepEqual(await routeTurn(h, '', '/p/alice', 's1'), [1, 2]);
    assert.deepEqual(await routeTurn(h, '', '', 's1'), [1, 2]);
  });
});

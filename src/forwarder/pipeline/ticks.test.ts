// Forward ticks write what changed (decision 0032, issue 16 §3): messages Hermes appends are appended, a rewrite
// (/retry, a rewind, in-place compaction, a /model route, a delete and re-create) rewrites from the first message that
// differs — and after every tick the dataset equals a clean backfill of the same store, row for row, cursors' tails
// included. Each scenario drives the Hermes-like writer and ticks after each step, in both read modes.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import type { Db } from '../../shared/sqlite.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter, type MessageInput, type ToolCall } from '../../state-db/writer/index.js';
import { assertCleanBackfill, forwarderRig } from '../testing/index.js';
import type { ReadWorkerMode } from './read-mode.js';
import type { StepResult } from './step.js';

const T0 = 1784000000;

interface World {
  db: Db;
  w: StateDbWriter;
  clock: { t: number };
  /**
   * A forward tick, then the dataset compared with a clean backfill of the store as it is now (not while the store
   * lacks a session the dataset keeps, marked removed: a clean backfill never saw it).
   */
  tick(label: string, compare?: boolean): StepResult;
}

/** A store written by the Hermes-like writer (open, like a running Hermes) and a forwarder that ticks over it. */
function scenario(name: string, fn: (x: World) => void, o: { level?: number } = {}): void {
  for (const readWorker of ['off', 'only'] as ReadWorkerMode[]) {
    test(`${name} (read worker ${readWorker})`, () => {
      const { dir, cleanup } = tempDir('hermetic-ticks-');
      const path = join(dir, 'hermes', 'state.db');
      const db = createStore({ path, level: o.level ?? 31, journal: 'wal', fts: false, generation: 'gen-a' });
      const clock = { t: T0 };
      const w = new StateDbWriter(db, { now: () => (clock.t += 1), ids: createIdSource('ticks') });
      const rig = forwarderRig([path], { dir, home: join(dir, 'ticking'), readWorker });
      try {
        fn({
          db, w, clock,
          tick: (label, compare = true) => {
            const [r] = rig.forwarder.forwardOnce();
            assert.equal(r!.error, null, `${label}: ${r!.error?.message}`);
            if (compare) assertCleanBackfill(rig, path, label);
            return r!;
          },
        });
      } finally {
        rig.cleanup();
        if (db.open) db.close();
        cleanup();
      }
    });
  }
}

const call = (id: string, name: string): ToolCall => ({ id, type: 'function', function: { name, arguments: JSON.stringify({ q: id }) } });
const turn = (i: number): MessageInput[] => [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}`, finish_reason: 'stop' }];
/** What a tick did to the transcript tables. */
const did = (r: StepResult) => ({ appended: r.sessionsAppended, rewritten: r.sessionsRewritten, replaced: r.sessionsReplaced, added: r.messages, removed: r.messagesRemoved });

scenario('many small appends are appended: nothing removed, only the new messages and parts written', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 });
  w.appendMessages(s, turn(0));
  assert.deepEqual(did(tick('the first tick')), { appended: 0, rewritten: 0, replaced: 1, added: 2, removed: 0 });
  for (let i = 1; i <= 12; i++) {
    w.appendMessages(s, i % 3 === 0 ? [{ role: 'user', content: `just a note ${i}` }] : turn(i));
    const r = tick(`append ${i}`);
    assert.deepEqual(did(r), { appended: 1, rewritten: 0, replaced: 0, added: i % 3 === 0 ? 1 : 2, removed: 0 });
    assert.equal(r.partsRemoved, 0);
  }
  // The first main-loop route: assistant rows' model now comes from it, so the session is read whole and compared
  // with its checkpoints — nothing differed, nothing is written but the session's own rows.
  const route = { model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1' };
  w.updateTokenCounts(s, { input_tokens: 100, output_tokens: 7, ...route });
  assert.deepEqual(did(tick('the first usage')), { appended: 0, rewritten: 1, replaced: 0, added: 0, removed: 0 });
  // More usage on the same route, and an end, change only the session-level rows.
  w.updateTokenCounts(s, { input_tokens: 50, output_tokens: 3, ...route });
  assert.deepEqual(did(tick('usage')), { appended: 1, rewritten: 0, replaced: 0, added: 0, removed: 0 });
  w.endSession(s, 'user_exit');
  const ended = tick('the end');
  assert.deepEqual([did(ended), ended.parts, ended.partsRemoved], [{ appended: 1, rewritten: 0, replaced: 0, added: 0, removed: 0 }, 1, 0]);
  w.reopenSession(s);
  w.appendMessages(s, turn(99));
  const reopened = tick('reopened, more messages');
  assert.deepEqual([did(reopened), reopened.partsRemoved], [{ appended: 1, rewritten: 0, replaced: 0, added: 2, removed: 0 }, 1]);
});

scenario('a call in one tick and its result (without a tool name) in the next: the result is named by the call', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  w.appendMessages(s, [{ role: 'user', content: 'look' }, { role: 'assistant', content: null, tool_calls: [call('call_1', 'terminal'), call('call_2', 'read_file')], finish_reason: 'tool_calls' }]);
  tick('the calls');
  w.appendMessages(s, [{ role: 'tool', content: 'a.py', tool_call_id: 'call_2' }]);
  assert.deepEqual(did(tick('one result')), { appended: 1, rewritten: 0, replaced: 0, added: 1, removed: 0 });
  // A provider that reuses ids ("call_1" again): each result is named by the latest call before it.
  w.appendMessages(s, [{ role: 'tool', content: 'ok', tool_call_id: 'call_1' }, { role: 'assistant', content: null, tool_calls: [call('call_1', 'web_search')] }]);
  tick('a reused id');
  w.appendMessages(s, [{ role: 'tool', content: 'found', tool_call_id: 'call_1' }, { role: 'tool', content: 'orphan', tool_call_id: 'call_none' }]);
  // A result whose call the tail cannot see (none at all) is looked for in the whole session.
  assert.deepEqual(did(tick('an orphan result')), { appended: 0, rewritten: 1, replaced: 0, added: 2, removed: 0 });
});

scenario('/retry (replace_messages) rewrites the session: every message has a new id', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  for (let i = 0; i < 5; i++) w.appendMessages(s, turn(i));
  tick('ten messages');
  w.replaceMessages(s, [...turn(0), ...turn(1), { role: 'user', content: 'question 2' }, { role: 'assistant', content: 'a better answer 2' }]);
  const retried = tick('/retry');
  assert.deepEqual(did(retried), { appended: 0, rewritten: 1, replaced: 0, added: 6, removed: 10 });
  // Per session, the rows removed and written again: six rewritten, four removed (the tick line says so).
  assert.equal(retried.messagesRewritten, 6);
  w.appendMessages(s, turn(3));
  assert.deepEqual(did(tick('after /retry')), { appended: 1, rewritten: 0, replaced: 0, added: 2, removed: 0 });
});

scenario('a rewind near the end of a long session rewrites only from a checkpoint before it, and after_rewind lands', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  const ids: number[] = [];
  for (let i = 0; i < 300; i++) ids.push(...w.appendMessages(s, turn(i)));
  tick('600 messages');
  w.rewind(s, ids[595]!);
  const r = tick('the last four rewound');
  assert.equal(r.sessionsRewritten, 1);
  assert.ok(r.messagesRemoved >= 4 && r.messagesRemoved <= 4 + 32, `a short range was rewritten: ${r.messagesRemoved} removed`);
  w.appendMessages(s, [{ role: 'user', content: 'asked again' }]);
  // The tail remembers the rewound rows: the new message carries after_rewind, appended alone.
  assert.deepEqual(did(tick('a message after the rewind')), { appended: 1, rewritten: 0, replaced: 0, added: 1, removed: 0 });
  w.rewind(s, ids[9]!);
  w.appendMessages(s, turn(1000));
  tick('a rewind to the start, and a new turn');
});

scenario('in-place compaction marks the summarized rows and adds the new live ones; later appends after it are appended', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  for (let i = 0; i < 40; i++) w.appendMessages(s, turn(i));
  tick('80 messages');
  w.compactInPlace(s, [{ role: 'assistant', content: '[summary of 80 messages]', _compressed_summary: 1 }], 2);
  const r = tick('compaction');
  // Every row changed state (78 summarized away, 2 carried on by clones): rewritten whole, 78 + 3 rows.
  assert.deepEqual([r.sessionsRewritten, r.messagesRemoved, r.messages], [1, 80, 81]);
  w.appendMessages(s, turn(41));
  // The prefix now has archived rows: the new rows are checked not to repeat one of them, then appended.
  assert.deepEqual(did(tick('after compaction')), { appended: 1, rewritten: 0, replaced: 0, added: 2, removed: 0 });
  w.compactInPlace(s, [{ role: 'assistant', content: '[summary again]', _compressed_summary: 1 }], 3);
  tick('a second compaction');
  w.appendMessages(s, turn(42));
  tick('after the second');
}, { level: 31 });

scenario('a compression split ends the parent (its end part only) and starts a child', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', title: 'work', started_at: T0 });
  for (let i = 0; i < 6; i++) w.appendMessages(s, turn(i));
  tick('the parent');
  w.compressSplit(s, [{ role: 'user', content: '[summary]' }]);
  const r = tick('split');
  assert.deepEqual([r.sessionsAppended, r.sessionsReplaced, r.messagesRemoved], [1, 1, 0]);
  // The parent resumed: no longer ended by compression, so its (unchanged) child is a plain child now — read again.
  w.reopenSession(s);
  const resumed = tick('the parent resumed');
  assert.deepEqual([resumed.sessionsWritten, resumed.sessionsAppended, resumed.messages], [2, 2, 0]);
});

scenario('a /model switch that opens a new main-loop route re-attributes from the first message it changes', ({ w, tick }) => {
  const s = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 });
  const route = { billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1' };
  w.appendMessages(s, turn(0));
  w.updateTokenCounts(s, { input_tokens: 10, output_tokens: 2, model: 'gpt-5', ...route });
  for (let i = 1; i < 50; i++) w.appendMessages(s, turn(i));
  tick('gpt-5 only');
  w.switchModel(s, 'claude-opus', { billing_provider: 'anthropic', billing_base_url: 'https://api.anthropic.com' });
  w.updateTokenCounts(s, { input_tokens: 10, output_tokens: 2, model: 'claude-opus', billing_provider: 'anthropic', billing_base_url: 'https://api.anthropic.com' });
  w.appendMessages(s, turn(50));
  const r = tick('switched');
  assert.equal(r.sessionsRewritten, 1);
  assert.ok(r.messagesRemoved <= 32, `only the tail is attributed again: ${r.messagesRemoved} removed`);
});

scenario('session_meta model markers and garbage times carry across ticks', ({ db, w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  db.prepare('UPDATE sessions SET started_at = 5e246 WHERE id = ?').run(s);
  w.appendMessages(s, [{ role: 'assistant', content: 'before any time', timestamp: 5e246 }, { role: 'session_meta', content: '{"model": "opus"}' }]);
  tick('a garbage start');
  w.appendMessages(s, [{ role: 'assistant', content: 'by opus', timestamp: 7e246 }, { role: 'user', content: 'fine' }]);
  assert.deepEqual(did(tick('more')), { appended: 1, rewritten: 0, replaced: 0, added: 2, removed: 0 });
});

scenario('bad values are written once, each with its row_issues entry, across ticks', ({ db, w, tick }) => {
  const s = w.createSession({ source: 'cli', started_at: T0 });
  w.appendMessages(s, turn(0));
  tick('clean');
  const [blob, shapes] = w.appendMessages(s, [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'calls', tool_calls: [call('c1', 'terminal')] }]);
  db.prepare('UPDATE messages SET content = ? WHERE id = ?').run(Buffer.from('héllo', 'utf8'), blob);
  db.prepare('UPDATE messages SET tool_calls = ? WHERE id = ?').run('[1, {"a": 1}, {"function": null}, {"id": "c2", "type": "function", "function": {"name": "t", "arguments": "{}"}}]', shapes);
  db.prepare('UPDATE sessions SET input_tokens = -5 WHERE id = ?').run(s);
  const r = tick('bad values');
  assert.deepEqual(did(r), { appended: 1, rewritten: 0, replaced: 0, added: 2, removed: 0 });
  assert.equal(r.rowIssues, 3);
});

scenario('a session deleted and re-created with the same id (a running chat saving again) is rewritten whole', ({ w, tick }) => {
  const s = w.createSession({ id: 'chat', source: 'cli', started_at: T0 });
  w.appendMessages(s, turn(0));
  tick('the chat');
  w.deleteSession(s);
  tick('deleted', false);
  w.createSession({ id: 'chat', source: 'cli', started_at: T0 });
  w.appendMessages('chat', [...turn(0), ...turn(1)]);
  assert.deepEqual(did(tick('saved again')), { appended: 0, rewritten: 1, replaced: 0, added: 4, removed: 2 });
});

test('a dataset from before version 6 gets the history compaction took from it back on the next pass', () => {
  const { dir, cleanup } = tempDir('hermetic-compacted-migration-');
  const path = join(dir, 'state.db');
  const db = createStore({ path, level: 31, journal: 'wal', fts: false });
  let t = T0;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('compacted-migration') });
  const home = join(dir, 'home');
  try {
    const s = w.createSession({ source: 'cli', started_at: T0 });
    const other = w.createSession({ source: 'cli', started_at: T0 });
    for (let i = 0; i < 4; i++) w.appendMessages(s, turn(i));
    w.appendMessages(other, turn(0));
    w.compactInPlace(s, [{ role: 'assistant', content: '[summary]', _compressed_summary: 1 }], 2);
    const first = forwarderRig([path], { dir, home });
    first.forwarder.forwardOnce();
    const shown = first.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND compacted = 1', s)[0]!.n;
    assert.equal(shown, 6);
    first.cleanup();
    // As version 5 left it: no column, no compacted rows, the cursors as they were.
    const old = new Database(join(home, 'hermetic.db'));
    old.exec('DELETE FROM messages WHERE compacted = 1; ALTER TABLE messages DROP COLUMN compacted');
    old.pragma('user_version = 5');
    const cursors = () => Object.fromEntries((old.prepare('SELECT session_id, fingerprint FROM session_cursors').all() as { session_id: string; fingerprint: string }[]).map((c) => [c.session_id, c.fingerprint]));
    const before = cursors();
    old.close();
    const second = forwarderRig([path], { dir, home });
    try {
      const r = second.forwarder.forwardOnce()[0]!;
      assert.deepEqual([r.sessionsWritten, r.sessionsUnchanged], [1, 1]);
      assert.deepEqual(second.query('SELECT compacted, COUNT(*) AS n FROM messages WHERE session_id = ? GROUP BY compacted ORDER BY compacted', s), [{ compacted: 0, n: 3 }, { compacted: 1, n: 6 }]);
      assert.equal(second.query<{ f: string }>('SELECT fingerprint AS f FROM session_cursors WHERE session_id = ?', other)[0]!.f, before[other]);
    } finally {
      second.cleanup();
    }
  } finally {
    db.close();
    cleanup();
  }
});

test('a dataset from before version 7 gets the session and message attributes of every session on the next pass', () => {
  const { dir, cleanup } = tempDir('hermetic-attributes-migration-');
  const path = join(dir, 'state.db');
  const db = createStore({ path, level: 31, journal: 'wal', fts: false });
  let t = T0;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('attributes-migration') });
  const home = join(dir, 'home');
  try {
    const s = w.createSession({ source: 'telegram', started_at: T0, title_source: 'llm', chat_type: 'dm', user_id: 'u-4471' });
    w.appendMessages(s, [{ role: 'user', content: 'hi', platform_message_id: '991' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
    const first = forwarderRig([path], { dir, home });
    first.forwarder.forwardOnce();
    first.cleanup();
    // As version 6 left it: no attributes columns, cursors fingerprinted on fewer columns, tails of version 2.
    const old = new Database(join(home, 'hermetic.db'));
    old.exec(`ALTER TABLE sessions DROP COLUMN attributes; ALTER TABLE messages DROP COLUMN attributes;
      UPDATE session_cursors SET fingerprint = 'v6|' || fingerprint, tail = json_set(tail, '$.v', 2)`);
    old.pragma('user_version = 6');
    old.close();
    const second = forwarderRig([path], { dir, home });
    try {
      const r = second.forwarder.forwardOnce()[0]!;
      assert.equal(r.sessionsWritten, 1);
      assert.deepEqual(second.query('SELECT attributes FROM sessions'), [{ attributes: '{"chat_type":"dm","title_source":"llm"}' }]);
      assert.deepEqual(second.query('SELECT seq, attributes FROM messages ORDER BY seq'), [{ seq: 0, attributes: '{"platform_message_id":"991"}' }, { seq: 1, attributes: null }]);
      // Written whole: every message row again (the one before had no attributes column to hold its platform id).
      assert.equal(r.messages, 2);
    } finally {
      second.cleanup();
    }
  } finally {
    db.close();
    cleanup();
  }
});

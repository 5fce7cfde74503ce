// Every query the forwarder runs against a state.db (spec forwarding §6.1 items 1 and 4, §6.3 items 18 and 22;
// checklist §5.1 #1–#2): columns by name with NULL for missing ones, sessions in id order, messages of every
// generation, the joined v25 prompt, ancestors, the store's identity and the cheap change marks.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { usageMarkOf } from '../normalize/index.js';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { MESSAGE_READ_COLUMNS, selectList, SESSION_COLUMNS } from './columns.js';
import { readStore } from './connection.js';
import { StoreReader } from './store.js';

const T0 = 1784000000;

/** A session's rows, all of them, as the pipeline reads them. */
const whole = (r: StoreReader, id: string) => r.messagesWithin(id, Number.NEGATIVE_INFINITY, { rows: Number.MAX_SAFE_INTEGER - 1, chars: Infinity }).rows;

function withWriter(level: number, fn: (w: StateDbWriter, read: <T>(f: (r: StoreReader) => T) => T, path: string) => void, createdAt = level): () => void {
  return () => {
    const { dir, cleanup } = tempDir('hermetic-store-');
    const path = join(dir, 'state.db');
    const db = createStore({ path, level, createdAt, journal: 'delete', fts: false, generation: 'gen-0001' });
    let t = T0;
    const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('store-test') });
    try {
      fn(w, (f) => readStore(path, (conn) => f(new StoreReader(conn, path))), path);
    } finally {
      db.close();
      cleanup();
    }
  };
}

test('marks list every session in id order, whatever order they were written in (§5.1 #1)', withWriter(31, (w, read) => {
  for (const id of ['20260714_120000_bbbbbb', '20260714_090000_aaaaaa', 'sess_imported', '20260714_150000_cccccc']) w.createSession({ id, source: 'cli', started_at: T0 });
  assert.deepEqual(read((r) => r.marks().map((m) => m.id)), ['20260714_090000_aaaaaa', '20260714_120000_bbbbbb', '20260714_150000_cccccc', 'sess_imported']);
}));

test('a session row has every column Hermes ever had, by name, NULL where this store lacks it (§5.1 #1, §6.1 item 1)', withWriter(2, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', model: 'gpt-5', started_at: T0 });
  const row = read((r) => r.session('s1'))!;
  assert.deepEqual(Object.keys(row), SESSION_COLUMNS);
  assert.deepEqual([row.id, row.source, row.model, row.started_at, row.cwd, row.api_call_count, row.system_prompt_hash, row.billing_base_url], ['s1', 'cli', 'gpt-5', T0, null, null, null, null]);
  assert.equal(read((r) => r.session('nope')), undefined);
}));

test('on a store created at v12 and migrated (appended column order) columns are still read by name', withWriter(31, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', model: 'gpt-5', started_at: T0, cwd: '/home/dev/p', git_branch: 'main', profile_name: 'coder' });
  w.updateTokenCounts('s1', { input_tokens: 10, output_tokens: 2, cache_read_tokens: 7, api_calls: 3, estimated_cost_usd: 0.5 });
  const row = read((r) => r.session('s1'))!;
  assert.deepEqual([row.cwd, row.git_branch, row.input_tokens, row.output_tokens, row.cache_read_tokens, row.api_call_count, row.estimated_cost_usd],
    ['/home/dev/p', 'main', 10, 2, 7, 3, 0.5]);
}, 12));

test('a session\'s messages come in id order with tool-call and reasoning fields; a session without messages has none (§5.1 #2)', withWriter(31, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', started_at: T0 });
  w.createSession({ id: 'empty', source: 'cli', started_at: T0 });
  const calls = [{ id: 'call_1', type: 'function' as const, function: { name: 'terminal', arguments: '{"command": "ls"}' } }];
  const [a, b, c] = w.appendMessages('s1', [
    { role: 'user', content: 'list', timestamp: T0 + 1 },
    { role: 'assistant', content: null, tool_calls: calls, reasoning: 'look', reasoning_content: 'native', finish_reason: 'tool_calls', timestamp: T0 + 2 },
    { role: 'tool', content: 'a.py', tool_call_id: 'call_1', tool_name: 'terminal', timestamp: T0 + 3 },
  ]);
  const rows = read((r) => whole(r, 's1'));
  assert.deepEqual(Object.keys(rows[0]!), MESSAGE_READ_COLUMNS);
  assert.deepEqual(rows.map((m) => [m.id, m.role, m.content, m.tool_calls, m.tool_call_id, m.tool_name, m.reasoning, m.reasoning_content, m.finish_reason, m.timestamp]), [
    [a, 'user', 'list', null, null, null, null, null, null, T0 + 1],
    [b, 'assistant', null, '[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"ls\\"}"}}]', null, null, 'look', 'native', 'tool_calls', T0 + 2],
    [c, 'tool', 'a.py', null, 'call_1', 'terminal', null, null, null, T0 + 3],
  ]);
  assert.deepEqual(read((r) => whole(r, 'empty')), []);
}));

test('messagesWithin reads at most a number of rows and only as many as hold a budget of characters, one at least, and says whether rows are left', withWriter(31, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', started_at: T0 });
  const ids = w.appendMessages('s1', ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(5000), 'd'.repeat(100)].map((content, i) => ({ role: 'user' as const, content, timestamp: T0 + i })));
  const got = (after: number, limit: number, budget: number) => read((r) => {
    const { rows, more } = r.messagesWithin('s1', after, { rows: limit, chars: budget });
    return [rows.map((m) => m.id), more];
  });
  // The rows by one plain SELECT of the same columns, the reference the chunked reads are held to.
  const all = read((r) => r.db.prepare(`SELECT ${selectList(r.columns.get('messages'), MESSAGE_READ_COLUMNS)} FROM messages WHERE session_id = ? ORDER BY id`).all('s1') as Record<string, unknown>[]);
  const size = (i: number) => Object.values(all[i]!).reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 8), 0);
  assert.deepEqual(got(Number.NEGATIVE_INFINITY, 10, 1e9), [ids, false]);
  assert.deepEqual(got(Number.NEGATIVE_INFINITY, 4, 1e9), [ids, false], 'exactly the limit: nothing left');
  assert.deepEqual(got(Number.NEGATIVE_INFINITY, 3, 1e9), [ids.slice(0, 3), true]);
  assert.deepEqual(got(Number.NEGATIVE_INFINITY, 10, size(0) + size(1)), [ids.slice(0, 2), true], 'cut before the row that passes the budget');
  assert.deepEqual(got(ids[1]!, 10, 10), [[ids[2]], true], 'a row longer than the budget is read alone');
  assert.deepEqual(got(ids[2]!, 10, 10), [[ids[3]], false]);
  assert.deepEqual(got(ids[3]!, 10, 10), [[], false]);
  assert.deepEqual(read((r) => r.messagesWithin('s1', Number.NEGATIVE_INFINITY, { rows: 10, chars: 1e9 }).rows), all, 'the same rows as one plain SELECT');
}));

test('editedRows hands the rows one at a time, not a long session\'s api_content all at once (0171 addendum)', withWriter(31, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', started_at: T0 });
  const ids = w.appendMessages('s1', ['a', 'b', 'c'].map((content, i) => ({ role: 'user' as const, content, timestamp: T0 + i })));
  for (const id of ids) w.db.prepare('UPDATE messages SET api_content = ? WHERE id = ?').run(`sent ${id} ${'x'.repeat(1000)}`, id);
  read((r) => {
    const rows = r.editedRows('s1', ids[2]!);
    assert.ok(!Array.isArray(rows), 'an iterator, not every row read');
    const first = rows.next();
    assert.equal((first.value as unknown[])[0], ids[0]);
    assert.deepEqual([...rows].map((v) => v[0]), ids.slice(1));
    assert.equal(r.session('s1')!.id, 's1', 'consumed, the connection is free again');
  });
}));

test('messages of every generation are read (archived and rewound rows too), so the normalizer can tell them apart', withWriter(31, (w, read) => {
  w.createSession({ id: 's1', source: 'cli', started_at: T0 });
  const ids = w.appendMessages('s1', [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }]);
  w.rewind('s1', ids[0]!);
  assert.deepEqual(read((r) => whole(r, 's1').map((m) => [m.id, m.active])), [[ids[0], 1], [ids[1], 0], [ids[2], 0]]);
}));

test('on v25+ the system prompt is joined from system_prompts; an inline prompt is preferred; an unknown hash gives null (§6.1 item 4)', withWriter(31, (w, read) => {
  w.createSession({ id: 'joined', source: 'cli', started_at: T0, system_prompt: 'You are Hermes.' });
  w.createSession({ id: 'inline', source: 'cli', started_at: T0, system_prompt: 'Stored prompt.' });
  w.updateSession('inline', { system_prompt: 'Inline prompt.' });
  w.createSession({ id: 'dangling', source: 'cli', started_at: T0 });
  w.db.pragma('foreign_keys = OFF');
  w.updateSession('dangling', { system_prompt_hash: 'f'.repeat(64) });
  assert.deepEqual(read((r) => ['joined', 'inline', 'dangling'].map((id) => r.systemPrompt(r.session(id)!))), ['You are Hermes.', 'Inline prompt.', null]);
  assert.equal(read((r) => r.session('joined')!.system_prompt), null);
}));

test('before v25 the inline prompt is the prompt', withWriter(22, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0, system_prompt: 'Old inline.' });
  assert.equal(read((r) => r.systemPrompt(r.session('s')!)), 'Old inline.');
}));

test('ancestors come nearest first and stop at a missing parent or a cycle', withWriter(31, (w, read) => {
  w.db.pragma('foreign_keys = OFF');
  w.createSession({ id: 'root', source: 'cli', started_at: T0 });
  w.createSession({ id: 'mid', source: 'cli', started_at: T0, parent_session_id: 'root' });
  w.createSession({ id: 'leaf', source: 'subagent', started_at: T0, parent_session_id: 'mid' });
  w.createSession({ id: 'orphan', source: 'cli', started_at: T0, parent_session_id: 'gone' });
  w.createSession({ id: 'loop-a', source: 'cli', started_at: T0, parent_session_id: 'loop-b' });
  w.createSession({ id: 'loop-b', source: 'cli', started_at: T0, parent_session_id: 'loop-a' });
  assert.deepEqual(read((r) => r.parents(r.session('leaf')!).map((p) => p.id)), ['mid', 'root']);
  assert.deepEqual(read((r) => r.parents(r.session('orphan')!).map((p) => p.id)), []);
  assert.deepEqual(read((r) => r.parents(r.session('loop-a')!).map((p) => p.id)), ['loop-b']);
}));

test('store facts: schema version, journal mode, generation key, identity from dev:ino, newest message id', withWriter(31, (w, read, path) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0 });
  const [, last] = w.appendMessages('s', [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]);
  const st = statSync(path);
  assert.deepEqual(read((r) => r.facts()), { schemaVersion: 30, journalMode: 'delete', generation: 'gen-0001', identity: `${st.dev}:${st.ino}|v30|gen-0001`, maxMessageId: last });
}));

test('an old store without state_meta has no generation; an empty one has message id 0', withWriter(2, (_w, read, path) => {
  const st = statSync(path);
  assert.deepEqual(read((r) => r.facts()), { schemaVersion: 2, journalMode: 'delete', generation: null, identity: `${st.dev}:${st.ino}|v2|-`, maxMessageId: 0 });
}));

test('a mark changes when the session\'s end, counters or title change, and not otherwise', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0, model: 'gpt-5' });
  const mark = () => read((r) => r.marks()[0]!.fingerprint);
  const seen = [mark()];
  assert.equal(mark(), seen[0]);
  w.endSession('s', 'user_exit', T0 + 50);
  seen.push(mark());
  w.updateTokenCounts('s', { input_tokens: 5 });
  seen.push(mark());
  w.updateSession('s', { title: 'named' });
  seen.push(mark());
  w.reopenSession('s');
  seen.push(mark());
  // The fields kept in attributes (decision 0050), and BLOBs where text belongs (a TEXT column stores a number as text).
  w.updateSession('s', { pinned: 1 });
  seen.push(mark());
  w.updateSession('s', { title_source: 'user' });
  seen.push(mark());
  w.updateSession('s', { title: '1' });
  seen.push(mark());
  w.db.prepare("UPDATE sessions SET title = CAST('1' AS BLOB) WHERE id = ?").run('s');
  seen.push(mark());
  w.db.prepare("UPDATE sessions SET title = x'00' WHERE id = ?").run('s');
  seen.push(mark());
  assert.equal(new Set(seen).size, 10);
}));

test('a mark follows the billing URL without holding it: a key in the URL never reaches the dataset', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0, model: 'gpt-5' });
  const mark = () => read((r) => r.marks()[0]!.fingerprint);
  w.updateSession('s', { billing_base_url: 'http://localhost:11434/v1?api_key=SECRETKEY123' });
  const first = mark();
  assert.ok(!first.includes('SECRETKEY123') && !first.includes('localhost'), first);
  assert.equal(mark(), first);
  w.updateSession('s', { billing_base_url: 'http://localhost:11434/v1?api_key=SECRETKEY124' });
  assert.notEqual(mark(), first);
}));

test('a session\'s usage mark is the same from SQL (every session) and from its rows as read, whatever the amounts', withWriter(31, (w, read) => {
  let n = 0;
  const cost = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 50, noNaN: true }), fc.integer({ min: 0, max: 10 ** 7 }).map((x) => x / 1e8));
  const route = fc.record({ task: fc.constantFrom('', 'vision', 'title_generation', 'compression'), model: fc.constantFrom('a', 'b', 'c'),
    input_tokens: fc.nat(10 ** 7), output_tokens: fc.nat(10 ** 6), cache_read_tokens: fc.nat(10 ** 8), reasoning_tokens: fc.nat(1000),
    estimated_cost_usd: cost, actual_cost_usd: cost, api_calls: fc.integer({ min: 1, max: 40 }) });
  fc.assert(fc.property(fc.array(route, { minLength: 1, maxLength: 9 }), (routes) => {
    const id = `s${++n}`;
    w.createSession({ id, source: 'cli', started_at: T0 });
    for (const r of routes) w.recordAuxiliaryUsage(id, r.task, r);
    const [fromSql, fromRows] = read((r) => [r.usageMarks().get(id), usageMarkOf(r.modelUsage(id))]);
    assert.equal(fromSql, fromRows);
  }), { numRuns: 60 });
}));

test('new messages are found per session above a message id', withWriter(31, (w, read) => {
  w.createSession({ id: 'a', source: 'cli', started_at: T0 });
  w.createSession({ id: 'b', source: 'cli', started_at: T0 });
  const [a1] = w.appendMessages('a', [{ role: 'user', content: '1' }]);
  const [b1, b2] = w.appendMessages('b', [{ role: 'user', content: '2' }, { role: 'user', content: '3' }]);
  assert.deepEqual([...read((r) => r.newMessages(0))], [['a', a1], ['b', b2]]);
  assert.deepEqual([...read((r) => r.newMessages(b1!))], [['b', b2]]);
  assert.deepEqual([...read((r) => r.newMessages(b2!))], []);
}));

test('a garbage time counts as no activity: neither the session marks nor the last message time take 5e+246', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0 });
  w.appendMessages('s', [{ role: 'user', content: 'ok', timestamp: T0 + 10 }]);
  w.appendMessage('s', { role: 'assistant', content: 'salvaged', timestamp: 5e246 });
  w.updateSession('s', { last_activity_at: 5e246 });
  w.createSession({ id: 'bad-start', source: 'cli', started_at: 5e246 });
  assert.deepEqual(read((r) => r.marks().map((m) => [m.id, m.activity])), [['bad-start', 0], ['s', T0]]);
  assert.deepEqual([...read((r) => r.lastMessageAt(['s', 'bad-start']))], [['s', T0 + 10]]);
}));

test('the last activity of a mark is the latest of start, end and Hermes\'s heartbeat', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0 });
  w.updateSession('s', { last_activity_at: T0 + 30 });
  assert.equal(read((r) => r.marks()[0]!.activity), T0 + 30);
  w.endSession('s', 'done', T0 + 90);
  assert.equal(read((r) => r.marks()[0]!.activity), T0 + 90);
}));

test('per-route usage rows are read in key order (none before v20)', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0, model: 'gpt-5' });
  w.recordAuxiliaryUsage('s', 'vision', { model: 'b-model', billing_provider: 'openai', input_tokens: 1 });
  w.recordAuxiliaryUsage('s', 'compression', { model: 'a-model', billing_provider: 'openrouter', input_tokens: 2 });
  w.updateTokenCounts('s', { model: 'gpt-5', billing_provider: 'openai', input_tokens: 3 });
  assert.deepEqual(read((r) => r.modelUsage('s').map((u) => [u.model, u.task, u.input_tokens])), [['a-model', 'compression', 2], ['b-model', 'vision', 1], ['gpt-5', '', 3]]);
}));

test('a store before v20 has no per-route usage', withWriter(9, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0 });
  assert.deepEqual(read((r) => r.modelUsage('s')), []);
}));

test('snapshot runs its reads in one transaction and returns their value', withWriter(31, (w, read) => {
  w.createSession({ id: 's', source: 'cli', started_at: T0 });
  assert.deepEqual(read((r) => r.snapshot(() => [r.db.inTransaction, r.marks().length])), [true, 1]);
  assert.equal(read((r) => { r.snapshot(() => 1); return r.db.inTransaction; }), false);
}));

test('a store without the tables and key columns every Hermes store has is this store\'s error (HERMETIC_READER_OPEN), not a bug', () => {
  const { dir, cleanup } = tempDir('hermetic-store-shape-');
  try {
    const cases: [string, string, string][] = [
      ['no-sessions', 'DROP TABLE sessions', 'it has no sessions table'],
      ['no-message-id', 'ALTER TABLE messages RENAME COLUMN id TO mid', 'its messages table has no id column'],
      ['no-session-id', 'ALTER TABLE sessions RENAME COLUMN id TO sid', 'its sessions table has no id column'],
    ];
    for (const [name, sql, why] of cases) {
      const path = join(dir, `${name}.db`);
      const db = createStore({ path, level: 31, journal: 'delete', fts: false });
      db.exec(sql);
      db.close();
      assert.throws(() => readStore(path, (conn) => new StoreReader(conn, path)), { code: 'HERMETIC_READER_OPEN', message: `${path} is not shaped like a Hermes store: ${why}.` }, name);
    }
  } finally {
    cleanup();
  }
});

test('newer Hermes\'s per-call rows are read summed per quarter hour, route and task; garbage counts as 0, a call without a time is left out; no table, none (decision 0112)', withWriter(31, (w, read) => {
  const id = w.createSession({ source: 'cli', started_at: T0 });
  assert.equal(read((r) => r.usageCalls(id)), null);
  w.db.exec(`CREATE TABLE session_model_usage_events (session_id TEXT, recorded_at REAL, model TEXT, task TEXT, input_tokens INTEGER, estimated_cost_usd REAL)`);
  const put = w.db.prepare('INSERT INTO session_model_usage_events VALUES (?, ?, ?, ?, ?, ?)');
  const q = Math.floor(T0 / 900) * 900;
  put.run(id, q + 10, 'gpt-5', '', 100, 0.5);
  put.run(id, q + 800, 'gpt-5', '', -7, 'x');
  put.run(id, q + 900, 'gpt-5', '', 40, 0.25);
  put.run(id, q + 901, 'flash', 'vision', 5, null);
  put.run(id, 'soon', 'gpt-5', '', 1000, 1);
  put.run(id, null, 'gpt-5', '', 1000, 1);
  put.run('other', q, 'gpt-5', '', 9, 0);
  // Columns this table lacks read as '' and 0.
  const row = (quarter: number, model: string, task: string, calls: number, input: number, usd: number) => ({
    quarter, model, billing_provider: '', billing_base_url: '', billing_mode: '', task, calls, api_call_count: 0, input_tokens: input,
    output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: usd, actual_cost_usd: 0,
  });
  const want = [row(q / 900, 'gpt-5', '', 2, 100, 0.5), row(q / 900 + 1, 'flash', 'vision', 1, 5, 0), row(q / 900 + 1, 'gpt-5', '', 1, 40, 0.25)];
  // Without an index on session_id, every session's sums come from one scan of the table, kept for the pass.
  assert.deepEqual(read((r) => [r.usageCalls(id), r.usageCalls('other'), r.usageCalls('nobody')]), [want, [row(q / 900, 'gpt-5', '', 1, 9, 0)], []]);
  // With one (as Hermes would have it), each session's are read on their own: the same rows.
  w.db.exec('CREATE INDEX calls_by_session ON session_model_usage_events (session_id, recorded_at)');
  assert.deepEqual(read((r) => [r.usageCalls(id), r.usageCalls('other'), r.usageCalls('nobody')]), [want, [row(q / 900, 'gpt-5', '', 1, 9, 0)], []]);
}));

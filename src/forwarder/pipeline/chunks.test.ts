// A session longer than a chunk is read and written a chunk at a time (decision 0055). Whatever the chunk size, the
// read worker, rows Hermes appends later or a pass that dies half-way through a session, the dataset is row for row
// and tail for tail what a whole read writes; and normalizing in chunks with the session's identities is normalizing
// once.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter, type MessageInput } from '../../state-db/writer/index.js';
import { normalizeMessages, wholeSessionOf, type Row } from '../normalize/index.js';
import type { Batch } from '../sinks/sink.js';
import { assertCleanBackfill, forwarderRig, type Rig } from '../testing/index.js';
import { readStore, StoreReader } from '../reader/index.js';
import type { ReadWorkerMode } from './read-mode.js';
import { PARTIAL } from './cursor-marks.js';
import { rewrite } from './chunks.js';
import type { Projection } from '../projector/index.js';
import type { Tail } from '../projector/tail.js';

const T0 = 1784000000;

/** What Hermes does to a session, one step at a time. */
type Op =
  | { kind: 'turn'; tools: number; named: boolean }
  | { kind: 'compact'; tail: number }
  | { kind: 'rewind'; back: number }
  | { kind: 'end' }
  | { kind: 'reopen' }
  /** A reply whose stored values the forwarder must repair (a row issue each): calls of the wrong shape, a garbage time. */
  | { kind: 'garbled' }
  /** A reaction on an earlier reply: an edit in place no counter shows. */
  | { kind: 'react'; back: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), tools: fc.nat(3), named: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), tail: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbled' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('react' as const), back: fc.nat(8) }) },
);
const ops = fc.array(op, { minLength: 1, maxLength: 14 });

/** A Hermes-like store with two sessions, each playing its operations. */
function store(dir: string) {
  const path = join(dir, 'hermes', 'state.db');
  const db = createStore({ path, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
  const clock = { t: T0 };
  const w = new StateDbWriter(db, { now: () => (clock.t += 1), ids: createIdSource('chunks') });
  const sessions = [w.createSession({ source: 'cli', model: 'opus' }), w.createSession({ source: 'telegram', model: 'sonnet' })];
  let call = 0;
  const play = (sid: string, list: readonly Op[]) => {
    for (const o of list) {
      if (o.kind === 'turn') {
        const calls = Array.from({ length: o.tools }, () => ({ id: `call_${++call}`, type: 'function' as const, function: { name: `tool${call % 3}`, arguments: JSON.stringify({ n: call }) } }));
        const turn: MessageInput[] = [{ role: 'user', content: `ask ${call}` }];
        if (calls.length > 0) {
          turn.push({ role: 'assistant', content: '', tool_calls: calls, finish_reason: 'tool_calls' });
          // Results answer their calls, some by name, some only by id (named from the call they answer).
          for (const c of calls) turn.push({ role: 'tool', tool_call_id: c.id, tool_name: o.named ? c.function.name : null, content: `result of ${c.id}` });
        }
        turn.push({ role: 'assistant', content: `done ${call}`, finish_reason: 'stop' });
        w.appendMessages(sid, turn);
        w.updateTokenCounts(sid, { input_tokens: 100 + call, output_tokens: 10, estimated_cost_usd: 0.001 });
      } else if (o.kind === 'compact') {
        w.compactInPlace(sid, [{ role: 'user', content: `[Compacted context ${++call}]`, _compressed_summary: 1 }], o.tail);
      } else if (o.kind === 'rewind') {
        const live = db.prepare('SELECT id FROM messages WHERE session_id = ? AND active = 1 ORDER BY id').pluck().all(sid) as number[];
        if (live.length > o.back) w.rewind(sid, live[live.length - 1 - o.back]!);
      } else if (o.kind === 'garbled') {
        const [mid] = w.appendMessages(sid, [{ role: 'assistant', content: `odd ${++call}` }]);
        db.prepare("UPDATE messages SET tool_calls = '[1,2,3]', timestamp = 5e246 WHERE id = ?").run(mid);
      } else if (o.kind === 'react') {
        const replies = db.prepare("SELECT id FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY id DESC").pluck().all(sid) as number[];
        if (replies.length > 0) w.setMessageReaction(replies[Math.min(o.back, replies.length - 1)]!, '👍');
      } else if (o.kind === 'end') w.endSession(sid, 'user_exit');
      else w.reopenSession(sid);
    }
  };
  return { path, db, sessions, play };
}

const modes: ReadWorkerMode[] = ['off', 'only'];

type Store = ReturnType<typeof store>;

/** Runs `fn` on a fresh store in a folder of its own, removed after it. */
function withStore(fn: (s: Store, dir: string) => void): void {
  const { dir, cleanup } = tempDir('hermetic-chunks-');
  const s = store(dir);
  try {
    fn(s, dir);
  } finally {
    s.db.close();
    cleanup();
  }
}

/** withStore with a forwarder of that store whose dataset is in `<dir>/chunked`. */
function withRig(options: { chunkRows: number; chunkChars?: number; readWorker: ReadWorkerMode }, fn: (s: Store, rig: Rig) => void): void {
  withStore((s, dir) => {
    const rig = forwarderRig([s.path], { dir, home: join(dir, 'chunked'), ...options });
    try {
      fn(s, rig);
    } finally {
      rig.cleanup();
    }
  });
}

test('backfilled in chunks of any size, on either thread, a store is what one whole read writes', () => {
  fc.assert(fc.property(ops, ops, fc.integer({ min: 1, max: 7 }), fc.constantFrom(...modes), (a, b, chunkRows, readWorker) => withRig({ chunkRows, readWorker }, (s, rig) => {
    s.play(s.sessions[0]!, a);
    s.play(s.sessions[1]!, b);
    const partial: Batch[] = [];
    const [r] = rig.forwarder.backfill({ beforeWrite: (batch) => { if (batch.writes.some((x) => x.fingerprint.startsWith(PARTIAL))) partial.push(batch); } });
    assert.equal(r!.error, null);
    assert.equal(r!.sessionsWritten, 2, 'each session counted once, however many chunks it took');
    const longest = s.db.prepare('SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM messages GROUP BY session_id)').pluck().get() as number;
    if (longest > chunkRows) assert.ok(partial.length > 0, 'a session longer than a chunk was written in chunks');
    assertCleanBackfill(rig, s.path, `a backfill in chunks of ${chunkRows} (${readWorker})`);
  })), { numRuns: 16 });
});

test('chunks cut by the size of their texts, not their number of rows, write what one whole read writes, backfilled and forwarded (decision 0171)', () => {
  fc.assert(fc.property(ops, ops, ops, fc.integer({ min: 20, max: 400 }), fc.constantFrom(...modes), (a, b, after, chunkChars, readWorker) => withRig({ chunkRows: 10_000, chunkChars, readWorker }, (s, rig) => {
    s.play(s.sessions[0]!, a);
    s.play(s.sessions[1]!, b);
    const partial: Batch[] = [];
    const [r] = rig.forwarder.backfill({ beforeWrite: (batch) => { if (batch.writes.some((x) => x.fingerprint.startsWith(PARTIAL))) partial.push(batch); } });
    assert.equal(r!.error, null);
    assert.equal(r!.sessionsWritten, 2);
    // Texts alone past the budget, over more than one row: the session was read in chunks.
    const texts = s.db.prepare('SELECT MAX(t) FROM (SELECT TOTAL(length(content)) AS t FROM messages GROUP BY session_id HAVING COUNT(*) > 1)').pluck().get() as number | null;
    if ((texts ?? 0) > chunkChars) assert.ok(partial.length > 0, 'a session whose texts pass the budget was written in chunks');
    assertCleanBackfill(rig, s.path, `a backfill in chunks of ${chunkChars} characters (${readWorker})`);
    s.play(s.sessions[0]!, after);
    s.play(s.sessions[1]!, after);
    assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
    assertCleanBackfill(rig, s.path, `a forward tick in chunks of ${chunkChars} characters (${readWorker})`);
  })), { numRuns: 16 });
});

test('a budget below one row, BLOB texts and the worker in auto: every row its own chunk, the same dataset (0171 addendum)', () => {
  fc.assert(fc.property(ops, ops, fc.integer({ min: 1, max: 19 }), fc.constantFrom<ReadWorkerMode>('off', 'auto', 'only'), (a, after, chunkChars, readWorker) => withRig({ chunkRows: 10_000, chunkChars, readWorker }, (s, rig) => {
    s.play(s.sessions[0]!, a);
    s.play(s.sessions[1]!, a);
    // A BLOB's bytes count as its length: Hermes rows written as bytes (decoded by the reader, with a row issue).
    s.db.prepare('UPDATE messages SET content = CAST(content AS BLOB) WHERE id % 3 = 0').run();
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    assertCleanBackfill(rig, s.path, `a backfill in chunks of ${chunkChars} characters (${readWorker})`);
    s.play(s.sessions[0]!, after);
    assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
    assertCleanBackfill(rig, s.path, `a forward tick in chunks of ${chunkChars} characters (${readWorker})`);
  })), { numRuns: 16 });
});

test('a batch takes sessions until they hold the budget of characters, each session whole (decision 0171)', () => {
  const { dir, cleanup } = tempDir('hermetic-chunks-batch-');
  const path = join(dir, 'state.db');
  const db = createStore({ path, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
  try {
    const w = new StateDbWriter(db, { now: () => T0, ids: createIdSource('batch') });
    // Four sessions alike: the same rows, ids of the same length, so each counts the same characters.
    const ids = Array.from({ length: 4 }, () => w.createSession({ source: 'cli', model: 'opus' }));
    for (const id of ids) w.appendMessages(id, [{ role: 'user', content: 'ask '.repeat(50) }, { role: 'assistant', content: 'answer '.repeat(80), finish_reason: 'stop' }]);
    const [one, ...rest] = readStore(path, (conn) => ids.map((id) => new StoreReader(conn, path).messagesWithin(id, Number.NEGATIVE_INFINITY, { rows: 1e6, chars: 1e12 }).chars));
    assert.ok(rest.every((c) => c === one), 'the sessions count alike');
    for (const [budget, want] of [[one!, [1, 1, 1, 1]], [2 * one! - 1, [2, 2]], [2 * one!, [2, 2]], [2 * one! + 1, [3, 1]]] as const) {
      const rig = forwarderRig([path], { dir, home: join(dir, `budget-${budget}`), readWorker: 'off', chunkChars: budget });
      try {
        const batches: number[] = [];
        assert.equal(rig.forwarder.backfill({ beforeWrite: (b) => void batches.push(b.writes.length) })[0]!.error, null);
        assert.deepEqual(batches, want, `a budget of ${budget} characters, sessions of ${one}`);
        assertCleanBackfill(rig, path, `a backfill in batches of ${budget} characters`);
      } finally {
        rig.cleanup();
      }
    }
  } finally {
    db.close();
    cleanup();
  }
});

test('a row longer than the budget is read alone, and a session of one such row is read whole', () => withStore((s, dir) => {
  const [sid] = s.sessions;
  s.play(sid!, [{ kind: 'turn', tools: 1, named: true }]);
  s.db.prepare("UPDATE messages SET content = ? WHERE id = (SELECT MIN(id) FROM messages WHERE session_id = ?)").run('x'.repeat(5000), sid);
  const rig = forwarderRig([s.path], { dir, home: join(dir, 'long-rows'), readWorker: 'off', chunkChars: 100 });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    assertCleanBackfill(rig, s.path, 'a backfill with a budget smaller than one row');
  } finally {
    rig.cleanup();
  }
}));

test('rows appended or rewritten after a chunked backfill are forwarded as a whole read would leave them', () => {
  fc.assert(fc.property(ops, ops, fc.integer({ min: 1, max: 6 }), (before, after, chunkRows) => withRig({ chunkRows, readWorker: 'off' }, (s, rig) => {
    s.play(s.sessions[0]!, before);
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    s.play(s.sessions[0]!, after);
    s.play(s.sessions[1]!, after);
    assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
    assertCleanBackfill(rig, s.path, `a forward tick in chunks of ${chunkRows}`);
    // The usage log the clean backfill is not compared on adds up too: every token once, however it came.
    assert.deepEqual(rig.query('SELECT TOTAL(input_tokens) AS input, TOTAL(output_tokens) AS output FROM usage_events'), rig.query('SELECT TOTAL(input_tokens) AS input, TOTAL(output_tokens) AS output FROM sessions'));
  })), { numRuns: 16 });
});

/**
 * A backfill of `s` in chunks that dies before its `dieAt`-th half-written chunk commits (0: the first), then another
 * forwarder's backfill into the same dataset, which must then be a clean backfill's. Whether the first one died.
 */
function dieAndResume(s: Store, dir: string, chunkRows: number, dieAt: number, between?: () => void): boolean {
  const home = join(dir, 'died');
  // Written in place from the first batch: a first dataset built aside is dropped whole by a death (first-build.test.ts).
  const first = forwarderRig([s.path], { dir, home, readWorker: 'off', chunkRows, buildAside: 0 });
  let died = false;
  try {
    let partials = 0;
    const beforeWrite = (batch: Batch) => {
      if (batch.writes.some((x) => x.fingerprint.startsWith(PARTIAL)) && partials++ === dieAt) throw new Error('killed');
    };
    // With `between`: a clean backfill, then Hermes goes on, and the forward pass that follows dies.
    if (between) {
      first.forwarder.backfill();
      between();
      first.forwarder.forwardOnce({ beforeWrite });
    } else first.forwarder.backfill({ beforeWrite });
  } catch (e) {
    assert.equal((e as Error).message, 'killed');
    died = true;
  }
  try {
    // Half a session is in the dataset, and its cursor says so: the next pass goes on from there.
    if (died && dieAt > 0) assert.ok(first.query<{ fingerprint: string }>('SELECT fingerprint FROM session_cursors WHERE session_id = ?', s.sessions[0]!)[0]!.fingerprint.startsWith(PARTIAL), 'the session is marked half-written');
  } finally {
    first.cleanup();
  }
  const again = forwarderRig([s.path], { dir, home, readWorker: 'off', chunkRows });
  try {
    // A forward pass, as the one that died (a backfill leaves edits in place to the forward passes: decision 0053).
    assert.equal((between ? again.forwarder.forwardOnce() : again.forwarder.backfill())[0]!.error, null);
    assertCleanBackfill(again, s.path, `a backfill in chunks of ${chunkRows} that died after ${dieAt} of them, run again`);
  } finally {
    again.cleanup();
  }
  return died;
}

test('a pass that dies between two chunks of a session leaves it to the next, which finishes it as a whole read would', () => {
  fc.assert(fc.property(ops, fc.integer({ min: 1, max: 4 }), fc.nat(6), (list, chunkRows, dieAt) => withStore((s, dir) => {
    s.play(s.sessions[0]!, [{ kind: 'turn', tools: 3, named: false }, ...list, { kind: 'turn', tools: 2, named: true }]);
    dieAndResume(s, dir, chunkRows, dieAt);
  })), { numRuns: 16 });
});

test('a forward pass that dies while appending to or rewriting a long session leaves it to the next, which finishes it', () => {
  fc.assert(fc.property(ops, ops, fc.integer({ min: 1, max: 4 }), fc.nat(4), (before, after, chunkRows, dieAt) => withStore((s, dir) => {
    s.play(s.sessions[0]!, [{ kind: 'turn', tools: 2, named: false }, ...before]);
    dieAndResume(s, dir, chunkRows, dieAt, () => s.play(s.sessions[0]!, [...after, { kind: 'turn', tools: 1, named: true }]));
  })), { numRuns: 16 });
});

test('a tool result in a later chunk is named by its call, however many calls came between', () => withStore((s, dir) => {
  // One reply with 70 calls, then the results, unnamed: a tail keeps only the latest 64 calls.
  s.play(s.sessions[0]!, [{ kind: 'turn', tools: 0, named: false }]);
  const calls = Array.from({ length: 70 }, (_, i) => ({ id: `wide_${i}`, type: 'function' as const, function: { name: `tool_${i}`, arguments: '{}' } }));
  const w = new StateDbWriter(s.db, { now: () => T0 + 500, ids: createIdSource('wide') });
  w.appendMessages(s.sessions[0]!, [{ role: 'assistant', content: '', tool_calls: calls }, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'ok' }))]);
  const rig = forwarderRig([s.path], { dir, home: join(dir, 'chunked'), readWorker: 'off', chunkRows: 5 });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    const named = rig.query<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE role = 'tool' AND tool_name LIKE 'tool\\_%' ESCAPE '\\'")[0]!.n;
    assert.equal(named, 70);
    assertCleanBackfill(rig, s.path, 'a backfill in chunks of 5 over 70 calls');
  } finally {
    rig.cleanup();
  }
  // A pass that dies half-way leaves a tail that knows only the latest 64 calls: the next one starts the session over.
  assert.ok(dieAndResume(s, dir, 5, 11), 'the first backfill died half-way');
}));

test('a rewind near the end of a long session rewrites it from there, keeping what came before (its row issues too)', () => withStore((s, dir) => {
  s.play(s.sessions[0]!, [{ kind: 'garbled' }, ...Array.from({ length: 12 }, () => ({ kind: 'turn' as const, tools: 1, named: false }))]);
  const rig = forwarderRig([s.path], { dir, home: join(dir, 'chunked'), readWorker: 'off', chunkRows: 5 });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    const issues = rig.query('SELECT * FROM row_issues ORDER BY message_id, field');
    assert.equal(issues.length, 2, 'the garbled reply: its calls and its time');
    const before = rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages')[0]!.n;
    s.play(s.sessions[0]!, [{ kind: 'rewind', back: 2 }, { kind: 'turn', tools: 0, named: false }]);
    const [r] = rig.forwarder.forwardOnce();
    assert.equal(r!.error, null);
    assert.equal(r!.sessionsRewritten, 1);
    assert.ok(r!.messagesRemoved > 0 && r!.messagesRemoved < before / 2, `only the end was rewritten (${r!.messagesRemoved} of ${before} messages removed)`);
    assert.deepEqual(rig.query('SELECT * FROM row_issues ORDER BY message_id, field'), issues);
    assertCleanBackfill(rig, s.path, 'a rewind near the end of a long session');
  } finally {
    rig.cleanup();
  }
}));

test('a rewrite carries a first chunk with more row issues than a call takes arguments', () => {
  // 15 values changed on the way in, in each of 10,000 rows: 150,000 issues in one chunk, which once went as the
  // arguments of one call (a RangeError, and the session quarantined as "nests too deep" on every retry). Reproduced
  // end to end in decision 0071; here on the rewrite alone, which a store that large makes slow.
  const issues = Array.from({ length: 150_000 }, (_, i) => ({ message_id: i, field: 'content' }));
  const tail = { live: 1, end: 'end', usage: 'usage', daily: 'daily' };
  const chunk = { messages: [], parts: [], issues, usageEvent: null, tail } as unknown as Projection;
  let written: Projection | null = null;
  const steps = rewrite([[chunk, true]], tail as unknown as Tail, 0, function* (p) {
    written = p;
    return 'done';
  });
  assert.deepEqual(steps.next(), { done: true, value: 'done' });
  assert.equal(written!.issues.length, 150_000);
});

test('a pass told to stop (Ctrl-C) between two chunks of a long session stops there, and the next one finishes it', () => withStore((s, dir) => {
  s.play(s.sessions[0]!, Array.from({ length: 6 }, () => ({ kind: 'turn' as const, tools: 1, named: false })));
  const rig = forwarderRig([s.path], { dir, home: join(dir, 'chunked'), readWorker: 'off', chunkRows: 4 });
  try {
    let partials = 0;
    const [r] = rig.forwarder.backfill({
      beforeWrite: (b) => { if (b.writes.some((x) => x.fingerprint.startsWith(PARTIAL))) partials++; },
      keepGoing: () => partials < 2,
    });
    assert.equal(r!.error, null);
    assert.equal(partials, 2, 'no chunk was written after the pass was told to stop');
    // Said as written in part, with the rows its two chunks added: not as written, and not as nothing new.
    const inDataset = rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages')[0]!.n;
    assert.deepEqual([r!.sessionsWritten, r!.sessionsPartial, r!.messages], [0, 1, inDataset]);
    assert.ok(inDataset > 0);
    const cursor = rig.query<{ fingerprint: string }>('SELECT fingerprint FROM session_cursors WHERE session_id = ?', s.sessions[0]!);
    assert.ok(cursor[0]!.fingerprint.startsWith(PARTIAL), 'the session is marked half-written');
    const [again] = rig.forwarder.backfill();
    // The long session finished, and the one the stopped pass did not reach.
    assert.deepEqual([again!.error, again!.sessionsWritten, again!.sessionsPartial], [null, 2, 0]);
    assertCleanBackfill(rig, s.path, 'a backfill stopped between two chunks, run again');
  } finally {
    rig.cleanup();
  }
}));

test('chunkRows must be a positive whole number', () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => forwarderRig([], { chunkRows: bad }), (e: Error & { code?: string }) => e.code === 'HERMETIC_OPTIONS_INVALID' && /chunkRows/.test(e.message));
  }
});

/** Message rows as the reader hands them over, with archived generations, clones and display orders. */
const rowsArb: fc.Arbitrary<Row[]> = fc.array(fc.record({
  role: fc.constantFrom('user', 'assistant', 'tool'),
  text: fc.integer({ min: 0, max: 5 }),
  at: fc.integer({ min: 0, max: 5 }),
  state: fc.constantFrom('live', 'live', 'live', 'compacted', 'rewound'),
  order: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
}), { minLength: 1, maxLength: 30 }).map((list) => list.map((r, i) => ({
  id: i + 1, role: r.role, content: `text ${r.text}`, timestamp: T0 + r.at, tool_call_id: null, tool_calls: null, tool_name: null,
  active: r.state === 'live' ? 1 : 0, compacted: r.state === 'compacted' ? 1 : 0, display_order: r.order,
} as Row)));

test('normalizing a session in runs, with its identities looked at once, is normalizing it in one run', () => {
  fc.assert(fc.property(rowsArb, fc.integer({ min: 1, max: 8 }), (rows, size) => {
    const once = normalizeMessages(rows, T0);
    const runs: Row[][] = [];
    for (let i = 0; i < rows.length; i += size) runs.push(rows.slice(i, i + size));
    const whole = wholeSessionOf(runs);
    let carry;
    const live = [];
    for (const run of runs) {
      const n = normalizeMessages(run, T0, carry, whole);
      assert.equal(n.needsPrefix, false);
      live.push(...n.live);
      carry = n.carry;
    }
    assert.deepEqual(live, once.live);
    assert.deepEqual(carry, once.carry);
  }), { numRuns: 500 });
});

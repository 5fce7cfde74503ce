import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HermeticError } from '../../shared/errors.js';
import { parseJournalFilter } from './filter.js';
import { JournalSlots, RequestJournal } from './journal.js';

/** Records n GETs of run r<i> answered 200 at time 100 + i. */
function filled(capacity: number, n: number): RequestJournal {
  const j = new RequestJournal(capacity);
  for (let i = 1; i <= n; i++) j.record(100 + i, 'GET', `/v1/runs/r${i}`, 'get', 200, 0.5, `r${i}`, null, null);
  return j;
}

test('the ring keeps the newest `capacity` entries, oldest first, and counts what it pushed out', () => {
  const j = filled(3, 5);
  assert.deepEqual(j.query().map((e) => [e.seq, e.run_id]), [[3, 'r3'], [4, 'r4'], [5, 'r5']]);
  assert.deepEqual([j.size, j.evicted, j.capacity], [3, 2, 3]);
});

test('entries keep every field; a submit has replayed true or false, everything else null', () => {
  const j = new RequestJournal(10);
  j.record(5.25, 'POST', '/v1/runs', 'submit', 202, 1.23456, 'run_a', true, 'f1', null, 'key-1');
  j.record(6, 'GET', '/nope', 'other', 404, 0.1, null, null, null);
  j.record(7, 'POST', '/v1/runs', 'submit', 202, 1, 'run_b', false, null, null, 'k'.repeat(600));
  assert.deepEqual(j.query().slice(0, 2), [
    { seq: 1, time: 5.25, method: 'POST', path: '/v1/runs', operation: 'submit', status: 202, duration_ms: 1.235, run_id: 'run_a', replayed: true, fault_id: 'f1', checkpoint: null, idempotency_key: 'key-1' },
    { seq: 2, time: 6, method: 'GET', path: '/nope', operation: 'other', status: 404, duration_ms: 0.1, run_id: null, replayed: null, fault_id: null, checkpoint: null, idempotency_key: null },
  ]);
  // A key is kept as paths are: at most JOURNAL_TEXT_MAX characters (the ring's memory stays bounded).
  assert.equal(j.query()[2]!.idempotency_key, `${'k'.repeat(511)}…`);
});

test('capacity 0 records nothing', () => {
  const j = filled(0, 10);
  assert.deepEqual([j.enabled, j.size, j.evicted, j.query()], [false, 0, 0, []]);
});

test('filters narrow together; a limit keeps the most recent matches; count agrees with query', () => {
  const j = new RequestJournal(100);
  j.record(10, 'POST', '/v1/runs', 'submit', 202, 1, 'a', false, null);
  j.record(11, 'GET', '/v1/runs/a', 'get', 200, 1, 'a', null, null);
  j.record(12, 'POST', '/v1/runs', 'submit', 429, 1, null, null, 'throttle');
  j.record(13, 'GET', '/v1/runs/b', 'get', 404, 1, 'b', null, null);
  j.record(14, 'POST', '/v1/runs/a/stop', 'stop', 200, 1, 'a', null, null);
  const seqs = (query: string) => j.query(parseJournalFilter(query)).map((e) => e.seq);
  assert.deepEqual(seqs('operation=submit'), [1, 3]);
  assert.deepEqual(seqs('operation=submit,stop'), [1, 3, 5]);
  assert.deepEqual(seqs('operation=get&operation=stop'), [2, 4, 5]);
  assert.deepEqual(seqs('status=4xx'), [3, 4]);
  assert.deepEqual(seqs('status=200,429'), [2, 3, 5]);
  assert.deepEqual(seqs('run_id=a'), [1, 2, 5]);
  assert.deepEqual(seqs('run_id=a&operation=get'), [2]);
  assert.deepEqual(seqs('method=post'), [1, 3, 5]);
  assert.deepEqual(seqs('since=12'), [3, 4, 5]);
  assert.deepEqual(seqs('since=12.5'), [4, 5]);
  assert.deepEqual(seqs('after=3'), [4, 5]);
  assert.deepEqual(seqs('limit=2'), [4, 5]);
  assert.deepEqual(seqs('operation=submit&limit=1'), [3]);
  assert.deepEqual(seqs('limit=0'), []);
  for (const q of ['', 'operation=submit', 'status=4xx', 'run_id=a&limit=2', 'limit=0', 'since=99']) {
    assert.equal(j.count(parseJournalFilter(q)), j.query(parseJournalFilter(q)).length, q);
  }
});

test('filters on a wrapped ring see only what is held', () => {
  const j = filled(4, 10);
  assert.deepEqual(j.query(parseJournalFilter('since=105')).map((e) => e.seq), [7, 8, 9, 10]);
  assert.deepEqual(j.query(parseJournalFilter('run_id=r3')), []);
  assert.equal(j.count(parseJournalFilter('after=8')), 2);
});

test('clear forgets the entries and keeps numbering; reset starts numbering again', () => {
  const j = filled(3, 5);
  assert.equal(j.clear(), 3);
  assert.deepEqual([j.size, j.evicted, j.query()], [0, 0, []]);
  j.record(1, 'GET', '/health', 'health', 200, 0, null, null, null);
  assert.equal(j.query()[0]!.seq, 6);
  j.reset();
  j.record(1, 'GET', '/health', 'health', 200, 0, null, null, null);
  assert.equal(j.query()[0]!.seq, 1);
});

test('snapshot is plain JSON and restore gives the same journal back, twice', () => {
  const j = filled(3, 5);
  const snapshot = JSON.parse(JSON.stringify(j.snapshot()));
  const before = j.query();
  j.reset();
  j.record(1, 'GET', '/other', 'other', 404, 0, null, null, null);
  j.restore(snapshot);
  assert.deepEqual([j.query(), j.evicted], [before, 2]);
  j.restore(snapshot);
  assert.deepEqual(j.query(), before);
  j.record(200, 'GET', '/v1/runs/r6', 'get', 200, 0.5, 'r6', null, null);
  assert.deepEqual(j.query().map((e) => e.seq), [4, 5, 6]);
  // Into a smaller journal: the newest entries, the rest counted as evicted.
  const small = new RequestJournal(2);
  small.restore(snapshot);
  assert.deepEqual([small.query().map((e) => e.seq), small.evicted], [[4, 5], 3]);
});

test('the ring grows to its cap as entries arrive, never beyond it, and wraps in place', () => {
  const j = filled(1000, 2500);
  assert.deepEqual([j.size, j.evicted, j.query()[0]!.seq, j.query().at(-1)!.seq], [1000, 1500, 1501, 2500]);
});

test('unknown filter names and bad values are refused with the rule they break', () => {
  const refuses = (query: string, message: string) =>
    assert.throws(() => parseJournalFilter(query), (e: HermeticError) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_ADMIN_BAD_FIELD', message], query);
      return true;
    });
  refuses('operations=get', 'Unknown query parameter "operations" for the request journal. Did you mean "operation"?');
  refuses('q=1', 'Unknown query parameter "q" for the request journal. Known: operation, status, run_id, method, since, after, limit.');
  refuses('operation=submti', 'Query parameter "operation" must be one of submit, get, events, approval, steer, stop, health, capabilities, sessions, session_create, session, session_update, session_delete, session_messages, session_fork, session_chat, session_chat_stream, session_model_lock, unsupported, other; got "submti". Did you mean "submit"?');
  refuses('operation=admin', 'Query parameter "operation" must be one of submit, get, events, approval, steer, stop, health, capabilities, sessions, session_create, session, session_update, session_delete, session_messages, session_fork, session_chat, session_chat_stream, session_model_lock, unsupported, other; got "admin".');
  refuses('status=20', 'Query parameter "status" must be an HTTP status (404), a class (4xx), or 0 (a dropped connection); got "20".');
  refuses('since=yesterday', 'Query parameter "since" must be a time in epoch seconds on the namespace\'s clock; got "yesterday".');
  refuses('limit=-1', 'Query parameter "limit" must be a whole number, 0 or more; got "-1".');
  refuses('after=1.5', 'Query parameter "after" must be a whole number, 0 or more; got "1.5".');
  refuses('limit=1&limit=2', 'Query parameter "limit" is given 2 times; give it once.');
});

test('a path or run id longer than 512 characters is kept cut, ending in …; a later fault is named on its entry', () => {
  const j = new RequestJournal(4);
  const long = `run_${'a'.repeat(8000)}`;
  const seq = j.record(1, 'GET', `/v1/runs/${long}`, 'get', 404, 0.1, long, null, null);
  const [e] = j.query();
  assert.deepEqual([e!.path.length, e!.path.endsWith('…'), e!.run_id!.length, e!.run_id!.startsWith('run_aaa')], [512, true, 512, true]);
  // A stream cut after its head was journaled: the rule is named on the entry, while it is still in the ring.
  j.setFault(seq, 'fault_1');
  assert.equal(j.query()[0]!.fault_id, 'fault_1');
  for (let i = 0; i < 4; i++) j.record(2, 'GET', '/health', 'health', 200, 0.1, null, null, null);
  j.setFault(seq, 'fault_2');
  assert.ok(j.query().every((x) => x.fault_id === null), 'an entry pushed out is not touched');
});

test('what an entry keeps is a copy of its own: a path cut from a long target does not keep the target alive', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const j = new RequestJournal(1000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 1000; i++) {
    // A fresh 64 KB target each time; the journal keeps a short path and a cut long one sliced from it.
    const target = `/v1/runs/${'r'.repeat(64 * 1024)}${i}`;
    j.record(i, 'GET', target.slice(0, 20), 'get', 404, 0.1, target.slice(9), null, null);
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  // 1,000 entries of two short texts: about 1 MB. Holding the targets would be 64 MB (two bytes a character: 128).
  assert.ok(grown < 16 * 1024 * 1024, `${(grown / 1048576).toFixed(1)} MB for 1,000 entries`);
  assert.equal(j.query()[999]!.run_id, `${'r'.repeat(511)}…`);
});

test('journals share their slots: one that finds none left keeps those it has as its ring; a reset gives them back', () => {
  const slots = new JournalSlots(20);
  const a = new RequestJournal(100, slots);
  const b = new RequestJournal(100, slots);
  for (let i = 1; i <= 30; i++) a.record(i, 'GET', `/a/${i}`, 'get', 200, 0.1, null, null, null);
  // 4, 8, 16, then the 4 left of 20: a holds its newest 20.
  assert.deepEqual([a.size, a.evicted, a.query()[0]!.path, a.query()[19]!.path, slots.used], [20, 10, '/a/11', '/a/30', 20]);
  // b still gets a ring's first 4 slots (every namespace journals its first requests), and no more.
  for (let i = 1; i <= 10; i++) b.record(i, 'GET', `/b/${i}`, 'get', 200, 0.1, null, null, null);
  assert.deepEqual([b.size, b.evicted, b.query().map((e) => e.seq), slots.used], [4, 6, [7, 8, 9, 10], 24]);
  b.setFault(9, 'f9');
  assert.equal(b.query({ runId: null }).find((e) => e.seq === 9)!.fault_id, 'f9');
  // A reset (or its namespace closed) gives the slots back; the other ring, full, keeps its size until its own reset.
  a.reset();
  assert.equal(slots.used, 4);
  b.reset();
  for (let i = 1; i <= 12; i++) b.record(i, 'GET', `/b/${i}`, 'get', 200, 0.1, null, null, null);
  assert.deepEqual([b.size, b.evicted, slots.used], [12, 0, 16]);
});

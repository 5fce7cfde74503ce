// What a run's turn leaves waiting in memory for the session store is bounded by the text it holds, not only by the
// count of writes and a timer (decision 0137): an in-process caller that never lets the event loop turn never lets the
// 20 ms timer fire, and 512 waiting writes of a 1 MB input each were half a gigabyte of V8's heap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_STORE } from '../../shared/sqlite.js';
import { createEmulator } from '../index.js';
import type { FinishedTurn, TurnStart } from '../record/turn-sink.js';
import { realLockWait } from '../store/busy.js';
import { openSessionTable } from '../store/session-table.js';
import { waitFor } from '../../../test/support/wait.js';
import { MAX_HELD_TEXT, MAX_HELD_WRITES } from '../record/held-writes.js';
import { MAX_PENDING_TEXT, SessionRecorder } from './recorder.js';

function recorderOverAStore() {
  const table = openSessionTable(PRIVATE_STORE, realLockWait(1000));
  const recorder = new SessionRecorder(table, realLockWait(1000), (e) => assert.fail(e as Error));
  /** Whether the session's rows are committed (read at once, without turning the event loop). */
  const committed = (sessionId: string): boolean => table.writeNow('looking', (ops) => ops.get('default', sessionId) !== undefined);
  return { table, recorder, committed };
}

const turnOf = (i: number): TurnStart => ({ runId: `run_${i}`, profile: 'default', sessionId: `s${i}`, model: 'm', at: 1000 + i, sessionKey: null });
const finishedOf = (start: TurnStart): FinishedTurn => ({
  ...start,
  messages: [{ role: 'assistant', content: 'done', timestamp: start.at + 0.5 }],
  usage: null,
  status: 'completed',
});

test('a turn of large messages is committed when it ends, so what waits never holds much more than MAX_PENDING_TEXT', () => {
  const { table, recorder, committed } = recorderOverAStore();
  const size = 300_000;
  try {
    for (let i = 0; i < 40; i++) {
      const start = turnOf(i);
      recorder.started(start, { messages: [{ role: 'user', content: String(i).padEnd(size, 'x'), timestamp: start.at }], beat: null });
      recorder.finished(finishedOf(start));
      // No event-loop turn here: the coalescing timer cannot have fired.
      let waiting = 0;
      for (let k = 0; k <= i; k++) if (!committed(`s${k}`)) waiting++;
      assert.ok(waiting * size <= MAX_PENDING_TEXT + size, `after run ${i}, ${waiting} turns of ${size} characters wait`);
    }
    assert.equal(recorder.settled(), null);
    assert.ok(committed('s39'));
  } finally {
    recorder.clear();
    table.close();
  }
});

test('small turns still wait for company (one commit for many), until a reader settles them', () => {
  const { table, recorder, committed } = recorderOverAStore();
  try {
    for (let i = 0; i < 10; i++) {
      const start = turnOf(i);
      recorder.started(start, { messages: [{ role: 'user', content: 'hi', timestamp: start.at }], beat: null });
      recorder.finished(finishedOf(start));
    }
    assert.equal(committed('s0'), false, 'nothing committed yet');
    assert.equal(recorder.settled(), null, 'committed now');
    for (let i = 0; i < 10; i++) assert.ok(committed(`s${i}`));
    assert.equal(table.writeNow('counting', (ops) => ops.get('default', 's9')!.message_count), 2);
  } finally {
    recorder.clear();
    table.close();
  }
});

test('a run that ends with nothing more to write (failed) has what it opened committed, not left waiting for another run', async () => {
  const { table, recorder, committed } = recorderOverAStore();
  try {
    const start = turnOf(0);
    recorder.started(start, { messages: [{ role: 'user', content: 'hi', timestamp: start.at }], beat: null });
    recorder.finished({ ...start, messages: [], usage: null, status: 'failed' });
    // Within COALESCE_MS, as any waiting write (it waited for the next run's write, or a session route, for ever).
    await waitFor(() => committed('s0'), 'the failed run\'s session committed');
    assert.equal(table.writeNow('counting', (ops) => ops.get('default', 's0')!.message_count), 1);
  } finally {
    recorder.clear();
    table.close();
  }
});

test('in process, runs of a 1 MB input keep none of it in the heap once they are stopped, though the event loop never turns', async (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const h = createEmulator({ maxConcurrentRuns: 0 });
  const headers = { 'content-type': 'application/json', 'x-hermetic-namespace': 'big' };
  const submit = async (input: string) => {
    const answer = await h.fetch('/v1/runs', { method: 'POST', headers, body: JSON.stringify({ input }) });
    const { run_id } = (await answer.json()) as { run_id: string };
    await (await h.fetch(`/v1/runs/${run_id}/stop`, { method: 'POST', headers, body: '{}' })).text();
  };
  try {
    await submit('warm');
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 100; i++) await submit(String(i).padEnd(1_000_000, 'A'));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    t.diagnostic(`100 runs of a 1 MB input: the heap grew by ${(grown / 1048576).toFixed(1)} MB`);
    // Held until 512 writes waited, they were 100 MB here (two writes a run); now at most about two inputs wait.
    assert.ok(grown < 16 * 1048576, `the heap grew by ${(grown / 1048576).toFixed(1)} MB`);
    const sessions = (await (await h.fetch('/api/sessions?limit=200', { headers })).json()) as { data: unknown[] };
    assert.equal(sessions.data.length, 101, 'every run made its session');
  } finally {
    await h.close();
  }
});

/** A recorder over a store file another connection can lock, and the lines it says. */
function recorderOverAFile() {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-recorder-'));
  const path = join(dir, 'emulator.db');
  const table = openSessionTable(path, realLockWait(1000));
  const said: string[] = [];
  const recorder = new SessionRecorder(table, realLockWait(1000), (e) => said.push((e as Error).message));
  const committed = (sessionId: string): boolean => table.writeNow('looking', (ops) => ops.get('default', sessionId) !== undefined);
  table.writeNow('opening', () => undefined);
  const other = new Database(path);
  const close = () => {
    recorder.clear();
    table.close();
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { recorder, committed, said, other, close };
}

test('while another connection holds the lock, what waits stops at MAX_HELD_TEXT: later writes are dropped and said', async () => {
  const { recorder, committed, said, other, close } = recorderOverAFile();
  const size = 1_048_576;
  const turns = Math.ceil(MAX_HELD_TEXT / size) + 20;
  try {
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < turns; i++) {
      const start = turnOf(i);
      recorder.started(start, { messages: [{ role: 'user', content: String(i).padEnd(size, 'x'), timestamp: start.at }], beat: null });
      recorder.finished(finishedOf(start));
    }
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0]!, /another connection has held the lock while \d+ writes \(6\d(\.\d)? MiB of text\) wait; later writes are dropped/);
    other.exec('COMMIT');
    await recorder.settled();
    let kept = 0;
    for (let i = 0; i < turns; i++) if (committed(`s${i}`)) kept++;
    // What waited was kept, in order, and made once the lock was released; what came past the bound was not.
    assert.ok(kept >= MAX_HELD_TEXT / size - 2 && kept <= MAX_HELD_TEXT / size, `${kept} of ${turns} turns kept`);
    assert.ok(committed('s0') && !committed(`s${turns - 1}`));
    await waitFor(() => said.length === 2, 'the count of dropped writes said');
    assert.match(said[1]!, /^\d+ writes were dropped while another connection held the lock$/);
  } finally {
    close();
  }
});

test('while another connection holds the lock, at most MAX_HELD_WRITES writes wait, however small', async () => {
  const { recorder, committed, said, other, close } = recorderOverAFile();
  const turns = MAX_HELD_WRITES / 2 + 100;
  try {
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < turns; i++) {
      const start = turnOf(i);
      recorder.started(start, { messages: [{ role: 'user', content: 'hi', timestamp: start.at }], beat: null });
      recorder.finished(finishedOf(start));
    }
    // The first MAX_PENDING writes were tried at once (no event-loop turn) and found the lock held: the rest waited.
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0]!, /while 10000 writes \([\d.]+ MiB of text\) wait; later writes are dropped/);
    other.exec('COMMIT');
    await recorder.settled();
    let kept = 0;
    for (let i = 0; i < turns; i++) if (committed(`s${i}`)) kept++;
    assert.equal(kept, MAX_HELD_WRITES / 2, 'two writes a turn: its start and its end');
    await waitFor(() => said.length === 2, 'the count of dropped writes said');
    assert.equal(said[1], '200 writes were dropped while another connection held the lock');
  } finally {
    close();
  }
});

// Decision 0148: writes a --state-db file's lock keeps waiting are bounded (record/held-writes.ts): past the bound a
// write is said and dropped, and what was held lands, in order, once the lock is free.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createIdSource } from '../../shared/ids.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { waitFor } from '../../../test/support/wait.js';
import { messagesText } from './held-writes.js';
import { StateDbRecorder } from './state-db.js';

test('messagesText counts every string a message holds, structured content and tool calls walked', () => {
  const plain = messagesText([{ role: 'user', content: 'x'.repeat(1000) }]);
  assert.ok(plain >= 1004 && plain < 1200, String(plain));
  const structured = messagesText([{ role: 'user', content: [{ type: 'text', text: 'y'.repeat(5000) }], tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'z'.repeat(3000) } }] }]);
  assert.ok(structured >= 8000 && structured < 8400, String(structured));
});

/** Smaller than the real bounds (64 MiB through Hermes's trigram index takes seconds), the same code. */
const BOUNDS = { writes: 1000, text: 3_000_000 };

test('a --state-db file locked by another process holds at most its bound of text: the rest is said, the held land', async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'state.db');
  const said: string[] = [];
  const recorder = new StateDbRecorder(path, { now: () => 1_800_000_000, ids: createIdSource('held'), eager: true, onError: (what, e) => said.push(`${what}: ${(e as Error).message}`), held: BOUNDS });
  const other = new Database(path);
  const size = 100_000;
  const turns = Math.ceil(BOUNDS.text / size) + 10;
  try {
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < turns; i++) {
      const turn = { runId: `run_${i}`, profile: 'default', sessionId: `s${i}`, model: 'm', at: 1_800_000_000 + i, sessionKey: null };
      recorder.started(turn, { messages: [{ role: 'user', content: String(i).padEnd(size, 'x'), timestamp: turn.at }], beat: null });
    }
    const held = recorder.held;
    assert.ok(held >= BOUNDS.text / size - 2 && held < BOUNDS.text / size, `${held} writes held`);
    assert.equal(said.length, 1, 'said once, not once per write');
    assert.match(said[0]!, /^recording the start of run run_\d+ into .*state\.db: another connection has held the lock while \d+ writes \(2\.\d MiB of text\) wait; later writes are dropped until it is released \(at most 1000 writes or 2\.9 MiB wait\)$/);
    other.exec('COMMIT');
    await waitFor(() => recorder.held === 0, 'the held writes made once the lock is free');
    assert.equal(said.at(-1), `recording into ${path}: ${turns - held} writes were dropped while another connection held the lock`);
    const sessions = other.prepare('SELECT id FROM sessions ORDER BY started_at').pluck().all() as string[];
    assert.deepEqual(sessions, Array.from({ length: held }, (_, i) => `s${i}`), 'the held starts landed, in order; the dropped did not');
  } finally {
    recorder.close();
    other.close();
    cleanup();
  }
});

test('a --state-db file locked by another process holds at most its bound of writes, however small', async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'state.db');
  const said: string[] = [];
  const recorder = new StateDbRecorder(path, { now: () => 1_800_000_000, ids: createIdSource('held'), eager: true, onError: (what, e) => said.push(`${what}: ${(e as Error).message}`), held: BOUNDS });
  const other = new Database(path);
  try {
    other.exec('BEGIN IMMEDIATE');
    const turn = { runId: 'run_1', profile: 'default', sessionId: 's1', model: 'm', at: 1_800_000_000, sessionKey: null };
    for (let i = 0; i < BOUNDS.writes + 50; i++) recorder.touched(turn, { at: 1_800_000_000 + i, description: 'working' });
    assert.equal(recorder.held, BOUNDS.writes);
    assert.equal(said.length, 1);
    assert.match(said[0]!, /while 1000 writes \(0\.1 MiB of text\) wait/);
    other.exec('COMMIT');
    await waitFor(() => recorder.held === 0, 'the held writes made once the lock is free');
    assert.equal(said.at(-1), `recording into ${path}: 50 writes were dropped while another connection held the lock`);
  } finally {
    recorder.close();
    other.close();
    cleanup();
  }
});

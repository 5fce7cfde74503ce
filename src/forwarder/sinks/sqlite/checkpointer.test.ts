// A dataset whose WAL grows past 16 MiB is checkpointed by a thread of its own while the writes go on, and closing
// the sink leaves the file whole and no -wal behind (decision 0027).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import type { RecordOf } from '../../dataset/columns.js';
import { REPLACE } from '../../dataset/delta.js';
import type { Ledger } from '../../projector/index.js';
import type { Batch } from '../sink.js';
import { SqliteSink } from './sink.js';

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** nBackfill of the wal-index header: frames a checkpoint has copied into the file since the WAL last restarted. */
const backfilled = (shm: string) => readFileSync(shm).readUInt32LE(96);

function batch(store: string, session: string, messages: number): Batch {
  const rows: RecordOf[] = Array.from({ length: messages }, (_, seq) => ({
    store, session_id: session, message_id: seq + 1, logical_id: seq + 1, seq, role: 'user', kind: 'message',
    content: `message ${seq} `.padEnd(2000, 'x'), content_format: 'text', created_at: 1780000000 + seq,
  }));
  const session_: RecordOf = {
    store, session_id: session, profile: 'default', source: 'cli', provider: 'unknown', policy: 'full', lineage_root: session,
    is_sidechain: 0, started_at: 1780000000, last_activity_at: 1780000000, message_count: messages, tool_call_count: 0,
    api_call_count: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
    rewind_count: 0, live_messages: messages, archived_messages: 0, inactive_messages: 0, removed_from_store: 0, origin: 'backfill',
  };
  return {
    store: { store, profile: 'default', max_message_id: 0 }, reset: false, removed: [], quarantine: { failed: [], cleared: [] },
    writes: [{ sessionId: session, policy: 'full', fingerprint: 'f', maxMessageId: messages, usageMark: '', ledger: null, base: null, projection: { session: session_, messages: rows, parts: [], modelUsage: [], issues: [], dailyUsage: [], usageEvent: null, ledger: { seq: 0, counters: {} as Ledger['counters'] }, usageMark: '', scopes: [], maxMessageId: messages, delta: REPLACE, tail: null } }],
  };
}

test('a WAL past 16 MiB is checkpointed by another thread while writes go on; close leaves no -wal and every row', () => {
  const { dir, cleanup } = tempDir('hermetic-checkpointer-');
  const home = join(dir, 'home');
  const sink = SqliteSink.open(home);
  const file = join(home, 'hermetic.db');
  try {
    // 24 MiB of rows in batches of 1,000 messages: the WAL passes the nudge, and the writer's own autocheckpoint
    // (32 MiB, moved to 128 MiB once the thread runs) is not reached.
    for (let i = 0; i < 12; i++) sink.write(batch('/s/state.db', `s${i}`, 1000));
    let copied = 0;
    // Waits for the thread (up to a minute: on a busy machine it runs late, not wrong).
    for (let waited = 0; waited < 60_000 && copied === 0; waited += 50) {
      sleep(50);
      copied = backfilled(`${file}-shm`);
    }
    assert.ok(copied > 0, 'the checkpoint thread copied frames into the file');
    assert.equal(sink.db.pragma('wal_autocheckpoint', { simple: true }), 8192 * 4);
    sink.write(batch('/s/state.db', 'last', 10));
  } finally {
    sink.close();
  }
  assert.equal(existsSync(`${file}-wal`), false);
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(db.prepare('SELECT COUNT(*) FROM messages').pluck().get(), 12_010);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
    cleanup();
  }
});

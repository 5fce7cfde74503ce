// What a pass says of a store it reads only in part. A session whose id is not valid UTF-8 cannot be read by its id
// (SQLite hands it to JavaScript with U+FFFD in it, and no row matches that): a pass sets it aside and says so with the
// id's bytes, and status counts it apart from what is pending, instead of a session pending forever and never
// forwarded, with nothing said. A store newer than any known schema that lacks a column every known one has: said.
// Messages whose session has no row: said by the pass that meets them, and counted by status while they stay so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { readCursors, SqliteSink } from '../sinks/sqlite/sink.js';
import { forwarderRig, hermesStore } from '../testing/index.js';
import { pendingOf } from './pending.js';
import { statusCommand } from '../cli/status.js';
import { printed } from '../../shared/testing/console.js';

test('a session id that is not valid UTF-8 is set aside and said; the others are forwarded; status counts it apart', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-undecodable-', 'undecodable');
  const ids = [w.createSession({ source: 'cli' }), w.createSession({ source: 'cli' })];
  for (const id of ids) w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  // The second id gets a 0xff byte, in its row and its messages (as a writer that does not check its text may leave it).
  db.pragma('foreign_keys = OFF');
  for (const sql of ['UPDATE messages SET session_id = CAST(CAST(session_id AS BLOB) || x\'ff\' AS TEXT) WHERE session_id = ?', 'UPDATE sessions SET id = CAST(CAST(id AS BLOB) || x\'ff\' AS TEXT) WHERE id = ?']) db.prepare(sql).run(ids[1]);
  db.close();
  const rig = forwarderRig([path], { dir });
  try {
    const [r] = rig.forwarder.backfill();
    assert.equal(r!.sessionsWritten, 1);
    const hex = Buffer.concat([Buffer.from(ids[1]!), Buffer.from([0xff])]).toString('hex');
    assert.equal(r!.warning, `1 session has an id that is not valid UTF-8 text (x'${hex}'): it cannot be read by its id and is not forwarded`);
    assert.deepEqual(rig.query<{ session_id: string }>('SELECT session_id FROM sessions').map((s) => s.session_id), [ids[0]]);
    rig.forwarder.close();
    const sink = SqliteSink.open(rig.home);
    try {
      const p = pendingOf(path, readCursors(sink.db, path, false), 1_800_000_000);
      assert.deepEqual([p.sessions, p.undecodable], [0, 1]);
    } finally {
      sink.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a session id stored as a BLOB or NULL is set aside and said, even one whose bytes spell the id of another', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-blob-id-', 'blob-id');
  const ids = [w.createSession({ source: 'cli' }), w.createSession({ source: 'cli' }), w.createSession({ source: 'cli' })];
  for (const id of ids) w.appendMessages(id, [{ role: 'user', content: `hi ${id}` }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  w.appendMessages(ids[1]!, [{ role: 'user', content: 'and one more' }]);
  db.pragma('foreign_keys = OFF');
  // The second session's id becomes a BLOB of the first one's bytes (its messages too); the third's row loses its id.
  for (const table of [['messages', 'session_id'], ['sessions', 'id']] as const) db.prepare(`UPDATE ${table[0]} SET ${table[1]} = CAST(? AS BLOB) WHERE ${table[1]} = ?`).run(ids[0], ids[1]);
  db.prepare('UPDATE sessions SET id = NULL WHERE id = ?').run(ids[2]);
  db.close();
  const rig = forwarderRig([path], { dir });
  try {
    const [r] = rig.forwarder.backfill();
    assert.equal(r!.sessionsWritten, 1);
    const hex = Buffer.from(ids[0]!).toString('hex');
    // The messages of the row with no id are said too: no row holds their session's id.
    assert.equal(r!.warning, `2 messages of session ${ids[2]}, which has no row in the store's sessions table: not read until Hermes writes it; 2 sessions have ids that are not valid UTF-8 text (x'${hex}', NULL): they cannot be read by their ids and are not forwarded`);
    assert.deepEqual(rig.query<{ session_id: string; content: string }>('SELECT session_id, content FROM messages ORDER BY seq').map((m) => [m.session_id, m.content]), [[ids[0], `hi ${ids[0]}`], [ids[0], 'hello']]);
    // Nothing flaps: the next pass writes nothing, nor one after Hermes appends to the BLOB's session; status counts
    // both apart.
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 0);
    const again = new Database(path);
    again.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (CAST(? AS BLOB), 'user', 'later', 1780000100)").run(ids[0]);
    again.close();
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 0);
    rig.forwarder.close();
    const sink = SqliteSink.open(rig.home);
    try {
      const p = pendingOf(path, readCursors(sink.db, path, false), 1_800_000_000);
      assert.deepEqual([p.sessions, p.undecodable], [0, 2]);
    } finally {
      sink.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a store at a schema newer than any known, lacking a column every known one has, is read with a warning naming it', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-newer-schema-', 'newer');
  w.appendMessages(w.createSession({ source: 'cli' }), [{ role: 'user', content: 'hi' }]);
  db.exec("UPDATE schema_version SET version = 99; ALTER TABLE messages RENAME COLUMN content TO body");
  db.close();
  const rig = forwarderRig([path], { dir });
  try {
    const [r] = rig.forwarder.backfill();
    assert.equal(r!.sessionsWritten, 1);
    assert.equal(r!.warning, 'the store is at schema version 99, newer than any this Hermetic knows (30), and has no messages.content: it is read as empty; a newer Hermetic may read it');
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('messages whose session has no row: said by the pass that meets them, and counted by status until Hermes writes the row', async () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-orphans-', 'orphans');
  const id = w.createSession({ source: 'cli' });
  w.appendMessages(id, [{ role: 'user', content: 'hi' }]);
  db.pragma('foreign_keys = OFF');
  const orphan = db.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'lost?', 1780000000)");
  for (const ghost of ['ghost-1', 'ghost-1', 'ghost-2']) orphan.run(ghost);
  const rig = forwarderRig([path], { dir });
  try {
    assert.match(rig.forwarder.backfill()[0]!.warning ?? '', /^3 messages of 2 sessions \(ghost-1, ghost-2\), which have no row/);
    // The next pass says nothing (the cursor is past them); status still counts them.
    assert.equal(rig.forwarder.forwardOnce()[0]!.warning, null);
    const pending = () => {
      const sink = SqliteSink.open(rig.home);
      try {
        return pendingOf(path, readCursors(sink.db, path, false), 1_800_000_000);
      } finally {
        sink.close();
      }
    };
    assert.deepEqual(pending().orphans, { sessions: 2, messages: 3 });
    // A session row with no id (garbage a store can hold: the key allows NULL) hides no orphan (NOT IN met a NULL).
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES (NULL, 'cli', 1780000000)").run();
    assert.deepEqual(pending().orphans, { sessions: 2, messages: 3 });
    db.prepare('DELETE FROM sessions WHERE id IS NULL').run();
    const { value, out } = await printed(() => statusCommand(['--home', rig.home, '--state-db', path]));
    assert.equal(value, 0);
    assert.match(out.join('\n'), /pending: nothing; 3 messages of 2 sessions with no row in the store's sessions table \(not read until Hermes writes them\)/);
    // Hermes writes the rows: the next pass reads them whole, and nothing is left aside.
    w.createSession({ id: 'ghost-1', source: 'cli' });
    w.createSession({ id: 'ghost-2', source: 'cli' });
    rig.forwarder.forwardOnce();
    assert.deepEqual(pending().orphans, { sessions: 0, messages: 0 });
    assert.equal(rig.query<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE session_id LIKE 'ghost-%'")[0]!.n, 3);
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
});

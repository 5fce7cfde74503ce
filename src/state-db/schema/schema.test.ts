import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createStore, expectedTableInfo, tablesAt, LATEST_LEVEL, physicalColumns } from './index.js';
import { copyFixture, FIXTURES, tempDir } from '../testing/fixtures.js';

const tableInfo = (db: Database.Database, t: string) => db.prepare(`PRAGMA table_info(${t})`).all();

test('fresh stores at every level match the schema data table by table', () => {
  for (let level = 1; level <= LATEST_LEVEL; level++) {
    const db = createStore({ path: ':memory:', level });
    for (const t of tablesAt(level)) assert.deepEqual(tableInfo(db, t.name), expectedTableInfo(t.name, level), `v${level} ${t.name}`);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  }
});

test('stores created old and migrated forward match the migrated layout for every (created, target) pair', () => {
  for (let createdAt = 1; createdAt <= LATEST_LEVEL; createdAt += 1) {
    for (const level of [createdAt + 1, 15, 22, 25, LATEST_LEVEL]) {
      if (level <= createdAt || level > LATEST_LEVEL) continue;
      const db = createStore({ path: ':memory:', level, createdAt });
      for (const t of tablesAt(level)) {
        assert.deepEqual(tableInfo(db, t.name), expectedTableInfo(t.name, level, createdAt), `v${createdAt}->v${level} ${t.name}`);
      }
      assert.equal(db.prepare('SELECT version FROM schema_version').pluck().get(), Math.min(level, 30));
      db.close();
    }
  }
});

test('a store created around v12 and migrated appends columns in the order of spec §9.3', () => {
  const cols = physicalColumns('sessions', LATEST_LEVEL, 13).map((c) => c.name);
  const tail = cols.slice(cols.indexOf('archived') + 1);
  assert.deepEqual(tail.slice(0, 6), ['session_key', 'chat_id', 'chat_type', 'thread_id', 'git_branch', 'git_repo_root']);
  assert.deepEqual(tail.slice(-2), ['created_source', 'compression_overload_streak']);
  const msgs = physicalColumns('messages', LATEST_LEVEL, 9).map((c) => c.name);
  assert.deepEqual(msgs.slice(msgs.indexOf('codex_message_items') + 1), [
    'platform_message_id', 'observed', 'active', 'compacted', 'effect_disposition', 'api_content', 'display_kind',
    'display_metadata', '_compressed_summary', 'display_identity', 'display_order',
  ]);
});

test('the schema data for v30 matches the real Hermes fixtures exactly (every table)', () => {
  const { dir, cleanup } = tempDir();
  try {
    for (const name of FIXTURES) {
      const db = new Database(copyFixture(name, dir), { readonly: true });
      for (const t of tablesAt(LATEST_LEVEL)) assert.deepEqual(tableInfo(db, t.name), expectedTableInfo(t.name, LATEST_LEVEL), `${name} ${t.name}`);
      // Hermes wrote the fixtures with a fixed uuid4: the same token gives the same header (decision 0134).
      const generation = db.prepare("SELECT value FROM state_meta WHERE key = 'db_file_generation'").pluck().get() as string;
      const ours = createStore({ path: ':memory:', level: LATEST_LEVEL, generation });
      const objects = (d: Database.Database) => d.prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
      assert.deepEqual(objects(ours), objects(db), `${name}: same tables, indexes, triggers and views`);
      assert.equal(ours.pragma('application_id', { simple: true }), db.pragma('application_id', { simple: true }));
      ours.close();
      db.close();
    }
  } finally {
    cleanup();
  }
});

test('level 2 is the store Hermes\'s own v2 code writes: every object\'s DDL, FTS triggers included (the v2 fixture)', () => {
  const { dir, cleanup } = tempDir();
  try {
    const db = new Database(copyFixture('v2', dir), { readonly: true });
    const ours = createStore({ path: ':memory:', level: 2 });
    const ddl = (d: Database.Database) => (d.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { type: string; name: string; sql: string | null }[])
      .map((o) => ({ ...o, sql: o.sql?.replace(/\s+/g, ' ') ?? null }));
    assert.deepEqual(ddl(ours), ddl(db));
    assert.equal(ours.prepare('SELECT version FROM schema_version').pluck().get(), db.prepare('SELECT version FROM schema_version').pluck().get());
    ours.close();
    db.close();
  } finally {
    cleanup();
  }
});

test('the legacy inline trigram index holds tool rows too (Hermes\'s LEGACY_FTS_TRIGRAM_SQL); the v23 one leaves them out', () => {
  const count = (level: number) => {
    const db = createStore({ path: ':memory:', level });
    db.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)").run();
    const insert = db.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', ?, ?, 1)");
    insert.run('user', 'find the needle');
    insert.run('tool', 'needle in the tool output');
    const n = db.prepare("SELECT COUNT(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'needle'").pluck().get();
    db.close();
    return n;
  };
  assert.deepEqual([count(15), count(22), count(LATEST_LEVEL)], [2, 2, 1]);
});

test('stores can be built without FTS5 and in either journal mode', () => {
  const { dir, cleanup } = tempDir();
  try {
    const a = createStore({ path: `${dir}/a.db`, level: 22, fts: false, journal: 'delete' });
    assert.equal(a.pragma('journal_mode', { simple: true }), 'delete');
    assert.equal(a.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'messages_fts%'").pluck().get(), 0);
    a.close();
    const b = createStore({ path: `${dir}/b.db`, level: 10, journal: 'wal' });
    assert.equal(b.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(b.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'messages_fts_trigram'").pluck().get(), 1);
    b.close();
  } finally {
    cleanup();
  }
});

test('creating at a level newer than the target is refused', () => {
  assert.throws(() => createStore({ path: ':memory:', level: 10, createdAt: 12 }), { message: 'createdAt 12 is newer than level 10.' });
  assert.throws(() => createStore({ path: ':memory:', level: 32 }), { message: 'Unknown schema level 32.' });
});

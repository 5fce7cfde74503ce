// Columns by name, never by position (spec forwarding §6.1 item 1): the capability map and NULL AS for missing ones.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { test } from 'node:test';
import { introspect, selectList } from './columns.js';

test('selectList names every wanted column, NULL AS for the ones the table lacks, quoted, optionally aliased', () => {
  const have = new Set(['id', 'model', 'we"ird']);
  assert.equal(selectList(have, ['id', 'cwd', 'model', 'we"ird']), '"id", NULL AS "cwd", "model", "we""ird"');
  assert.equal(selectList(have, ['id', 'api_call_count'], 's'), 's."id", NULL AS "api_call_count"');
  assert.equal(selectList(undefined, ['id']), 'NULL AS "id"');
});

test('introspect maps each table to its columns', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT)');
  assert.deepEqual([...introspect(db)].map(([t, cols]) => [t, [...cols]]), [['sessions', ['id', 'source']], ['messages', ['id', 'session_id', 'role']]]);
  db.close();
});

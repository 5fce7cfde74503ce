// An SQL identifier quoted once for SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { quoteName } from './sql-name.js';

test('a name goes in double quotes, a " inside doubled; nothing else is touched', () => {
  assert.equal(quoteName('sessions'), '"sessions"');
  assert.equal(quoteName('a"b'), '"a""b"');
  assert.equal(quoteName('"'), '""""');
  assert.equal(quoteName(''), '""');
  assert.equal(quoteName("it's a name; DROP"), `"it's a name; DROP"`);
  assert.equal(quoteName('café 表 🙂'), '"café 表 🙂"');
});

test('SQLite reads every quoted name back as the name it was', () => {
  const db = new Database(':memory:');
  try {
    for (const name of ['a"b', '"', '""x""', 'café 表 🙂', 'select']) {
      db.exec(`CREATE TABLE ${quoteName(name)} (${quoteName(name)} TEXT)`);
      assert.deepEqual(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(name), [name]);
    }
  } finally {
    db.close();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { displayIdentity } from './display-identity.js';
import { promptHash } from './schema/create.js';
import { copyFixture, FIXTURES, tempDir } from './testing/fixtures.js';

test('display_identity and system prompt hashes reproduce every row of the real fixtures', () => {
  const { dir, cleanup } = tempDir();
  try {
    for (const name of FIXTURES) {
      const db = new Database(copyFixture(name, dir), { readonly: true });
      const rows = db.prepare('SELECT * FROM messages').all() as Parameters<typeof displayIdentity>[0][];
      assert.ok(rows.length > 0);
      for (const row of rows) {
        assert.deepEqual(displayIdentity(row), (row as unknown as { display_identity: Buffer }).display_identity, `${name} row`);
      }
      for (const p of db.prepare('SELECT hash, prompt FROM system_prompts').all() as { hash: string; prompt: string }[]) {
        assert.equal(promptHash(p.prompt), p.hash);
      }
      db.close();
    }
  } finally {
    cleanup();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { displayIdentity, pyFloat, pyJson, pyStrRepr } from './python.js';
import { promptHash } from './schema/create.js';
import { copyFixture, FIXTURES, tempDir } from './testing/fixtures.js';

test('pyFloat prints floats the way Python repr does', () => {
  assert.equal(pyFloat(1780000603), '1780000603.0');
  assert.equal(pyFloat(1780000606.510776), '1780000606.510776');
  assert.equal(pyFloat(5e246), '5e+246');
  assert.equal(pyFloat(1e16), '1e+16');
  assert.equal(pyFloat(0.00001), '1e-05');
  assert.equal(pyFloat(0.0001), '0.0001');
});

test('pyJson uses Python separators and ensure_ascii', () => {
  assert.equal(pyJson({ a: [1, 'é', null], b: true }), '{"a": [1, "\\u00e9", null], "b": true}');
  assert.equal(pyStrRepr("it's"), `"it's"`);
  assert.equal(pyStrRepr('a\x00b\n'), "'a\\x00b\\n'");
});

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

// Content between Hermes's PostgreSQL and SQLite forms (decision 0038): what PostgresSessionDB stores, read back as
// SessionDB would have stored it; every SQLite form survives the trip.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sqliteContent } from './content.js';
import { pgContent } from './testing.js';

test("Hermes's PostgreSQL forms: structured content under \\x01json:, a string with NUL as a JSON string, bytes as base64", () => {
  assert.equal(pgContent('\x00json:[{"type": "text", "text": "hi"}]'), '\x01json:[{"type": "text", "text": "hi"}]');
  assert.equal(pgContent('a\x00b é'), '\x01json:"a\\u0000b \\u00e9"');
  assert.equal(pgContent('\x01json:looks like ours'), '\x01json:"\\u0001json:looks like ours"');
  assert.equal(pgContent(Buffer.from([0, 1, 2, 255])), '\x01bytes:AAEC/w==');
  assert.equal(pgContent('plain'), 'plain');
});

// (`\x00json:` + a JSON string is no form Hermes writes: it wraps only lists and dicts.)
test('every SQLite form comes back from its PostgreSQL form unchanged', () => {
  for (const v of ['plain', '', '\x00json:{"a": [1, 2.5, null]}', '\x00json:[]', 'a\x00b', '\x01json:x', '\x01bytes:y', null, 42, 1.5]) {
    assert.deepEqual(sqliteContent(pgContent(v)), v, JSON.stringify(v));
  }
  assert.deepEqual(sqliteContent(pgContent(Buffer.from('bytes'))), Buffer.from('bytes'));
});

test('a \\x01json: text that is not JSON is left as it is (Hermes decodes it the same way)', () => {
  assert.equal(sqliteContent('\x01json:{not json'), '\x01json:{not json');
  assert.equal(sqliteContent('\x02other'), '\x02other');
});

test('a \\x01bytes: text that is not the base64 Hermes writes is left as it is, not decoded into other bytes', () => {
  // Buffer.from(…, 'base64') skips what is not base64 and stops at padding: each of these gave bytes Hermes never had.
  for (const v of ['\x01bytes:not base64!', '\x01bytes:YQ', '\x01bytes:YQ==YQ==', '\x01bytes:Y Q==', '\x01bytes:YQ==\n']) {
    assert.equal(sqliteContent(v), v, JSON.stringify(v));
  }
  assert.deepEqual(sqliteContent('\x01bytes:'), Buffer.alloc(0));
  assert.deepEqual(sqliteContent('\x01bytes:AAEC/w=='), Buffer.from([0, 1, 2, 255]));
});

test('a \\x01json: string holding a lone surrogate escape is left as it is: SQLite would get bytes that are not UTF-8', () => {
  // Python's json.dumps writes a str with a lone surrogate as "\ud800"; its UTF-8 codec refuses it, so no state.db holds
  // it. Decoded, better-sqlite3 would write ED A0 80, read back as three U+FFFD: the text keeps every code unit.
  for (const v of ['\x01json:"a\\ud800b"', '\x01json:"\\udc00"', '\x01json:"x\\u0000\\udfff"']) assert.equal(sqliteContent(v), v, v);
  assert.equal(sqliteContent('\x01json:"a\\ud83c\\udf89b\\u0000"'), 'a\u{1F389}b\u0000');
});

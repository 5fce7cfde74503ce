// The activity the sink counts for rows it inserts (InsertedActivity, decision 0040) equals a count from the tables
// (recomputeActivity, the SQL the triggers of version 3 ran), for records and packed rows, failed tool results in
// every spelling toolErrorSql knows, and rows whose values send the count back to SQL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { MESSAGES, PARTS, type DatasetTable, type RecordOf } from '../../dataset/columns.js';
import { packRows } from '../../dataset/packed.js';
import { bracketsOver, InsertedActivity, recomputeActivity, toolErrorJs, toolErrorSql } from './activity.js';
import { openDataset } from './dataset.js';
import type { Db } from '../../../shared/sqlite.js';

const T0 = 1_780_000_000;
const STORE = '/home/u/.hermes/state.db';

const message = (session: string, seq: number, role: string, created_at: unknown): RecordOf => ({
  store: STORE, session_id: session, message_id: seq + 1, logical_id: seq + 1, seq, role, kind: 'live', content: 'hi', created_at,
} as RecordOf);
const part = (session: string, k: number, part_type: string, fields: RecordOf = {}): RecordOf => ({
  store: STORE, session_id: session, part_id: `hermes-${session}-${k}-0#0`, message_id: k, part_index: 0, role: 'tool', part_type, created_at: T0 + k * 400, ...fields,
} as RecordOf);

function insert(db: Db, t: DatasetTable, rows: RecordOf[]): void {
  const names = t.columns.map((c) => c.name);
  const stmt = db.prepare(`INSERT INTO ${t.name} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
  for (const r of rows) stmt.run(names.map((n) => r[n] ?? null));
}

const dump = (db: Db) => ({
  activity: db.prepare('SELECT * FROM session_activity ORDER BY store, session_id, quarter').all(),
  tools: db.prepare('SELECT * FROM tool_activity ORDER BY store, session_id, quarter, tool_name').all(),
});

test('the activity counted from the inserted rows equals a count from the tables, records and packed, odd values included', () => {
  const { dir, cleanup } = tempDir();
  const db = openDataset(dir, { timeZone: 'UTC' });
  try {
    const counter = new InsertedActivity(db);
    const results = [
      '{"exit_code": 1}', '{"exit_code": 0}', '  {"error": "boom"}', '{"error": ""}', '{"error": {}}', '{"success": false}', '{"status": "failed"}',
      '{"status": "ok"}', 'an "error" in prose', '{"error": "x"', null, '\t{"error": "tab before the brace"}', '{"exit_code": 2.5}',
      '{"output": "no key named"}', '{"error": "\\u0041 an escape"}',
    ];
    // Each again as a long text, which the packed rows carry as UTF-8 bytes (decision 0175): an output beside the keys.
    const lengthen = (t: string | null) => (t === null ? null : t.trimStart().startsWith('{') ? t.replace('{', `{"output": "${'\u2014'.repeat(300)}", `) : `${t}${' \u2026'.repeat(150)}`);
    results.push(...results.map(lengthen));
    const sessions: [string, RecordOf[], RecordOf[]][] = [];
    for (const [s, pack] of [['plain', false], ['packed', true]] as const) {
      const messages = Array.from({ length: 40 }, (_, i) => message(s, i, i % 3 === 0 ? 'user' : 'assistant', T0 + i * 100));
      const parts = [
        ...results.map((text, k) => part(s, k, 'tool_result', { content_text: text, tool_name: k % 2 ? 'terminal' : null })),
        ...Array.from({ length: 6 }, (_, k) => part(s, 100 + k, 'tool_call', { tool_name: k % 3 ? 'read_file' : null })),
        part(s, 200, 'text', { content_text: '{"error": "not a tool part"}' }),
      ];
      sessions.push([s, messages, parts]);
      insert(db, MESSAGES, messages);
      insert(db, PARTS, parts);
      counter.messages(STORE, s, pack ? packRows(MESSAGES, messages) : messages, true);
      counter.parts(STORE, s, pack ? packRows(PARTS, parts) : parts, true);
    }
    // Values SQLite reads otherwise than JavaScript would (a time as text, a huge time): counted in SQL, the new rows only.
    const odd = [message('odd', 0, 'assistant', T0), message('odd', 1, 'user', String(T0 + 5000)), message('odd', 2, 'assistant', 5e246)];
    const oddParts = [part('odd', 1, 'tool_call', { tool_name: 'x', created_at: 5e246 }), part('odd', 2, 'tool_call', { tool_name: 'x' })];
    insert(db, MESSAGES, odd.slice(0, 1));
    counter.messages(STORE, 'odd', odd.slice(0, 1), true);
    insert(db, MESSAGES, odd.slice(1));
    counter.messages(STORE, 'odd', odd.slice(1), false);
    insert(db, PARTS, oddParts);
    counter.parts(STORE, 'odd', oddParts, false);
    const counted = dump(db);
    recomputeActivity(db);
    assert.deepEqual(counted, dump(db));
    assert.ok((counted.tools as { errors: number }[]).some((r) => r.errors > 0), 'some results count as failed');
  } finally {
    db.close();
    cleanup();
  }
});

test('bracketsOver says whether a text holds more than the limit of { and [ together, whatever else it holds', () => {
  const count = (text: string) => [...text].filter((c) => c === '{' || c === '[').length;
  fc.assert(fc.property(fc.array(fc.constantFrom('{', '[', ']', '}', 'a', '\u201c', ' '), { maxLength: 60 }), fc.integer({ min: 0, max: 30 }), (chars, limit) => {
    const text = chars.join('');
    assert.equal(bracketsOver(text, limit), count(text) > limit, text);
  }), { numRuns: 2000 });
  assert.equal(bracketsOver(`${'{'.repeat(600)}${'['.repeat(401)}`, 1000), true);
  assert.equal(bracketsOver(`${'{'.repeat(600)}${'['.repeat(400)}${'x'.repeat(5000)}`, 1000), false);
});

test('toolErrorJs answers as toolErrorSql wherever it answers, and answers for plain results', () => {
  const db = new Database(':memory:');
  try {
    const sql = db.prepare(`SELECT ${toolErrorSql('@text')}`).pluck();
    const judged = (text: string) => sql.get({ text }) === 1;
    // Values SQLite and JavaScript might read apart: zeros and huge numbers, empty and look-alike strings and containers.
    const value = fc.constantFrom('0', '-0', '0.0', '0e5', '1', '-1', '2.5', '1e400', '-1e-400', '123456789012345678901234', 'true', 'false',
      'null', '""', '"{}"', '"[]"', '" "', '"error"', '"failed"', '"Failed"', '"ok"', '{}', '{ }', '[]', '[ ]', '[0]', '{"a": 1}', '{"error": 1}',
      '"x\\u0041"', '"line\\nbreak"');
    const key = fc.constantFrom('"exit_code"', '"error"', '"success"', '"status"', '"output"', '"e\\u0072ror"', '"error "', '"Error"');
    const space = fc.constantFrom('', ' ', '  ', '\n', '\t', '\r\n');
    const member = fc.tuple(space, key, space, value, space).map(([a, k, b, v, c]) => `${a}${k}${b}:${b}${v}${c}`);
    const object = fc.array(member, { maxLength: 5 }).map((m) => `{${m.join(',')}}`);
    const nested = fc.tuple(object, member).map(([o, m]) => `{${m}, "inner": ${o}}`);
    // Damaged documents: cut short, trailing text, a brace of a bare word, prose naming a key.
    const damaged = fc.tuple(fc.oneof(object, nested), fc.constantFrom('cut', 'tail', 'word', 'prose', 'lead')).map(([doc, how]) => {
      if (how === 'cut') return doc.slice(0, Math.max(1, doc.length - 2));
      if (how === 'tail') return `${doc} trailing`;
      if (how === 'word') return '{error: 1}';
      if (how === 'prose') return `the "error" was ${doc}`;
      return `   ${doc}`;
    });
    fc.assert(fc.property(fc.oneof(object, nested, damaged), (text) => {
      const js = toolErrorJs(text);
      if (js !== null) assert.equal(js, judged(text), text);
    }), { numRuns: 3000 });
    const deep = `{"error": 1, "x": ${'['.repeat(1001)}${']'.repeat(1001)}}`;
    assert.equal(toolErrorJs(deep), null, 'nesting SQLite may refuse goes to SQLite');
    for (const text of ['{"exit_code": 0, "output": "done"}', '{"exit_code": 1}', '{"status": "completed", "summary": "done"}', '{"error": null}', '{"success": false}', 'plain text']) {
      assert.notEqual(toolErrorJs(text), null, text);
      assert.equal(toolErrorJs(text), judged(text), text);
    }
    for (const text of ['{"error": 0, "error": 1}', '{"error": 1, "note": "\\u0041"}', '{"error": 1']) assert.equal(toolErrorJs(text), null, text);
  } finally {
    db.close();
  }
});

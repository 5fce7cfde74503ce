// Rows go into SQLite as they were given, whichever statement carries them: many rows a statement, and the store and
// session bound once for a run of rows that share them (decision 0111), from records or packed rows, with runs that
// share nothing, a session that changes inside a run, and keys that are not strings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { MESSAGES, PARTS, type DatasetTable, type RecordOf } from '../../dataset/columns.js';
import { fromWireAll, packRows, packTables, toWireAll, valueAt, type PackedRows } from '../../dataset/packed.js';
import { createTableSql } from './dataset.js';
import { rowInserter } from './insert.js';
import { RowCounts } from './row-counts.js';

const TABLE: DatasetTable = {
  name: 't', doc: '', primaryKey: ['store', 'session_id', 'k'],
  columns: ['store', 'session_id', 'k', 'v'].map((name) => ({ name, type: 'TEXT' as const, doc: '' })),
};

const value = fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.integer(), fc.constant(null));
const row = fc.record({
  store: fc.oneof(fc.constantFrom("/home/u/.hermes/state.db", "/tmp/it's here/state.db"), value),
  session_id: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('s1', 's2', '20261206_101010_abcdef') }, { weight: 1, arbitrary: value }),
  v: value,
});

test('property: any rows, records or packed, come back in order with every value as it went in', () => {
  fc.assert(fc.property(fc.array(fc.array(row, { maxLength: 80 }), { minLength: 1, maxLength: 4 }), fc.boolean(), (batches, packed) => {
    const db = new Database(':memory:');
    try {
      // A rowid table without a key: the order rows went in, and any value in any column.
      db.exec('CREATE TABLE t (store, session_id, k, v)');
      const put = rowInserter(db, TABLE, new RowCounts(db));
      let k = 0;
      const want: unknown[][] = [];
      for (const batch of batches) {
        const records: RecordOf[] = batch.map((r) => ({ ...r, k: k++ }));
        // Runs of one session, as a session's rows arrive: most statements then share their key.
        records.sort((a, b) => String(a.session_id).localeCompare(String(b.session_id)));
        assert.equal(put(packed ? packRows(TABLE, records) : records), records.length);
        for (const r of records) want.push([r.store, r.session_id, r.k, r.v]);
      }
      const got = db.prepare('SELECT store, session_id, k, v FROM t ORDER BY rowid').raw().all();
      // SQLite gives integers back for whole doubles, and -0 as 0.
      const norm = (rows: unknown[][]) => rows.map((r) => r.map((v) => (typeof v === 'number' ? v + 0 : v)));
      assert.deepEqual(norm(got as unknown[][]), norm(want));
    } finally {
      db.close();
    }
  }), { numRuns: 150 });
});

const TYPED: DatasetTable = {
  name: 't', doc: '', primaryKey: ['store', 'session_id', 'k'],
  columns: [
    { name: 'store', type: 'TEXT', doc: '' }, { name: 'session_id', type: 'TEXT', doc: '' }, { name: 'k', type: 'INTEGER', doc: '' },
    { name: 'v', type: 'TEXT', doc: '' }, { name: 'w', type: 'JSON', doc: '' },
  ],
};
const TYPED_DDL = '(store TEXT, session_id TEXT, k INTEGER, v TEXT, w JSON)';
/** Long strings, packed as UTF-8 bytes in a TEXT column (decision 0175): ASCII, any code point, lone surrogates. */
const longText = fc.oneof(
  fc.string({ minLength: 256, maxLength: 600 }),
  fc.string({ unit: 'binary', minLength: 256, maxLength: 600 }),
  fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 200 })).map(([t, n]) => t.repeat(n).padEnd(256, '\u2014')),
);
const typedValue = fc.oneof(value, longText);

test('property: packed rows with long texts store in a typed table exactly what one plain INSERT a row stores', () => {
  fc.assert(fc.property(fc.array(fc.record({ store: fc.constantFrom('/s1', '/s2'), v: typedValue, w: typedValue }), { maxLength: 70 }), (given) => {
    const db = new Database(':memory:');
    try {
      db.exec(`CREATE TABLE t ${TYPED_DDL}; CREATE TABLE o ${TYPED_DDL}`);
      const records: RecordOf[] = given.map((r, k) => ({ store: r.store, session_id: 'a', k, v: r.v, w: r.w }));
      records.sort((a, b) => String(a.store).localeCompare(String(b.store)));
      rowInserter(db, TYPED, new RowCounts(db))(packRows(TYPED, records));
      const one = db.prepare('INSERT INTO o VALUES (?, ?, ?, ?, ?)');
      for (const r of records) one.run(r.store, r.session_id, r.k, r.v, r.w);
      const read = (t: string) => db.prepare(`SELECT store, session_id, k, v, typeof(v), hex(v), w, typeof(w) FROM ${t} ORDER BY rowid`).raw().all();
      assert.deepEqual(read('t'), read('o'));
    } finally {
      db.close();
    }
  }), { numRuns: 120 });
});

test('a long text packed beside a BLOB in its rows stays a BLOB, and the text stays text', () => {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE TABLE t ${TYPED_DDL}`);
    const long = `\u201c${'x'.repeat(300)}\u201d`;
    const records: RecordOf[] = [{ store: '/s', session_id: 'a', k: 1, v: Buffer.from('ab'), w: null }, { store: '/s', session_id: 'a', k: 2, v: long, w: null }];
    rowInserter(db, TYPED, new RowCounts(db))(packRows(TYPED, records));
    assert.deepEqual(db.prepare('SELECT typeof(v), v FROM t ORDER BY k').raw().all(), [['blob', Buffer.from('ab')], ['text', long]]);
  } finally {
    db.close();
  }
});


test('a long text packed as UTF-8 goes into a UTF-16 database as the same text: the bytes are cast only where they are its encoding', () => {
  for (const encoding of ['UTF-16le', 'UTF-16be', 'UTF-8']) {
    const db = new Database(':memory:');
    try {
      db.pragma(`encoding = '${encoding}'`);
      db.exec(`CREATE TABLE t ${TYPED_DDL}`);
      const long = `\u201c${'\u4e2d'.repeat(150)}\u0000${'x'.repeat(150)}\u201d \u{1F600}`;
      rowInserter(db, TYPED, new RowCounts(db))(packRows(TYPED, [{ store: '/s', session_id: 'a', k: 1, v: long, w: long }]));
      assert.deepEqual(db.prepare('SELECT typeof(v), v = w, v, w FROM t').raw().all(), [['text', 1, long, long]], encoding);
    } finally {
      db.close();
    }
  }
});
/** Texts of a session: none, short, long (with ends and starts UTF-8 or a decoder could get wrong), lengths shared. */
const sessionText = fc.oneof(
  fc.constantFrom(null, ''),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.integer({ min: 250, max: 262 }), fc.constantFrom('a', '\u00e9', '\u4e2d', '\u{1F600}', '\u0000', '\ud800', '\ufeff')).map(([n, c]) => `${'x'.repeat(n)}${c}`),
  fc.tuple(fc.constantFrom('a', '\u{1F600}', '\udc00', '\ufeff', ' {"error": 1} '), fc.integer({ min: 250, max: 262 })).map(([c, n]) => `${c}${'y'.repeat(n)}`),
  fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.integer({ min: 7, max: 40 })).map(([t, n]) => t.repeat(n)),
);

test("property: a session's messages and parts, packed over one text and posted to another thread, store in the dataset's tables what their records store", () => {
  fc.assert(fc.property(fc.array(fc.tuple(sessionText, sessionText, sessionText), { minLength: 1, maxLength: 40 }), (given) => {
    // Each text in a TEXT column and again in a JSON one, of this row or the next table: met first as bytes or not.
    const messages: RecordOf[] = given.map(([a, b, c], i) => ({
      store: '/s', session_id: 'x', message_id: i, logical_id: i, seq: i, role: 'assistant', kind: 'message', content: a, content_format: 'text',
      tool_calls: b, tool_name: c, tool_call_id: b, reasoning: a, model: null, finish_reason: null, created_at: i, compacted: 0, attributes: c,
    }));
    const parts: RecordOf[] = given.map(([a, b, c], i) => ({
      store: '/s', session_id: 'x', part_id: `p${i}`, message_id: i, part_index: 0, role: 'tool', part_type: 'tool_result', content_text: a,
      tool_name: c, tool_call_id: b, tool_args: a, tool_result_for: b, status: b, model: null, created_at: i, attributes: null, program: c,
    }));
    const { rows, transfer } = toWireAll(packTables([[MESSAGES, messages], [PARTS, parts]]));
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(rows, transfer);
    const sent = fromWireAll(receiveMessageOnPort(port2)!.message as PackedRows[]);
    port1.close();
    const dbs = [new Database(':memory:'), new Database(':memory:')] as const;
    try {
      for (const [t, records, packed] of [[MESSAGES, messages, sent[0]!], [PARTS, parts, sent[1]!]] as const) {
        // What the activity and tool_calls read of the rows: every value as it was given.
        for (let i = 0; i < records.length; i++) t.columns.forEach((c, k) => assert.equal(valueAt(packed, i, k), records[i]![c.name], c.name));
        for (const [db, put] of [[dbs[0], packed], [dbs[1], records]] as const) {
          db.exec(createTableSql(t));
          rowInserter(db, t, new RowCounts(db))(put);
        }
        const read = (db: Database.Database) => db.prepare(`SELECT ${t.columns.map((c) => `typeof("${c.name}"), hex("${c.name}")`).join(', ')} FROM ${t.name} ORDER BY rowid`).raw().all();
        assert.deepEqual(read(dbs[0]), read(dbs[1]), t.name);
      }
    } finally {
      for (const db of dbs) db.close();
    }
  }), { numRuns: 100 });
});

test('a run of 32 rows of one session binds the store and session once; a run whose session changes does not', () => {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (store, session_id, k, v)');
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    (db as unknown as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      if (sql.startsWith('INSERT INTO "t"')) seen.push(sql);
      return prepare(sql);
    };
    const put = rowInserter(db, TABLE, new RowCounts(db));
    const rows = (session: (i: number) => string): RecordOf[] => Array.from({ length: 32 }, (_, i) => ({ store: '/s', session_id: session(i), k: i, v: 'x' }));
    put(rows(() => 'a'));
    put(packRows(TABLE, rows(() => 'b')));
    assert.equal(seen.length, 1);
    assert.match(seen[0]!, /VALUES \(@store, @session, \?, \?\), /);
    put(rows((i) => (i < 31 ? 'c' : 'd')));
    assert.equal(seen.length, 2);
    assert.match(seen[1]!, /VALUES \(\?, \?, \?, \?\), /);
    assert.deepEqual(db.prepare('SELECT session_id, COUNT(*) AS n FROM t GROUP BY session_id ORDER BY session_id').all(),
      [{ session_id: 'a', n: 32 }, { session_id: 'b', n: 32 }, { session_id: 'c', n: 31 }, { session_id: 'd', n: 1 }]);
  } finally {
    db.close();
  }
});

test('a value SQLite cannot bind is refused as the array form refused it, never spread into other columns or taken for names', () => {
  // Spread, an array binds as its elements and a plain object as named parameters: ['x'] would go in as 'x', and []
  // beside ['p', 'q'] would shift the row's values a column along, without a word.
  const bad: Record<string, unknown[]> = {
    'one element': [['x']], 'an empty and a pair': [[], ['p', 'q']], 'an object': [{ a: 1 }],
    'an object naming the shared keys': [{ store: '/s', session: 'a' }], 'a null-prototype object': [Object.create(null)], 'a date': [new Date(0)],
  };
  for (const [what, values] of Object.entries(bad)) {
    for (const rows of [1, 32]) {
      for (const packed of [false, true]) {
        const db = new Database(':memory:');
        try {
          db.exec('CREATE TABLE t (store, session_id, k, v)');
          const put = rowInserter(db, TABLE, new RowCounts(db));
          // A run of 32 of one session goes through the statement that binds the store and session by name.
          const records: RecordOf[] = Array.from({ length: rows }, (_, i) => ({ store: '/s', session_id: 'a', k: values.length > 1 ? values[0] : i, v: values.at(-1) }));
          assert.throws(() => put(packed ? packRows(TABLE, records) : records), (e: Error) => e instanceof TypeError && /t\.(k|v): SQLite3 can only bind numbers, strings, bigints, buffers, and null/.test(e.message),
            `${what}, ${rows} row(s), ${packed ? 'packed' : 'records'}`);
          assert.equal(db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 0);
        } finally {
          db.close();
        }
      }
    }
  }
});

test('buffers, typed arrays, bigints and undefined bind as they did through the array', () => {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (store, session_id, k, v)');
    const put = rowInserter(db, TABLE, new RowCounts(db));
    const values = [Buffer.from('ab'), new Uint8Array([1, 2]), 2n ** 62n, undefined, null];
    const want: unknown[] = [];
    for (const rows of [1, 5, 32]) {
      const records: RecordOf[] = Array.from({ length: rows }, (_, i) => ({ store: '/s', session_id: 'a', k: i, v: values[i % values.length] }));
      put(records);
      put(packRows(TABLE, records));
      const stored = records.map((r) => (r.v instanceof Uint8Array ? Buffer.from(r.v) : r.v ?? null));
      want.push(...stored, ...stored);
    }
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY rowid').safeIntegers().pluck().all(), want);
  } finally {
    db.close();
  }
});

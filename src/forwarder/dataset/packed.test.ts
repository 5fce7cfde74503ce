// Packed rows give back every value as it went in, after crossing to another thread as the read worker sends them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { DatasetTable, RecordOf } from './columns.js';
import { fromWire, fromWireAll, LONG_TEXT, longBytesAt, packedSize, packRows, packTables, toWire, toWireAll, unpackRow, valueAt, type PackedRows } from './packed.js';

const TABLE: DatasetTable = {
  name: 't', doc: '', primaryKey: ['a'],
  columns: ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'TEXT' as const, doc: '' })),
};

/** The rows as the writing thread sees them: packed, posted with their buffers transferred, received, unpacked. */
function roundTrip(records: RecordOf[]): unknown[][] {
  const { rows, transfer } = toWire(packRows(TABLE, records));
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(rows, transfer);
  const got = fromWire(receiveMessageOnPort(port2)!.message as PackedRows);
  port1.close();
  return Array.from({ length: got.length }, (_, i) => {
    const row: unknown[] = [];
    unpackRow(got, i, row, 0);
    return row;
  });
}

test('strings of every kind, numbers, NULL and a missing column come back as they went in', () => {
  const records: RecordOf[] = [
    { a: 'plain', b: 1, c: null, d: 'caf\u00e9' },
    { a: 'emoji \u{1F600} and \u4e2d\u6587', b: 1.5, c: -0, d: '' },
    { a: 'plain', b: Number.MAX_SAFE_INTEGER, d: 'caf\u00e9' },
    { a: 'x'.repeat(100_000), b: 1780000000.123456, c: 'json:{"k":[1,2]}', d: undefined },
  ];
  const want = records.map((r) => TABLE.columns.map((c) => r[c.name] ?? null));
  assert.deepEqual(roundTrip(records), want);
});

test('a text with a lone surrogate crosses as a string (UTF-8 would replace it), and comes back whole', () => {
  const records: RecordOf[] = [{ a: 'broken \ud800 half', b: 2, c: 'ok', d: 'x' }, { a: 'broken \ud800 half', b: 3, c: null, d: 'y' }];
  const { rows } = toWire(packRows(TABLE, records));
  assert.equal(rows.utf8, null);
  assert.deepEqual(roundTrip(records), records.map((r) => TABLE.columns.map((c) => r[c.name] ?? null)));
});

test('other values (a bigint) travel beside the packing; no rows pack to nothing', () => {
  assert.deepEqual(roundTrip([{ a: 'n', b: 12n, c: null, d: null }]), [['n', 12n, null, null]]);
  assert.deepEqual(roundTrip([]), []);
});

test('a string repeated down a column is stored once', () => {
  const same = 'the same store path, row after row';
  const p = packRows(TABLE, Array.from({ length: 100 }, (_, i) => ({ a: same, b: i, c: 'v', d: null })));
  assert.equal(p.text, `${same}v`);
});

const OTHER_TABLE: DatasetTable = { ...TABLE, name: 'u', columns: ['x', 'y'].map((name) => ({ name, type: 'TEXT' as const, doc: '' })) };

/** Both tables' rows as the writing thread sees them after packTables, toWireAll, a post and fromWireAll. */
function roundTripTables(first: RecordOf[], second: RecordOf[]): { rows: unknown[][][]; text: number; bytes: number; sent: PackedRows[] } {
  const packed = packTables([[TABLE, first], [OTHER_TABLE, second]]);
  const bytes = packed[0]!.bytes?.length ?? 0;
  const { rows, transfer } = toWireAll(packed);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(rows, transfer);
  const sent = receiveMessageOnPort(port2)!.message as PackedRows[];
  port1.close();
  const got = fromWireAll(sent);
  assert.equal(got[0]!.text, got[1]!.text, 'one text for both');
  assert.equal(got[0]!.bytes, got[1]!.bytes, 'and one set of bytes');
  const unpacked = got.map((g) => Array.from({ length: g.length }, (_, i) => {
    const row: unknown[] = [];
    unpackRow(g, i, row, 0);
    return row;
  }));
  return { rows: unpacked, text: packed[0]!.text.length, bytes, sent };
}

test("a session's tables share one text: a long string met again, in another column or table, is stored and sent once", () => {
  const long = `a message's whole content, \u201cquoted\u201d \u2014 ${'x'.repeat(LONG_TEXT)}`;
  const other = `another long text ${'y'.repeat(LONG_TEXT)}`;
  const short = 'short';
  const first: RecordOf[] = [{ a: long, b: 1, c: short, d: null }, { a: other, b: 2, c: long, d: short }];
  const second: RecordOf[] = [{ x: long, y: short }, { x: other, y: `${long}!` }, { x: null, y: long }];
  const { rows, text, bytes, sent } = roundTripTables(first, second);
  assert.deepEqual(rows, [[[long, 1, short, null], [other, 2, long, short]], [[long, short], [other, `${long}!`], [null, long]]]);
  // The long strings (TEXT columns) once each as UTF-8, the one that only begins like one too; the short ones in the
  // text, as the packer always kept them.
  assert.equal(text, short.length * 3);
  assert.equal(bytes, utf8(long) + utf8(other) + utf8(`${long}!`));
  assert.ok(sent[0]!.utf8 !== null && sent[0]!.bytes !== null, 'the text and the bytes cross with the first');
  assert.ok(sent[1]!.utf8 === null && sent[1]!.bytes === null && sent[1]!.sharesText === true, 'and only with the first');
});

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

const MIXED: DatasetTable = {
  name: 'm', doc: '', primaryKey: ['t'],
  columns: [{ name: 't', type: 'TEXT', doc: '' }, { name: 'j', type: 'JSON', doc: '' }, { name: 'n', type: 'INTEGER', doc: '' }],
};

test('a long string is kept as UTF-8 for a TEXT column only: given as bytes where the writer asks, decoded everywhere else', () => {
  const long = `\u201c${'\u4e2d'.repeat(LONG_TEXT)}\u201d \u{1F600}`;
  const json = JSON.stringify({ output: 'o'.repeat(LONG_TEXT) });
  const p = packRows(MIXED, [{ t: long, j: json, n: 1 }, { t: json, j: long, n: 2 }]);
  // The TEXT column's strings went to the bytes; the JSON column's first met there went to the text, and the same
  // strings met again point where they were first put.
  assert.equal(p.bytes?.length, utf8(long));
  assert.equal(p.text, json);
  assert.equal(longBytesAt(p, 0, 0)?.length, utf8(long));
  assert.equal(longBytesAt(p, 1, 1)?.length, utf8(long), 'the same string in a JSON column points at its bytes');
  assert.equal(longBytesAt(p, 0, 1), null);
  assert.deepEqual([valueAt(p, 0, 0), valueAt(p, 1, 1), valueAt(p, 1, 0)], [long, long, json]);
  const asBytes = [true, false, false];
  const row: unknown[] = [];
  unpackRow(p, 0, row, 0, 0, asBytes);
  assert.ok(row[0] instanceof Uint8Array && Buffer.from(row[0]).toString('utf8') === long);
  assert.deepEqual(row.slice(1), [json, 1]);
  unpackRow(p, 1, row, 0, 0, asBytes);
  assert.deepEqual(row, [json, long, 2], 'bytes only in the columns that take them');
  unpackRow(p, 0, row, 0);
  assert.deepEqual(row, [long, json, 1], 'and strings for a reader that asks for none');
});

test('a long string with a lone surrogate stays in the text (UTF-8 would replace it), a TEXT column or not', () => {
  const broken = `\ud800${'b'.repeat(LONG_TEXT)}`;
  const p = packRows(MIXED, [{ t: broken, j: null, n: 1 }]);
  assert.equal(p.bytes, null);
  assert.equal(longBytesAt(p, 0, 0), null);
  assert.equal(valueAt(p, 0, 0), broken);
});

test('a long string that begins with U+FEFF is decoded with it: a byte order mark is text, not taken off', () => {
  // A tool name or call id such as this one is read back by valueAt for the activity and tool_calls tables.
  const marked = `\ufeff${'T'.repeat(LONG_TEXT)}`;
  const p = packRows(MIXED, [{ t: marked, j: marked, n: 1 }, { t: `\ufeff${'short'}`, j: null, n: 2 }]);
  assert.equal(longBytesAt(p, 0, 0)?.length, utf8(marked));
  assert.deepEqual([valueAt(p, 0, 0), valueAt(p, 0, 1)], [marked, marked]);
  const row: unknown[] = [];
  unpackRow(p, 0, row, 0);
  assert.deepEqual(row, [marked, marked, 1]);
  const [sent] = fromWireAll([toWire(packRows(MIXED, [{ t: '\ufeffshort', j: null, n: 2 }])).rows]);
  assert.equal(valueAt(sent!, 0, 0), '\ufeffshort', 'the short texts too, when the first of them begins with one');
});

test('long strings of one length are compared, not hashed: equal ones stored once, different ones each, past a full bucket too', () => {
  const n = LONG_TEXT + 10;
  const texts = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, '0')}${'z'.repeat(n - 2)}`);
  // Each string twice, the second time a copy (not the same object) and not in the row after (which the packer would
  // point at the row before's).
  const records: RecordOf[] = [...texts.map((t) => ({ t, j: null, n: 0 })), ...texts.map((t) => ({ t: `${t.slice(0, 1)}${t.slice(1)}`, j: null, n: 1 }))];
  const p = packRows(MIXED, records);
  assert.deepEqual(records.map((_, i) => valueAt(p, i, 0)), records.map((r) => r.t));
  // Eight of the length are remembered; the four after them are stored again when met again.
  assert.equal(p.bytes?.length, n * (12 + 4));
});

test('tables whose shared text cannot be UTF-8 (a lone surrogate) share it as a string; tables with no text at all cross as they are', () => {
  const broken = `half \ud800 of a pair ${'z'.repeat(LONG_TEXT)}`;
  const { rows, sent } = roundTripTables([{ a: broken, b: 1, c: null, d: null }], [{ x: broken, y: 'tail' }]);
  assert.deepEqual(rows, [[[broken, 1, null, null]], [[broken, 'tail']]]);
  assert.equal(sent[0]!.utf8, null);
  const empty = roundTripTables([{ a: null, b: 1, c: null, d: null }], [{ x: null, y: null }]);
  assert.deepEqual(empty.rows, [[[null, 1, null, null]], [[null, null]]]);
});

test("the bytes cross without the room reserved for them: an ASCII text's buffer is about its length, not three times it", () => {
  const p = packRows(MIXED, [{ t: 'a'.repeat(1_000_000), j: null, n: 1 }]);
  assert.equal(p.bytes?.length, 1_000_000);
  assert.ok(p.bytes!.buffer.byteLength <= 1_000_000 * 1.25 + 65_536, `${p.bytes!.buffer.byteLength} bytes sent`);
  assert.equal(packedSize(p), 1_000_000);
});

test('a text past a megabyte, two bytes a character for most of it, crosses whole in a buffer of about its own size', () => {
  const huge = `${'\u00e9'.repeat(1_500_000)}${'a'.repeat(1_000_000)}`;
  const p = packRows(MIXED, [{ t: huge, j: null, n: 1 }, { t: `${'b'.repeat(LONG_TEXT)}`, j: null, n: 2 }]);
  assert.equal(p.bytes?.length, 4_000_000 + LONG_TEXT);
  assert.ok(p.bytes!.buffer.byteLength <= 2 * (4_000_000 + LONG_TEXT), `${p.bytes!.buffer.byteLength} bytes held`);
  assert.deepEqual([valueAt(p, 0, 0), valueAt(p, 1, 0)], [huge, 'b'.repeat(LONG_TEXT)]);
});

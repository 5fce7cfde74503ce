// Packed rows give back every value as it went in, after crossing to another thread as the read worker sends them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { DatasetTable, RecordOf } from './columns.js';
import { fromWire, fromWireAll, LONG_TEXT, packRows, packTables, toWire, toWireAll, unpackRow, type PackedRows } from './packed.js';

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
function roundTripTables(first: RecordOf[], second: RecordOf[]): { rows: unknown[][][]; text: number; sent: PackedRows[] } {
  const packed = packTables([[TABLE, first], [OTHER_TABLE, second]]);
  const { rows, transfer } = toWireAll(packed);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(rows, transfer);
  const sent = receiveMessageOnPort(port2)!.message as PackedRows[];
  port1.close();
  const got = fromWireAll(sent);
  assert.equal(got[0]!.text, got[1]!.text, 'one text for both');
  const unpacked = got.map((g) => Array.from({ length: g.length }, (_, i) => {
    const row: unknown[] = [];
    unpackRow(g, i, row, 0);
    return row;
  }));
  return { rows: unpacked, text: packed[0]!.text.length, sent };
}

test("a session's tables share one text: a long string met again, in another column or table, is stored and sent once", () => {
  const long = `a message's whole content, \u201cquoted\u201d \u2014 ${'x'.repeat(LONG_TEXT)}`;
  const other = `another long text ${'y'.repeat(LONG_TEXT)}`;
  const short = 'short';
  const first: RecordOf[] = [{ a: long, b: 1, c: short, d: null }, { a: other, b: 2, c: long, d: short }];
  const second: RecordOf[] = [{ x: long, y: short }, { x: other, y: `${long}!` }, { x: null, y: long }];
  const { rows, text, sent } = roundTripTables(first, second);
  assert.deepEqual(rows, [[[long, 1, short, null], [other, 2, long, short]], [[long, short], [other, `${long}!`], [null, long]]]);
  // The long strings once each (and the one that only begins like one), the short ones as the packer always kept them.
  assert.equal(text, long.length + short.length + other.length + short.length + short.length + long.length + 1);
  assert.ok(sent[0]!.utf8 !== null && sent[1]!.utf8 === null && sent[1]!.sharesText === true, 'the text crosses once, with the first');
});

test('tables whose shared text cannot be UTF-8 (a lone surrogate) share it as a string; tables with no text at all cross as they are', () => {
  const broken = `half \ud800 of a pair ${'z'.repeat(LONG_TEXT)}`;
  const { rows, sent } = roundTripTables([{ a: broken, b: 1, c: null, d: null }], [{ x: broken, y: 'tail' }]);
  assert.deepEqual(rows, [[[broken, 1, null, null]], [[broken, 'tail']]]);
  assert.equal(sent[0]!.utf8, null);
  const empty = roundTripTables([{ a: null, b: 1, c: null, d: null }], [{ x: null, y: null }]);
  assert.deepEqual(empty.rows, [[[null, 1, null, null]], [[null, null]]]);
});

// Packed rows give back every value as it went in, after crossing to another thread as the read worker sends them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { DatasetTable, RecordOf } from './columns.js';
import { fromWire, packRows, toWire, unpackRow, type PackedRows } from './packed.js';

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

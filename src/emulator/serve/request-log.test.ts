// The request log's batching: lines pushed within one interval reach stdout in one write, in order; a batch past
// 64 KiB is written at once; flush() writes what waits (before the process stops).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineBatch, requestLine } from './request-log.js';

test('lines pushed before the interval ends are written once, joined, in order; nothing is written before it ends', () => {
  const writes: string[] = [];
  const due: Array<{ ms: number; fn: () => void }> = [];
  const batch = new LineBatch((text) => writes.push(text), (ms, fn) => due.push({ ms, fn }));
  batch.push('a');
  batch.push('b');
  batch.push('c');
  assert.deepEqual(writes, []);
  assert.equal(due.length, 1, 'one timer for the batch');
  assert.ok(due[0]!.ms > 0 && due[0]!.ms <= 50, 'a wait nobody reading the console notices');
  due.shift()!.fn();
  assert.deepEqual(writes, ['a\nb\nc']);
  batch.push('d');
  due.shift()!.fn();
  assert.deepEqual(writes, ['a\nb\nc', 'd']);
  assert.equal(due.length, 0, 'an empty interval arms no timer');
});

test('a batch reaching 64 KiB is written at once; flush() writes the rest now', () => {
  const writes: string[] = [];
  const batch = new LineBatch((text) => writes.push(text), () => {});
  const line = 'x'.repeat(1023);
  for (let i = 0; i < 64; i++) batch.push(line);
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.split('\n').length, 64);
  batch.push('tail');
  batch.flush();
  assert.deepEqual(writes.slice(1), ['tail']);
  batch.flush();
  assert.equal(writes.length, 2);
});

test('a request line names method, path, status, duration, namespace and operation', () => {
  assert.equal(
    requestLine({ namespace: 'w1', method: 'POST', path: '/v1/runs', status: 202, durationMs: 12.345, operation: 'submit', runId: 'run_1', replayed: true, faultId: 'f1' }),
    'POST /v1/runs 202 12ms ns=w1 op=submit run=run_1 replayed fault=f1',
  );
  assert.equal(
    requestLine({ namespace: 'default', method: 'GET', path: '/v1/runs/run_1', status: 0, durationMs: 0.42, operation: 'get', runId: 'run_1', replayed: null, faultId: null }),
    'GET /v1/runs/run_1 dropped 0.4ms ns=default op=get',
  );
});

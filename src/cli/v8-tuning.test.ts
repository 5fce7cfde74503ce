import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tuneForBulkReads } from './v8-tuning.js';

test('backfill and forward set their V8 flags, except those the command line or NODE_OPTIONS already sets', () => {
  assert.deepEqual(tuneForBulkReads([], ''), ['--no-turbo-inlining', '--interrupt-budget=270336']);
  assert.deepEqual(tuneForBulkReads(['--turbo-inlining'], ''), ['--interrupt-budget=270336'], 'a measurement with V8\'s inlining keeps it');
  assert.deepEqual(tuneForBulkReads([], '--max-old-space-size=512 --interrupt-budget=67584'), ['--no-turbo-inlining']);
  assert.deepEqual(tuneForBulkReads(['--no-turbo-inlining'], '--interrupt-budget=1'), []);
});

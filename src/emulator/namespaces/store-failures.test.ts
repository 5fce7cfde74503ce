// A store's failures said on stderr: one line naming the request and the cause, then at most one every 10 s.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailable } from '../runs/run-table.js';
import { STORE_FAILURE_EVERY_MS, storeFailureReporter } from './store-failures.js';

test('the first failure is said at once; those within 10 s are counted into the next line', () => {
  const lines: string[] = [];
  let now = 1_000;
  const report = storeFailureReporter((l) => lines.push(l), () => now);
  const full = new StoreUnavailable('failed', 'The store failed (admitting a run): database or disk is full');
  report('POST /v1/runs', full);
  assert.deepEqual(lines, ["hermetic: POST /v1/runs answered aiohttp's 500 page, as Hermes does when its store raises: The store failed (admitting a run): database or disk is full"]);
  now += 1;
  report('POST /v1/runs', full);
  now += STORE_FAILURE_EVERY_MS - 2;
  report('GET /v1/runs/run_x', full);
  assert.equal(lines.length, 1, 'quiet within 10 s');
  now += 1;
  report('POST /v1/runs', new StoreUnavailable('busy', 'The store is locked by another connection (admitting a run): database is locked'));
  assert.equal(lines.at(-1), "hermetic: POST /v1/runs answered aiohttp's 500 page, as Hermes does when its store raises: The store is locked by another connection (admitting a run): database is locked (2 more such answers since the last line)");
  now += STORE_FAILURE_EVERY_MS + 1;
  report('POST /v1/runs', full);
  assert.doesNotMatch(lines.at(-1)!, /more such/);
  assert.equal(lines.length, 3);
});

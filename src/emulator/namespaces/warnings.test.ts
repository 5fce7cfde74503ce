// What the emulator could not do, said on stderr: each kind of line at once, then at most one every 10 s.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailable } from '../runs/run-table.js';
import { backgroundFailureLine, limitedWarnings, storeFailureLine, WARNING_EVERY_MS } from './warnings.js';

test('each kind is said at once, then quiet for 10 s, then with the count of those left out; kinds do not silence each other', () => {
  const lines: string[] = [];
  let now = 1_000;
  const warn = limitedWarnings((l) => lines.push(l), () => now);
  const full = new StoreUnavailable('failed', 'The store failed (admitting a run): database or disk is full');
  warn('request', storeFailureLine('POST /v1/runs', full));
  assert.deepEqual(lines, ["hermetic: POST /v1/runs answered aiohttp's 500 page, as Hermes does when its store raises: The store failed (admitting a run): database or disk is full"]);
  now += 1;
  warn('request', storeFailureLine('POST /v1/runs', full));
  warn('turns', backgroundFailureLine('recording a turn into the sessions', new Error('database or disk is full')));
  assert.equal(lines.at(-1), 'hermetic: recording a turn into the sessions failed: database or disk is full', 'another kind is said');
  now += WARNING_EVERY_MS - 2;
  warn('request', storeFailureLine('GET /v1/runs/run_x', full));
  assert.equal(lines.length, 2, 'quiet within 10 s');
  now += 1;
  warn('request', storeFailureLine('POST /v1/runs', new StoreUnavailable('busy', 'The store is locked by another connection (admitting a run): database is locked')));
  assert.equal(lines.at(-1), "hermetic: POST /v1/runs answered aiohttp's 500 page, as Hermes does when its store raises: The store is locked by another connection (admitting a run): database is locked (and 2 more such lines left out since the last)");
  now += WARNING_EVERY_MS + 1;
  warn('request', storeFailureLine('POST /v1/runs', full));
  assert.doesNotMatch(lines.at(-1)!, /left out/);
  assert.equal(lines.length, 4);
});

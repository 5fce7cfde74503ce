// The SinkError a sink's write ends with, for tests that expect one.
import assert from 'node:assert/strict';
import { SinkError } from '../../remote/contract.js';

/**
 * Awaits `promise` and returns the SinkError it rejected with; fails the test when it resolves or rejects otherwise.
 * @example const e = await failure(sink.write(batch)); assert.equal(e.retriable, true);
 */
export async function failure(promise: Promise<unknown>): Promise<SinkError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof SinkError, `a SinkError, not ${String(e)}`);
    return e;
  }
  assert.fail('the write should have failed');
}

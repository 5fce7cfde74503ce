// The worker stays less than a window ahead of the writing thread by every measure, the characters of text included,
// whose running sums may wrap past 2**31 over a long pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roomAhead, SLOT, SLOTS } from './read-protocol.js';

/** A control array with these slots set. */
function control(slots: Partial<Record<keyof typeof SLOT, number>>): Int32Array {
  const c = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  for (const [k, v] of Object.entries(slots)) c[SLOT[k as keyof typeof SLOT]] = v;
  return c;
}

test('room ahead while under the window in sessions, rows and characters; none once any is reached', () => {
  const window = { sessions: 4, messages: 100, chars: 1000 };
  assert.equal(roomAhead(control({}), window), true);
  assert.equal(roomAhead(control({ postedSessions: 3, taken: 0, postedMessages: 99, postedChars: 999 }), window), true);
  assert.equal(roomAhead(control({ postedSessions: 4, taken: 0 }), window), false);
  assert.equal(roomAhead(control({ postedSessions: 9, taken: 6, postedMessages: 250, takenMessages: 150 }), window), false);
  assert.equal(roomAhead(control({ postedSessions: 1, postedChars: 1000 }), window), false, 'one session of long texts fills the window');
  assert.equal(roomAhead(control({ postedSessions: 2, taken: 1, postedChars: 1500, takenChars: 1000 }), window), true);
});

test('characters summed past 2**31 wrap, and what is ahead is still their difference', () => {
  const window = { sessions: 4, messages: 100, chars: 1000 };
  // 2**31 + 500 posted, 2**31 - 100 taken: 600 ahead.
  assert.equal(roomAhead(control({ postedChars: (2 ** 31 + 500) | 0, takenChars: 2 ** 31 - 100 }), window), true);
  assert.equal(roomAhead(control({ postedChars: (2 ** 31 + 950) | 0, takenChars: 2 ** 31 - 100 }), window), false);
});

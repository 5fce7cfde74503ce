import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBuffer, type BufferItem } from './event-log.js';

const ev = (n: number): BufferItem => ({ kind: 'event', event: new Map([['n', n]]) });

test('events are buffered from creation on and polled in order', () => {
  const b = new EventBuffer(0);
  for (let i = 0; i < 100; i++) b.push(ev(i));
  const got: unknown[] = [];
  for (let item = b.poll(); item; item = b.poll()) got.push(item.kind === 'event' ? item.event.get('n') : 'end');
  assert.deepEqual(got, Array.from({ length: 100 }, (_, i) => i));
});

test('waiting subscribers compete: each pushed item goes to the longest-waiting one', () => {
  const b = new EventBuffer(0);
  const seen: string[] = [];
  b.wait(() => seen.push('a'));
  const cancelB = b.wait(() => seen.push('b'));
  b.wait(() => seen.push('c'));
  cancelB();
  b.push(ev(1));
  b.push(ev(2));
  b.push(ev(3));
  assert.deepEqual(seen, ['a', 'c']);
  assert.equal(b.pending, 1);
});

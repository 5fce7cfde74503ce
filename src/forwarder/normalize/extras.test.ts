import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messageAttributes } from './extras.js';

const row = (fields: Record<string, unknown>) => ({ platform_message_id: null, effect_disposition: null, observed: 0, display_metadata: null, ...fields });

test('a message with none of the extra fields set has no attributes', () => {
  assert.equal(messageAttributes(row({})), null);
  // A store without the columns: the reader gives NULL for each.
  assert.equal(messageAttributes({ platform_message_id: null, effect_disposition: null, observed: null, display_metadata: null }), null);
  // display_metadata without reactions (delegation ids, owner markers) stays in the store.
  assert.equal(messageAttributes(row({ display_metadata: '{"delegation_id": "d-1"}' })), null);
  assert.equal(messageAttributes(row({ display_metadata: 'not json' })), null);
});

test('a message keeps its platform id, effect, observed flag and reactions; a reaction\'s author is a role or "other"', () => {
  assert.deepEqual(messageAttributes(row({
    platform_message_id: '991', effect_disposition: 'applied', observed: 1,
    display_metadata: JSON.stringify({ reactions: [
      { emoji: '👍', author: 'user', at: 1784000000.5, seen: true },
      { emoji: '🎉', author: 'tg:4471', at: 1784000001 },
      { emoji: '', author: 'user' }, 'x', null, { author: 'user' },
      { emoji: '__proto__', author: 'assistant', seen: false },
    ], owner: 'u-4471' }),
  })), {
    platform_message_id: '991', effect_disposition: 'applied', observed: 1,
    reactions: [{ emoji: '👍', author: 'user', at: 1784000000.5, seen: true }, { emoji: '🎉', author: 'other', at: 1784000001 }, { emoji: '__proto__', author: 'assistant', seen: false }],
  });
});

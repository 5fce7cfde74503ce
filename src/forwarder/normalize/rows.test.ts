// A session's rows → its live transcript (spec forwarding §6.1 items 7–8, §6.3 item 21): kinds, live rows, logical
// ids that survive compaction, repaired times, and every problem reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLive, kindOf, normalizeMessages } from './rows.js';
import type { Row } from './types.js';

const T0 = 1784000000;
let next = 0;
/** A messages row with every column NULL unless given (the reader hands rows over that way). */
const row = (fields: Record<string, unknown>): Row => ({
  id: ++next, session_id: 's', role: 'user', content: null, tool_call_id: null, tool_calls: null, tool_name: null,
  timestamp: T0 + next, token_count: null, finish_reason: null, reasoning: null, reasoning_content: null,
  reasoning_details: null, codex_message_items: null, api_content: null, platform_message_id: null, active: 1,
  compacted: 0, display_kind: null, _compressed_summary: 0, display_order: null, ...fields,
});

test('row kinds: session_meta, compaction summary, Hermes display kinds, system, conversation', () => {
  assert.equal(kindOf(row({ role: 'session_meta', display_kind: 'hidden' })), 'session_meta');
  assert.equal(kindOf(row({ role: 'user', _compressed_summary: 1, display_kind: 'steer' })), 'compaction_summary');
  for (const k of ['hidden', 'auto_continue', 'steer', 'model_switch', 'failed_turn', 'process_complete', 'async_delegation_complete']) {
    assert.equal(kindOf(row({ role: 'assistant', display_kind: k })), k);
  }
  assert.equal(kindOf(row({ role: 'system', display_kind: 'model_switch' })), 'model_switch');
  assert.equal(kindOf(row({ role: 'assistant', display_kind: 'brand_new_kind' })), 'display_other');
  assert.equal(kindOf(row({ role: 'system' })), 'system');
  assert.equal(kindOf(row({ role: 'user' })), 'message');
  assert.equal(kindOf(row({ role: 'tool', _compressed_summary: null })), 'message');
});

test('live rows: active 1, active NULL (the old reconciler quirk) and no active column; not active 0', () => {
  assert.equal(isLive({ active: 1 }), true);
  assert.equal(isLive({ active: 1n }), true);
  assert.equal(isLive({ active: null }), true);
  assert.equal(isLive({}), true);
  assert.equal(isLive({ active: 0 }), false);
});

test('rows compaction summarized away stay in the history, marked; rewound rows are counted, not listed; the newest id counts every row', () => {
  const rows = [
    row({ content: 'a', active: 0, compacted: 1 }), row({ content: 'b', active: 0, compacted: 0 }),
    row({ content: 'c', active: null }), row({ content: 'd', active: 0, compacted: 1 }),
  ];
  const n = normalizeMessages(rows, T0);
  assert.deepEqual(n.live.map((m) => [m.content, m.compacted]), [['a', true], ['c', false], ['d', true]]);
  assert.equal(n.compacted, 2);
  assert.equal(n.inactive, 1);
  assert.equal(n.maxMessageId, rows[3]!.id);
  assert.deepEqual(n.issues, []);
});

test('a compacted row that a live clone carries on (byte-exact, a new id) is one message: the clone, with the first id as its logical id', () => {
  const original = row({ role: 'user', content: 'arrived during the summary', timestamp: T0 + 50, active: 0, compacted: 1 });
  const summarized = row({ role: 'user', content: 'old turn', timestamp: T0 + 10, active: 0, compacted: 1 });
  const summary = row({ role: 'assistant', content: '[summary]', _compressed_summary: 1 });
  const clone = row({ role: 'user', content: 'arrived during the summary', timestamp: T0 + 50 });
  const n = normalizeMessages([original, summarized, summary, clone], T0);
  assert.deepEqual(n.live.map((m) => [m.id, m.logicalId, m.content, m.compacted]), [
    [summarized.id, summarized.id, 'old turn', true], [summary.id, summary.id, '[summary]', false], [clone.id, original.id, 'arrived during the summary', false],
  ]);
  assert.equal(n.compacted, 2);
});

test('a normalized message carries every decoded field', () => {
  const r = row({
    role: 'assistant', content: 'Let me look.', finish_reason: 'tool_calls', token_count: 57, reasoning: 'Check first.',
    tool_calls: '[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"ls\\"}"}}]',
    platform_message_id: '991', display_order: null,
  });
  assert.deepEqual(normalizeMessages([r], T0).live, [{
    id: r.id, logicalId: r.id, role: 'assistant', kind: 'message', content: 'Let me look.', contentFormat: 'text',
    blocks: [{ type: 'text', text: 'Let me look.', native: null }],
    toolCalls: [{ id: 'call_1', name: 'terminal', args: { command: 'ls' }, flattened: false }],
    toolCallsJson: [{ id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command": "ls"}' } }],
    toolName: null, toolCallId: null, reasoning: 'Check first.', finishReason: 'tool_calls', tokenCount: 57,
    createdAt: r.timestamp, timestampRepaired: false, replyText: null, displayKind: null, attributes: { platform_message_id: '991' }, afterRewind: 0,
    compacted: false,
  }]);
});

test('the reply text outside content is looked up only when content has no text', () => {
  const items = '[{"type": "message", "content": [{"type": "output_text", "text": "From items."}]}]';
  const [withText, without] = normalizeMessages([
    row({ role: 'assistant', content: 'Visible.', codex_message_items: items }),
    row({ role: 'assistant', content: '', codex_message_items: items }),
  ], T0).live;
  assert.equal(withText!.replyText, null);
  assert.equal(without!.replyText, 'From items.');
});

test('a garbage time takes the previous good time (any generation), else the start, and is reported', () => {
  const first = row({ content: 'first', timestamp: 5e246 });
  const archived = row({ content: 'archived', timestamp: T0 + 500, active: 0, compacted: 0 });
  const bad = row({ content: 'bad', timestamp: 5e246 });
  const nan = row({ content: 'text time', timestamp: 'yesterday' });
  const n = normalizeMessages([first, archived, bad, nan], T0 + 1);
  assert.deepEqual(n.live.map((m) => [m.content, m.createdAt, m.timestampRepaired]), [
    ['first', T0 + 1, true], ['bad', T0 + 500, true], ['text time', T0 + 500, true],
  ]);
  assert.deepEqual(n.issues, [
    { messageId: first.id, field: 'timestamp', problem: "timestamp 5e+246 is not a plausible time; the previous message's time (or the session's start) is used" },
    { messageId: bad.id, field: 'timestamp', problem: "timestamp 5e+246 is not a plausible time; the previous message's time (or the session's start) is used" },
    { messageId: nan.id, field: 'timestamp', problem: "timestamp yesterday is not a plausible time; the previous message's time (or the session's start) is used" },
  ]);
});

test('a garbage time with no good time before it and a garbage start becomes 0, still reported', () => {
  const bad = row({ timestamp: 5e246 });
  const n = normalizeMessages([bad], 5e246);
  assert.equal(n.live[0]!.createdAt, 0);
  assert.deepEqual(n.issues, [{ messageId: bad.id, field: 'timestamp', problem: 'timestamp 5e+246 is not a plausible time; no earlier message nor the session start has one, so 0 (1970-01-01) is used' }]);
});

test('invalid tool_calls JSON keeps the row, drops its calls and reports it; invalid sentinel JSON too', () => {
  const calls = row({ role: 'assistant', content: 'calling', tool_calls: '[{"id": ' });
  const content = row({ role: 'user', content: '\u0000json:[{' });
  const n = normalizeMessages([calls, content], T0);
  assert.deepEqual(n.live.map((m) => [m.id, m.content, m.toolCalls]), [[calls.id, 'calling', null], [content.id, '[{', null]]);
  assert.deepEqual(n.issues, [
    { messageId: calls.id, field: 'tool_calls', problem: 'tool_calls is not valid JSON; its calls are left out' },
    { messageId: content.id, field: 'content', problem: 'structured content is not valid JSON; kept as text' },
  ]);
});

test('a compaction clone keeps the logical id of its original, with or without display_order', () => {
  for (const withOrder of [false, true]) {
    const ts = T0 + 9;
    const original = row({ role: 'user', content: 'carried', timestamp: ts, active: 0, compacted: 0 });
    const summary = row({ role: 'user', content: '[summary]', _compressed_summary: 1 });
    // Hermes's triggers move display_order to the clone once the original is hidden.
    const clone = row({ role: 'user', content: 'carried', timestamp: ts });
    if (withOrder) {
      Object.assign(original, { display_order: original.id });
      Object.assign(summary, { display_order: summary.id });
      Object.assign(clone, { display_order: clone.id });
    }
    const n = normalizeMessages([original, summary, clone], T0);
    assert.deepEqual(n.live.map((m) => [m.id, m.logicalId, m.kind]), [[summary.id, summary.id, 'compaction_summary'], [clone.id, original.id, 'message']], `display_order ${withOrder}`);
  }
});

test('display_order pointing to an earlier row of the same logical message is honoured', () => {
  const a = row({ content: 'x', display_order: 3 });
  assert.equal(normalizeMessages([a], T0).live[0]!.logicalId, 3);
});

test('two live rows of one identity never share a logical id: the second keeps its own id', () => {
  const ts = T0 + 77;
  const a = row({ content: 'same', timestamp: ts });
  const b = row({ content: 'same', timestamp: ts });
  assert.deepEqual(normalizeMessages([a, b], T0).live.map((m) => m.logicalId), [a.id, b.id]);
});

// The fork's pure rules (decision 0141): its id, the lineage title, and what replace_messages makes of a copied row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { copiedContent, copiedDisplayMetadata, copiedTimestamp, copiedToolCalls, forkId, forkedMessages, lineageBase, lineagePattern, nextTitleInLineage } from './fork.js';
import type { MessageRow } from './table.js';

test('forkId: id, else session_id, else minted; str()-ed and stripped; empty or CR/LF/NUL refused', () => {
  const body = (o: Record<string, unknown>) => new Map(Object.entries(o)) as never;
  const mint = () => 'api_1_deadbeef';
  assert.deepEqual(forkId(body({ id: ' a ' }), mint), { id: 'a', minted: false });
  assert.deepEqual(forkId(body({ id: '', session_id: 7 }), mint), { id: '7', minted: false });
  assert.deepEqual(forkId(body({ id: 0, session_id: false }), mint), { id: 'api_1_deadbeef', minted: true });
  assert.deepEqual(forkId(body({ id: true }), mint), { id: 'True', minted: false });
  for (const id of ['  ', 'a\nb', 'a\rb', 'a\0b']) assert.equal(forkId(body({ id }), mint), null, JSON.stringify(id));
  assert.deepEqual(forkId(body({ id: '../x' }), mint), { id: '../x', minted: false });
});

test('get_next_title_in_lineage: the suffix stripped, the highest number + 1, the original counting as #1', () => {
  assert.equal(lineageBase('x #4'), 'x');
  assert.equal(lineageBase('x #4 y'), 'x #4 y');
  assert.equal(lineageBase('a #1 #2'), 'a #1');
  assert.equal(lineageBase('#3'), '#3');
  assert.equal(nextTitleInLineage('my session', []), 'my session');
  assert.equal(nextTitleInLineage('my session', ['my session']), 'my session #2');
  assert.equal(nextTitleInLineage('x', ['x #4']), 'x #5');
  assert.equal(nextTitleInLineage('x', ['x', 'X #9', 'x #10 y']), 'x #10');
  // Python's \d is any Unicode digit, and int() reads it.
  assert.equal(nextTitleInLineage('x', ['x #\u0663']), 'x #4');
  assert.equal(nextTitleInLineage('x', [`x #${'9'.repeat(20)}`]), `x #1${'0'.repeat(20)}`);
  assert.equal(lineagePattern('50% off_\\'), '50\\% off\\_\\\\ #%');
});

test('copied content and tool calls: JSON written again by json.dumps, scalars bound as Python binds them', () => {
  assert.equal(copiedContent('hi'), 'hi');
  assert.equal(copiedContent(null), null);
  assert.equal(copiedContent('\x00json:[{"type":"text","text":"\u00e9"}]'), '\x00json:[{"type": "text", "text": "\\u00e9"}]');
  assert.equal(copiedContent('\x00json:not json'), '\x00json:not json');
  assert.equal(copiedContent('\x00json:"s"'), 's');
  assert.equal(copiedContent('\x00json:null'), null);
  assert.equal(copiedContent('\x00json:true'), 1n);
  assert.equal(copiedContent('\x00json:2.5'), 2.5);
  assert.deepEqual(copiedToolCalls('[{"id":"c1"}]'), { text: '[{"id": "c1"}]', count: 1 });
  assert.deepEqual(copiedToolCalls(null), { text: null, count: 0 });
  assert.deepEqual(copiedToolCalls('[]'), { text: null, count: 0 });
  assert.deepEqual(copiedToolCalls('garbage'), { text: null, count: 0 });
  assert.deepEqual(copiedToolCalls('{}'), { text: null, count: 1 });
  assert.deepEqual(copiedToolCalls('"[1, 2]"'), { text: '[1, 2]', count: 2 });
  assert.equal(copiedDisplayMetadata('"{\\"a\\": 1}"'), '{"a": 1}');
  assert.equal(copiedDisplayMetadata('{}'), null);
  assert.equal(copiedDisplayMetadata('[1]'), null);
});

test('replace_messages over the rows: timestamps kept inside the epoch window, reasoning only on assistant rows', () => {
  const row = (over: Partial<MessageRow>): MessageRow => ({
    id: 1, profile: 'default', session_id: 's', role: 'user', content: 'c', tool_call_id: null, tool_calls: null, tool_name: null,
    timestamp: 100, token_count: null, finish_reason: null, reasoning: 'r', reasoning_content: 'rc', display_kind: null, ...over,
  });
  const { messages, toolCalls } = forkedMessages([
    row({ timestamp: 100 }),
    row({ role: 'assistant', timestamp: 5e9, tool_calls: '[{"id": "a"}, {"id": "b"}]' }),
    row({ role: 'tool', timestamp: -1 }),
  ], 1000);
  assert.deepEqual(messages.map((m) => m.timestamp), [100, 1000 + 1e-6, 1000 + 1e-6 + 1e-6]);
  assert.deepEqual(messages.map((m) => [m.reasoning, m.reasoning_content]), [[null, null], ['r', 'rc'], [null, null]]);
  assert.equal(toolCalls, 2);
  assert.equal(copiedTimestamp(-0, 7), 0);
  assert.equal(copiedTimestamp(Number.NaN, 7), 7);
});

// Reasoning and reply text from every field Hermes keeps them in (spec forwarding §6.1 item 6).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reasoningOf, replyTextOf } from './reasoning.js';

test('the normalized reasoning field wins over the provider-native ones', () => {
  assert.equal(reasoningOf({ reasoning: 'plan', reasoning_content: 'native', reasoning_details: '[{"type": "reasoning.text", "text": "details"}]' }), 'plan');
});

test('reasoning_content is used when reasoning is NULL or blank', () => {
  assert.equal(reasoningOf({ reasoning: null, reasoning_content: 'DeepSeek thinking' }), 'DeepSeek thinking');
  assert.equal(reasoningOf({ reasoning: '  \n', reasoning_content: 'Kimi thinking' }), 'Kimi thinking');
});

test('reasoning_details texts and summaries are joined one per line', () => {
  const details = JSON.stringify([
    { type: 'reasoning.text', text: 'first', format: 'anthropic-claude-v1', index: 0 },
    { type: 'reasoning.summary', summary: 'second' },
    { type: 'reasoning.encrypted', data: 'opaque' },
    { type: 'reasoning', summary: [{ type: 'summary_text', text: 'third' }] },
  ]);
  assert.equal(reasoningOf({ reasoning: null, reasoning_content: null, reasoning_details: details }), 'first\nsecond\nthird');
});

test('no reasoning anywhere, or details with no text, give null', () => {
  assert.equal(reasoningOf({}), null);
  assert.equal(reasoningOf({ reasoning: '', reasoning_content: '', reasoning_details: '[]' }), null);
  assert.equal(reasoningOf({ reasoning_details: '[{"type": "reasoning.encrypted", "data": "x"}]' }), null);
});

test('a Responses reply that lives only in codex_message_items is the reply text', () => {
  const items = JSON.stringify([{ id: 'msg_1', type: 'message', phase: 'final_answer', content: [{ type: 'output_text', text: 'The answer.' }, { type: 'output_text', text: 'More.' }] }]);
  assert.equal(replyTextOf({ codex_message_items: items, api_content: 'ignored' }), 'The answer.\nMore.');
});

test('api_content carries the answer of a reasoning-only clean stop when the items have no text', () => {
  assert.equal(replyTextOf({ codex_message_items: '[{"id": "msg_1", "phase": "final_answer"}]', api_content: 'Clean stop answer.' }), 'Clean stop answer.');
  assert.equal(replyTextOf({ codex_message_items: null, api_content: 'Only here.' }), 'Only here.');
  assert.equal(replyTextOf({ codex_message_items: null, api_content: '   ' }), null);
  assert.equal(replyTextOf({}), null);
});

test('reasoning_details that is not JSON is kept as the reasoning text, and said', () => {
  const problems: string[] = [];
  assert.equal(reasoningOf({ reasoning: null, reasoning_content: '', reasoning_details: '{not json' }, problems), '{not json');
  assert.deepEqual(problems, ['reasoning_details is not valid JSON; kept as the reasoning text, as stored']);
  const none: string[] = [];
  assert.equal(reasoningOf({ reasoning: 'plain', reasoning_details: '{not json' }, none), 'plain');
  assert.equal(reasoningOf({ reasoning_details: 'null' }, none), null);
  assert.deepEqual(none, []);
});

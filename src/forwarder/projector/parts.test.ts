// One live message → its parts (spec forwarding §2.4 with §6.1 items 3, 5–7): JSON blocks one part each,
// reply text from other fields, flattened calls, tool-result names, bookkeeping rows as status parts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NormalMessage } from '../normalize/index.js';
import { normalizeMessages } from '../normalize/index.js';
import { partsOf, textOf, type PartContext } from './parts.js';

const T0 = 1784000000;
const ctx: PartContext = {
  store: '/s.db', sessionId: 'S', answeredName: 'read_file', model: 'gpt-5',
  redact: (t) => t, json: (v) => (v === null || v === undefined ? null : JSON.stringify(v)),
};
const one = (fields: Record<string, unknown>): NormalMessage => normalizeMessages([{
  id: 7, role: 'user', content: null, tool_call_id: null, tool_calls: null, tool_name: null, timestamp: T0, token_count: null,
  finish_reason: null, reasoning: null, active: 1, display_kind: null, _compressed_summary: 0, ...fields,
}], T0).live[0]!;
const brief = (m: NormalMessage) => partsOf(m, ctx).map((p) => [p.part_id, p.part_type, p.content_text, p.attributes]);

test('a \\x00json: row gives one part per block: text, an image placeholder marked with its native type', () => {
  const m = one({ content: '\u0000json:[{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "input_text", "text": "And this."}]' });
  assert.deepEqual(brief(m), [
    ['hermes-S-7-0#0', 'text', 'What is this?', null],
    ['hermes-S-7-1#0', 'text', '[image]', '{"content":{"native_type":"image_url"}}'],
    ['hermes-S-7-2#0', 'text', 'And this.', '{"content":{"native_type":"input_text"}}'],
  ]);
});

test('a block of another type (input_audio) still gets a placeholder part naming its type', () => {
  const m = one({ content: '\u0000json:[{"type": "text", "text": "Listen:"}, {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]' });
  assert.deepEqual(brief(m), [
    ['hermes-S-7-0#0', 'text', 'Listen:', null],
    ['hermes-S-7-1#0', 'text', '[input_audio]', '{"content":{"native_type":"input_audio"}}'],
  ]);
});

test('a reply that lives only in codex_message_items or api_content becomes the text part, marked with where it came from', () => {
  const items = one({ role: 'assistant', content: '', codex_message_items: '[{"type": "message", "content": [{"type": "output_text", "text": "Final."}]}]', finish_reason: 'stop' });
  assert.deepEqual(partsOf(items, ctx).map((p) => [p.part_type, p.content_text, p.attributes, p.status, p.model]), [
    ['text', 'Final.', '{"hermes":{"reply_from":"codex_message_items_or_api_content"}}', '{"finish_reason":"stop"}', 'gpt-5'],
  ]);
  const api = one({ role: 'assistant', content: null, reasoning: 'thought', api_content: 'Clean stop.' });
  assert.deepEqual(brief(api), [
    ['hermes-S-7-0#0', 'reasoning', 'thought', null],
    ['hermes-S-7-1#0', 'text', 'Clean stop.', '{"hermes":{"reply_from":"codex_message_items_or_api_content"}}'],
  ]);
});

test('reasoning_content and reasoning_details become the reasoning part', () => {
  assert.deepEqual(brief(one({ role: 'assistant', content: 'Hi.', reasoning_content: 'native thought' })).map((p) => p.slice(1, 3)), [['reasoning', 'native thought'], ['text', 'Hi.']]);
  assert.deepEqual(brief(one({ role: 'assistant', content: 'Hi.', reasoning_details: '[{"type": "reasoning.text", "text": "detailed"}]' })).map((p) => p.slice(1, 3)), [['reasoning', 'detailed'], ['text', 'Hi.']]);
});

test('a flattened legacy call keeps its name and arguments and is marked; a nested call is not', () => {
  const m = one({ role: 'assistant', tool_calls: '[{"name": "terminal", "arguments": "{\\"command\\": \\"pwd\\"}"}, {"id": "c2", "call_id": "fc", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]' });
  assert.deepEqual(partsOf(m, ctx).map((p) => [p.part_type, p.tool_name, p.tool_call_id, p.tool_args, p.attributes]), [
    ['tool_call', 'terminal', null, '{"command":"pwd"}', '{"hermes":{"flattened_call":true}}'],
    ['tool_call', 'web_search', 'c2', '{}', null],
  ]);
});

test('a tool result is named by its own tool_name first, else by the call it answers; an empty result is still a part', () => {
  assert.deepEqual(partsOf(one({ role: 'tool', content: 'out', tool_call_id: 'call_9', tool_name: 'terminal' }), ctx).map((p) => [p.tool_name, p.tool_result_for, p.content_text]), [['terminal', 'call_9', 'out']]);
  assert.deepEqual(partsOf(one({ role: 'tool', content: 'out', tool_call_id: 'call_9' }), ctx).map((p) => [p.tool_name, p.tool_result_for]), [['read_file', 'call_9']]);
  assert.deepEqual(partsOf(one({ role: 'tool', content: '', tool_call_id: 'call_x' }), { ...ctx, answeredName: null }).map((p) => [p.part_type, p.tool_name, p.content_text]), [['tool_result', null, '']]);
  assert.deepEqual(partsOf(one({ role: 'tool', content: null, tool_call_id: null }), ctx).map((p) => [p.part_type, p.content_text]), [['tool_result', '']]);
});

test('bookkeeping rows become status parts carrying their kind; a steer and a compaction summary stay text, marked', () => {
  const cases: [Record<string, unknown>, unknown[]][] = [
    [{ role: 'session_meta', content: '{"model": "opus"}' }, ['status', '{"model": "opus"}', '{"kind":"session_meta"}', '{"hermes":{"kind":"session_meta"}}']],
    [{ role: 'system', content: 'Context reset.' }, ['status', 'Context reset.', '{"kind":"system"}', '{"hermes":{"kind":"system"}}']],
    [{ role: 'system', content: 'Model switched to gpt-5.', display_kind: 'model_switch' }, ['status', 'Model switched to gpt-5.', '{"kind":"model_switch"}', '{"hermes":{"kind":"model_switch","display_kind":"model_switch"}}']],
    [{ role: 'user', content: 'continue', display_kind: 'auto_continue' }, ['status', 'continue', '{"kind":"auto_continue"}', '{"hermes":{"kind":"auto_continue","display_kind":"auto_continue"}}']],
    [{ role: 'assistant', content: 'hidden', display_kind: 'hidden' }, ['status', 'hidden', '{"kind":"hidden"}', '{"hermes":{"kind":"hidden","display_kind":"hidden"}}']],
    [{ role: 'assistant', content: 'failed', display_kind: 'failed_turn' }, ['status', 'failed', '{"kind":"failed_turn"}', '{"hermes":{"kind":"failed_turn","display_kind":"failed_turn"}}']],
    [{ role: 'user', content: 'done', display_kind: 'process_complete' }, ['status', 'done', '{"kind":"process_complete"}', '{"hermes":{"kind":"process_complete","display_kind":"process_complete"}}']],
    [{ role: 'user', content: 'result', display_kind: 'async_delegation_complete' }, ['status', 'result', '{"kind":"async_delegation_complete"}', '{"hermes":{"kind":"async_delegation_complete","display_kind":"async_delegation_complete"}}']],
    [{ role: 'user', content: 'x', display_kind: 'future_kind' }, ['status', 'x', '{"kind":"display_other"}', '{"hermes":{"kind":"display_other","display_kind":"future_kind"}}']],
    [{ role: 'user', content: 'go left instead', display_kind: 'steer' }, ['text', 'go left instead', null, '{"hermes":{"kind":"steer","display_kind":"steer"}}']],
    [{ role: 'user', content: '[summary]', _compressed_summary: 1 }, ['text', '[summary]', null, '{"hermes":{"kind":"compaction_summary"}}']],
  ];
  for (const [fields, want] of cases) {
    const got = partsOf(one(fields), ctx).map((p) => [p.part_type, p.content_text, p.status, p.attributes]);
    assert.deepEqual(got, [want], JSON.stringify(fields));
  }
});

test('the finish reason rides only an assistant row\'s last part; a token count rides the last part of any row', () => {
  const m = one({ role: 'user', content: 'hi', finish_reason: 'stop', token_count: 5 });
  assert.deepEqual(partsOf(m, ctx).map((p) => [p.status, p.attributes]), [[null, '{"usage":{"total_tokens":5}}']]);
});

test('a row with nothing to show gives no part', () => {
  assert.deepEqual(partsOf(one({ role: 'assistant', content: null }), ctx), []);
  assert.deepEqual(partsOf(one({ role: 'user', content: '' }), ctx), []);
});

test('textOf joins text blocks one per line, else the reply text, else "" for empty content, else null', () => {
  assert.equal(textOf(one({ content: '\u0000json:["a", "b"]' })), 'a\nb');
  assert.equal(textOf(one({ role: 'assistant', content: null, api_content: 'r' })), 'r');
  assert.equal(textOf(one({ content: '' })), '');
  assert.equal(textOf(one({ content: null })), null);
});

test('a terminal call carries the program its stored arguments run (decision 0152); other calls and parts carry none', () => {
  const m = one({ role: 'assistant', tool_calls: JSON.stringify([
    { id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command": "cd web && OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx sudo npm test"}' } },
    { id: 'c2', type: 'function', function: { name: 'terminal', arguments: '{"cmd": "ls"}' } },
    { id: 'c3', type: 'function', function: { name: 'terminal', arguments: 'ls -la' } },
    { id: 'c4', type: 'function', function: { name: 'read_file', arguments: '{"command": "ls"}' } },
  ]) });
  // Named from the arguments as stored: after the redactor, whatever it masks.
  const redacting: PartContext = { ...ctx, redact: (t) => (t === null ? null : t.replace(/sk-proj-[a-z]+/g, 'sk-pro...uvwx')) };
  assert.deepEqual(partsOf(m, redacting).map((p) => [p.tool_call_id, p.program]), [['c1', 'npm'], ['c2', '(no command)'], ['c3', '(no command)'], ['c4', null]]);
  assert.ok(String(partsOf(m, redacting)[0]!.tool_args).includes('sk-pro...uvwx'));
  assert.deepEqual(partsOf(one({ role: 'tool', content: '{"exit_code": 1}', tool_call_id: 'c1', tool_name: 'terminal' }), ctx).map((p) => p.program), [null]);
});

// The `\x00json:` content sentinel (spec state-db §3, forwarding §6.1 item 5): decoded into one block per element.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeContent, JSON_SENTINEL } from './content.js';

test('plain text is one text block; empty text has no block; NULL has nothing', () => {
  assert.deepEqual(decodeContent('hello'), { content: 'hello', format: 'text', blocks: [{ type: 'text', text: 'hello', native: null }], problem: null });
  assert.deepEqual(decodeContent(''), { content: '', format: 'text', blocks: [], problem: null });
  assert.deepEqual(decodeContent(null), { content: null, format: null, blocks: [], problem: null });
  assert.deepEqual(decodeContent(undefined), { content: null, format: null, blocks: [], problem: null });
});

test('the sentinel is NUL followed by "json:" (six bytes)', () => {
  assert.equal(JSON_SENTINEL, '\u0000json:');
  assert.equal(JSON_SENTINEL.length, 6);
});

test('a structured array decodes into one block per element, keeping each non-text type', () => {
  const doc = [
    { type: 'text', text: 'What is in this screenshot?' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    { type: 'input_text', text: 'typed' },
    { type: 'output_text', text: 'said' },
    'bare string',
    { text: 'untyped' },
    { type: 'input_image', image_url: 'x' },
    { type: 'image', source: {} },
    { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
    { foo: 1 },
    7,
    null,
  ];
  const json = JSON.stringify(doc);
  assert.deepEqual(decodeContent(JSON_SENTINEL + json), {
    content: json,
    format: 'json',
    blocks: [
      { type: 'text', text: 'What is in this screenshot?', native: null },
      { type: 'image', text: '[image]', native: 'image_url' },
      { type: 'text', text: 'typed', native: 'input_text' },
      { type: 'text', text: 'said', native: 'output_text' },
      { type: 'text', text: 'bare string', native: null },
      { type: 'text', text: 'untyped', native: null },
      { type: 'image', text: '[image]', native: 'input_image' },
      { type: 'image', text: '[image]', native: 'image' },
      { type: 'other', text: null, native: 'input_audio' },
      { type: 'other', text: null, native: 'object' },
      { type: 'other', text: null, native: 'number' },
      { type: 'other', text: null, native: 'null' },
    ],
    problem: null,
  });
});

test('a structured object (not an array) is one block', () => {
  assert.deepEqual(decodeContent(`${JSON_SENTINEL}{"type": "text", "text": "only"}`), {
    content: '{"type": "text", "text": "only"}', format: 'json', blocks: [{ type: 'text', text: 'only', native: null }], problem: null,
  });
});

test('sentinel content whose JSON does not parse keeps its text and reports the problem', () => {
  assert.deepEqual(decodeContent(`${JSON_SENTINEL}[{"type": "text"`), {
    content: '[{"type": "text"', format: 'json', blocks: [{ type: 'text', text: '[{"type": "text"', native: null }],
    problem: 'structured content is not valid JSON; kept as text',
  });
});

test('text that merely mentions json: is plain text', () => {
  assert.deepEqual(decodeContent('json:[1]').format, 'text');
  assert.deepEqual(decodeContent(' \u0000json:[1]').format, 'text');
});

test('a number stored as content is kept as its text, and said', () => {
  assert.deepEqual(decodeContent(42), { content: '42', format: 'text', blocks: [{ type: 'text', text: '42', native: null }], problem: 'content is a number (42), kept as text' });
  assert.equal(decodeContent('42').problem, null);
});

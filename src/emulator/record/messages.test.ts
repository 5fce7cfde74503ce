// A model response's text as build_assistant_message stores it (decision 0153): content without think blocks,
// stripped, redacted; reasoning from inline <think> blocks, unredacted, with reasoning_content beside it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assistantText } from './messages.js';

test('plain text is stored as it is', () => {
  assert.deepEqual(assistantText('Two entries.', true), { content: 'Two entries.', reasoning: null });
  assert.deepEqual(assistantText('', true), { content: '', reasoning: null });
});

test('the content loses its think blocks and surrounding whitespace; no reasoning_content without reasoning', () => {
  assert.deepEqual(assistantText('  <thinking>check a</thinking>\nRunning ls.\n', true), { content: 'Running ls.', reasoning: null });
  assert.deepEqual(assistantText('   ', true), { content: '', reasoning: null });
});

test('inline <think> blocks become the reasoning and reasoning_content, which are not redacted', () => {
  const secret = 'sk-proj-abcdefghijklmnop1234';
  assert.deepEqual(assistantText(`<think>the key is ${secret}</think>Using the key ${secret} now.`, true), {
    content: 'Using the key sk-pro...1234 now.',
    reasoning: `the key is ${secret}`,
    reasoning_content: `the key is ${secret}`,
  });
});

test('the content is redacted as the agent redacts it (spec redaction §6 vectors 1 and 2)', () => {
  assert.equal(assistantText('provider 401: key sk-proj-abcdefghijklmnop1234 rejected', true).content, 'provider 401: key sk-pro...1234 rejected');
  assert.equal(
    assistantText("curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz123456' x", true).content,
    "curl -H 'Authorization: Bearer ***' x",
  );
});

test('with HERMES_REDACT_SECRETS off (redactSecrets false) the content is stored unredacted, as Hermes stores it', () => {
  const secret = 'sk-proj-abcdefghijklmnop1234';
  assert.deepEqual(assistantText(`  <think>the key is ${secret}</think>Using the key ${secret} now. `, false), {
    content: `Using the key ${secret} now.`,
    reasoning: `the key is ${secret}`,
    reasoning_content: `the key is ${secret}`,
  });
});

test('lone surrogates are replaced before the text is stripped, in the content and the reasoning', () => {
  assert.deepEqual(assistantText('<think>a\udc00</think> b\ud800 ', true), { content: 'b\ufffd', reasoning: 'a\ufffd', reasoning_content: 'a\ufffd' });
});

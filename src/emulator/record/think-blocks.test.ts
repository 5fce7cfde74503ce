// strip_think_blocks and build_assistant_message's inline <think> reasoning, against what CPython 3.11 gave for the same
// texts with Hermes's own functions (agent/agent_runtime_helpers.py at v0.20.0, the same text as v0.21.0's; decision
// 0153). Each vector: the input, strip_think_blocks(input), and the inline reasoning (null: none).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inlineThinkReasoning, stripThinkBlocks } from './think-blocks.js';

const VECTORS: Array<[string, string, string | null]> = [
  ['<think>plan</think>Run ls', 'Run ls', 'plan'],
  ['  <thinking>a</thinking> b  ', '   b  ', null],
  ['x <THINK>y</THINK> z', 'x  z', null],
  ['<Thought>t</Thought>ok', 'ok', null],
  ['<reasoning>r</reasoning><REASONING_SCRATCHPAD>s</REASONING_SCRATCHPAD>ok', 'ok', null],
  // An opening tag at the start of a line with no closing one takes the rest (and the newline before it).
  ['a\n<think>unterminated\nmore', 'a', null],
  ['  \t<thinking attr="1">rest', '', null],
  // Not at a line start: only the stray tag goes.
  ['a <think>not at a line start', 'a not at a line start', null],
  ['</think>stray <THINKING> tags\u3000', 'stray tags\u3000', null],
  ['<tool_call>{"name": "ls"}</tool_call>hi', 'hi', null],
  ['<tool_calls id="1">x</tool_calls>y', 'y', null],
  // Python's \b is Unicode's: é is a word character, so this is no <tool_call> tag.
  ['<tool_callé>x</tool_callé>', '<tool_callé>x</tool_callé>', null],
  ['Done.\n<function name="x">body</function>', 'Done.\n', null],
  ['Done. <function name="x">body</function>', 'Done.', null],
  // Mid-sentence a named function block stays, but its stray closer goes (with the whitespace after it).
  ['Use <function name="x">body</function> here', 'Use <function name="x">bodyhere', null],
  ['keep <function name="x">b</function>\u00a0tail', 'keep <function name="x">btail', null],
  ['Use <function> in JS', 'Use <function> in JS', null],
  ['a</function>  b</tool_result>\nc', 'abc', null],
  // IGNORECASE as Python folds: İ and ı onto i, K (U+212A) onto k, ſ onto s.
  ['<THİNK>x</THİNK>y', 'y', null],
  ['<thınk>x</thınk>y', 'y', null],
  ['<thin\u212a>x</thin\u212a>y', 'y', null],
  ['<rea\u017foning>x</rea\u017foning>y', 'y', null],
  // The inline reasoning: only `<think>…</think>` exactly, each block stripped, empty ones left out.
  ['<think>a</think>b<think> c </think>d<think>  </think>', 'bd', 'a\n\nc'],
  ['<think>one</think>middle<think>two</think>', 'middle', 'one\n\ntwo'],
  ['<think>\n</think>', '', null],
  ['<think>x</think >y', '', null],
  ['<thi<think>x</think>nk>y</think> b', '', 'x'],
  ['', '', null],
];

test('strip_think_blocks removes reasoning blocks and stray tool-call XML as Hermes does, pass by pass', () => {
  for (const [input, stripped] of VECTORS) assert.equal(stripThinkBlocks(input), stripped, JSON.stringify(input));
});

test('the inline reasoning is the insides of exact <think> blocks, stripped, joined by a blank line', () => {
  for (const [input, , reasoning] of VECTORS) assert.equal(inlineThinkReasoning(input), reasoning, JSON.stringify(input));
});

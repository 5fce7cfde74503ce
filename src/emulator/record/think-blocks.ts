// Hermes's strip_think_blocks (agent/agent_runtime_helpers.py, the same at v0.20.0 and v0.21.0) for text content: the
// visible text of a model response, its reasoning blocks (<think>, <thinking>, <reasoning>, <REASONING_SCRATCHPAD>,
// <thought>, any case) and stray tool-call XML removed. Pure. Python's re semantics, spelled as the redactor's passes
// spell them (src/shared/redact/python-re.ts): IGNORECASE folds İ and ı onto i, K onto k, ſ onto s; `\b` and `\s` are
// Unicode's. Decision 0153.
import { pyStrip } from '../../shared/python/index.js';
import { PY_S, pyCaseless, pyWordChar } from '../../shared/redact/python-re.js';

/** _REASONING_TAG_NAMES, in Hermes's order (alternations try them in it). */
const REASONING_TAGS = ['think', 'thinking', 'reasoning', 'REASONING_SCRATCHPAD', 'thought'] as const;
/** _TOOL_CALL_TAG_NAMES. */
const TOOL_CALL_TAGS = ['tool_call', 'tool_calls', 'tool_result', 'function_call', 'function_calls'] as const;

/** Python's `\b` right after a word character (every tag name ends in one): no word character follows. */
const END_OF_WORD = `(?!${pyWordChar('')})`;
/** Python's `\b` right before a word character: no word character precedes. */
const START_OF_WORD = `(?<!${pyWordChar('')})`;

const anyOf = (names: readonly string[]): string => names.map(pyCaseless).join('|');
const FUNCTION = pyCaseless('function');

/** _REASONING_BLOCK_PATTERNS: `<name>.*?</name>`, DOTALL | IGNORECASE, one pass per name. */
const REASONING_BLOCKS = REASONING_TAGS.map((name) => new RegExp(`<${pyCaseless(name)}>.*?</${pyCaseless(name)}>`, 'gsu'));

/** _TOOL_CALL_BLOCK_PATTERNS: `<name\b[^>]*>.*?</name>`, DOTALL | IGNORECASE. */
const TOOL_CALL_BLOCKS = TOOL_CALL_TAGS.map(
  (name) => new RegExp(`<${pyCaseless(name)}${END_OF_WORD}[^>]*>.*?</${pyCaseless(name)}>`, 'gsu'),
);

/**
 * _NAMED_FUNCTION_BLOCK_PATTERN: a Gemma-style `<function name="…">…</function>` at the start of the text or after a
 * newline or sentence punctuation (`^` without MULTILINE is the text's start only).
 */
const NAMED_FUNCTION_BLOCK = new RegExp(
  `(?:^|(?<=[\\n\\r.!?:]))[ \\t]*<${FUNCTION}${END_OF_WORD}[^>]*${START_OF_WORD}${pyCaseless('name')}${PY_S}*=[^>]*>` +
    `(?:(?!</${FUNCTION}>).)*</${FUNCTION}>`,
  'gsu',
);

/**
 * _UNTERMINATED_REASONING_BLOCK_PATTERN: an opening reasoning tag at the start of the text or of a line (the newline
 * before it goes too) takes everything after it. Python's `$` would also stop before a last newline, but `.*` under
 * DOTALL has already taken it: the match is the text's rest either way.
 */
const UNTERMINATED_REASONING_BLOCK = new RegExp(`(?:^|\\n)[ \\t]*<(?:${anyOf(REASONING_TAGS)})${END_OF_WORD}[^>]*>.*$`, 'gsu');

/** _ORPHAN_REASONING_TAG_PATTERN: a stray opening or closing reasoning tag and the whitespace after it. */
const ORPHAN_REASONING_TAG = new RegExp(`</?(?:${anyOf(REASONING_TAGS)})>${PY_S}*`, 'gu');

/** _STRAY_TOOL_CALL_CLOSER_PATTERN: a stray tool-call closer (`</function>` included) and the whitespace after it. */
const STRAY_TOOL_CALL_CLOSER = new RegExp(`</(?:${anyOf(TOOL_CALL_TAGS)}|${FUNCTION})>${PY_S}*`, 'gu');

/**
 * strip_think_blocks(content) for a string: the passes in Hermes's order, each a whole `re.sub`. The empty text is
 * itself. Not stripped of surrounding whitespace: Hermes's callers `.strip()` the result.
 */
export function stripThinkBlocks(content: string): string {
  if (content === '') return '';
  let text = content;
  for (const pattern of REASONING_BLOCKS) text = text.replace(pattern, '');
  for (const pattern of TOOL_CALL_BLOCKS) text = text.replace(pattern, '');
  text = text.replace(NAMED_FUNCTION_BLOCK, '');
  text = text.replace(UNTERMINATED_REASONING_BLOCK, '');
  text = text.replace(ORPHAN_REASONING_TAG, '');
  return text.replace(STRAY_TOOL_CALL_CLOSER, '');
}

/** build_assistant_message's fallback reasoning: `re.findall(r'<think>(.*?)</think>', content, re.DOTALL)`. */
const INLINE_THINK = /<think>(.*?)<\/think>/gsu;

/**
 * The reasoning build_assistant_message takes from a response's text when the provider gave none in its own fields:
 * the insides of its `<think>…</think>` blocks (exactly that tag, lower case), each stripped, the non-empty ones
 * joined by a blank line; null when there are none.
 */
export function inlineThinkReasoning(content: string): string | null {
  if (!content.includes('<think>')) return null;
  const blocks: string[] = [];
  for (const m of content.matchAll(INLINE_THINK)) blocks.push(m[1]!);
  const combined = blocks.map(pyStrip).filter((b) => b !== '').join('\n\n');
  return combined === '' ? null : combined;
}

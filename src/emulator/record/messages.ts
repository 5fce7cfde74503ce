// What the agent writes into a message row, as Hermes's agent and tools spell it: the user message as its persist
// projects it, a model response's text as build_assistant_message stores it, a tool call's arguments as the model's
// JSON text, the call ids, a failed tool's result, the steer marker and the activity heartbeat's descriptions. Pure;
// record/turns.ts decides when each is written (decisions 0133, 0153).
import { createHash } from 'node:crypto';
import {
  dumpsUnicode, isDict, PyFloat, pyRound, pyStr, pyStrip, scrubSurrogates, type PlainJson, type PyValue,
} from '../../shared/python/index.js';
import { redactUnforced } from '../../shared/redact/index.js';
import type { MessageInput, ToolCall } from '../../state-db/writer/types.js';
import { inlineThinkReasoning, stripThinkBlocks } from './think-blocks.js';

/** PyValue → plain JSON (ints and floats both become numbers; bigints that fit stay exact as numbers). */
export function toJson(v: PyValue): PlainJson {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(toJson);
  return Object.fromEntries([...v].map(([k, x]) => [k, toJson(x)]));
}

/**
 * A tool call's arguments as the text the model would have sent: compact JSON, keys in the order given (a PyDict keeps
 * it), with Python's `Infinity`, `-Infinity` and `NaN` for the floats JSON has no word for (what `json.dumps` writes;
 * JSON.stringify wrote `null`).
 */
export function argumentsText(v: PyValue): string {
  if (v instanceof PyFloat || typeof v === 'number') {
    const x = v instanceof PyFloat ? v.value : v;
    return Number.isFinite(x) ? JSON.stringify(toJson(v)) : Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
  }
  if (typeof v === 'bigint') return v.toString();
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(argumentsText).join(',')}]`;
  return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${argumentsText(x)}`).join(',')}}`;
}

/** A call recorded without arguments (the control event gave none, or no tool.started announced it). */
export const NO_ARGUMENTS = '{}';

const IMAGE_PART_TYPES = new Set(['image', 'image_url', 'input_image']);

/**
 * The user message as the agent's persist writes it (agent/session_persistence.py `_durable_content`): a list of parts
 * becomes its text — each `text` part's `str(text)`, each image part `[screenshot]`, joined by newlines, other parts
 * dropped, NULL when nothing is left; SessionDB's `\x00json:` form is only for what is not a string or a list.
 */
export function userContent(content: PyValue): MessageInput['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return toJson(content) as PlainJson[];
  const text: string[] = [];
  for (const part of content) {
    if (!isDict(part)) continue;
    const type = part.get('type');
    if (type === 'text') text.push(pyStr(part.has('text') ? part.get('text')! : ''));
    else if (typeof type === 'string' && IMAGE_PART_TYPES.has(type)) text.push('[screenshot]');
  }
  return text.length > 0 ? text.join('\n') : null;
}

/** The columns of an assistant row that the response's text decides. */
export type AssistantText = Pick<MessageInput, 'content' | 'reasoning' | 'reasoning_content'>;

/**
 * What agent/chat_completion_helpers.py `build_assistant_message` stores of a model response whose content is `text`
 * and whose provider sent no reasoning of its own (the emulator's never does): `content` is the text with its lone
 * surrogates replaced, its think blocks and stray tool-call XML removed (`strip_think_blocks`), `.strip()`ped and
 * redacted unless `redactSecrets` is off; `reasoning` is the insides of its `<think>` blocks, null when it has none, and `reasoning_content` the same
 * reasoning, present only when there is some (the additive fallback). Decision 0153.
 */
export function assistantText(text: string, redactSecrets: boolean): AssistantText {
  const found = inlineThinkReasoning(text);
  let content = scrubSurrogates(text);
  if (content !== '') content = pyStrip(stripThinkBlocks(content));
  // Unforced, so it follows HERMES_REDACT_SECRETS, read once at import: the `redactSecrets` option (decisions 0153,
  // 0165).
  if (content !== '') content = redactUnforced(content, redactSecrets);
  if (found === null) return { content, reasoning: null };
  const reasoning = scrubSurrogates(found);
  return { content, reasoning, reasoning_content: reasoning };
}

/**
 * `call_` + 24 hex, derived from the run id (16 hex of its SHA-256, once per turn) and the call's position (8 hex):
 * the same on every sink and every replay of a seeded run, and drawn from no id stream (recording changes no other id).
 */
export const callPrefix = (runId: string): string => `call_${createHash('sha256').update(runId).digest('hex').slice(0, 16)}`;
export const callId = (prefix: string, n: number): string => prefix + n.toString(16).padStart(8, '0');

/**
 * A tool call as the agent's message keeps it (agent/chat_completion_helpers.py `build_assistant_message`, decision
 * 0146): its id, the same as `call_id`, the Responses item id `_derive_responses_function_call_id` makes of a `call_`
 * id (`fc_` and the rest), the type and the function. Stored in the row as it is.
 */
export const toolCall = (id: string, name: string, args: string): ToolCall => ({
  id,
  call_id: id,
  response_item_id: `fc_${id.slice('call_'.length)}`,
  type: 'function',
  function: { name, arguments: args },
});

/** apply_pending_steer_to_tool_results's marker (agent/agent_runtime_helpers.py, Hermes PR #12116). */
export const steerMarker = (text: string): string => `\n\n[USER STEER (injected mid-run, not tool output): ${text}]`;

/**
 * The result Hermes's agent stores for a tool that raised: model_tools.py handle_function_call turns the exception
 * into `tool_error(_sanitize_tool_error(f"Error executing {name}: {e}"))`, JSON with ensure_ascii=False. A control
 * event that says the tool failed and gives no result stands for an exception with no message (`str(e)` empty).
 */
export const failedToolResult = (tool: string): string => dumpsUnicode({ error: `[TOOL_ERROR] Error executing ${tool}: ` });

/** agent/session_activity.py ACTIVITY_DESCRIPTION_MAX: a description is stripped and cut to 120 characters. */
const DESCRIPTION_MAX = 120;

/** bound_activity_description: stripped (Python's whitespace), past 120 code points cut to 119 and an ellipsis. */
export function activityDescription(text: string): string {
  const stripped = pyStrip(text);
  // At most 120 UTF-16 units is at most 120 code points: only a longer text is counted and cut.
  if (stripped.length <= DESCRIPTION_MAX) return stripped;
  const chars = Array.from(stripped);
  return chars.length <= DESCRIPTION_MAX ? stripped : `${chars.slice(0, DESCRIPTION_MAX - 1).join('')}\u2026`;
}

/** The number a control event's duration stands for (an int, a bigint or a float). */
const seconds = (v: PyValue): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v instanceof PyFloat ? v.value : 0);

/** tool_executor.py's `f"tool completed: {name} ({tool_duration:.1f}s){' (error)' if is_error else ''}"`. */
export function toolCompletedActivity(tool: string, duration: PyValue, error: boolean): string {
  const d = seconds(duration);
  const text = Number.isFinite(d) ? pyRound(d, 1).toFixed(1) : String(d).replace('Infinity', 'inf').replace('NaN', 'nan');
  return `tool completed: ${tool} (${text}s)${error ? ' (error)' : ''}`;
}

// Tool calls as Hermes stores them: OpenAI-nested (`function.name`, `function.arguments` as a JSON string), the
// flattened legacy form (`name`, `arguments`/`input`), ids under `id` or `call_id` (spec forwarding §6.1 item 3).
import type { ToolCall } from './types.js';

export interface DecodedToolCalls {
  calls: ToolCall[] | null;
  json: unknown;
  problem: string | null;
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? null;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function call(value: unknown): ToolCall {
  const c = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const fn = c.function && typeof c.function === 'object' ? (c.function as Record<string, unknown>) : null;
  const id = typeof c.id === 'string' && c.id ? c.id : typeof c.call_id === 'string' && c.call_id ? c.call_id : null;
  if (fn) {
    return { id, name: typeof fn.name === 'string' ? fn.name : null, args: parseArgs(fn.arguments ?? fn.input), flattened: false };
  }
  return { id, name: typeof c.name === 'string' ? c.name : null, args: parseArgs(c.arguments ?? c.input), flattened: true };
}

/**
 * Whether a parsed element is a tool call at all: an object with a `function` object (OpenAI-nested) or a `name`
 * string (flattened). `{"a": 1}`, `3` or `{"function": null}` are not, and become no part.
 */
function isCall(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const c = value as Record<string, unknown>;
  return (!!c.function && typeof c.function === 'object' && !Array.isArray(c.function)) || typeof c.name === 'string';
}

const shown = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
};

/**
 * Decodes a stored `tool_calls` value; invalid JSON yields no calls and a problem to report, and so does each element
 * that is valid JSON but not a call (it is left out of the parts; `messages.tool_calls` keeps the document as stored).
 */
export function decodeToolCalls(stored: unknown): DecodedToolCalls {
  if (stored === null || stored === undefined || stored === '') return { calls: null, json: null, problem: null };
  let doc: unknown;
  try {
    doc = typeof stored === 'string' ? JSON.parse(stored) : stored;
  } catch {
    return { calls: null, json: null, problem: 'tool_calls is not valid JSON; its calls are left out' };
  }
  if (doc === null) return { calls: null, json: null, problem: null };
  const list = Array.isArray(doc) ? doc : [doc];
  if (list.every(isCall)) return { calls: list.map(call), json: doc, problem: null };
  const bad = list.flatMap((v, i) => (isCall(v) ? [] : [i]));
  const what = Array.isArray(doc)
    ? `${bad.length === 1 ? 'element' : 'elements'} ${bad.map((i) => `${i} (${shown(list[i])})`).join(', ')} of ${list.length} ${bad.length === 1 ? 'is not a tool call' : 'are not tool calls'}`
    : `${shown(doc)} is not a tool call`;
  return { calls: list.filter(isCall).map(call), json: doc, problem: `tool_calls ${what}; left out of the parts` };
}

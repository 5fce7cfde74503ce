// Tool calls as Hermes stores them: OpenAI-nested (`function.name`, `function.arguments` as a JSON string), the
// flattened legacy form (`name`, `arguments`/`input`), ids under `id` or `call_id` (spec forwarding §6.1 item 3).
import { parsed } from './values.js';
import type { ToolCall } from './types.js';

export interface DecodedToolCalls {
  calls: ToolCall[] | null;
  json: unknown;
  problem: string | null;
}

function parseArgs(raw: unknown): unknown {
  return typeof raw === 'string' ? parsed(raw) : raw ?? null;
}

/** An id or a name as text: a string as it is; a number or a boolean (a writer's slip) as its JSON text, said in `notes`. */
function textOf(v: unknown, what: string, notes: string[]): string | null {
  if (typeof v === 'string') return v || null;
  if (typeof v === 'number' || typeof v === 'boolean') {
    notes.push(`${what} ${String(v)} is a ${typeof v}, kept as text`);
    return String(v);
  }
  if (v !== null && v !== undefined) notes.push(`${what} ${shown(v)} is not text; left out`);
  return null;
}

function call(value: unknown, notes: string[]): ToolCall {
  const c = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const fn = c.function && typeof c.function === 'object' ? (c.function as Record<string, unknown>) : null;
  const id = textOf(c.id, 'id', notes) ?? textOf(c.call_id, 'call_id', notes);
  if (fn) {
    return { id, name: textOf(fn.name, 'function.name', notes), args: parseArgs(fn.arguments ?? fn.input), flattened: false };
  }
  return { id, name: typeof c.name === 'string' ? c.name : null, args: parseArgs(c.arguments ?? c.input), flattened: true };
}

/** The calls of the elements that are calls, and what was changed in them, per element. */
function calls(list: readonly unknown[]): { calls: ToolCall[]; problem: string | null } {
  const out: ToolCall[] = [];
  const said: string[] = [];
  list.forEach((v, i) => {
    if (!isCall(v)) return;
    const notes: string[] = [];
    out.push(call(v, notes));
    if (notes.length) said.push(`element ${i}: ${notes.join(', ')}`);
  });
  return { calls: out, problem: said.length ? `tool_calls ${said.join('; ')}` : null };
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
  const decoded = calls(list);
  if (list.every(isCall)) return { calls: decoded.calls, json: doc, problem: decoded.problem };
  const bad = list.flatMap((v, i) => (isCall(v) ? [] : [i]));
  const what = Array.isArray(doc)
    ? `${bad.length === 1 ? 'element' : 'elements'} ${bad.map((i) => `${i} (${shown(list[i])})`).join(', ')} of ${list.length} ${bad.length === 1 ? 'is not a tool call' : 'are not tool calls'}`
    : `${shown(doc)} is not a tool call`;
  const problem = `tool_calls ${what}; left out of the parts`;
  return { calls: decoded.calls, json: doc, problem: decoded.problem ? `${problem}; ${decoded.problem}` : problem };
}

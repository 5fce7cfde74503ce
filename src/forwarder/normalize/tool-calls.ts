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

/** Decodes a stored `tool_calls` value; invalid JSON yields no calls and a problem to report. */
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
  return { calls: list.map(call), json: doc, problem: null };
}

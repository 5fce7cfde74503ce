// The session and message objects of the session routes, as the Python dicts Hermes builds (spec sessions-api §5,
// §6): a fixed key list walked in order, only keys the row has, SQLite 0/1 flags as booleans, REAL columns as floats,
// then `has_system_prompt` / `has_model_config`. Pure; wire/ writes the bytes.
import { parsePyJson, PyFloat, pyStrip, pyTruthy, type PyDict, type PyValue } from '../../shared/python/index.js';
import { describeSkillInvocation, SKILL_EXCERPT_JOINT } from './skill-invocation.js';
import type { ListedSessionRow, MessageRow, SessionRow } from './table.js';

/** _PREVIEW_MAX_CHARS. */
const PREVIEW_MAX_CHARS = 60;

/** _session_response's safe_keys at the pin (RP): the order of every session object. */
const SESSION_KEYS = [
  'id', 'source', 'user_id', 'model', 'title', 'started_at', 'ended_at', 'end_reason', 'message_count', 'tool_call_count',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd',
  'actual_cost_usd', 'api_call_count', 'parent_session_id', 'last_active', 'preview', '_lineage_root_id', 'pinned',
  'archived', 'hidden',
] as const;
const FLOATS = new Set(['started_at', 'ended_at', 'estimated_cost_usd', 'actual_cost_usd', 'last_active']);
const FLAGS = new Set(['pinned', 'archived', 'hidden']);

/** A list row carries `last_active` and `preview` (shaped); create/get/patch rows do not. */
export type SessionView = SessionRow | (ListedSessionRow & { preview: string });

const float = (v: unknown): PyValue => (v === null || v === undefined ? null : new PyFloat(v as number));

/** _session_response(row). */
export function sessionObject(row: SessionView): PyDict {
  const out: PyDict = new Map();
  const values = row as unknown as Record<string, unknown>;
  for (const key of SESSION_KEYS) {
    if (!(key in values)) continue;
    const v = values[key];
    out.set(key, FLAGS.has(key) ? Boolean(v) : FLOATS.has(key) ? float(v) : ((v ?? null) as PyValue));
  }
  out.set('has_system_prompt', pyTruthy(row.system_prompt));
  out.set('has_model_config', pyTruthy(row.model_config));
  return out;
}

/**
 * hermes_state_common._shape_preview over the raw head the list query read (store/session-table.ts): stripped as Python
 * strips, newlines as spaces, an expanded /skill turn as the user typed it, else the text before the excerpt joint;
 * then 60 code points and `...` when longer (decision 0134).
 * @example shapePreview('hello\x1eworld') // 'hello'
 */
export function shapePreview(raw: string): string {
  let text = pyStrip(raw);
  if (!text) return '';
  text = text.replace(/\n/g, ' ').replace(/\r/g, ' ');
  text = describeSkillInvocation(text) ?? text.split(SKILL_EXCERPT_JOINT)[0]!;
  const chars = Array.from(text);
  return chars.length > PREVIEW_MAX_CHARS ? `${chars.slice(0, PREVIEW_MAX_CHARS).join('')}...` : text;
}

export const CONTENT_JSON_PREFIX = '\x00json:';

/** SessionDB._decode_content: `\x00json:` content back to its value; anything else as stored. */
function decodeContent(content: string | null): PyValue {
  if (content === null || !content.startsWith(CONTENT_JSON_PREFIX)) return content;
  try {
    return parsePyJson(content.slice(CONTENT_JSON_PREFIX.length));
  } catch {
    return content;
  }
}

/** get_messages' tool_calls: JSON text decoded when truthy ([] when it does not parse), else as stored. */
function decodeToolCalls(text: string | null): PyValue {
  if (!text) return text;
  try {
    return parsePyJson(text);
  } catch {
    return [];
  }
}

/** _message_response(row) at the pin: every column of safe_keys the messages table has (display_kind since v21). */
export function messageObject(row: MessageRow): PyDict {
  return new Map<string, PyValue>([
    ['id', row.id],
    ['session_id', row.session_id],
    ['role', row.role],
    ['content', decodeContent(row.content)],
    ['tool_call_id', row.tool_call_id],
    ['tool_calls', decodeToolCalls(row.tool_calls)],
    ['tool_name', row.tool_name],
    ['timestamp', new PyFloat(row.timestamp)],
    ['token_count', row.token_count],
    ['finish_reason', row.finish_reason],
    ['reasoning', row.reasoning],
    ['reasoning_content', row.reasoning_content],
    ['display_kind', row.display_kind],
  ]);
}

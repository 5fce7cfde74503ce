// Hermes's message content: plain text, or the `\x00json:` sentinel followed by a JSON document of content blocks
// (spec state-db §3). Decoded into one block per element.
import type { Block } from './types.js';

export const JSON_SENTINEL = '\x00json:';

export interface DecodedContent {
  content: string | null;
  format: 'text' | 'json' | null;
  blocks: Block[];
  /** Set when the sentinel's JSON does not parse: the row keeps its text, the problem is reported. */
  problem: string | null;
}

function block(value: unknown): Block {
  if (typeof value === 'string') return { type: 'text', text: value, native: null };
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const b = value as Record<string, unknown>;
    const type = typeof b.type === 'string' ? b.type : null;
    if ((type === 'text' || type === 'input_text' || type === 'output_text' || type === null) && typeof b.text === 'string') {
      return { type: 'text', text: b.text, native: type === 'text' || type === null ? null : type };
    }
    if (type === 'image_url' || type === 'image' || type === 'input_image') return { type: 'image', text: '[image]', native: type };
    return { type: 'other', text: null, native: type ?? 'object' };
  }
  return { type: 'other', text: null, native: value === null ? 'null' : typeof value };
}

/** Decodes one stored `content` value. */
export function decodeContent(stored: unknown): DecodedContent {
  if (stored === null || stored === undefined) return { content: null, format: null, blocks: [], problem: null };
  const text = typeof stored === 'string' ? stored : String(stored);
  if (!text.startsWith(JSON_SENTINEL)) {
    // A number where text belongs (SQLite keeps what it is given) is kept as its text, and said.
    const problem = typeof stored === 'string' ? null : `content is a ${typeof stored} (${text.length > 30 ? `${text.slice(0, 29)}…` : text}), kept as text`;
    return { content: text, format: 'text', blocks: text === '' ? [] : [{ type: 'text', text, native: null }], problem };
  }
  const json = text.slice(JSON_SENTINEL.length);
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return { content: json, format: 'json', blocks: [{ type: 'text', text: json, native: null }], problem: 'structured content is not valid JSON; kept as text' };
  }
  const items = Array.isArray(doc) ? doc : [doc];
  return { content: json, format: 'json', blocks: items.map(block), problem: null };
}

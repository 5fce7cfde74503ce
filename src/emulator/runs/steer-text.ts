// Hermes's _normalize_chat_content as the steer endpoint applies it (spec runs-api §10 step 5).
import { isDict, pyStr, pyStrip, pyTruthy, type PyValue } from '../../shared/python/index.js';

const MAX_CHARS = 65_536;
const MAX_ITEMS = 1_000;
const MAX_DEPTH = 10;
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);

/** Cuts to n code points (Python slices count code points, not UTF-16 units). */
function cut(s: string, n = MAX_CHARS): string {
  if (s.length <= n) return s;
  let out = '';
  let count = 0;
  for (const ch of s) {
    if (count++ >= n) break;
    out += ch;
  }
  return out;
}

function collect(parts: PyValue[], depth: number, out: string[], total: { n: number }): void {
  for (const part of parts.slice(0, MAX_ITEMS)) {
    if (total.n >= MAX_CHARS) return;
    let text: string | null = null;
    if (typeof part === 'string') text = part || null;
    else if (isDict(part)) {
      const type = part.get('type');
      const value = part.get('text');
      if (typeof type === 'string' && TEXT_TYPES.has(pyStrip(type).toLowerCase()) && pyTruthy(value)) text = pyStr(value!);
    } else if (Array.isArray(part) && depth < MAX_DEPTH) {
      collect(part, depth + 1, out, total);
      continue;
    }
    if (text) {
      const piece = cut(text);
      out.push(piece);
      total.n += piece.length;
    }
  }
}

export function steerText(content: PyValue): string {
  if (content === null) return '';
  if (typeof content === 'string') return cut(content);
  if (Array.isArray(content)) {
    const out: string[] = [];
    collect(content, 0, out, { n: 0 });
    return cut(out.join('\n'));
  }
  return cut(pyStr(content));
}

// Message content as Hermes's PostgreSQL backend stores it, back in the form its SQLite store holds (decision 0038).
// PostgreSQL TEXT cannot hold NUL, so PostgresSessionDB uses `\x01json:` where SessionDB uses `\x00json:`, and
// also wraps a string that contains NUL (or starts with one of its prefixes) as a JSON string, and bytes as
// `\x01bytes:` + base64. SQLite would have held the structured content as `\x00json:` + the same json.dumps text,
// the string as itself, and the bytes as a BLOB — which is what this gives, so one normalizer reads both.
import { hasLoneSurrogate } from '../../../shared/python/strings.js';

export const PG_JSON_PREFIX = '\x01json:';
export const PG_BYTES_PREFIX = '\x01bytes:';
export const SQLITE_JSON_PREFIX = '\x00json:';

/**
 * The SQLite form of a PostgreSQL `messages.content` value. A `\x01json:` text that is not JSON is left as it is
 * (Hermes's own decoder does the same), and so is a JSON string holding a lone surrogate (no state.db can hold it) and
 * a `\x01bytes:` text that is not the base64 Hermes's encoder writes (Hermes's decoder refuses some of it; nothing is
 * lost by keeping the text).
 * @example sqliteContent('\x01json:[{"type": "text"}]') // '\x00json:[{"type": "text"}]'
 */
export function sqliteContent(value: unknown): unknown {
  if (typeof value !== 'string' || value.charCodeAt(0) !== 1) return value;
  if (value.startsWith(PG_JSON_PREFIX)) {
    const doc = value.slice(PG_JSON_PREFIX.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(doc);
    } catch {
      return value;
    }
    if (typeof parsed !== 'string') return SQLITE_JSON_PREFIX + doc;
    // A lone surrogate (Python writes "\ud800" for one) would reach SQLite as bytes that are not UTF-8: keep the escapes.
    return hasLoneSurrogate(parsed) ? value : parsed;
  }
  if (value.startsWith(PG_BYTES_PREFIX)) {
    const text = value.slice(PG_BYTES_PREFIX.length);
    const bytes = Buffer.from(text, 'base64');
    // Only what b64encode writes: Buffer.from skips what is not base64, so other text would become invented bytes.
    return bytes.toString('base64') === text ? bytes : value;
  }
  return value;
}

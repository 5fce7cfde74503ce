// Hermes's small rules for the session routes, as pure functions: SessionDB.sanitize_title, gateway.session's
// _is_path_unsafe, the source allow-list, the query-parameter parsers (Python int(), _coerce_request_bool) and
// _clean_runtime_id. Spec sessions-api §3.1, §4.1–§4.4.
import { pyInt, pyLen, pyStrip, scrubSurrogates } from '../../shared/python/index.js';

/** SessionDB.MAX_TITLE_LENGTH. */
export const MAX_TITLE_LENGTH = 100;
/** APIServerAdapter._MAX_SESSION_HEADER_LEN: the longest session id POST /api/sessions takes. */
export const MAX_SESSION_ID_LENGTH = 256;

/** Python's re `\s` (str.isspace()), which the title's whitespace collapse uses. */
const PY_SPACE_RUN = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;

export class TitleTooLong extends Error {
  constructor(readonly length: number) {
    super(`Title too long (${length} chars, max ${MAX_TITLE_LENGTH})`);
  }
}

/**
 * SessionDB.sanitize_title: lone surrogates → U+FFFD, ASCII controls (but TAB/LF/CR) and zero-width/bidi/format
 * characters removed, whitespace runs collapsed to one space, stripped; empty → null; over 100 characters throws.
 * @example sanitizeTitle('  a \t b ') // 'a b'
 */
export function sanitizeTitle(title: string): string | null {
  if (!title) return null;
  let cleaned = scrubSurrogates(title);
  cleaned = cleaned.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '');
  cleaned = cleaned.replace(/[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb]/g, '');
  cleaned = pyStrip(cleaned.replace(PY_SPACE_RUN, ' '));
  if (!cleaned) return null;
  const length = pyLen(cleaned);
  if (length > MAX_TITLE_LENGTH) throw new TitleTooLong(length);
  return cleaned;
}

/** gateway.session._is_path_unsafe: `..`, `/` or `\`, or a leading drive letter (`C:`). */
export function isPathUnsafe(id: string): boolean {
  if (!id) return false;
  if (id.includes('..') || id.includes('/') || id.includes('\\')) return true;
  const [first, second] = Array.from(id);
  return second === ':' && /^\p{L}$/u.test(first ?? '');
}

/** Why POST /api/sessions refuses an id (spec §4.1 step 4), or null. */
export function sessionIdProblem(id: string): 'Invalid session ID' | 'Session ID too long' | null {
  if (!id || /[\r\n\x00]/.test(id) || isPathUnsafe(id)) return 'Invalid session ID';
  if (pyLen(id) > MAX_SESSION_ID_LENGTH) return 'Session ID too long';
  return null;
}

const SOURCES = new Set(['api_server', 'hermes_browser', 'browser', 'cli', 'telegram', 'discord', 'slack', 'desktop', 'dashboard']);

/** _normalize_session_source: stripped, lower-cased, kept if allowed (`browser` → `hermes_browser`), else api_server. */
export function normalizeSource(text: string): string {
  const lowered = pyStrip(text).toLowerCase();
  if (!SOURCES.has(lowered)) return 'api_server';
  return lowered === 'browser' ? 'hermes_browser' : lowered;
}

/** _parse_nonnegative_int: int() of the raw value; a failure or a negative number gives the default; then capped. */
export function parseQueryInt(raw: string | undefined, fallback: number, maximum: number): number {
  if (raw === undefined) return fallback;
  const n = pyInt(raw);
  if (n === null || n < 0n) return fallback;
  return n < BigInt(maximum) ? Number(n) : maximum;
}

/** _coerce_request_bool for a query value: 1/true/yes/on, 0/false/no/off (stripped, any case), else the default. */
export function queryBool(raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const v = pyStrip(raw).toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
  return fallback;
}

/** _clean_runtime_id for an already str()-ed value: stripped; empty, too long or holding CR/LF/NUL → ''. */
export function cleanRuntimeId(text: string, maxLength = 200): string {
  const s = pyStrip(text);
  if (!s || pyLen(s) > maxLength || /[\r\n\x00]/.test(s)) return '';
  return s;
}

/** The id POST /api/sessions mints: `api_<int(time.time())>_<first 8 hex of a uuid4>`. */
export const mintSessionId = (now: number, uuid4Hex: string): string => `api_${Math.floor(now)}_${uuid4Hex.slice(0, 8)}`;

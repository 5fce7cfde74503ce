// Python str helpers: strip() and split() with Python's whitespace set, len() in code points, lone surrogates, and
// bytes read as Python's strict UTF-8 codec reads them.

/** Python str.isspace() for one UTF-16 unit (all Python whitespace is in the BMP). */
function isPySpace(c: number): boolean {
  if (c <= 0x20) return (c >= 0x09 && c <= 0x0d) || c >= 0x1c;
  if (c < 0x85) return false;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** Python str.strip() with no arguments (differs from String.prototype.trim: keeps U+FEFF, strips \x1c-\x1f, U+0085). */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isPySpace(s.charCodeAt(start))) start++;
  while (end > start && isPySpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Python str.split() with no arguments: the runs between whitespace (Python's set, \x1c-\x1f included), none empty. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    if (i < s.length && !isPySpace(s.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(s.slice(start, i));
      start = -1;
    }
  }
  return out;
}

const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** len(s) in Python: number of code points (a surrogate pair counts once, a lone surrogate once). */
export function pyLen(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/** True if `s` contains an unpaired surrogate (it cannot be encoded as UTF-8 by Python). */
export function hasLoneSurrogate(s: string): boolean {
  return SURROGATE.test(s) && LONE_SURROGATE.test(s);
}


/** `s` without its unpaired surrogates (what a UTF-8 writer that skips them, as aiohttp's C header writer, sends). */
export function withoutLoneSurrogates(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '') : s;
}

/**
 * Hermes's `_sanitize_surrogates` (agent/message_sanitization.py): each unpaired surrogate becomes U+FFFD, what SessionDB
 * does to a text before binding it (Python's sqlite3 cannot encode one; better-sqlite3 would write invalid UTF-8).
 */
export function scrubSurrogates(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\ufffd') : s;
}

/**
 * The length of the UTF-8 sequence at `bytes[i]` that Python's strict decoder accepts, or 0 when none starts there: no
 * overlong forms, no UTF-16 surrogates, nothing past U+10FFFF (the second byte's range rules those out).
 */
export function utf8SequenceLength(bytes: ArrayLike<number>, i: number): number {
  const b = bytes[i]!;
  const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > bytes.length) return 0;
  for (let k = 1; k < n; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  const c = bytes[i + 1]!;
  if ((b === 0xe0 && c < 0xa0) || (b === 0xed && c > 0x9f) || (b === 0xf0 && c < 0x90) || (b === 0xf4 && c > 0x8f)) return 0;
  return n;
}

/**
 * Python's `bytes.decode('utf-8', 'surrogateescape')`: each byte that starts no valid sequence becomes the lone
 * surrogate U+DC80 + (byte − 0x80); the valid runs between them are decoded whole.
 */
export function decodeSurrogateEscape(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = '';
  let run = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = utf8SequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buffer.toString('utf8', run, i) + String.fromCharCode(0xdc00 + bytes[i]!);
    run = ++i;
  }
  return out + buffer.toString('utf8', run);
}

// Python str helpers: strip() with Python's whitespace set, len() in code points, lone-surrogate detection.

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

const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

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


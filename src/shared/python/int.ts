// Python's int(text) and int(text, 16) over a string: surrounding whitespace, a sign, `_` between digits, any Unicode
// decimal digit (and a-f, A-F and a `0x` prefix in base 16). Used where Hermes calls int() on text a client or a file
// gave: the session routes' query parameters, a state.db generation token's application_id.
import { pyStrip } from './strings.js';

/** sys.get_int_max_str_digits() on Python 3.11: int() of a base-10 string with more digits raises ValueError. */
export const MAX_INT_DIGITS = 4300;

const DECIMAL = /^\p{Nd}(?:_?\p{Nd})*$/u;
const HEX = /^[\p{Nd}a-fA-F](?:_?[\p{Nd}a-fA-F])*$/u;

/**
 * The value of one Unicode decimal digit. Digits come in whole runs of ten (0 … 9), and a stretch of consecutive
 * digit code points always starts with a zero (the mathematical digits are five runs in a row).
 */
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp <= 0x39) return cp - 0x30;
  let start = cp;
  while (/^\p{Nd}$/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

/**
 * Python int(text, base), exact at any size (a bigint); null where Python raises ValueError (in base 10, also past
 * 4300 digits, underscores not counted; base 16 has no such limit).
 * @example pyInt(' +1_0 ') // 10n
 * @example pyInt('0x_ff', 16) // 255n
 */
export function pyInt(text: string, base: 10 | 16 = 10): bigint | null {
  let s = pyStrip(text);
  const negative = s.startsWith('-');
  if (negative || s.startsWith('+')) s = s.slice(1);
  // After the prefix an underscore may come first; without it, never.
  if (base === 16 && /^0[xX]/.test(s)) s = s.slice(s[2] === '_' ? 3 : 2);
  if (!(base === 16 ? HEX : DECIMAL).test(s)) return null;
  let value: bigint;
  if (base === 10) {
    let digits = '';
    for (const ch of s) if (ch !== '_') digits += String(digitValue(ch));
    if (digits.length > MAX_INT_DIGITS) return null;
    value = BigInt(digits);
  } else {
    value = 0n;
    for (const ch of s) if (ch !== '_') value = value * 16n + BigInt(/[a-fA-F]/.test(ch) ? parseInt(ch, 16) : digitValue(ch));
  }
  return negative ? -value : value;
}

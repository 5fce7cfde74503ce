// Python `re`/`str` semantics that JavaScript regexes do not share, spelled out once for every pass.
// Checked against CPython 3.11 over every code point (docs/decisions/0012-secret-redactor.md); the
// Unicode-dependent classes are pinned to CPython 3.11's Unicode 14.0 (docs/decisions/0108-redactor-against-hermes-source.md).

import { AFTER_UNICODE_14, PY311_DIGITS } from './unicode-14.js';

/**
 * Body of a character class for Python's `\s` on str patterns: exactly the code points where
 * str.isspace() holds. JS `\s` differs: it adds U+FEFF and lacks U+001C–U+001F and U+0085.
 */
const WS_BODY = '\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Python `\s`, as an embeddable class. */
export const PY_S = `[${WS_BODY}]`;
/** Python `\S`. */
export const PY_NOT_S = `[^${WS_BODY}]`;
/** Class body of Python `\s`, for building classes such as `[^\s&]`. */
export const PY_S_BODY = WS_BODY;
/**
 * Python `\d` on str patterns: any Unicode 14 decimal digit (category Nd), not just 0-9. An explicit
 * class: `\p{Nd}` would follow Node's newer Unicode and also accept digits CPython 3.11 does not know.
 */
export const PY_D = `[${PY311_DIGITS}]`;
/** Class body of Python `\w`: str.isalnum() or `_`, which is exactly letters, numbers and `_`. */
export const PY_W_BODY = '\\p{L}\\p{N}_';
/**
 * One character of `[\w<extra>]` as CPython 3.11 reads it: PY_W_BODY plus `extra`, minus the
 * letters and numbers Unicode added after 14.0 (a look-ahead, since `u`-mode classes cannot subtract).
 * Only for patterns WITHOUT the `i` flag: `iu` would case-fold the property classes (U+0345 folds
 * onto ι, a letter) and the look-ahead (ƛ folds onto U+A7DC, new in Unicode 16), where Python's
 * IGNORECASE leaves `\w` alone. Spell case-insensitive words in such patterns with pyCaseless.
 */
export function pyWordChar(extra: string): string {
  return `(?:(?![${AFTER_UNICODE_14}])[${PY_W_BODY}${extra}])`;
}

/**
 * Python MULTILINE `^`: start of text or just after LF. JS's `m` flag would also accept CR,
 * U+2028 and U+2029, so the anchored passes use this look-behind without the `m` flag.
 */
export const PY_LINE_START = '(?<![^\\n])';

/**
 * Under re.IGNORECASE Python folds U+0130 (İ) and U+0131 (ı) onto `i` as well as K (U+212A)
 * onto `k` and ſ (U+017F) onto `s`. JS's `iu` flags fold only the last two, so every `i` in a
 * case-insensitive pattern is written as CI_I, and classes spanning `i` add CI_I_EXTRA.
 */
export const CI_I = '[i\\u0130\\u0131]';
export const CI_I_EXTRA = '\\u0130\\u0131';

/** Python's IGNORECASE `[A-Za-z]` spelled for a pattern without the `i` flag (adds İ, ı, ſ, K). */
export const PY_CASELESS_LETTER = '[A-Za-z\\u0130\\u0131\\u017f\\u212a]';

/**
 * An ASCII literal matched the way Python's re.IGNORECASE matches it, for patterns that cannot use
 * the `i` flag (see pyWordChar): each letter becomes a class of its cases plus Python's extra folds.
 */
export function pyCaseless(literal: string): string {
  const extra: Record<string, string> = { i: '\\u0130\\u0131', k: '\\u212a', s: '\\u017f' };
  return Array.from(literal, (ch) => {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    return lower === upper ? escapeRegExp(ch) : `[${lower}${upper}${extra[lower] ?? ''}]`;
  }).join('');
}

const ALPHA = /^\p{L}$/u;
const UPPER = /^\p{Uppercase}$/u;
const LOWER = /^\p{Lowercase}$/u;

/** str.isalpha() for one code point: general category L*. */
export function isAlpha(ch: string): boolean {
  return ALPHA.test(ch);
}

/** str.isupper() for one code point: the Uppercase property (Lu plus Other_Uppercase). */
export function isUpper(ch: string): boolean {
  return UPPER.test(ch);
}

/** str.islower() for one code point: the Lowercase property (Ll plus Other_Lowercase). */
export function isLower(ch: string): boolean {
  return LOWER.test(ch);
}

/** Escapes a literal for use outside a class in a `u`-flag RegExp (where `\-` would be a syntax error). */
export function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

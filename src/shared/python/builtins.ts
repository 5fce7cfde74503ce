// Python builtins over decoded JSON values, as CPython 3.11 behaves: bool(), str(), repr(), round(x, n).
import { pyFloatRepr } from './dump.js';
import { hasLoneSurrogate } from './strings.js';
import { PyFloat, type PyDict, type PyValue } from './values.js';
import { PRINTABLE_AFTER_UNICODE_14 } from './unicode-14.js';

export const isDict = (v: PyValue | undefined): v is PyDict => v instanceof Map;

/** The int range Python's sqlite3 binds (a signed 64-bit INTEGER); past it, OverflowError. */
export const SQLITE_INT_MIN = -(2n ** 63n);
export const SQLITE_INT_MAX = 2n ** 63n - 1n;

/**
 * Whether Python's sqlite3 binds the value as a query parameter: None, bool, an int within 64 bits (else
 * OverflowError), a float, a str that encodes as UTF-8 (a lone surrogate is a UnicodeEncodeError); a list or dict is
 * refused (ProgrammingError).
 */
export function sqliteBindable(value: PyValue): boolean {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || value instanceof PyFloat) return true;
  if (typeof value === 'bigint') return value >= SQLITE_INT_MIN && value <= SQLITE_INT_MAX;
  if (typeof value === 'string') return !hasLoneSurrogate(value);
  return false;
}

/** Python bool(v) for JSON-decoded values (NaN is truthy, as in Python). */
export function pyTruthy(v: PyValue | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

/** Python repr(float) / str(float): shortest round-trip digits, `nan`, `inf`, `-inf` (json spells those differently). */
export function pyFloatStr(x: number): string {
  if (x !== x) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return pyFloatRepr(x);
}

/** Python int → str (never exponent notation, unlike String() from 1e21). */
function intStr(x: number | bigint): string {
  return typeof x === 'bigint' || (x < 1e21 && x > -1e21) ? String(x) : BigInt(x).toString();
}

/** Python str() of a JSON-decoded value: a str is itself; containers print their items' repr(). */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python repr() of a JSON-decoded value (a JS number is an int when integral, as the decoder decides). */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'bigint') return intStr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? intStr(v) : pyFloatStr(v);
  if (v instanceof PyFloat) return pyFloatStr(v.value);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Array.from(v, ([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/**
 * The characters repr() escapes inside each quote: backslash, the quote, and those str.isprintable() is false for on
 * CPython 3.11 (space excepted): Node's categories, plus what Unicode added after 14.0, which Node's newer tables call
 * printable and CPython 3.11 does not know (an emoji of Unicode 15 such as 🩷 is `\U0001fa77` in its repr).
 */
const ESCAPED = {
  "'": new RegExp(`[\\\\'\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}${PRINTABLE_AFTER_UNICODE_14}]|(?! )\\p{Zs}`, 'gu'),
  '"': new RegExp(`[\\\\"\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}${PRINTABLE_AFTER_UNICODE_14}]|(?! )\\p{Zs}`, 'gu'),
};

/** CPython's escape of one character ESCAPED matched. */
function escapeChar(ch: string): string {
  if (ch === '\\') return '\\\\';
  if (ch === "'" || ch === '"') return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  const cp = ch.codePointAt(0)!;
  if (cp < 0x100) return `\\x${hex(cp, 2)}`;
  if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
  return `\\U${hex(cp, 8)}`;
}

/**
 * Python repr() of a str: `'` unless the text has `'` and no `"`; CPython's escapes for the rest. One native scan
 * (a 1 MiB message's repr, which display_identity hashes, took ~90 ms a character at a time; now ~2 ms).
 */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  return quote + s.replace(ESCAPED[quote], escapeChar) + quote;
}

/**
 * Python's round(x, digits) for floats: the exact binary value rounded half-to-even in decimal (0.0625 → 0.062),
 * unlike toFixed, which rounds ties up.
 */
export function pyRound(x: number, digits: number): number {
  // From 2^52 every float is an integer (and toFixed switches to exponent notation at 1e21).
  if (!Number.isFinite(x) || x === 0 || Math.abs(x) >= 2 ** 52) return x;
  const [whole, frac = ''] = Math.abs(x).toFixed(100).split('.');
  const kept = whole! + frac.slice(0, digits);
  const rest = frac.slice(digits);
  const beyond = /[1-9]/.test(rest.slice(1));
  const lastOdd = Number(kept[kept.length - 1]) % 2 === 1;
  const up = rest[0]! > '5' || (rest[0] === '5' && (beyond || lastOdd));
  const text = (BigInt(kept) + (up ? 1n : 0n)).toString().padStart(digits + 1, '0');
  const value = Number(`${text.slice(0, text.length - digits)}.${text.slice(text.length - digits)}`);
  return x < 0 ? -value : value;
}

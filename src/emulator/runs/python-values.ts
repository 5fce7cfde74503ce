// Python value semantics the handlers rely on: truthiness and the few str() conversions Hermes applies.
import { PyFloat, pyFloatRepr, type PyDict, type PyValue } from '../wire/python-json.js';

export const isDict = (v: PyValue | undefined): v is PyDict => v instanceof Map;

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

/** Python str() of a JSON-decoded value (repr-style for containers). */
export function pyStr(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v instanceof PyFloat) return Number.isFinite(v.value) ? pyFloatRepr(v.value) : String(v.value).toLowerCase().replace('infinity', 'inf');
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
}

function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return pyStr(v);
}

/**
 * Python's round(x, digits) for floats: the exact binary value rounded half-to-even in decimal (0.0625 → 0.062),
 * unlike toFixed, which rounds ties up.
 */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
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

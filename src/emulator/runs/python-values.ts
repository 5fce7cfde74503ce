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

// Python value model for decoded JSON: ints vs floats, insertion-ordered dicts, and the decode error.

/** A Python float: always printed as a float (`1.0`), even when integral. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Insertion-ordered Python dict. Plain objects are never used: integer-like keys would reorder. */
export type PyDict = Map<string, PyValue>;

/**
 * A decoded Python JSON value. JS number: integral → int, otherwise (incl. NaN/±Infinity) → float.
 * bigint → int. PyFloat → float always.
 */
export type PyValue = null | boolean | string | number | bigint | PyFloat | PyValue[] | PyDict;

/** Any failure to parse/decode a JSON request body (Python raises JSONDecodeError / ValueError there). */
export class PyJsonError extends Error {
  override name = 'PyJsonError';
}

/**
 * Python's json.JSONDecodeError: the text is not a JSON document. The other PyJsonErrors of json.loads are what Python
 * raises past its limits (RecursionError for deep nesting, ValueError for an int of over 4300 digits), which callers
 * that catch only JSONDecodeError let through.
 */
export class PyJsonDecodeError extends PyJsonError {}

/** A deep copy (PyFloat, being immutable, is shared). */
export function clonePy<T extends PyValue>(value: T): T {
  const v: PyValue = value;
  if (v instanceof Map) {
    const out: PyDict = new Map();
    for (const [key, item] of v) out.set(key, clonePy(item));
    return out as T;
  }
  if (Array.isArray(v)) return v.map((item) => clonePy(item)) as T;
  return value;
}

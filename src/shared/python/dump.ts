// json.dumps in its three uses here: Hermes's wire bytes (defaults), the durable status snapshot (sorted, compact)
// and the idempotency fingerprint's canonical form (sorted, compact, ensure_ascii=False).
import { PyFloat, type PyValue } from './values.js';

// A small direct-mapped cache of recent float texts: a status polled again prints the same two floats every time
// (V8's own number-string cache served that when String() was used), while a stream's timestamps never repeat.
const CACHE_SIZE = 64;
const cachedNumbers = new Float64Array(CACHE_SIZE);
const cachedTexts: Array<string | undefined> = new Array(CACHE_SIZE).fill(undefined);
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/** Python repr(float), with json's spellings NaN / Infinity / -Infinity. */
export function pyFloatRepr(x: number): string {
  // Zero (±) and non-finite values have fixed texts; `===` cannot tell -0 from 0 or find NaN, so they skip the cache.
  if (x === 0 || x !== x || x === Infinity || x === -Infinity) return floatText(x);
  bits[0] = x;
  const slot = (words[0]! ^ words[1]!) & (CACHE_SIZE - 1);
  if (cachedNumbers[slot] === x) {
    const hit = cachedTexts[slot];
    if (hit !== undefined) return hit;
  }
  const text = floatText(x);
  cachedNumbers[slot] = x;
  cachedTexts[slot] = text;
  return text;
}

function floatText(x: number): string {
  if (x !== x) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = x < 0 ? -x : x;
  // Both JS and Python emit the shortest round-trip digits. In this range (decimal exponent -4..15)
  // Python uses fixed notation and so does JS's ToString, which only lacks the ".0" on integers.
  if (ax >= 1e-4 && ax < 1e16) {
    // JSON.stringify prints a finite number exactly as String() does (Number::toString), measured ~2x faster here.
    const s = JSON.stringify(x);
    return Number.isInteger(x) ? s + '.0' : s;
  }
  // Scientific: JS "1.5e+300" / "1e-5"; Python pads the exponent to at least two digits.
  const s = x.toExponential();
  const e = s.indexOf('e');
  const exp = s.slice(e + 2);
  return exp.length < 2 ? s.slice(0, e + 2) + '0' + exp : s;
}

function intRepr(x: number): string {
  // String() switches to exponent notation at 1e21; Python ints never do.
  return x < 1e21 && x > -1e21 ? String(x) : BigInt(x).toString();
}

function numberRepr(x: number): string {
  return Number.isInteger(x) ? intRepr(x) : pyFloatRepr(x);
}

// ensure_ascii=True: printable ASCII except " and \ passes through; everything else is escaped.
const ASCII_SAFE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// ensure_ascii=False: only ", \ and C0 controls are escaped (DEL, U+2028/2029 and non-ASCII stay raw).
const NEEDS_ESC = /["\\\x00-\x1f]/;

const SHORT_ESC: string[] = [];
for (let c = 0; c < 0x80; c++) {
  SHORT_ESC.push(c < 0x20 || c === 0x7f ? '\\u' + c.toString(16).padStart(4, '0') : String.fromCharCode(c));
}
SHORT_ESC[0x22] = '\\"';
SHORT_ESC[0x5c] = '\\\\';
SHORT_ESC[0x08] = '\\b';
SHORT_ESC[0x0c] = '\\f';
SHORT_ESC[0x0a] = '\\n';
SHORT_ESC[0x0d] = '\\r';
SHORT_ESC[0x09] = '\\t';

/** Python's encode_basestring_ascii. Escaping per UTF-16 unit yields exactly Python's surrogate-pair escapes. */
function strAscii(s: string): string {
  if (ASCII_SAFE.test(s)) return '"' + s + '"';
  let out = '"';
  let chunk = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue;
    if (i > chunk) out += s.slice(chunk, i);
    if (c < 0x80) out += SHORT_ESC[c]!;
    else if (c < 0x100) out += '\\u00' + c.toString(16);
    else if (c < 0x1000) out += '\\u0' + c.toString(16);
    else out += '\\u' + c.toString(16);
    chunk = i + 1;
  }
  if (n > chunk) out += s.slice(chunk);
  return out + '"';
}

/** Python's encode_basestring (ensure_ascii=False). */
function strRaw(s: string): string {
  if (!NEEDS_ESC.test(s)) return '"' + s + '"';
  let out = '"';
  let chunk = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    if (i > chunk) out += s.slice(chunk, i);
    out += SHORT_ESC[c]!;
    chunk = i + 1;
  }
  if (n > chunk) out += s.slice(chunk);
  return out + '"';
}

function unsupported(v: unknown): never {
  throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
}

/** How one json.dumps call is set up: separators, string escaping and key order. */
interface Style {
  readonly item: string;
  readonly str: (s: string) => string;
  /** A dict key as written, followed by the key separator. */
  readonly keyText: (k: string) => string;
  readonly sortKeys: boolean;
}

/**
 * keyText for a style: the few keys a stream repeats (`event`, `run_id`, `timestamp`, …) escaped once. Bounded: past
 * KEY_CACHE_MAX different keys, the rest are escaped each time.
 */
const KEY_CACHE_MAX = 512;
function keyTexts(str: (s: string) => string, sep: string): (k: string) => string {
  const cache = new Map<string, string>();
  return (k) => {
    let t = cache.get(k);
    if (t === undefined) {
      t = str(k) + sep;
      if (cache.size < KEY_CACHE_MAX && k.length <= 64) cache.set(k, t);
    }
    return t;
  };
}

/** json.dumps() defaults: what Hermes writes on the wire. */
const WIRE: Style = { item: ', ', str: strAscii, keyText: keyTexts(strAscii, ': '), sortKeys: false };
/** ensure_ascii=False with the default separators: the JSON Hermes's tools return (tools/registry.py tool_error). */
const UNICODE: Style = { item: ', ', str: strRaw, keyText: keyTexts(strRaw, ': '), sortKeys: false };
/** sort_keys=True, separators=(",", ":"): Hermes's durable status_json. */
const SORTED_COMPACT: Style = { item: ',', str: strAscii, keyText: keyTexts(strAscii, ':'), sortKeys: true };
/** The same with ensure_ascii=False: the idempotency fingerprint's canonical text. */
const CANONICAL: Style = { item: ',', str: strRaw, keyText: keyTexts(strRaw, ':'), sortKeys: true };

function encode(v: PyValue | PlainJson, style: Style): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return style.str(v);
    case 'number':
      return numberRepr(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
  }
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return '[]';
    let out = '[' + encode(v[0]!, style);
    for (let i = 1; i < n; i++) out += style.item + encode(v[i]!, style);
    return out + ']';
  }
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    // Index loops: this function is recursive and not inlined, so for-of would allocate an iterator result per key.
    const keys = style.sortKeys ? sortedKeys(v) : Array.from(v.keys());
    let out = '{' + style.keyText(keys[0]!) + encode(v.get(keys[0]!)!, style);
    for (let i = 1; i < keys.length; i++) out += style.item + style.keyText(keys[i]!) + encode(v.get(keys[i]!)!, style);
    return out + '}';
  }
  if (typeof v === 'object') return encodeObject(v as { [key: string]: PlainJson | undefined }, style);
  return unsupported(v);
}

/** A plain object as a dict in property order (undefined values left out, as a key that was never set). */
function encodeObject(o: { [key: string]: PlainJson | undefined }, style: Style): string {
  const keys = style.sortKeys ? Object.keys(o).sort(compareCodePoints) : Object.keys(o);
  let out = '';
  for (const k of keys) {
    const x = o[k];
    if (x !== undefined) out += (out ? style.item : '') + style.keyText(k) + encode(x, style);
  }
  return '{' + out + '}';
}

/** A dict's keys in code-point order. Dicts here are small: an insertion sort allocates nothing beyond the array. */
function sortedKeys(map: Map<string, PyValue>): string[] {
  const keys = Array.from(map.keys());
  const n = keys.length;
  if (n > 32) return keys.sort(compareCodePoints);
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && compareCodePoints(keys[j]!, k) > 0) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/**
 * JSON built from plain JS values, for writers that know their keys (state.db rows). Integral numbers print as ints.
 * Object keys keep JS property order, which puts integer-like keys first: use a PyDict when that matters.
 */
export type PlainJson = null | boolean | number | string | PlainJson[] | { [key: string]: PlainJson | undefined };

/** json.dumps(value) with all defaults: ", " / ": " separators, ensure_ascii=True, insertion order. */
export function dumps(value: PyValue | PlainJson): string {
  return encode(value, WIRE);
}

/** json.dumps(value, ensure_ascii=False): default separators, non-ASCII raw, insertion order. */
export function dumpsUnicode(value: PyValue | PlainJson): string {
  return encode(value, UNICODE);
}

/**
 * json.dumps(value, sort_keys=True, separators=(",", ":")): ASCII escapes, keys in code-point order at every
 * level — how Hermes writes status_json into the durable idempotency store (spec runs-api §12.4).
 */
export function dumpsSorted(value: PyValue): string {
  return encode(value, SORTED_COMPACT);
}

/**
 * Compare two strings by Unicode code point, like Python's str ordering. JS `<` compares UTF-16 units,
 * which puts astral characters (surrogate pairs) before U+E000..U+FFFF; Python puts them after.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const ua = a.charCodeAt(i);
  const ub = b.charCodeAt(i);
  if (ua < 0xd800 && ub < 0xd800) return ua - ub; // common case: no surrogates involved
  // If the shared previous unit is a high surrogate, the differing code point starts there.
  if (i > 0) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) {
      const ca = a.codePointAt(i - 1)!;
      const cb = b.codePointAt(i - 1)!;
      if (ca !== cb) return ca - cb;
      // Both are the same lone high surrogate: compare the code points that follow it.
    }
  }
  return a.codePointAt(i)! - b.codePointAt(i)!;
}

/** json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function canonicalDumps(value: PyValue): string {
  return encode(value, CANONICAL);
}

// Byte-exact reimplementation of CPython 3.11 `json` (loads / dumps / sort_keys canonical form) plus small str helpers.

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

// Python 3.11's recursion limit is 1000 and the request handler already sits some frames deep, so
// very deep nesting raises RecursionError (caught upstream as invalid JSON). We cut off at 900.
const MAX_DEPTH = 900;
// sys.get_int_max_str_digits() default (CVE-2020-10735): int('1'*4301) raises ValueError.
const MAX_INT_DIGITS = 4300;

// ---------------------------------------------------------------------------------------------
// Parsing (json.loads, strict=True)
// ---------------------------------------------------------------------------------------------

/** Python-style JSONDecodeError message: "msg: line L column C (char N)". */
function decodeError(msg: string, text: string, pos: number): PyJsonError {
  let line = 1;
  let lastNl = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    lastNl = i;
  }
  return new PyJsonError(`${msg}: line ${line} column ${pos - lastNl} (char ${pos})`);
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

class Parser {
  pos = 0;
  depth = 0;
  constructor(readonly text: string) {}

  /** JSON whitespace is only space, \t, \n, \r (Python's WHITESPACE regex). */
  skipWs(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 32 || c === 10 || c === 13 || c === 9) p++;
      else break;
    }
    this.pos = p;
  }

  /** Scan a string; `this.pos` is just past the opening quote. */
  parseString(): string {
    const t = this.text;
    const len = t.length;
    const begin = this.pos - 1;
    let p = this.pos;
    let chunkStart = p;
    let out = '';
    for (;;) {
      if (p >= len) throw decodeError('Unterminated string starting at', t, begin);
      const c = t.charCodeAt(p);
      if (c === 34) {
        // closing quote
        this.pos = p + 1;
        return out + t.slice(chunkStart, p);
      }
      if (c === 92) {
        out += t.slice(chunkStart, p);
        p++;
        if (p >= len) throw decodeError('Unterminated string starting at', t, begin);
        const e = t.charCodeAt(p);
        switch (e) {
          case 34: out += '"'; p++; break;
          case 92: out += '\\'; p++; break;
          case 47: out += '/'; p++; break;
          case 98: out += '\b'; p++; break;
          case 102: out += '\f'; p++; break;
          case 110: out += '\n'; p++; break;
          case 114: out += '\r'; p++; break;
          case 116: out += '\t'; p++; break;
          case 117: {
            const u = this.hex4(p + 1, p - 1);
            p += 5;
            // A high-surrogate escape immediately followed by a low-surrogate escape combines into one
            // code point; a lone surrogate escape is kept as-is (no error), exactly like CPython.
            if (u >= 0xd800 && u <= 0xdbff && t.charCodeAt(p) === 92 && t.charCodeAt(p + 1) === 117) {
              const u2 = this.hex4(p + 2, p);
              if (u2 >= 0xdc00 && u2 <= 0xdfff) {
                out += String.fromCharCode(u, u2);
                p += 6;
                break;
              }
            }
            out += String.fromCharCode(u);
            break;
          }
          default:
            throw decodeError('Invalid \\escape', t, p - 1);
        }
        chunkStart = p;
        continue;
      }
      if (c < 0x20) throw decodeError('Invalid control character at', t, p);
      p++;
    }
  }

  hex4(at: number, escPos: number): number {
    const t = this.text;
    if (at + 4 > t.length) throw decodeError('Invalid \\uXXXX escape', t, escPos + 1);
    const a = hexVal(t.charCodeAt(at));
    const b = hexVal(t.charCodeAt(at + 1));
    const c = hexVal(t.charCodeAt(at + 2));
    const d = hexVal(t.charCodeAt(at + 3));
    if ((a | b | c | d) < 0) throw decodeError('Invalid \\uXXXX escape', t, escPos + 1);
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  /** Number lexeme `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`; int unless it has a fraction or exponent. */
  parseNumber(): PyValue {
    const t = this.text;
    const start = this.pos;
    let p = start;
    let c = t.charCodeAt(p);
    if (c === 45) c = t.charCodeAt(++p);
    if (c === 48) {
      c = t.charCodeAt(++p);
    } else if (c >= 49 && c <= 57) {
      do c = t.charCodeAt(++p);
      while (c >= 48 && c <= 57);
    } else {
      throw decodeError('Expecting value', t, start);
    }
    const intEnd = p;
    let isFloat = false;
    if (c === 46) {
      const d = t.charCodeAt(p + 1);
      if (d >= 48 && d <= 57) {
        isFloat = true;
        p += 2;
        while ((c = t.charCodeAt(p)) >= 48 && c <= 57) p++;
      }
    }
    if (c === 101 || c === 69) {
      let q = p + 1;
      const s = t.charCodeAt(q);
      if (s === 43 || s === 45) q++;
      const d = t.charCodeAt(q);
      if (d >= 48 && d <= 57) {
        isFloat = true;
        q++;
        while ((c = t.charCodeAt(q)) >= 48 && c <= 57) q++;
        p = q;
      }
    }
    this.pos = p;
    const lex = t.slice(start, p);
    if (isFloat) return new PyFloat(Number(lex));
    if (p - start <= 15) {
      const n = Number(lex);
      return n === 0 ? 0 : n; // "-0" is int 0
    }
    if (intEnd - start - (t.charCodeAt(start) === 45 ? 1 : 0) > MAX_INT_DIGITS) {
      throw new PyJsonError(
        `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string conversion`,
      );
    }
    const n = Number(lex);
    return Number.isSafeInteger(n) ? n : BigInt(lex);
  }

  parseValue(): PyValue {
    const t = this.text;
    const p = this.pos;
    const c = t.charCodeAt(p);
    switch (c) {
      case 34:
        this.pos = p + 1;
        return this.parseString();
      case 123:
        return this.parseObject();
      case 91:
        return this.parseArray();
      case 110:
        if (t.startsWith('null', p)) { this.pos = p + 4; return null; }
        break;
      case 116:
        if (t.startsWith('true', p)) { this.pos = p + 4; return true; }
        break;
      case 102:
        if (t.startsWith('false', p)) { this.pos = p + 5; return false; }
        break;
      case 78:
        if (t.startsWith('NaN', p)) { this.pos = p + 3; return new PyFloat(NaN); }
        break;
      case 73:
        if (t.startsWith('Infinity', p)) { this.pos = p + 8; return new PyFloat(Infinity); }
        break;
      case 45:
        if (t.startsWith('-Infinity', p)) { this.pos = p + 9; return new PyFloat(-Infinity); }
        return this.parseNumber();
      default:
        if (c >= 48 && c <= 57) return this.parseNumber();
    }
    throw decodeError('Expecting value', t, p);
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) {
      throw new PyJsonError('maximum recursion depth exceeded while decoding a JSON document');
    }
  }

  parseObject(): PyDict {
    this.enter();
    const t = this.text;
    const obj: PyDict = new Map();
    this.pos++;
    this.skipWs();
    if (t.charCodeAt(this.pos) === 125) {
      this.pos++;
      this.depth--;
      return obj;
    }
    for (;;) {
      if (t.charCodeAt(this.pos) !== 34) {
        throw decodeError('Expecting property name enclosed in double quotes', t, this.pos);
      }
      this.pos++;
      const key = this.parseString();
      this.skipWs();
      if (t.charCodeAt(this.pos) !== 58) throw decodeError("Expecting ':' delimiter", t, this.pos);
      this.pos++;
      this.skipWs();
      // Map.set on an existing key keeps its first position and takes the new value (dict semantics).
      obj.set(key, this.parseValue());
      this.skipWs();
      const c = t.charCodeAt(this.pos);
      if (c === 125) {
        this.pos++;
        this.depth--;
        return obj;
      }
      if (c !== 44) throw decodeError("Expecting ',' delimiter", t, this.pos);
      this.pos++;
      this.skipWs();
    }
  }

  parseArray(): PyValue[] {
    this.enter();
    const t = this.text;
    const arr: PyValue[] = [];
    this.pos++;
    this.skipWs();
    if (t.charCodeAt(this.pos) === 93) {
      this.pos++;
      this.depth--;
      return arr;
    }
    for (;;) {
      arr.push(this.parseValue());
      this.skipWs();
      const c = t.charCodeAt(this.pos);
      if (c === 93) {
        this.pos++;
        this.depth--;
        return arr;
      }
      if (c !== 44) throw decodeError("Expecting ',' delimiter", t, this.pos);
      this.pos++;
      this.skipWs();
    }
  }
}

/** json.loads(text) with CPython 3.11 semantics (see module notes above). */
export function parsePyJson(text: string): PyValue {
  if (text.charCodeAt(0) === 0xfeff) {
    throw decodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', text, 0);
  }
  const p = new Parser(text);
  p.skipWs();
  const v = p.parseValue();
  p.skipWs();
  if (p.pos !== text.length) throw decodeError('Extra data', text, p.pos);
  return v;
}

// --- bytes → str, as aiohttp's request.text() does: bytes.decode(charset or "utf-8") (strict) ---

/** Python's encodings.normalize_encoding + lower(): runs of non-alphanumerics (except '.') → '_'. */
function normalizeCharset(cs: string): string {
  return cs.toLowerCase().replace(/[^a-z0-9.]+/g, '_').replace(/^_+|_+$/g, '');
}

const PY_CODECS: Record<string, string> = {};
for (const [codec, aliases] of [
  ['utf_8', 'utf_8 utf8 u8 utf cp65001 utf8_ucs2 utf8_ucs4'],
  ['utf_8_sig', 'utf_8_sig'],
  ['latin_1', 'latin_1 8859 cp819 csisolatin1 ibm819 iso8859 iso8859_1 iso_8859_1 iso_8859_1_1987 iso_ir_100 l1 latin latin1'],
  ['ascii', 'ascii 646 ansi_x3.4_1968 ansi_x3.4_1986 ansi_x3_4_1968 cp367 csascii ibm367 iso646_us iso_646.irv_1991 iso_ir_6 us us_ascii'],
  ['utf_16', 'utf_16 u16 utf16'],
  ['utf_16_le', 'utf_16_le utf_16le unicodelittleunmarked'],
  ['utf_16_be', 'utf_16_be utf_16be unicodebigunmarked'],
  ['cp1252', 'cp1252 1252 windows_1252'],
] as const) {
  for (const a of aliases.split(' ')) PY_CODECS[a] = codec;
}

// cp1252 bytes 0x80..0x9f (NUL marks the five undefined bytes).
const CP1252_HIGH =
  '\u20ac\0\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\0\u017d\0' +
  '\0\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\0\u017e\u0178';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function webDecode(label: string, bytes: Uint8Array, charset: string): string {
  let dec: TextDecoder;
  try {
    dec = new TextDecoder(label, { fatal: true, ignoreBOM: true });
  } catch {
    throw new PyJsonError(`unknown encoding: ${charset}`);
  }
  return dec.decode(bytes);
}

function decodeBytes(bytes: Uint8Array, charset: string): string {
  const codec = PY_CODECS[normalizeCharset(charset)];
  switch (codec) {
    case 'utf_8':
      return utf8Decoder.decode(bytes);
    case 'utf_8_sig':
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return utf8Decoder.decode(bytes);
    case 'latin_1': {
      let s = '';
      for (let i = 0; i < bytes.length; i += 8192) {
        s += String.fromCharCode(...bytes.subarray(i, i + 8192));
      }
      return s;
    }
    case 'ascii': {
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i]! > 0x7f) throw new PyJsonError(`'ascii' codec can't decode byte at position ${i}`);
      }
      return decodeBytes(bytes, 'latin_1');
    }
    case 'utf_16':
      // Python: BOM selects the byte order and is consumed; no BOM → native order (little-endian).
      if (bytes[0] === 0xfe && bytes[1] === 0xff) return webDecode('utf-16be', bytes.subarray(2), charset);
      if (bytes[0] === 0xff && bytes[1] === 0xfe) return webDecode('utf-16le', bytes.subarray(2), charset);
      return webDecode('utf-16le', bytes, charset);
    case 'utf_16_le':
      return webDecode('utf-16le', bytes, charset);
    case 'utf_16_be':
      return webDecode('utf-16be', bytes, charset);
    case 'cp1252': {
      // Node's TextDecoder treats windows-1252 as ISO-8859-1, so map 0x80-0x9f by hand; the five
      // bytes Python's cp1252 leaves undefined are decode errors.
      let s = '';
      for (let i = 0; i < bytes.length; i++) {
        const b = bytes[i]!;
        if (b < 0x80 || b > 0x9f) {
          s += String.fromCharCode(b);
          continue;
        }
        const c = CP1252_HIGH.charCodeAt(b - 0x80);
        if (c === 0) throw new PyJsonError(`'charmap' codec can't decode byte at position ${i}`);
        s += String.fromCharCode(c);
      }
      return s;
    }
    default:
      // Other codecs: best effort through the WHATWG decoder (label sets differ from Python's).
      return webDecode(charset.trim(), bytes, charset);
  }
}

/** aiohttp `await request.json()`: strict decode with the request charset (default utf-8), then json.loads. */
export function decodeAndParse(bytes: Uint8Array, charset?: string): PyValue {
  let text: string;
  try {
    text = charset ? decodeBytes(bytes, charset) : utf8Decoder.decode(bytes);
  } catch (e) {
    if (e instanceof PyJsonError) throw e;
    throw new PyJsonError(`cannot decode request body: ${(e as Error).message}`);
  }
  return parsePyJson(text);
}

// ---------------------------------------------------------------------------------------------
// Serialisation
// ---------------------------------------------------------------------------------------------

/** Python repr(float), with json's spellings NaN / Infinity / -Infinity. */
export function pyFloatRepr(x: number): string {
  if (x !== x) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = x < 0 ? -x : x;
  // Both JS and Python emit the shortest round-trip digits. In this range (decimal exponent -4..15)
  // Python uses fixed notation and so does JS's ToString, which only lacks the ".0" on integers.
  if (ax >= 1e-4 && ax < 1e16) {
    const s = String(x);
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

function dumpsInto(v: PyValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return strAscii(v);
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
    let out = '[' + dumpsInto(v[0]!);
    for (let i = 1; i < n; i++) out += ', ' + dumpsInto(v[i]!);
    return out + ']';
  }
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    let out = '{';
    let first = true;
    for (const [k, val] of v) {
      if (first) first = false;
      else out += ', ';
      out += strAscii(k) + ': ' + dumpsInto(val);
    }
    return out + '}';
  }
  return unsupported(v);
}

/** json.dumps(value) with all defaults: ", " / ": " separators, ensure_ascii=True, insertion order. */
export function dumps(value: PyValue): string {
  return dumpsInto(value);
}

/**
 * json.dumps(value, sort_keys=True, separators=(",", ":")): ASCII escapes, keys in code-point order at every
 * level — how Hermes writes status_json into the durable idempotency store (spec runs-api §12.4).
 */
export function dumpsSorted(value: PyValue): string {
  return sortedInto(value);
}

function sortedInto(v: PyValue): string {
  if (Array.isArray(v)) {
    const n = v.length;
    if (n === 0) return '[]';
    let out = '[' + sortedInto(v[0]!);
    for (let i = 1; i < n; i++) out += ',' + sortedInto(v[i]!);
    return out + ']';
  }
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const keys = Array.from(v.keys()).sort(compareCodePoints);
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (i > 0) out += ',';
      out += strAscii(k) + ':' + sortedInto(v.get(k)!);
    }
    return out + '}';
  }
  return dumpsInto(v);
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

function canonInto(v: PyValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return strRaw(v);
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
    let out = '[' + canonInto(v[0]!);
    for (let i = 1; i < n; i++) out += ',' + canonInto(v[i]!);
    return out + ']';
  }
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const keys = Array.from(v.keys()).sort(compareCodePoints);
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (i > 0) out += ',';
      out += strRaw(k) + ':' + canonInto(v.get(k)!);
    }
    return out + '}';
  }
  return unsupported(v);
}

/** json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function canonicalDumps(value: PyValue): string {
  return canonInto(value);
}

// ---------------------------------------------------------------------------------------------
// str helpers
// ---------------------------------------------------------------------------------------------

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

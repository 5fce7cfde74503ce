// json.loads with CPython 3.11 semantics (strict=True): numbers keep int/float, duplicate keys keep their first
// position with the last value, NaN/Infinity accepted, lone surrogate escapes kept.
import { MAX_INT_DIGITS } from './int.js';
import { PyFloat, PyJsonDecodeError, PyJsonError, type PyDict, type PyValue } from './values.js';

// Python 3.11's recursion limit is 1000 and the request handler already sits some frames deep, so
// very deep nesting raises RecursionError (caught upstream as invalid JSON). We cut off at 900.
const MAX_DEPTH = 900;

/** Python-style JSONDecodeError message: "msg: line L column C (char N)". */
function decodeError(msg: string, text: string, pos: number): PyJsonDecodeError {
  let line = 1;
  let lastNl = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    lastNl = i;
  }
  return new PyJsonDecodeError(`${msg}: line ${line} column ${pos - lastNl} (char ${pos})`);
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

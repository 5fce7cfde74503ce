// bytes → str as aiohttp's request.text() does (strict decode with the request charset), then json.loads.
import { PyJsonError, type PyValue } from './values.js';
import { parsePyJson } from './parse.js';

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
      // bytes Python's cp1252 leaves undefined are decode errors. Built 8192 characters at a time: a string grown by
      // one character at a time costs a node of 32 bytes for each until it is flattened (decision 0135).
      let s = '';
      const codes = new Uint16Array(Math.min(bytes.length, 8192));
      for (let i = 0; i < bytes.length; i += 8192) {
        const n = Math.min(8192, bytes.length - i);
        for (let j = 0; j < n; j++) {
          const b = bytes[i + j]!;
          const c = b < 0x80 || b > 0x9f ? b : CP1252_HIGH.charCodeAt(b - 0x80);
          if (c === 0 && b !== 0) throw new PyJsonError(`'charmap' codec can't decode byte at position ${i + j}`);
          codes[j] = c;
        }
        s += String.fromCharCode(...codes.subarray(0, n));
      }
      return s;
    }
    default:
      // Other codecs: best effort through the WHATWG decoder (label sets differ from Python's).
      return webDecode(charset.trim(), bytes, charset);
  }
}

/** aiohttp's `request.text()`: strict decode with the request charset (default utf-8); PyJsonError when it fails. */
export function decodeText(bytes: Uint8Array, charset?: string): string {
  try {
    return charset ? decodeBytes(bytes, charset) : utf8Decoder.decode(bytes);
  } catch (e) {
    if (e instanceof PyJsonError) throw e;
    throw new PyJsonError(`cannot decode request body: ${(e as Error).message}`);
  }
}

/** aiohttp `await request.json()`: strict decode with the request charset (default utf-8), then json.loads. */
export function decodeAndParse(bytes: Uint8Array, charset?: string): PyValue {
  return parsePyJson(decodeText(bytes, charset));
}

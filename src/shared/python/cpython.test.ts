// Every Python semantic Hermetic reimplements, checked against what CPython answered for the same input
// (cpython-vectors.json, made by scripts/python-vectors.py).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  canonicalDumps, dumps, dumpsSorted, parsePyJson, pyFloatStr, pyLen, pyRepr, pyRound, pyStr, pyStrip, pyStrRepr, pyTruthy,
} from './index.js';
import { pySplit } from './strings.js';
import { PRINTABLE_AFTER_UNICODE_14 } from './unicode-14.js';
import fc from 'fast-check';

interface Vectors {
  python: string;
  values: Array<{ json: string; str: string; repr: string; bool: boolean; dumps: string; dumps_sorted: string; canonical: string }>;
  strings: Array<{ s: string; strip: string; split: string[]; len: number; repr: string }>;
  floats: Array<{ x: string; repr: string; round3: string; round0: string }>;
  /** The code points str.isprintable() holds for, as [first, last] ranges. */
  printable: Array<[number, number]>;
}

const vectors = JSON.parse(readFileSync(new URL('./cpython-vectors.json', import.meta.url), 'utf8')) as Vectors;

test('the vectors were made by CPython 3.11', () => {
  assert.match(vectors.python, /^3\.11\./);
  assert.ok(vectors.values.length > 40 && vectors.strings.length > 10 && vectors.floats.length > 100);
});

for (const v of vectors.values) {
  test(`str, repr, bool and the three json.dumps styles of ${v.json}`, () => {
    const value = parsePyJson(v.json);
    assert.equal(pyStr(value), v.str, 'str()');
    assert.equal(pyRepr(value), v.repr, 'repr()');
    assert.equal(pyTruthy(value), v.bool, 'bool()');
    assert.equal(dumps(value), v.dumps, 'json.dumps()');
    assert.equal(dumpsSorted(value), v.dumps_sorted, 'sort_keys, compact');
    assert.equal(canonicalDumps(value), v.canonical, 'sort_keys, compact, ensure_ascii=False');
  });
}

test('str.strip(), str.split(), len() and repr() of strings with Python whitespace, surrogates and controls', () => {
  for (const s of vectors.strings) {
    assert.equal(pyStrip(s.s), s.strip, `strip ${JSON.stringify(s.s)}`);
    assert.deepEqual(pySplit(s.s), s.split, `split ${JSON.stringify(s.s)}`);
    assert.equal(pyLen(s.s), s.len, `len ${JSON.stringify(s.s)}`);
    assert.equal(pyStrRepr(s.s), s.repr, `repr ${JSON.stringify(s.s)}`);
  }
});

test('repr() of each code point alone escapes it exactly where CPython 3.11 finds it not printable (Unicode 14.0)', () => {
  const printable = new Uint8Array(0x110000);
  for (const [first, last] of vectors.printable) printable.fill(1, first, last + 1);
  const wrong: string[] = [];
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp === 0x22 || cp === 0x27 || cp === 0x5c) continue; // the quotes and the backslash: the vectors' strings
    const ch = String.fromCodePoint(cp);
    if ((pyStrRepr(ch) === `'${ch}'`) !== (printable[cp] === 1)) wrong.push(cp.toString(16));
  }
  assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} code points`);
});

test('float repr and round(x, 3) / round(x, 0) as CPython', () => {
  for (const f of vectors.floats) {
    const x = Number(f.x);
    assert.equal(pyFloatStr(x), f.repr, `repr ${f.x}`);
    assert.equal(pyFloatStr(pyRound(x, 3)), f.round3, `round(${f.x}, 3)`);
    assert.equal(pyFloatStr(pyRound(x, 0)), f.round0, `round(${f.x}, 0)`);
  }
});

test('plain JS objects dump as dicts in property order, undefined left out', () => {
  assert.equal(dumps({ a: [1, 'é', null], b: true, c: undefined }), '{"a": [1, "\\u00e9", null], "b": true}');
  assert.equal(dumps({ t: 1780000603.5, n: 3 }), '{"t": 1780000603.5, "n": 3}');
});

/** repr() of a str a character at a time, as the rule reads: the reference pyStrRepr's one scan must equal. */
function reprByChar(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const nonPrintable = new RegExp(`[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\p{Zs}${PRINTABLE_AFTER_UNICODE_14}]`, 'u');
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === ' ' || !nonPrintable.test(ch)) out += ch;
    else out += cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}

test('repr() of a str in one scan equals the character-at-a-time rule, over text of every kind of code point', () => {
  const interesting = fc.constantFrom('\\', "'", '"', ' ', '\n', '\r', '\t', '\x00', '\x7f', '\x85', '\xa0', '\xad', '\xe9', '\u2028', '\u200b', '\u3000', '\ud800', '\udfff', '\u{1f600}', '\u{e0001}', '\u{10ffff}');
  const any = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));
  fc.assert(fc.property(fc.string({ unit: fc.oneof(interesting, any, fc.constantFrom('a', 'b', 'z')) }), (s) => {
    assert.equal(pyStrRepr(s), reprByChar(s));
  }), { numRuns: 2000 });
});

// Tests for the CPython 3.11 json reimplementation; expected strings were verified against python3.11.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { seeded } from '../../../test/support/random.js';
import {
  canonicalDumps,
  decodeAndParse,
  dumps,
  dumpsSorted,
  dumpsUnicode,
  hasLoneSurrogate,
  parsePyJson,
  pyFloatRepr,
  PyFloat,
  PyJsonError,
  pyLen,
  pyStrip,
  type PyDict,
  type PyValue,
} from './index.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const dict = (entries: Array<[string, PyValue]>): PyDict => new Map(entries);

// ---------------------------------------------------------------------------------------------
// float repr
// ---------------------------------------------------------------------------------------------

test('pyFloatRepr matches Python repr(float)', () => {
  const cases: Array<[number, string]> = [
    [1.0, '1.0'],
    [100.0, '100.0'],
    [1e16, '1e+16'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [123456789012345680, '1.2345678901234568e+17'],
    [1789169800.8245838, '1789169800.8245838'],
    [-0.0, '-0.0'],
    [0, '0.0'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [0.1, '0.1'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e22, '1e+22'],
    [1e-7, '1e-07'],
    [1.5e300, '1.5e+300'],
    [2.5e-300, '2.5e-300'],
    [9999999999999998, '9999999999999998.0'],
    [1e15, '1000000000000000.0'],
    [123.456, '123.456'],
    [-2.5, '-2.5'],
  ];
  for (const [x, want] of cases) assert.equal(pyFloatRepr(x), want, `repr(${x})`);
});

test('pyFloatRepr uses json spellings for non-finite values', () => {
  assert.equal(pyFloatRepr(NaN), 'NaN');
  assert.equal(pyFloatRepr(Infinity), 'Infinity');
  assert.equal(pyFloatRepr(-Infinity), '-Infinity');
});

test('pyFloatRepr round-trips every double (property)', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true }), (x) => {
      const s = pyFloatRepr(x);
      assert.ok(Object.is(Number(s), x), `${x} -> ${s}`);
      assert.match(s, /^-?(Infinity|\d+\.\d+|\d(\.\d+)?e[+-]\d{2,3})$/);
    }),
    { numRuns: 2000 },
  );
});

// ---------------------------------------------------------------------------------------------
// dumps (json.dumps defaults)
// ---------------------------------------------------------------------------------------------

test('dumps uses Python default separators and ensure_ascii', () => {
  const v = dict([
    ['a', [1, new PyFloat(2.5), '\u00e9']],
    ['b', null],
  ]);
  assert.equal(dumps(v), '{"a": [1, 2.5, "\\u00e9"], "b": null}');
  assert.equal(dumps([[], new Map(), [new Map()]]), '[[], {}, [{}]]');
  assert.equal(dumps(dict([['run_id', 'run_x'], ['status', 'started'], ['replayed', false]])), '{"run_id": "run_x", "status": "started", "replayed": false}');
});

test('a dict key is written the same however often it comes back, in each style (keys are cached per style)', () => {
  const long = 'k'.repeat(100);
  const d = dict([['é', 1], ['"q"', 2], [long, 3], ['b', 4]]);
  for (let i = 0; i < 3; i++) {
    assert.equal(dumps(d), `{"\\u00e9": 1, "\\"q\\"": 2, "${long}": 3, "b": 4}`);
    assert.equal(dumpsSorted(d), `{"\\"q\\"":2,"b":4,"${long}":3,"\\u00e9":1}`);
    assert.equal(canonicalDumps(d), `{"\\"q\\"":2,"b":4,"${long}":3,"é":1}`);
  }
  // Many more keys than the cache holds: each still written exactly.
  const many = dict(Array.from({ length: 2000 }, (_, i) => [`key-${i}`, i]));
  assert.equal(dumps(many), JSON.stringify(Object.fromEntries(many)).replace(/,"/g, ', "').replace(/":/g, '": '));
});

test('dumps writes ints as ints and floats as floats', () => {
  assert.equal(dumps([1, -5, 0, -0, 1.5, new PyFloat(1), new PyFloat(-0), 10n ** 30n, 1e21]), '[1, -5, 0, 0, 1.5, 1.0, -0.0, 1000000000000000000000000000000, 1000000000000000000000]');
  assert.equal(dumps([NaN, Infinity, -Infinity, true, false, null]), '[NaN, Infinity, -Infinity, true, false, null]');
  assert.equal(dumps(dict([['created_at', new PyFloat(1789169800.8245838)], ['n', new PyFloat(100)]])), '{"created_at": 1789169800.8245838, "n": 100.0}');
});

test('dumps escapes like encode_basestring_ascii (DEL and everything non-ASCII escaped)', () => {
  const s = '"\\\n\r\t\b\f\u0000\u001f\u007f\u0080\u0100\u0fff\u1000\u2028\uffff/~ ';
  assert.equal(dumps(s), String.raw`"\"\\\n\r\t\b\f\u0000\u001f\u007f\u0080\u0100\u0fff\u1000\u2028\uffff/~ "`);
});

test('dumps writes astral characters as lowercase surrogate-pair escapes', () => {
  assert.equal(dumps('\u{1F600}'), String.raw`"\ud83d\ude00"`);
  assert.equal(dumps(dict([['k\u{1F600}', 'x']])), String.raw`{"k\ud83d\ude00": "x"}`);
});

test('dumps escapes a lone surrogate (Python can output it under ensure_ascii)', () => {
  assert.equal(dumps('a\ud800b'), String.raw`"a\ud800b"`);
  assert.equal(dumps('\udfff'), String.raw`"\udfff"`);
});

test('dumps keeps insertion order, including integer-like keys', () => {
  const v = parsePyJson('{"b":1,"1":2}');
  assert.equal(dumps(v), '{"b": 1, "1": 2}');
  assert.equal(dumps(parsePyJson('{"10":0,"2":0,"a":0,"0":0}')), '{"10": 0, "2": 0, "a": 0, "0": 0}');
});

// ---------------------------------------------------------------------------------------------
// dumpsUnicode (ensure_ascii=False, default separators): tools/registry.py tool_error
// ---------------------------------------------------------------------------------------------

test('dumpsUnicode keeps non-ASCII raw, escapes quotes, backslashes and C0 controls, keeps key order', () => {
  // python3.11: json.dumps({"error": "é \"x\" \\ \n\u2028", "a": [1, 2.5]}, ensure_ascii=False)
  const v = parsePyJson('{"error": "\u00e9 \\"x\\" \\\\ \\n\\u2028", "a": [1, 2.5]}');
  assert.equal(dumpsUnicode(v), '{"error": "\u00e9 \\"x\\" \\\\ \\n\u2028", "a": [1, 2.5]}');
});

// ---------------------------------------------------------------------------------------------
// canonicalDumps (sort_keys=True, separators=(",", ":"), ensure_ascii=False)
// ---------------------------------------------------------------------------------------------

test('canonicalDumps sorts keys recursively and uses compact separators', () => {
  const v = parsePyJson('{"b": {"z": 1, "a": [ {"y": 2, "x": 1.0} ]}, "a": null}');
  assert.equal(canonicalDumps(v), '{"a":null,"b":{"a":[{"x":1.0,"y":2}],"z":1}}');
});

test('canonicalDumps sorts keys by code point, not UTF-16 unit', () => {
  const v = dict([
    ['\u{1F600}', 1],
    ['\uffff', 2],
    ['\ue000', 3],
    ['z', 4],
    ['\u00e9', 5],
  ]);
  assert.equal(canonicalDumps(v), '{"z":4,"\u00e9":5,"\ue000":3,"\uffff":2,"\u{1F600}":1}');
});

test('canonicalDumps orders lone surrogates by their own code point (Python sorted())', () => {
  // Python: sorted(['\ud800', '\ue000', '\U0001f600', '\ud800A', '\ud800\ue000', '\uffff', 'z'])
  const keys = ['\u{1F600}', '\ud800\ue000', '\uffff', '\ud800A', 'z', '\ue000', '\ud800'];
  const order = Array.from((parsePyJson(canonicalDumps(new Map(keys.map((k) => [k, 0])))) as PyDict).keys());
  assert.deepEqual(order, ['z', '\ud800', '\ud800A', '\ud800\ue000', '\ue000', '\uffff', '\u{1F600}']);
});

test('canonicalDumps keeps non-ASCII, DEL and U+2028/2029 raw and escapes controls', () => {
  const s = '"\\\n\r\t\b\f\u0000\u001f\u007f\u0080\u0100\u2028\u2029\uffff\u{1F600}';
  assert.equal(canonicalDumps(s), '"\\"\\\\\\n\\r\\t\\b\\f\\u0000\\u001f\u007f\u0080\u0100\u2028\u2029\uffff\u{1F600}"');
});

test('canonicalDumps writes a lone surrogate raw (encoding it is what fails)', () => {
  assert.equal(canonicalDumps('\ud800'), '"\ud800"');
});

test('dumpsSorted is json.dumps(sort_keys=True, separators=(",", ":")): compact, ASCII escapes, code-point key order', () => {
  const v = parsePyJson(String.raw`{"b":{"z":[{"y":1,"x":2.0}],"a":"\u00e9"},"\ud83d\ude00":1,"\uffff":2,"a":null}`);
  assert.equal(dumpsSorted(v), String.raw`{"a":null,"b":{"a":"\u00e9","z":[{"x":2.0,"y":1}]},"\uffff":2,"\ud83d\ude00":1}`);
  assert.equal(dumpsSorted([]), '[]');
  assert.equal(dumpsSorted(new Map()), '{}');
});

// ---------------------------------------------------------------------------------------------
// parsePyJson (json.loads)
// ---------------------------------------------------------------------------------------------

test('parse distinguishes int and float lexemes', () => {
  assert.equal(parsePyJson('1'), 1);
  assert.equal(parsePyJson('-0'), 0);
  assert.ok(!Object.is(parsePyJson('-0'), -0));
  assert.deepEqual(parsePyJson('1.0'), new PyFloat(1));
  assert.deepEqual(parsePyJson('1e2'), new PyFloat(100));
  assert.deepEqual(parsePyJson('1E+2'), new PyFloat(100));
  assert.deepEqual(parsePyJson('2.5e-3'), new PyFloat(0.0025));
  assert.deepEqual(parsePyJson('1e400'), new PyFloat(Infinity));
  assert.deepEqual(parsePyJson('-1e400'), new PyFloat(-Infinity));
  const negZero = parsePyJson('-0.0');
  assert.ok(negZero instanceof PyFloat && Object.is(negZero.value, -0));
});

test('parse keeps big ints exact', () => {
  assert.equal(parsePyJson('12345678901234567890123'), 12345678901234567890123n);
  assert.equal(parsePyJson('9007199254740991'), 9007199254740991);
  assert.equal(parsePyJson('9007199254740992'), 9007199254740992n);
  assert.equal(parsePyJson('-9007199254740993'), -9007199254740993n);
  assert.equal(dumps(parsePyJson('[-12345678901234567890123]')), '[-12345678901234567890123]');
  assert.equal(parsePyJson('1'.repeat(4300)), BigInt('1'.repeat(4300)));
});

test('parse rejects ints longer than 4300 digits (Python int max str digits)', () => {
  assert.throws(() => parsePyJson('1'.repeat(4301)), PyJsonError);
  assert.throws(() => parsePyJson('-' + '1'.repeat(4301)), PyJsonError);
  // floats are not limited
  assert.deepEqual(parsePyJson('1'.repeat(5000) + '.0'), new PyFloat(Infinity));
});

test('parse accepts NaN, Infinity and -Infinity literals', () => {
  const v = parsePyJson('[NaN, Infinity, -Infinity]') as PyValue[];
  assert.ok(v[0] instanceof PyFloat && Number.isNaN(v[0].value));
  assert.deepEqual(v.slice(1), [new PyFloat(Infinity), new PyFloat(-Infinity)]);
  assert.equal(dumps(v), '[NaN, Infinity, -Infinity]');
});

test('parse decodes escapes and combines surrogate-pair escapes', () => {
  assert.equal(parsePyJson(String.raw`"\" \\ \/ \b \f \n \r \t \u00e9 \u00E9"`), '" \\ / \b \f \n \r \t \u00e9 \u00e9');
  assert.equal(parsePyJson(String.raw`"\ud83d\ude00"`), '\u{1F600}');
  assert.equal(parsePyJson('"\u007f\u2028"'), '\u007f\u2028');
});

test('parse keeps a lone surrogate escape without error', () => {
  assert.equal(parsePyJson(String.raw`"\ud800"`), '\ud800');
  assert.equal(parsePyJson(String.raw`"\ud800x"`), '\ud800x');
  assert.equal(parsePyJson(String.raw`"\ud800\u0041"`), '\ud800A');
  assert.equal(parsePyJson(String.raw`"\udc00\ud800"`), '\udc00\ud800');
});

test('parse: duplicate keys keep the first position and the last value', () => {
  const v = parsePyJson('{"a":1,"b":2,"a":3}') as PyDict;
  assert.deepEqual(Array.from(v.entries()), [['a', 3], ['b', 2]]);
  assert.equal(dumps(v), '{"a": 3, "b": 2}');
});

test('parse returns insertion-ordered Maps even for integer-like keys', () => {
  const v = parsePyJson('{"b":1,"1":2}');
  assert.ok(v instanceof Map);
  assert.deepEqual(Array.from(v.keys()), ['b', '1']);
});

test('parse allows only space, tab, CR, LF as whitespace', () => {
  assert.deepEqual(parsePyJson(' \t\r\n{ "a" :\n[ 1 , 2 ]\t}\r\n'), dict([['a', [1, 2]]]));
  for (const ws of ['\f', '\v', '\u00a0', '\u2028', '\ufeff']) {
    assert.throws(() => parsePyJson(`[1,${ws}2]`), PyJsonError, JSON.stringify(ws));
  }
});

test('parse errors are PyJsonError', () => {
  const bad = [
    '',
    '   ',
    '\ufeff{}',
    '"a\u0001"',
    '"tab\there"',
    '{"a":1} x',
    '[1]]',
    '[1,]',
    '{"a":1,}',
    '{"a" 1}',
    "{'a':1}",
    '{a:1}',
    '[1 2]',
    '"abc',
    '"\\x"',
    '"\\u12"',
    '"\\u12g4"',
    '"\\ud800\\u12"',
    '01',
    '1.',
    '.5',
    '1e',
    '+1',
    '-',
    '-NaN',
    'nul',
    'True',
    'undefined',
    '[',
    '{',
    '{"a":',
  ];
  for (const text of bad) assert.throws(() => parsePyJson(text), PyJsonError, JSON.stringify(text));
});

test('parse error messages follow Python wording', () => {
  assert.throws(() => parsePyJson(''), { message: 'Expecting value: line 1 column 1 (char 0)' });
  assert.throws(() => parsePyJson('[1,]'), { message: 'Expecting value: line 1 column 4 (char 3)' });
  assert.throws(() => parsePyJson('{"a" 1}'), { message: "Expecting ':' delimiter: line 1 column 6 (char 5)" });
  assert.throws(() => parsePyJson('[1]x'), { message: 'Extra data: line 1 column 4 (char 3)' });
  assert.throws(() => parsePyJson('{\n"a":1,\n}'), { message: 'Expecting property name enclosed in double quotes: line 3 column 1 (char 9)' });
});

test('parse: nesting up to 900 levels works, deeper is a PyJsonError (not a stack overflow)', () => {
  assert.equal(dumps(parsePyJson('['.repeat(900) + ']'.repeat(900))), '['.repeat(900) + ']'.repeat(900));
  assert.throws(() => parsePyJson('['.repeat(901) + ']'.repeat(901)), PyJsonError);
  assert.throws(() => parsePyJson('{"a":'.repeat(901) + '1' + '}'.repeat(901)), PyJsonError);
  assert.throws(() => parsePyJson('['.repeat(100000)), PyJsonError);
});

// ---------------------------------------------------------------------------------------------
// decodeAndParse (aiohttp request.json())
// ---------------------------------------------------------------------------------------------

test('decodeAndParse decodes UTF-8 by default', () => {
  assert.deepEqual(decodeAndParse(utf8('{"input":"h\u00e9llo \u2603 \u{1F600}"}')), dict([['input', 'h\u00e9llo \u2603 \u{1F600}']]));
});

test('decodeAndParse rejects a UTF-8 BOM', () => {
  assert.throws(() => decodeAndParse(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), {
    name: 'PyJsonError',
    message: /Unexpected UTF-8 BOM/,
  });
  assert.throws(() => decodeAndParse(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'utf-8'), PyJsonError);
  // utf-8-sig is the codec that strips it
  assert.deepEqual(decodeAndParse(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'utf-8-sig'), new Map());
});

test('decodeAndParse rejects invalid UTF-8 (strict decode)', () => {
  const bad = [
    [0x22, 0xff, 0x22],
    [0x22, 0xc3, 0x22],
    [0x22, 0xed, 0xa0, 0x80, 0x22], // encoded surrogate
    [0x22, 0xc0, 0xaf, 0x22], // overlong
  ];
  for (const b of bad) assert.throws(() => decodeAndParse(new Uint8Array(b)), PyJsonError);
});

test('decodeAndParse rejects an empty body', () => {
  assert.throws(() => decodeAndParse(new Uint8Array(0)), PyJsonError);
});

test('decodeAndParse honours the request charset like Python codecs', () => {
  const body = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0xe9, 0x22, 0x7d]); // {"a":"<80><e9>"}
  assert.equal(dumps(decodeAndParse(body, 'ISO-8859-1')), String.raw`{"a": "\u0080\u00e9"}`);
  assert.equal(dumps(decodeAndParse(body, 'latin1')), String.raw`{"a": "\u0080\u00e9"}`);
  assert.equal(dumps(decodeAndParse(body, 'windows-1252')), String.raw`{"a": "\u20ac\u00e9"}`);
  assert.throws(() => decodeAndParse(body, 'us-ascii'), PyJsonError);
  assert.throws(() => decodeAndParse(new Uint8Array([0x22, 0x81, 0x22]), 'cp1252'), PyJsonError); // undefined in Python's cp1252
  assert.throws(() => decodeAndParse(body, 'utf-8'), PyJsonError);
  assert.deepEqual(decodeAndParse(new Uint8Array([0xff, 0xfe, 0x31, 0x00]), 'utf-16'), 1);
  assert.deepEqual(decodeAndParse(new Uint8Array([0xfe, 0xff, 0x00, 0x32]), 'UTF-16'), 2);
  assert.deepEqual(decodeAndParse(new Uint8Array([0x33, 0x00]), 'utf-16le'), 3);
});

test('decodeAndParse: unknown charset is a PyJsonError', () => {
  assert.throws(() => decodeAndParse(utf8('{}'), 'no-such-charset'), PyJsonError);
});

// ---------------------------------------------------------------------------------------------
// str helpers
// ---------------------------------------------------------------------------------------------

test('pyStrip strips Python whitespace (\\x85, \\xa0, \\x1c-\\x1f) but not U+FEFF or U+200B', () => {
  assert.equal(pyStrip(' \x85\xa0\x1c\x1f\u3000x\ufeff\u200b\x0b\x0c '), 'x\ufeff\u200b');
  assert.equal(pyStrip('\ufeffk\ufeff'), '\ufeffk\ufeff');
  assert.equal(pyStrip('\t k-1 \t'), 'k-1');
  assert.equal(pyStrip('\u2000\u200a\u2028\u2029\u202f\u205f\u1680'), '');
  assert.equal(pyStrip(''), '');
  assert.equal(pyStrip('abc'), 'abc');
});

test('pyLen counts code points', () => {
  assert.equal(pyLen(''), 0);
  assert.equal(pyLen('abc'), 3);
  assert.equal(pyLen('\u{1F600}'), 1);
  assert.equal(pyLen('a\u{1F600}b\u{10000}'), 4);
  assert.equal(pyLen('\ud800'), 1);
  assert.equal(pyLen('\udc00\ud800'), 2);
  assert.equal(pyLen('k'.repeat(255)), 255);
});

test('hasLoneSurrogate detects unpaired surrogates only', () => {
  assert.equal(hasLoneSurrogate('abc\u{1F600}'), false);
  assert.equal(hasLoneSurrogate(''), false);
  assert.equal(hasLoneSurrogate('\ud800'), true);
  assert.equal(hasLoneSurrogate('a\udc00'), true);
  assert.equal(hasLoneSurrogate('\udc00\ud800'), true);
  assert.equal(hasLoneSurrogate('\ud83d\ude00\ud83d'), true);
});

// ---------------------------------------------------------------------------------------------
// properties
// ---------------------------------------------------------------------------------------------


function shuffleKeys(v: PyValue, rnd: () => number): PyValue {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, rnd));
  if (v instanceof Map) {
    const entries = Array.from(v.entries());
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return new Map(entries.map(([k, x]) => [k, shuffleKeys(x, rnd)]));
  }
  return v;
}

/** Re-serialise with arbitrary JSON whitespace (only space, tab, CR, LF are legal). */
function spacedDumps(v: PyValue, rnd: () => number): string {
  const ws = () => ['', ' ', '\n', '\t', '\r\n  '][Math.floor(rnd() * 5)]!;
  if (Array.isArray(v)) return '[' + ws() + v.map((x) => spacedDumps(x, rnd)).join(ws() + ',' + ws()) + ws() + ']';
  if (v instanceof Map) {
    const parts = Array.from(v, ([k, x]) => dumps(k) + ws() + ':' + ws() + spacedDumps(x, rnd));
    return '{' + ws() + parts.join(',' + ws()) + ws() + '}';
  }
  return dumps(v);
}

test('property: canonicalDumps is stable under key-order permutation and whitespace changes', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer(), (v, seed) => {
      const rnd = seeded(seed);
      const parsed = parsePyJson(JSON.stringify(v));
      const canon = canonicalDumps(parsed);
      const variants = [
        JSON.stringify(v, null, 2),
        dumps(shuffleKeys(parsed, rnd)),
        spacedDumps(shuffleKeys(parsed, rnd), rnd),
      ];
      for (const text of variants) assert.equal(canonicalDumps(parsePyJson(text)), canon);
      // canonical output is itself parseable and a fixed point
      assert.equal(canonicalDumps(parsePyJson(canon)), canon);
    }),
    { numRuns: 300 },
  );
});

test('property: dumps output re-parses to an equal structure (same key order)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const parsed = parsePyJson(JSON.stringify(v));
      const text = dumps(parsed);
      assert.match(text, /^[\x20-\x7e]*$/); // ensure_ascii
      const again = parsePyJson(text);
      assert.deepStrictEqual(again, parsed);
      assert.equal(dumps(again), text);
    }),
    { numRuns: 300 },
  );
});

function toJs(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    // defineProperty: a "__proto__" key must become an own property, as JSON.parse makes it
    for (const [k, x] of v) Object.defineProperty(o, k, { value: toJs(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

test('property: parsePyJson agrees with JSON.parse on standard JSON', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v);
      assert.deepStrictEqual(toJs(parsePyJson(text)), JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

test('property: any UTF-16 string (even with lone surrogates) round-trips through dumps and canonicalDumps', () => {
  const unit16 = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
  const interesting = fc.constantFrom('\ud83d', '\ude00', '\u{1F600}', '"', '\\', '\n', '\u007f', '\u2028', 'a', '\u00e9');
  fc.assert(
    fc.property(fc.string({ unit: fc.oneof(unit16, interesting) }), (s) => {
      assert.equal(parsePyJson(dumps(s)), s);
      assert.equal(parsePyJson(canonicalDumps(s)), s);
      assert.equal(pyLen(s), Array.from(s).length);
    }),
    { numRuns: 1000 },
  );
});

test('property: canonical key order is code-point order', () => {
  const cmp = (a: string, b: string) => {
    const x = Array.from(a, (c) => c.codePointAt(0)!);
    const y = Array.from(b, (c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  fc.assert(
    fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 4 }), { maxLength: 12 }), (keys) => {
      const out = parsePyJson(canonicalDumps(new Map(keys.map((k) => [k, 0])))) as PyDict;
      assert.deepEqual(Array.from(out.keys()), [...keys].sort(cmp));
    }),
    { numRuns: 500 },
  );
});

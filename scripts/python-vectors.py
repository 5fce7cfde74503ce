"""Regenerates src/shared/python/cpython-vectors.json: what CPython itself answers for the Python semantics Hermetic
reimplements (str, repr, bool, json.dumps in Hermes's three styles, float repr, round, strip, split, len, and the
code points str.isprintable() holds for).
Run: python3 scripts/python-vectors.py  (the committed file was made with CPython 3.11)."""
import json, math, random, sys

VALUES = [
    'null', 'true', 'false', '0', '-0', '1', '-17', '12345678901234567890123', '1e400', '-1e400', '1.0', '-0.0', '0.5',
    '1e16', '1e15', '123456789012345678.0', '1e-4', '1e-5', '0.1', '2.5e-7', '1.7976931348623157e308', '5e-324',
    '1780000606.510776', '""', '"plain"', '"it\'s"', '"say \\"hi\\""', '"it\'s \\"both\\""', '"a\\nb\\tc\\r"',
    '"\\u0000\\u001f\\u007f\\u0080\\u009f\\u00a0\\u00ad"', '"\\u00e9\\u4e2d\\u2028\\u2029\\u200b\\ufeff"',
    '"\\ud83d\\ude00 \\ud800 \\udfff"', '"back\\\\slash"', '"\\u0085\\u3000\\u1680"', '"\\ue000\\uffff"',
    '[]', '{}', '[1, 2.0, "x", null, true]', '{"a": "it\'s"}', '{"b": 1, "a": [{"z": 0.1, "y": null}]}',
    '{"10": 1, "2": 2, "x": 3}', '{"\\u00e9": "\\u00e9", "\\ud83d\\ude00": 1, "\\uffff": 2}', '[["nested", ["deep"]], {}]',
    '{"k": "line\\nbreak", "q": "\\"\\u0027"}', '[NaN, Infinity, -Infinity]',
]
STRINGS = [
    '', ' ', '  x  ', '\t\n\x0b\x0c\r x \x1c\x1d\x1e\x1f', '\x85x\xa0', '\u1680\u2000\u200a x \u2028\u2029\u202f\u205f\u3000',
    '\ufeffx\ufeff', '\u200bx\u200b', '\u180ex', 'x\U0001F600', '\ud800x', 'a\udc00\ud800b', 'é', 'e\u0301',
    'fix   the\ttitle\x1eleak\n', ' a\x85b\u3000c ',
    # Assigned after Unicode 14.0, so unassigned (not printable) to CPython 3.11: emoji of 15.0-16.0 (🩷 🫨 🛜), a Kannada
    # sign, Kawi, a CJK extension I ideograph, a Unicode 16 symbol; beside emoji CPython 3.11 knows (decision 0150).
    'love \U0001FA77 \U0001FAE8 \U0001F6DC \u2764', '\u0cf3\U00011F04\U0002EBF0\U0001CC00\u31ef\u2427', 'it\'s \U0001FA77',
]
FLOATS = [0.0625, 0.125, 2.675, 1.0005, 0.0005, 1.2345, -1.2345, 123.4565, 1e-10, 0.1 + 0.2, 2.5, 3.5, 1e20, 5e-4]

def main():
    rng = random.Random(7)
    for _ in range(60):
        FLOATS.append(round(rng.uniform(-1000, 1000), rng.randint(1, 8)))
        FLOATS.append(rng.uniform(0, 10) ** rng.randint(-30, 30))
    values = []
    for text in VALUES:
        v = json.loads(text)
        values.append({
            'json': text, 'str': str(v), 'repr': repr(v), 'bool': bool(v), 'dumps': json.dumps(v),
            'dumps_sorted': json.dumps(v, sort_keys=True, separators=(',', ':')),
            'canonical': json.dumps(v, sort_keys=True, separators=(',', ':'), ensure_ascii=False),
        })
    strings = [{'s': s, 'strip': s.strip(), 'split': s.split(), 'len': len(s), 'repr': repr(s)} for s in STRINGS]
    floats = [{'x': repr(x), 'repr': repr(x), 'round3': repr(round(x, 3)), 'round0': repr(round(x, 0))}
              for x in FLOATS if math.isfinite(x)]
    # str.isprintable() over every code point, as [first, last] ranges where it holds: what repr() leaves unescaped.
    printable, start = [], None
    for cp in range(0x110001):
        if cp < 0x110000 and chr(cp).isprintable():
            start = cp if start is None else start
        elif start is not None:
            printable.append([start, cp - 1])
            start = None
    out = {'python': sys.version.split()[0], 'values': values, 'strings': strings, 'floats': floats, 'printable': printable}
    with open('src/shared/python/cpython-vectors.json', 'w') as f:
        json.dump(out, f, indent=1, ensure_ascii=True)
        f.write('\n')

main()

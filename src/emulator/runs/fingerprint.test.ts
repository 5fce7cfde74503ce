// Spec §12.2 fingerprint vectors (expected values produced by CPython 3.11 json + hashlib).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAndParse, PyFloat, type PyValue } from '../../shared/python/index.js';
import { canonicalFingerprintText, fingerprint, FingerprintError } from './fingerprint.js';

const GSK = 'agent:main:webui:dm:user-42';

// [request body as sent (UTF-8 bytes of this string), gateway session key, canonical text, sha256]
const VECTORS: Array<[string, string, string, string]> = [
  ['{"input":"hello"}', '', '{"body":{"input":"hello"},"gateway_session_key":""}', 'fa228531c70dbc02508c6e355de2a5f2ba59744744af6768154be97a7f49f2ef'],
  ['{"input": "hello"}', '', '{"body":{"input":"hello"},"gateway_session_key":""}', 'fa228531c70dbc02508c6e355de2a5f2ba59744744af6768154be97a7f49f2ef'],
  ['{"session_id":"s1","input":"hello"}', '', '{"body":{"input":"hello","session_id":"s1"},"gateway_session_key":""}', '233125d9246003f60dd00fff21246121f82d0b8d21c38db1b55097d51ce20658'],
  ['{"input":"hello"}', GSK, '{"body":{"input":"hello"},"gateway_session_key":"agent:main:webui:dm:user-42"}', '1c701647cfb6c50786e2576e8437e918f96f0d088d8ef1815b4aa3c792c6665a'],
  ['{"input":"hello","session_id":"s1"}', GSK, '{"body":{"input":"hello","session_id":"s1"},"gateway_session_key":"agent:main:webui:dm:user-42"}', 'd5d9c0bd2937800f67429d7fdaed476f01a53f9dbf822e81285cf67a9305e322'],
  ['{"input":"hello","n":1}', '', '{"body":{"input":"hello","n":1},"gateway_session_key":""}', 'bd4ee8b89c220e93b2b454e84dc5f18e5d66d1c73b18fa88cab8906c96907369'],
  ['{"input":"hello","n":1.0}', '', '{"body":{"input":"hello","n":1.0},"gateway_session_key":""}', '91fb2c0de708c5ece9647d88285eedc4ef86ef69b283f884c99c92d568a53df7'],
  ['{"input":"hello","n":1e2}', '', '{"body":{"input":"hello","n":100.0},"gateway_session_key":""}', '3f5c050571c4d516772a314461eaf281daefcfc9a2984afd1a2a571eef088d22'],
  ['{"input":"hello","n":1e16}', '', '{"body":{"input":"hello","n":1e+16},"gateway_session_key":""}', '21ef7037db68a8c10ed85304d8fa6b750f2ffcaaceacc11f6ce279ac9f748009'],
  ['{"input":"hello","n":0.00001}', '', '{"body":{"input":"hello","n":1e-05},"gateway_session_key":""}', 'e090fc8ace3e198c8851694f4cef534eafb4c937c957bf57780973163f0e7859'],
  ['{"input":"hello","n":-0.0}', '', '{"body":{"input":"hello","n":-0.0},"gateway_session_key":""}', '842b3cd4e1a0072ec470d8e5226d8e6143c69bf0a5be195944e7f4f618b743ba'],
  ['{"input":"hello","n":1e400}', '', '{"body":{"input":"hello","n":Infinity},"gateway_session_key":""}', '9386f3c9487c6074ff8cfaeef43e2493931da4bca388181f012423f57f57278c'],
  ['{"input":"hi","n":NaN}', '', '{"body":{"input":"hi","n":NaN},"gateway_session_key":""}', '4b11ec09ac647e13170638aee08b5fce9f938747ad2b252b31a9feebfbfba0b4'],
  ['{"input":"a","input":"b"}', '', '{"body":{"input":"b"},"gateway_session_key":""}', '74e57cbecc9fc846a316d637ef4a06d4997a63c28feac4ab7ff6e23dd09f0790'],
  ['{"input":"h\u00e9llo \u2603"}', '', '{"body":{"input":"h\u00e9llo \u2603"},"gateway_session_key":""}', 'd4e7dc6ab9137c8b16bdca3284c51c904cb2a39dfb876946d2b7e540a33738e5'],
  [
    String.raw`{"input":"x","\u00e9":1,"z":2,"\ud83d\ude00":3,"\uffff":4}`,
    '',
    '{"body":{"input":"x","z":2,"\u00e9":1,"\uffff":4,"\u{1F600}":3},"gateway_session_key":""}',
    '4caba7318ffac511842fcde7ff4777b89aa62441c75e15d31c373ad1bebef68d',
  ],
  [String.raw`{"input":"tab\there\n"}`, '', String.raw`{"body":{"input":"tab\there\n"},"gateway_session_key":""}`, '3468db88520dfdd6f0a39f0970ef19bc4482eff437bd5f8df4a869e95a4c5a0e'],
  [String.raw`{"input":"ctl\u0001"}`, '', String.raw`{"body":{"input":"ctl\u0001"},"gateway_session_key":""}`, 'd76e4e7ddd41228724973c0f44076fec9c655a9e31b7a3b6e676744a1d38a18a'],
  ['{"input":"hello","model":"hermes-agent"}', '', '{"body":{"input":"hello","model":"hermes-agent"},"gateway_session_key":""}', '79ed6b37357fda0256f2046d782f68c28c13c2c55cdef25f3a6fbe3d15e4e7ae'],
  ['{"input":[{"role":"user","content":"hi"}]}', '', '{"body":{"input":[{"content":"hi","role":"user"}]},"gateway_session_key":""}', '427461c026641845c0901d88969c51a98de94abf4b10128de3c990be5ae1709c'],
  ['{"input":"hello","flag":true,"none":null}', '', '{"body":{"flag":true,"input":"hello","none":null},"gateway_session_key":""}', '1a3acef95a46fd34a6efb96c1fddd9742a76eb9bda11961d46be965e18bb5d8b'],
  ['{"input":"hello","big":12345678901234567890123}', '', '{"body":{"big":12345678901234567890123,"input":"hello"},"gateway_session_key":""}', '083edcb643b77b688aa6f0b1defe04adc61b9b625245d30d02bf3796201510fc'],
  ['{"input":"hello","conversation_history":[]}', '', '{"body":{"conversation_history":[],"input":"hello"},"gateway_session_key":""}', '8272eb070ba323320409c7bda8da95a9c698ea537524ad99158179ac8b7bda12'],
  [
    '{"input":"Summarize the repo","session_id":"20260901_120000_abc123"}',
    '',
    '{"body":{"input":"Summarize the repo","session_id":"20260901_120000_abc123"},"gateway_session_key":""}',
    '64a7f7f5006c12b7b3da3fb810de82974190d6291eaa0cd33cd1dffd05135649',
  ],
];

for (const [body, gsk, canon, hash] of VECTORS) {
  test(`fingerprint vector §12.2: ${body}${gsk ? ` gsk=${gsk}` : ''}`, () => {
    const parsed = decodeAndParse(new TextEncoder().encode(body));
    assert.equal(canonicalFingerprintText(parsed, gsk), canon);
    assert.equal(fingerprint(parsed, gsk), hash);
  });
}

test('fingerprint is lowercase hex sha256', () => {
  assert.match(fingerprint(new Map([['input', 'hi']]), ''), /^[0-9a-f]{64}$/);
});

test('fingerprint distinguishes int 1 from float 1.0 and ignores key order', () => {
  const a = fingerprint(new Map<string, PyValue>([['n', 1], ['input', 'hello']]), '');
  const b = fingerprint(new Map<string, PyValue>([['input', 'hello'], ['n', new PyFloat(1)]]), '');
  assert.equal(a, 'bd4ee8b89c220e93b2b454e84dc5f18e5d66d1c73b18fa88cab8906c96907369');
  assert.equal(b, '91fb2c0de708c5ece9647d88285eedc4ef86ef69b283f884c99c92d568a53df7');
});

test('lone surrogate in the body cannot be encoded: FingerprintError (Python raises → 500)', () => {
  const parsed = decodeAndParse(new TextEncoder().encode(String.raw`{"input":"\ud800"}`));
  // The canonical text itself is still produced (json.dumps succeeds in Python) ...
  assert.equal(canonicalFingerprintText(parsed, ''), '{"body":{"input":"\ud800"},"gateway_session_key":""}');
  // ... but UTF-8 encoding it fails.
  assert.throws(() => fingerprint(parsed, ''), FingerprintError);
  assert.throws(() => fingerprint(new Map([['input', 'x\udc00y']]), ''), FingerprintError);
});

test('a surrogate pair escape is a valid astral character, not a lone surrogate', () => {
  const parsed = decodeAndParse(new TextEncoder().encode(String.raw`{"input":"\ud83d\ude00"}`));
  assert.equal(canonicalFingerprintText(parsed, ''), '{"body":{"input":"\u{1F600}"},"gateway_session_key":""}');
  assert.match(fingerprint(parsed, ''), /^[0-9a-f]{64}$/);
});

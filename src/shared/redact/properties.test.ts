// Property checks of the redactor with fast-check (idempotence is deliberately NOT among them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { redactSensitiveText } from './index.js';

const redact = (text: string): string => redactSensitiveText(text)!;

/** Every gate substring of spec redaction §1.3 (P1 literals, `=`, `:`, P8, P11, P13, `&`, `+`). */
const GATES = [
  'sk-', 'ghp_', 'github_pat_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'xapp-', 'xox', 'AIza', 'pplx-', 'fal_', 'fc-',
  'bb_live_', 'gAAAA', 'AKIA', 'sk_live_', 'sk_test_', 'rk_live_', 'SG', 'hf_', 'r8_', 'npm_', 'pypi-', 'dop_v1_',
  'doo_v1_', 'am_', 'sk_', 'tvly-', 'exa_', 'gsk_', 'syt_', 'retaindb_', 'hsk-', 'mem0_', 'brv_', 'xai-', 'ntn_',
  'fw-', 'fw_', 'fpk_', 'glpat-', 'gloas-', 'gldt-', 'glrt-', 'glrtr-', 'glcbt-', 'glptt-', 'glft-', 'glimt-',
  'glagent-', 'glsoat-', 'glffct-', 'glwt-', 'GR1348941', 'pk-lf-',
  '=', ':', 'uthorization', 'UTHORIZATION', 'BEGIN', 'eyJ', '&', '+',
];
const tripsNoGate = (s: string) => !GATES.some((g) => s.includes(g));

/** Near misses next to arbitrary Unicode, so the filter leaves interesting text behind. */
const nearMiss = fc.constantFrom(
  'sk', 'ghp', 'AKI', 'eyj', 'token', 'password', 'API_KEY', 'Bearer abcdefghijklmnopqrstuvwxyz', 'authorization',
  'x-api-key', 'postgres//u', 'BEGI', '-----', '@', '\n', '\u200b', ' ', 'S G', 'Run not found', '404',
);

test('text that contains no gate substring comes back unchanged', () => {
  const text = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), nearMiss), { maxLength: 12 }).map((a) => a.join(''));
  fc.assert(
    fc.property(text.filter(tripsNoGate), (s) => {
      assert.equal(redact(s), s);
    }),
    { numRuns: 3000 },
  );
});

/** Some P1 families as [prefix, body characters, minimum body length] (spec redaction §1.3 P1). */
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const FAMILIES: Array<[string, string, number]> = [
  ['sk-', `${ALNUM}_-`, 10], ['sk-proj-', `${ALNUM}_-`, 10], ['ghp_', ALNUM, 10], ['github_pat_', `${ALNUM}_`, 10],
  ['xoxb-', `${ALNUM}-`, 10], ['AIza', `${ALNUM}_-`, 30], ['gAAAA', `${ALNUM}_=-`, 20], ['hf_', ALNUM, 10],
  ['glrt-', `${ALNUM}_.-`, 10], ['pk-lf-', `${ALNUM}-`, 8], ['xai-', ALNUM, 30], ['GR1348941', `${ALNUM}_-`, 10],
];

/** A vendor token of at least 18 characters. */
const vendorToken = fc.constantFrom(...FAMILIES).chain(([prefix, chars, min]) =>
  fc
    .string({ unit: fc.constantFrom(...chars), minLength: Math.max(min, 18 - prefix.length), maxLength: 40 })
    .map((body) => prefix + body),
);
const akia = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: 16, maxLength: 16 }).map((b) => `AKIA${b}`);

/** Separators outside [A-Za-z0-9_.-], so each inserted token keeps its P1 boundaries. */
const separator = fc.constantFrom(' ', '\n', '\t', ', ', '; ', '(', ')', '"', "'", ': ', '=', ' = ', '/', '@', '|', '\u200b');
const filler = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
  fc.constantFrom('API_KEY=', 'Authorization: Bearer', 'x-api-key:', 'https://', 'password=', '{"token":', 'export'),
);

test('no vendor token of 18+ characters survives unmasked', () => {
  const piece = fc.oneof(vendorToken, akia, filler);
  fc.assert(
    fc.property(fc.array(fc.tuple(piece, separator), { minLength: 1, maxLength: 8 }), (pairs) => {
      const input = pairs.map(([p, s]) => p + s).join('');
      const output = redact(input);
      for (const [p] of pairs) {
        const isToken = FAMILIES.some(([prefix]) => p.startsWith(prefix)) || /^AKIA[A-Z0-9]{16}$/u.test(p);
        if (isToken && p.length >= 18) assert.ok(!output.includes(p), `${JSON.stringify(p)} leaked from ${JSON.stringify(input)}`);
      }
    }),
    { numRuns: 3000 },
  );
});

test('without force, a disabled switch returns any text unchanged', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
      assert.equal(redactSensitiveText(s, { force: false, enabled: false }), s);
    }),
  );
});

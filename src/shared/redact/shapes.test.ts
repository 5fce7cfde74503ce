// P10 in one pass (maskTelegramTokens) finds exactly what Hermes's pattern finds (TELEGRAM under a global replace), over
// generated text rich in digits of every script, `bot`, `:` and token characters; and a long run of digits costs it
// one look, where the pattern backtracks over the run from each of its digits.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { seeded as random } from '../../../test/support/random.js';
import { maskTelegramTokens, TELEGRAM } from './shapes.js';

const reference = (text: string) => text.replace(TELEGRAM, (_m, bot: string | undefined, digits: string) => `${bot ?? ''}${digits}:***`);

const TOKEN = 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const PIECES = ['1', '2', '9', '0', '12345678', '1234567', '\u0663', '\u0663\u0663\u0663\u0663', '\u{1d7ce}', '\u{1d7ce}\u{1d7cf}',
  'bot', 'bo', 't', 'b', ':', ':', TOKEN, TOKEN.slice(0, 29), TOKEN.slice(0, 30), '-', '_', 'a', 'Z', ' ', '\n', 'é', '.', 'x',
  `:${TOKEN}`, `:${TOKEN}`, `:${TOKEN.slice(0, 29)}`, '12345678', 'bot1234', '5678', '12345678'];

it('finds what the pattern finds, on 20,000 generated texts', () => {
  const r = random(0x7e1e);
  let matched = 0;
  for (let i = 0; i < 20_000; i++) {
    const parts: string[] = [];
    for (let n = Math.floor(r() * 24); n > 0; n--) parts.push(PIECES[Math.floor(r() * PIECES.length)]!);
    const text = parts.join('');
    const want = reference(text);
    assert.equal(maskTelegramTokens(text), want, JSON.stringify(text));
    if (want !== text) matched++;
  }
  assert.ok(matched > 1000, `${matched} texts with a match`);
});

it('masks as Hermes does, next to each other and after a run of other digits', () => {
  const texts = [
    `bot123456789:${TOKEN}`,
    `bot123456789:${TOKEN}bot987654321:${TOKEN}`,
    `123456789:${TOKEN}:${TOKEN} 1234567:${TOKEN} \u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663:${TOKEN}`,
    `${'\u{1d7ce}'.repeat(7)}:${TOKEN} ${'\u{1d7ce}'.repeat(8)}:${TOKEN}`,
    `${'1'.repeat(5000)}:${TOKEN}`,
  ];
  for (const text of texts) assert.equal(maskTelegramTokens(text), reference(text), text.slice(0, 60));
  assert.equal(maskTelegramTokens(`bot123456789:${TOKEN}`), 'bot123456789:***');
});

it('looks at a long run of digits once (the pattern backtracks over it from each digit)', () => {
  // Not a timing assertion: the answer is checked; a run of a million digits took the pattern minutes.
  const text = `${'1'.repeat(1_000_000)}:x`;
  assert.equal(maskTelegramTokens(text), text);
  assert.equal(maskTelegramTokens(`${'1'.repeat(1_000_000)}:${TOKEN}`), `${'1'.repeat(1_000_000)}:***`);
});

// P4a without backtracking (`maskDottedAssignments`) finds exactly what Hermes's pattern finds (`CFG_DOTTED` under a
// global replace): the same matches, names, quotes and values, over generated text rich in key characters, dots,
// keywords, quotes, `=`, `&`, white space and the letters Python folds into `i`, `k` and `s`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { seeded as random } from '../../../test/support/random.js';
import { CFG_DOTTED, maskConfigAssignments, maskDottedAssignments } from './assignments.js';

/** Each match written out whole, so two scans that differ in any part of one differ in the text. */
const mark = (_match: string, name: string, quote: string, value: string) => `<${name}|${quote}|${value}>`;

const PIECES = ['a', 'Z', '0', '9', '_', '-', '.', '.', '=', '=', "'", '"', ' ', '\n', '\t', '&', '$', '{', '}', 'é', 'x',
  'pass', 'word', 'password', 'passwd', 'token', 'secret', 'api', 'key', 'api_key', 'apiKey', 'api.key', 'api key',
  'ap\u0131 key', ' key', 'ap', 'auth', 'credential', 'credent\u0130al', 'CREDENT\u0131AL', '\u0130', '\u0131', '\u212a', '\u017f',
  'spring.datasource', '.password'];

it('finds what the pattern finds, on 20,000 generated texts', () => {
  const r = random(0x5eed);
  let matched = 0;
  for (let i = 0; i < 20_000; i++) {
    const parts: string[] = [];
    for (let n = Math.floor(r() * 30); n > 0; n--) parts.push(PIECES[Math.floor(r() * PIECES.length)]!);
    const text = parts.join('');
    const want = text.replace(CFG_DOTTED, mark);
    assert.equal(maskDottedAssignments(text, mark), want, JSON.stringify(text));
    if (want !== text) matched++;
  }
  assert.ok(matched > 1000, `${matched} texts with a match`);
});

it('finds what the pattern finds around long runs, and masks as before', () => {
  const texts = [
    `x=1 ${'password.'.repeat(200)}`,
    `x=1 ${'password.'.repeat(200)}= `,
    `${'a.'.repeat(300)}token=${'v'.repeat(50)} b.secret='q w' c.auth="z"&d.api-key=1`,
    `spring.datasource.password=hunter2hunter2hunter2 ${'-'.repeat(500)}.passwd=x`,
    'a.password=b.token=c d.secret=e',
  ];
  for (const text of texts) assert.equal(maskDottedAssignments(text, mark), text.replace(CFG_DOTTED, mark), text.slice(0, 60));
  assert.equal(maskConfigAssignments('spring.datasource.password=hunter2secretvalue'), 'spring.datasource.password=hunter...alue');
});

// Where Python `re`/`str` and JavaScript disagree: each case checked against CPython 3.11 running spec §1.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redactSensitiveText, maskToken } from './index.js';
import { hasSecretKeyword } from './secret-keyword.js';
import { maskPythonReprFields } from './structured.js';

const redact = (text: string): string => redactSensitiveText(text)!;

describe('M (spec redaction §1.2)', () => {
  test('empty → ***, nothing visible → empty, < 18 → ***, else 6 + ... + 4', () => {
    assert.equal(maskToken(''), '***');
    assert.equal(maskToken('\u200b\u0000'), '');
    assert.equal(maskToken('a'.repeat(17)), '***');
    assert.equal(maskToken('abcdefghijklmnopqr'), 'abcdef...opqr');
  });

  test('lengths are code points: an astral character counts once', () => {
    assert.equal(maskToken('😀'.repeat(17)), '***'); // 34 UTF-16 units, 17 code points
    assert.equal(maskToken('😀'.repeat(18)), `${'😀'.repeat(6)}...${'😀'.repeat(4)}`);
    assert.equal(redact(`said x-api-key: ${'😀'.repeat(17)}`), 'said x-api-key: ***');
    assert.equal(redact(`said x-api-key: ${'😀'.repeat(18)}`), `said x-api-key: ${'😀'.repeat(6)}...${'😀'.repeat(4)}`);
  });

  test('display controls are removed before measuring (U+0080 here; `://` keeps P3 from re-masking)', () => {
    assert.equal(redact('see https://x.io API_KEY=abc\u0080defghijklmnopqrstu'), 'see https://x.io API_KEY=abcdef...rstu');
  });
});

describe('P1a control-split tokens (spec redaction §1.3)', () => {
  test('a ZWSP, ESC or U+2028 inside a token is joined and the joined token masked', () => {
    assert.equal(redact('ghp_abc\u200bdefghijklmnop'), 'ghp_ab...mnop');
    assert.equal(redact('key sk-abc\u001bdefghijklmnopq end'), 'key sk-abc...nopq end');
    assert.equal(redact('key ghp_abc\u2028defghijklmnop end'), 'key ghp_ab...mnop end');
  });

  test('a LF split is joined when no fragment matches on its own (the LF is consumed)', () => {
    assert.equal(redact('ghp_abc\ndefghijklmnop'), 'ghp_ab...mnop');
  });

  test('a LF split whose fragment already matches is left to P1, so the next line survives', () => {
    assert.equal(redact('ghp_abcdefghijklmnop\nbutton'), 'ghp_ab...mnop\nbutton');
  });

  test('a joined span followed by `=` is kept', () => {
    assert.equal(redact('ghp_abc\u200bdefghijklmnop=x'), 'ghp_abc\u200bdefghijklmnop=x');
  });

  test('a joined span holding a character outside [A-Za-z0-9_.-] (here `=` in a gAAAA body) is kept', () => {
    assert.equal(redact('gAAAA\u200babcdefghij==klmnopqrst'), 'gAAAA\u200babcdefghij==klmnopqrst');
    assert.equal(redact('gAAAA\u200babcdefghijklmnopqrstuvw'), 'gAAAAa...tuvw');
  });

  test('the gate is checked on the original text: a split prefix never reaches P1a', () => {
    assert.equal(redact('s\u200bk-abcdefghijklmnopqrst'), 's\u200bk-abcdefghijklmnopqrst');
  });

  test('the SendGrid gate literal is `SG` (up to the escaped dot), so `SG·.…` is joined', () => {
    assert.equal(redact('SG\u200b.abcdefghijkl'), '***');
  });
});

describe('Python `\\s` is not JavaScript `\\s`', () => {
  test('U+001C ends a value (Python whitespace), U+FEFF does not', () => {
    assert.equal(redact('API_KEY=abc\u001cdef'), 'API_KEY=***\u001cdef');
    assert.equal(redact('API_KEY=abc\ufeffdef'), 'API_KEY=***');
  });

  test('P14 strips with str.strip(): U+3000 goes, U+FEFF stays', () => {
    assert.equal(redact('  \u3000token=abc&x=1\u3000'), 'token=***&x=1');
    assert.equal(redact('token=abc&x=1\ufeff'), 'token=***&x=1\ufeff');
  });
});

describe('Python MULTILINE `^` is only the start or just after LF', () => {
  test('P4b sees a line after LF but not after CR, U+2028 or U+0085', () => {
    assert.equal(redact('a\npassword=hunter2'), 'a\npassword=***');
    assert.equal(redact('a\rpassword=hunter2'), 'a\rpassword=hunter2');
    assert.equal(redact('a\u2028password=hunter2'), 'a\u2028password=hunter2');
    assert.equal(redact('\u0085password=hunter2'), '\u0085password=hunter2');
  });
});

describe('re.IGNORECASE folds K (U+212A), ſ (U+017F), İ (U+0130) and ı (U+0131)', () => {
  test('Kelvin sign in a header name (P9) and long s in an env name (P3)', () => {
    assert.equal(redact('said x-api-\u212aey: abcdefghijklmnopqrstuvwxyz'), 'said x-api-\u212aey: abcdef...wxyz');
    assert.equal(redact('note: \u017fecret_key=abcdefghijklmnopqrstuvwxyz here'), 'note: \u017fecret_key=abcdef...wxyz here');
  });

  test('dotless ı matches `i` in P8 once the case-sensitive gate is met elsewhere', () => {
    assert.equal(
      redact('Authorization ok; Proxy-Author\u0131zation: Basic abcdefghijklmnopqrstuvwxyz'),
      'Authorization ok; Proxy-Author\u0131zation: Basic abcdef...wxyz',
    );
  });

  test('the P8 gate itself is a literal: AUTHORİZATİON alone never runs P8', () => {
    const input = 'AUTHOR\u0130ZAT\u0130ON: Bearer abcdefghijklmnopqrstuvwxyz';
    assert.equal(redact(input), input);
  });

  test('rule K folds too, but its plural `s` is a plain s/S only', () => {
    assert.equal(hasSecretKeyword('\u017fecret_key'), true);
    assert.equal(hasSecretKeyword('MAX_TOKENS'), true);
    assert.equal(hasSecretKeyword('MAX_TOKEN\u017f'), false);
    assert.equal(hasSecretKeyword('APIToken'), true);
    assert.equal(hasSecretKeyword('clientSecret'), true);
    assert.equal(hasSecretKeyword('TOKENIZER'), false);
    assert.equal(hasSecretKeyword('PASSAGE'), false);
  });
});

describe('Python `\\d` is any Unicode decimal digit', () => {
  test('Arabic-Indic digits make a Telegram bot id (P10)', () => {
    assert.equal(
      redact('bot\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'),
      'bot\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668:***',
    );
  });

  test('astral mathematical digits make a phone number, sliced by code point (P15)', () => {
    const d = '\u{1d7cf}';
    assert.equal(redact(`call +1${d.repeat(7)} now`), `call +1${d.repeat(2)}****${d.repeat(4)} now`);
  });
});

// Decision 0108: Hermes's own agent/redact.py run on CPython 3.11 (Unicode 14.0) disagreed with
// Node's Unicode 17 tables only on code points assigned after Unicode 14.
describe('`\\d` and `\\w` follow CPython 3.11 (Unicode 14.0), not the Node runtime', () => {
  const outlined = '\u{1ccf1}'; // OUTLINED DIGIT ONE, Nd since Unicode 16.0
  const kawi = '\u{11f51}'; // KAWI DIGIT ONE, Nd since Unicode 15.0
  const token = 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

  test('digits added after Unicode 14 do not make a Telegram bot id (P10)', () => {
    for (const d of [outlined, kawi]) {
      const input = `bot${d.repeat(8)}:${token}`;
      assert.equal(redact(input), input);
    }
  });

  test('nor a phone number (P15), nor a Slack app token id (P1)', () => {
    assert.equal(redact(`call +1${kawi.repeat(9)} now`), `call +1${kawi.repeat(9)} now`);
    const app = `xapp-${outlined}-abcdefghijklmnop`;
    assert.equal(redact(`t ${app} x`), `t ${app} x`);
  });

  test('a letter added after Unicode 14 ends the P8 scheme word, so the credential is that word', () => {
    const newLetter = '\u{1e4d0}'; // NAG MUNDARI LETTER O, Lo since Unicode 15.0
    assert.equal(
      redact(`Authorization: Bx${newLetter}y abcdefghijklmnopqrstuvwxyz`),
      'Authorization: *** abcdefghijklmnopqrstuvwxyz',
    );
  });

  test('IGNORECASE leaves `\\w` alone: U+0345 (folds onto ι) is no word char, ƛ stays one though its new capital is not', () => {
    const tail = 'abcdefghijklmnopqrstuvwxyz';
    assert.equal(redact(`Authorization: Bearer\u0345 ${tail}`), `Authorization: *** ${tail}`);
    assert.equal(redact(`Authorization: B\ua7dc ${tail}`), `Authorization: *** ${tail}`); // Unicode 16
    assert.equal(redact(`Authorization: B\u019b ${tail}`), 'Authorization: B\u019b abcdef...wxyz');
  });
});

describe('P6 Python-repr pass (post-pin, not run by redactSensitiveText)', () => {
  test('str and bytes values, either quote, are fully masked; the separator is kept', () => {
    assert.equal(maskPythonReprFields("{'password' :  b\"x\\\"y\"}"), "{'password' :  b\"***\"}");
    assert.equal(maskPythonReprFields("kwargs={'env': {'sessionToken': 'abc'}}"), "kwargs={'env': {'sessionToken': '***'}}");
  });

  test('env lookups, values holding *** and sentinels are kept; metadata keys are kept', () => {
    for (const input of [
      "{'api_key': 'os.getenv(\"X\")'}",
      "{'Authorization': 'Digest ***'}",
      "{'token': '«redacted:ghp_…»'}",
      "{'PASSWORD_POLICY': 'strict'}",
    ]) {
      assert.equal(maskPythonReprFields(input), input);
    }
  });

  test('redactSensitiveText leaves a repr value that no other pass knows', () => {
    const input = "{'BRAVE_API_KEY': 'opaque-value'}";
    assert.equal(redact(input), input);
  });
});

// Spec redaction §6 vectors (#1–#65), the §2 double-redaction facts and the §1.1 entry behaviour.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maskPythonReprFields } from './structured.js';
import { redactSensitiveText, redactSwitch } from './index.js';

const redact = (text: string): string => redactSensitiveText(text)!;

/** [vector id, input, expected at the pin ('=' means unchanged), rule]. ⏎ = LF, · = U+200B. */
const VECTORS: Array<[string, string, string, string]> = [
  ['1', 'provider 401: key sk-proj-abcdefghijklmnop1234 rejected', 'provider 401: key sk-pro...1234 rejected', 'P1, ground truth'],
  ['2', "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz123456' x", "curl -H 'Authorization: Bearer ***' x", 'P1 then P8, ground truth'],
  ['3', 'find token ghp_abcdefghijklmnopqrstuvwxyz123456', 'find token ghp_ab...3456', 'P1, ground truth'],
  ['4', 'key sk-abcdefghij here', 'key *** here', '13-char token < 18'],
  ['5', 'key sk-abcdefghi here', '=', 'body 9 < 10'],
  ['6', 'risk-adjusted returns', '=', 'left boundary'],
  ['7', 'mysk-abcdefghijklmnopqrst', '=', 'left boundary'],
  ['8', 'sk-proj-abcdefghijklmnop1234.', 'sk-pro...1234.', 'dot ends the token'],
  ['9', 'aws AKIAIOSFODNN7EXAMPLE ok', 'aws AKIAIO...MPLE ok', 'P1 AKIA'],
  ['10', 'slack xoxb-123456789012-abcdefghijkl', 'slack xoxb-1...ijkl', 'P1 xox'],
  ['11', 'am_example_identifier_123', 'am_exa..._123', 'old AgentMail rule'],
  ['12', 'sk_hynix_chart.png', '***.png', 'sk_ rule'],
  ['13', 'ghp_abc\u200bdefghijklmnop', 'ghp_ab...mnop', 'P1a, ZWSP removed'],
  ['14', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz', 'Authorization: Bearer abcdef...wxyz', 'P8 head/tail'],
  ['15', 'Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic dXNlcj...ZA==', 'P8 Basic'],
  ['16', 'authorization: token123 trailing', 'authorization: token123 ***', 'scheme slot quirk'],
  ['17', 'Proxy-Authorization: Basic abc', 'Proxy-Authorization: Basic ***', 'P8 Proxy-'],
  ['18', 'Bearer abcdefghijklmnopqrstuvwxyz', '=', 'no header name at the pin'],
  ['19', "curl -H 'x-api-key: abcdef123' x", "curl -H 'x-api-key: *** x", 'P9 eats the quote'],
  ['20', 'upstream said x-api-key: abcdefghijklmnopqrstuvwxyz', 'upstream said x-api-key: abcdef...wxyz', 'P9'],
  ['21', 'x-api-key: abcdefghijklmnopqrstuvwxyz', 'x-api-key: ***', 'line start: P7 then P9'],
  ['22', 'OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234', 'OPENAI_API_KEY=***', 'P1 then P2'],
  ['23', 'OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz', 'OPENAI_API_KEY=***', 'P2 head/tail, P3 re-mask'],
  ['24', 'see https://x.io and OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz', 'see https://x.io and OPENAI_API_KEY=abcdef...wxyz', '`://` disables P3'],
  ['25', 'export GITHUB_TOKEN=abc', 'export GITHUB_TOKEN=***', 'P2'],
  ['26', 'MAX_TOKENS=4096', 'MAX_TOKENS=***', 'no value gating at the pin'],
  ['27', 'KEYBOARD=us', '=', 'rule K'],
  ['28', 'PWD=/home/u', '=', 'rule K'],
  ['29', 'DB_PW=hunter2', 'DB_PW=***', 'P2'],
  ['30', 'SSH_AUTH_SOCK=/tmp/agent.sock', 'SSH_AUTH_SOCK=***', 'no path exemption at the pin'],
  ['31', 'API_KEY="abc def"', 'API_KEY=*** def"', 'quote backtracking'],
  ['32', "API_KEY = 'secret123'", "API_KEY='***'", 'spaces dropped, quotes kept'],
  ['33', "API_KEY=os.getenv('X')", '=', 'env lookup'],
  ['34', 'api_key=abcdefghijklmnopqrstuvwxyz', 'api_key=***', 'P3 then P4b re-mask'],
  ['35', 'set api_key=abcdefghijklmnopqrstuvwxyz now', 'set api_key=abcdef...wxyz now', 'P3 only (not line start)'],
  ['36', 'my password=hunter2', '=', 'not anchored, no `_`'],
  ['37', 'password=hunter2', 'password=***', 'P4b'],
  ['38', 'token = abc', '=', 'P4 needs `=` right after the key'],
  ['39', 'spring.datasource.password=hunter2', 'spring.datasource.password=***', 'P4a'],
  ['40', '5|password=hunter2', '=', 'no gutter at the pin'],
  ['41', '{"password": "hunter2"}', '{"password": "***"}', 'P5'],
  ['42', '{"api_key":"abcdefghijklmnopqrstuvwxyz"}', '{"api_key": "abcdef...wxyz"}', 'P5, space inserted'],
  ['43', '{"token":"ghp_abcdefghijklmnopqrstuvwxyz123456"}', '{"token": "***"}', 'P1 then P5'],
  ['44', '{"tokens": "abc"}', '=', 'exact JSON key list'],
  // 45/46: P6 landed after the pin (decision 0012), so these are the spec's "without P6" outputs.
  ['45', "{'api_key': 'sk-proj-abcdefghijklmnop1234'}", "{'api_key': 'sk-pro...1234'}", 'P1 only; no P6 at the pin'],
  ['46', "{'BRAVE_API_KEY': 'opaque-value'}", '=', 'no P6 at the pin'],
  ['47', "{'TOKEN_COUNT': '12'}", '=', 'P6 key policy (and no P6)'],
  ['48', 'api_key: abc123', 'api_key: ***', 'P7'],
  ['49', 'password: "hunter2"', '=', 'P7 skips quoted values'],
  ['50', 'Secretary: J.Smith', '=', 'rule K'],
  ['51', 'error: token expired', '=', 'keyword not in key'],
  ['52', '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', '[REDACTED PRIVATE KEY]', 'P11'],
  ['53', 'postgres://admin:s3cr3t@db.example.com:5432/app', 'postgres://admin:***@db.example.com:5432/app', 'P12a'],
  ['54', 'https://user:pass@example.com/x', '=', 'web userinfo passes'],
  ['55', 'https://mysecrettoken123@github.com/o/r.git', 'https://***@github.com/o/r.git', 'P12b'],
  ['56', 'https://example.com/cb?code=abc123&state=xyz', '=', 'query strings pass'],
  ['57', 'code=abc123&state=xyz', 'code=***&state=xyz', 'P14'],
  ['58', '  token=abc&x=1  ', 'token=***&x=1', 'P4b then P14 strips'],
  ['59', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123def456', 'eyJhbG...f456', 'P13'],
  ['60', 'bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', 'bot123456789:***', 'P10'],
  ['61', 'call +15551234567 now', 'call +155****4567 now', 'P15'],
  ['62', '+1234567', '+1****67', 'P15 short form'],
  ['63a', '+15551234567x', '=', 'P15 lookahead'],
  ['63b', 'mail alice@example.com', '=', 'no e-mail rule'],
];

describe('spec redaction §6 vectors (force=True, single pass)', () => {
  for (const [id, input, expected, rule] of VECTORS) {
    test(`#${id} ${rule}: ${JSON.stringify(input)}`, () => {
      assert.equal(redact(input), expected === '=' ? input : expected);
    });
  }

  test('#64 404 envelope for GET /v1/runs/sk-proj-…: the message is redacted once', () => {
    // The module's part of #64: the envelope helper passes `Run not found: <id>` through once.
    assert.equal(redact('Run not found: sk-proj-abcdefghijklmnop1234'), 'Run not found: sk-pro...1234');
  });

  test('#65 provider-auth failures are NOT passed through the redactor (callers must not call it)', () => {
    // Hermes builds the run error as this prefix + str(exc) and never redacts it (§4); the raw key
    // reaches the client. Calling the redactor here would change the text, which Hermes does not do.
    const error = '\u26a0\ufe0f Provider authentication failed: no key sk-proj-abcdefghijklmnop1234';
    assert.equal(error, '⚠️ Provider authentication failed: no key sk-proj-abcdefghijklmnop1234');
    const wouldBe = redact(error);
    assert.notEqual(wouldBe, error);
    assert.equal(wouldBe, '⚠️ Provider authentication failed: no key sk-pro...1234');
  });

  test('#45–#47 with the post-pin P6 pass give the spec\'s P6 column', () => {
    // What a later build (P6 after P5, on the P1 output) would print; redactSensitiveText does not run it.
    assert.equal(maskPythonReprFields(redact("{'api_key': 'sk-proj-abcdefghijklmnop1234'}")), "{'api_key': '***'}");
    assert.equal(maskPythonReprFields("{'BRAVE_API_KEY': 'opaque-value'}"), "{'BRAVE_API_KEY': '***'}");
    assert.equal(maskPythonReprFields("{'TOKEN_COUNT': '12'}"), "{'TOKEN_COUNT': '12'}");
  });
});

describe('spec redaction §2: redacting twice', () => {
  test('vector 20 redacted twice (steer_failed) collapses the head/tail mask to ***', () => {
    const once = redact('upstream said x-api-key: abcdefghijklmnopqrstuvwxyz');
    assert.equal(redact(once), 'upstream said x-api-key: ***');
  });

  test('re-matchable masks (Bearer, P2 values) become *** on a second pass', () => {
    assert.equal(redact(redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz')), 'Authorization: Bearer ***');
    const p2 = 'see https://x.io and OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz';
    assert.equal(redact(redact(p2)), 'see https://x.io and OPENAI_API_KEY=***');
  });

  test('P1 and P13 masks are stable under a second pass', () => {
    for (const input of [
      'provider 401: key sk-proj-abcdefghijklmnop1234 rejected',
      'find token ghp_abcdefghijklmnopqrstuvwxyz123456',
      'aws AKIAIOSFODNN7EXAMPLE ok',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123def456',
    ]) {
      const once = redact(input);
      assert.notEqual(once, input);
      assert.equal(redact(once), once);
    }
    assert.equal(redact('sk-pro...1234'), 'sk-pro...1234');
    assert.equal(redact('eyJhbG...f456'), 'eyJhbG...f456');
  });

  test('idempotence is not a property of the redactor', () => {
    const input = 'upstream said x-api-key: abcdefghijklmnopqrstuvwxyz';
    assert.notEqual(redact(redact(input)), redact(input));
  });
});

describe('spec redaction §1.1: entry behaviour', () => {
  test('null stays null and the empty string stays empty', () => {
    assert.equal(redactSensitiveText(null), null);
    assert.equal(redactSensitiveText(null, { force: false, enabled: false }), null);
    assert.equal(redactSensitiveText(''), '');
  });

  test('force defaults to true and ignores the switch', () => {
    const input = 'key sk-proj-abcdefghijklmnop1234';
    assert.equal(redactSensitiveText(input, { enabled: false }), 'key sk-pro...1234');
    assert.equal(redactSensitiveText(input, { force: true, enabled: false }), 'key sk-pro...1234');
  });

  test('without force the switch decides; it defaults to on (HERMES_REDACT_SECRETS=true)', () => {
    const input = 'key sk-proj-abcdefghijklmnop1234';
    assert.equal(redactSensitiveText(input, { force: false }), 'key sk-pro...1234');
    assert.equal(redactSensitiveText(input, { force: false, enabled: true }), 'key sk-pro...1234');
    assert.equal(redactSensitiveText(input, { force: false, enabled: false }), input);
  });

  test('the switch is read as Hermes reads HERMES_REDACT_SECRETS: unset is on; 1, true, yes, on in any case are on; anything else is off', () => {
    assert.equal(redactSwitch(undefined), true);
    for (const on of ['1', 'true', 'TRUE', 'Yes', 'on', 'ON']) assert.equal(redactSwitch(on), true, on);
    for (const off of ['', '0', 'false', 'False', 'no', 'off', ' true', 'enabled']) assert.equal(redactSwitch(off), false, off);
  });

  test('non-strings are the caller\'s to convert with Python str(); the module refuses them', () => {
    // e.g. Hermes redacts str(KeyError('x')) == "'x'" and str(True) == 'True', which JS String() would not give.
    for (const value of [undefined, 42, true, { a: 1 }]) {
      assert.throws(() => redactSensitiveText(value as unknown as string), TypeError);
    }
    assert.equal(redact("'x'"), "'x'");
  });

  test('text that trips no gate is returned as the same string', () => {
    const input = 'Run not found: run_6f1c2a9e0b7d4c3a';
    assert.equal(redact(input), input);
  });
});

test('P1a masks every split token of a long text, each in its place (the edits are applied in one pass)', () => {
  const tokens = Array.from({ length: 3000 }, (_, i) => `ghp_abc\u200bdefghijklm${String(i).padStart(4, '0')}`);
  const text = tokens.map((t, i) => `${i}: ${t}`).join(' | ');
  const expected = tokens.map((t, i) => `${i}: ghp_ab...${String(i).padStart(4, '0')}`).join(' | ');
  assert.equal(redact(text), expected);
});

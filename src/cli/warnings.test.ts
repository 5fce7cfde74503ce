// Process warnings are one line each, once: the PostgreSQL driver's sslmode note in words a person can act on; its
// pgpass notice not at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warningText } from './warnings.js';

test('a warning is its first line (and its kind); the driver\'s sslmode note says what it means and what to add', () => {
  const security = new Error("SECURITY WARNING: The SSL modes 'prefer', 'require', and 'verify-ca' are treated as aliases for 'verify-full'.\nIn the next major version …");
  security.name = 'Warning';
  assert.match(warningText(security) ?? '', /^note: the PostgreSQL driver reads sslmode=require .* add uselibpqcompat=true to the URL/);
  const other = new Error('something odd\nmore lines');
  other.name = 'ExperimentalWarning';
  assert.equal(warningText(other), 'warning: something odd (ExperimentalWarning)');
});

test('the driver\'s notice that its next major version stops reading ~/.pgpass is not said: Hermetic reads the file a person keeps their password in', () => {
  const pgpass = new Error('pgpass support is deprecated and will be removed in pg@9.0. You can provide an async function as the password property to the Client/Pool constructor that returns a password instead. Within this function you can call the pgpass module in your own code.');
  pgpass.name = 'DeprecationWarning';
  assert.equal(warningText(pgpass), null);
});

// How Hermetic prints a URL it was given: the password hidden wherever it sits, the rest as written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hidePassword, hideSecrets } from './url-password.js';

test('the password in the user info or a password= parameter is ***; the rest of the URL is kept as written', () => {
  const cases: [string, string][] = [
    ['postgres://me:s3cret@db.example:5432/fleet?sslmode=require', 'postgres://me:***@db.example:5432/fleet?sslmode=require'],
    ['postgresql://hermes:s3cr%40t@DB.internal/hermes', 'postgresql://hermes:***@DB.internal/hermes'],
    // An unencoded @ in the password: the user info ends at the last @ before the path.
    ['postgres://me:p@ss@db/x', 'postgres://me:***@db/x'],
    ['otlp+http://user:token@collector:4318/v1', 'otlp+http://user:***@collector:4318/v1'],
    ['postgres://db/hermes?user=h&password=s3cret&sslmode=require', 'postgres://db/hermes?user=h&password=***&sslmode=require'],
    ['postgres://me@db/x', 'postgres://me@db/x'],
    ['postgres://db/x?q=a@b', 'postgres://db/x?q=a@b'],
    ['sqlite:///tmp/fleet.db', 'sqlite:///tmp/fleet.db'],
    ['not a url', 'not a url'],
    ['', ''],
  ];
  for (const [given, shown] of cases) assert.equal(hidePassword(given), shown, given);
});

test('hideSecrets also hides a URL inside a message, by Hermes\'s redactor', () => {
  const said = hideSecrets('could not connect to postgres://me:s3cret@db/x: ECONNREFUSED');
  assert.ok(!said.includes('s3cret'), said);
  assert.match(said, /ECONNREFUSED$/);
  assert.equal(hideSecrets('postgres://me:s3cret@db/x?password=other'), 'postgres://me:***@db/x?password=***');
});

test('a URL written without its scheme still has its password hidden', () => {
  assert.equal(hidePassword('u:TopSecretPw@host/db'), 'u:***@host/db');
  assert.equal(hidePassword('u:Top@Secret@host:5432/db?sslmode=require'), 'u:***@host:5432/db?sslmode=require');
  assert.equal(hidePassword('host/db'), 'host/db');
  assert.equal(hidePassword('localhost:5432/db'), 'localhost:5432/db');
});

// How Hermetic prints a URL it was given: the password hidden wherever it sits, the rest as written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hidePassword, hideSecrets, passwordMissing, userInfoProblem } from './url-password.js';

test('the password in the user info or a password= parameter is ***; the rest of the URL is kept as written', () => {
  const cases: [string, string][] = [
    ['postgres://me:s3cret@db.example:5432/fleet?sslmode=require', 'postgres://me:***@db.example:5432/fleet?sslmode=require'],
    ['postgresql://hermes:s3cr%40t@DB.internal/hermes', 'postgresql://hermes:***@DB.internal/hermes'],
    // An unencoded @ in the password: the user info ends at the last @ before the path.
    ['postgres://me:p@ss@db/x', 'postgres://me:***@db/x'],
    // An unencoded / (or / and @) in the password: hidden whole all the same.
    ['postgres://hermetic:p@ss/w@127.0.0.1:55433/fleet', 'postgres://hermetic:***@127.0.0.1:55433/fleet'],
    ['postgres://weird:p@ss:w/rd@127.0.0.1:55433/fleet?sslmode=require', 'postgres://weird:***@127.0.0.1:55433/fleet?sslmode=require'],
    ['otlp+http://user:Ab3/xYzSecretPart@127.0.0.1:4320', 'otlp+http://user:***@127.0.0.1:4320'],
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
  // An OTLP URL's user alone is a key; a PostgreSQL user alone is a name.
  assert.equal(hidePassword('otlp+https://k3y@otel.example.com/v1?x=1'), 'otlp+https://***@otel.example.com/v1?x=1');
  assert.equal(hidePassword('OTLP+HTTP-JSON://k3y@h:4318'), 'OTLP+HTTP-JSON://***@h:4318');
  assert.equal(hidePassword('otlp+http://h/a@b'), 'otlp+http://h/a@b');
  assert.equal(hidePassword('postgres://me@db/fleet'), 'postgres://me@db/fleet');
  assert.equal(hidePassword('localhost:5432/db'), 'localhost:5432/db');
});

test('a user info with an unencoded @ or / is named before anything connects; an encoded one is fine', () => {
  for (const url of ['postgres://me:p@ss@db/x', 'postgres://hermetic:p@ss/w@127.0.0.1:55433/fleet', 'otlp+http://user:Ab3/xYz@127.0.0.1:4320']) {
    assert.equal(userInfoProblem(url), 'its user or password holds an unencoded "@" or "/": write them as %40 and %2F', url);
  }
  for (const url of ['postgres://me:p%40ss%2Fw@db/x', 'postgres://me@db/x', 'postgres://db/x?q=a@b', 'otlp+http://collector:4318/v1', 'sqlite:///tmp/a@b.db', 'postgres://db/fleet']) {
    assert.equal(userInfoProblem(url), null, url);
  }
});

test('passwordMissing tells the driver\'s error for a server that asks a password none was given, and nothing else', () => {
  assert.equal(passwordMissing(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string')), true);
  assert.equal(passwordMissing(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a non-empty string')), true);
  assert.equal(passwordMissing(Object.assign(new Error('password authentication failed for user "me"'), { code: '28P01' })), false);
  assert.equal(passwordMissing(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: serverData must be a string')), false);
  assert.equal(passwordMissing(null), false);
  assert.equal(passwordMissing('client password must be a string'), false);
});

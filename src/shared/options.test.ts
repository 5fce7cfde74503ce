import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from './errors.js';
import { is, parseOptions } from './options.js';

const schema = { port: is.port, host: is.string, apiKey: is.nullable(is.string) };
const defaults = { port: 8642, host: '127.0.0.1', apiKey: null };

test('options fill defaults and come back frozen', () => {
  const o = parseOptions('server', { port: 1 }, schema, defaults);
  assert.deepEqual({ ...o }, { port: 1, host: '127.0.0.1', apiKey: null });
  assert.ok(Object.isFrozen(o));
});

test('an unknown option is refused with the closest known name', () => {
  assert.throws(
    () => parseOptions('server', { prot: 1 }, schema, defaults),
    (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_UNKNOWN' && e.message === 'Unknown server option "prot". Did you mean "port"?',
  );
});

test('a name every object inherits (constructor, toString) is an unknown option too, never silently dropped', () => {
  for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
    const input = JSON.parse(`{"${key}": 1}`) as Record<string, unknown>;
    assert.throws(
      () => parseOptions('server', input, schema, defaults),
      (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_UNKNOWN' && e.message.startsWith(`Unknown server option "${key}".`),
      key,
    );
  }
});

test('a wrongly typed option names the option, the expectation and the value', () => {
  assert.throws(
    () => parseOptions('server', { port: 70000 }, schema, defaults),
    (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_INVALID' && e.message === 'Option "port" must be a port number from 0 to 65535; got 70000.',
  );
});

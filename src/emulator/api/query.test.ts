import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from './query.js';

test('request.query.get as yarl reads it: + and %20 are spaces, first value wins, a bare name is empty', () => {
  const q = parseQuery('limit=200&title=Bot+Chat&include_hidden=1&title=Other&flag&e=%E2%82%AC&bad=%ZZ&broken=%E2%82');
  assert.equal(q('title'), 'Bot Chat');
  assert.equal(q('limit'), '200');
  assert.equal(q('flag'), '');
  assert.equal(q('e'), '€');
  assert.equal(q('bad'), '%ZZ');
  assert.equal(q('broken'), '\ufffd');
  assert.equal(q('missing'), undefined);
  assert.equal(parseQuery('title=Bot%20Chat')('title'), 'Bot Chat');
  assert.equal(parseQuery('a%2Bb=%2B')('a+b'), '+');
  assert.equal(parseQuery('')('x'), undefined);
  // unquote keeps U+FEFF: escapes spelling it are a character, not a byte-order mark (decision 0118).
  assert.equal(parseQuery('title=%EF%BB%BFBot+Chat')('title'), '\ufeffBot Chat');
  assert.equal(parseQuery('a=x%EF%BB%BF%EF%BB%BF')('a'), 'x\ufeff\ufeff');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GatewaySettings } from '../gateway.js';
import type { HttpRequest } from '../http.js';
import { authenticate, ownershipScope, roomGrantToken } from './auth.js';

const gateway = (apiKey: string | null): GatewaySettings => ({
  apiKey,
  draining: false,
  maxConcurrentRuns: 10,
  modelName: 'hermes-agent', agentModel: null,
  corsOrigins: [],
  profiles: new Map([['alice', { apiKey: 'alice-key-0123456789' }]]),
});

test('the ownership scope matches spec §3.2 example', () => {
  assert.equal(ownershipScope(gateway('test-key-0123456789abcdef'), null), '7a515106fa21baa138c5fa67685385cfa562d31861478c9ce8aec9178208cba7');
  assert.equal(ownershipScope(gateway('test-key-0123456789abcdef'), 'default'), '7a515106fa21baa138c5fa67685385cfa562d31861478c9ce8aec9178208cba7');
});

test('profiles and the unauthenticated listener have their own scopes', () => {
  const g = gateway(null);
  assert.notEqual(ownershipScope(g, 'alice'), ownershipScope(g, null));
  assert.match(ownershipScope(g, null), /^[0-9a-f]{64}$/);
});

const request = (authorization?: string): HttpRequest => ({
  method: 'GET',
  path: '/v1/models',
  query: '',
  header: (name) => (name === 'authorization' ? authorization : undefined),
  readBody: async () => new Uint8Array(0),
});

test('a HermesRoom header is a grant only where grants are taken (_check_run_auth); elsewhere it is no Bearer key (_check_auth)', () => {
  const keyed = gateway('test-key-0123456789abcdef');
  const room = request('HermesRoom grant.token');
  assert.equal(authenticate(room, keyed, null, true), 'room');
  assert.equal(authenticate(room, keyed, null, false), 'denied');
  // Hermes's test-only listener (no key at all) lets _check_auth through whatever the header; a grant route still checks the grant.
  assert.equal(authenticate(room, gateway(null), null, false), 'ok');
  assert.equal(authenticate(room, gateway(null), null, true), 'room');
  // A named profile without a key of its own fails closed either way.
  const keyless = { ...gateway(null), profiles: new Map([['bob', { apiKey: null }]]) };
  assert.equal(authenticate(room, keyless, 'bob', false), 'denied');
  assert.equal(authenticate(request(), keyless, 'bob', false), 'denied');
});

test('a room grant is what Hermes\'s _room_grant_token finds: HermesRoom in any case, a space, a token', () => {
  const keyed = gateway('test-key-0123456789abcdef');
  for (const header of ['HermesRoom grant.token', 'hermesroom grant.token', 'HERMESROOM  grant.token ', 'HermesRoom \tgrant.token']) {
    assert.equal(authenticate(request(header), keyed, null, true), 'room', header);
  }
  // No space after the scheme, nothing after it, or another scheme: not a grant, so the key is checked (and missing).
  for (const header of ['HermesRoom\tgrant.token', 'HermesRoom ', 'HermesRoom  \t', 'HermesRoom', 'HermesRooms grant.token', 'Bearer grant.token']) {
    assert.equal(authenticate(request(header), keyed, null, true), 'denied', header);
    // With no key configured at all, such a header passes as any other would.
    assert.equal(authenticate(request(header), gateway(null), null, true), 'ok', header);
  }
  assert.equal(roomGrantToken(' HermesRoom x'), '');
  assert.equal(roomGrantToken('HermesRoom  x \u3000'), 'x');
});

test('the Bearer key: exact scheme, stripped, the profile\'s own', () => {
  const g = gateway('test-key-0123456789abcdef');
  assert.equal(authenticate(request('Bearer  test-key-0123456789abcdef '), g, null, false), 'ok');
  assert.equal(authenticate(request('bearer test-key-0123456789abcdef'), g, null, false), 'denied');
  assert.equal(authenticate(request(), g, null, false), 'denied');
  assert.equal(authenticate(request('Bearer test-key-0123456789abcdef'), g, 'alice', false), 'denied');
  assert.equal(authenticate(request('Bearer alice-key-0123456789'), g, 'alice', false), 'ok');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GatewaySettings } from '../gateway.js';
import { ownershipScope } from './auth.js';

const gateway = (apiKey: string | null): GatewaySettings => ({
  apiKey,
  draining: false,
  maxConcurrentRuns: 10,
  modelName: 'hermes-agent',
  corsOrigins: [],
  profiles: new Map([['alice', { apiKey: 'alice-key' }]]),
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

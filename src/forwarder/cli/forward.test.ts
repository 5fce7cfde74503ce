// What `hermetic forward` prints for a tick that wrote something: what was new, and the values it had to change or
// leave out (row issues), as backfill says them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyResult } from '../pipeline/result.js';
import { tickLine } from './forward.js';

const tick = (over: Partial<ReturnType<typeof emptyResult>>) => ({
  ...emptyResult({ path: '/h/state.db', profile: 'default', hermesHome: '/h', backend: 'sqlite', warning: null } as Parameters<typeof emptyResult>[0]),
  ...over,
});

test('a tick line says what was new, what was rewritten or dropped, and the row issues recorded', () => {
  assert.equal(tickLine(tick({ sessionsWritten: 1, messages: 10, parts: 12 })), 'forward: default: 1 session written (10 new messages, 12 new parts)');
  assert.equal(tickLine(tick({ sessionsWritten: 2, messages: 1, parts: 1, messagesRemoved: 3, rowIssues: 1 })),
    'forward: default: 2 sessions written (1 new message, 1 new part; 3 messages removed or rewritten); 1 row issue recorded');
  assert.equal(tickLine(tick({ sessionsQuarantined: 1, sessionsIgnored: 2 })), 'forward: default: 2 ignored by usage policy, 1 quarantined');
  assert.equal(tickLine(tick({ sessionsWritten: 1, messages: 4, parts: 4, rowIssues: 3, sessionsRemoved: 1 })),
    'forward: default: 1 session written (4 new messages, 4 new parts), 1 removed in Hermes; 3 row issues recorded');
});

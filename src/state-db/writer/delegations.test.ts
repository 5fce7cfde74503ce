// The Hermes-like writer's background delegations (delegations.ts): the row a dispatch writes, a completion over it,
// delivery claimed, released (dropped after 8 attempts) or done, abandoned owners recovered, and Hermes's prune.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../schema/create.js';
import { tempDir } from '../testing/fixtures.js';
import { StateDbWriter } from './index.js';

const T0 = 1784000000;

function writer(level = 31) {
  const { dir, cleanup } = tempDir('hermetic-writer-delegations-');
  const db = createStore({ path: join(dir, 'state.db'), level, journal: 'wal', fts: false });
  const clock = { t: T0 };
  const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('delegations') });
  return { db, w, clock, done: () => { db.close(); cleanup(); } };
}

type Row = Record<string, unknown>;

test('a dispatch is a running row with its task; the completion, a claim, a release and the delivery change only that row', () => {
  const { db, w, clock, done } = writer();
  try {
    const parent = w.createSession({ source: 'cli', started_at: T0 });
    const sessionsBefore = db.prepare('SELECT * FROM sessions').all();
    const id = w.dispatchDelegation({ parent_session_id: parent, goals: ['a', 'b'], context: 'ctx' });
    assert.match(id, /^deleg_[0-9a-f]{12}$/);
    const row = () => db.prepare('SELECT * FROM async_delegations WHERE delegation_id = ?').get(id) as Row;
    assert.deepEqual([row().state, row().delivery_state, row().delivery_attempts, row().dispatched_at, row().updated_at, row().completed_at], ['running', 'pending', 0, T0, T0, null]);
    assert.deepEqual(JSON.parse(row().task_json as string), { goal: '2 tasks', goals: ['a', 'b'], context: 'ctx', toolsets: ['terminal', 'file'], role: 'leaf', model: null, is_batch: true });
    clock.t += 40;
    w.completeDelegation(id, { results: [{ summary: 'A' }, { status: 'error', error: 'boom' }] });
    assert.deepEqual([row().state, row().completed_at, row().updated_at, row().delivery_state], ['completed', T0 + 40, T0 + 40, 'pending']);
    const event = JSON.parse(row().event_json as string) as Row;
    assert.deepEqual([event.type, event.status, event.is_batch, event.duration_seconds, (event.results as Row[]).map((r) => r.summary)], ['async_delegation', 'completed', true, 40, ['A', null]]);
    assert.deepEqual(JSON.parse(row().result_json as string).total_duration_seconds, 40);
    clock.t += 5;
    const claim = w.claimDelegationDelivery(id)!;
    assert.match(claim, /^gateway:4242:[0-9a-f]{32}$/);
    assert.deepEqual([row().delivery_claim, row().delivery_claimed_at, row().delivery_attempts, row().updated_at], [claim, T0 + 45, 1, T0 + 45]);
    assert.equal(w.claimDelegationDelivery(id), null, 'a fresh claim is not taken over');
    clock.t += 5;
    w.releaseDelegationDelivery(id);
    assert.deepEqual([row().delivery_claim, row().delivery_state, row().updated_at], [null, 'pending', T0 + 45]);
    w.claimDelegationDelivery(id);
    w.markDelegationDelivered(id);
    assert.deepEqual([row().delivery_state, row().delivered_at, row().delivery_attempts, row().delivery_claim], ['delivered', T0 + 50, 2, null]);
    assert.deepEqual(db.prepare('SELECT * FROM sessions').all(), sessionsBefore, 'no session column moves');
  } finally {
    done();
  }
});

test('a result whose delivery failed 8 times is dropped; an owner gone is recovered as unknown', () => {
  const { db, w, done } = writer();
  try {
    const id = w.dispatchDelegation({ goals: ['x'] });
    w.completeDelegation(id, { summary: 'x done' });
    for (let i = 0; i < 8; i++) {
      assert.ok(w.claimDelegationDelivery(id));
      w.releaseDelegationDelivery(id);
    }
    assert.deepEqual(db.prepare('SELECT delivery_state, delivery_attempts FROM async_delegations WHERE delegation_id = ?').get(id), { delivery_state: 'dropped', delivery_attempts: 8 });
    assert.equal(w.claimDelegationDelivery(id), null);
    const running = w.dispatchDelegation({ goals: ['y'] });
    assert.equal(w.recoverAbandonedDelegations(), 1);
    const r = db.prepare('SELECT state, delivery_state, event_json FROM async_delegations WHERE delegation_id = ?').get(running) as Row;
    assert.deepEqual([r.state, r.delivery_state, JSON.parse(r.event_json as string).error], ['unknown', 'pending', 'Delegation owner exited before recording a terminal result; outcome unknown.']);
  } finally {
    done();
  }
});

test('every dispatch prunes: delivered rows a week old go, then at most 50 finished rows delivered or dropped stay, delivered first to go', () => {
  const { db, w, clock, done } = writer();
  try {
    const ids = db.prepare('SELECT delegation_id FROM async_delegations ORDER BY updated_at, delegation_id').pluck();
    const old = w.dispatchDelegation({ goals: ['old'] });
    w.completeDelegation(old);
    w.claimDelegationDelivery(old);
    w.markDelegationDelivered(old);
    clock.t += 7 * 86400 + 1;
    const finished: string[] = [];
    for (let i = 0; i < 52; i++) {
      clock.t += 1;
      const id = w.dispatchDelegation({ goals: [`task ${i}`] });
      w.completeDelegation(id);
      if (i % 2 === 0) w.dropDelegationDelivery(id);
      else {
        w.claimDelegationDelivery(id);
        w.markDelegationDelivered(id);
      }
      finished.push(id);
    }
    assert.ok(!(ids.all() as string[]).includes(old), 'the week-old delivered row went at the first dispatch after');
    // The 52nd dispatch found 51 finished rows: one went, the oldest delivered one.
    assert.deepEqual(finished.filter((id) => !(ids.all() as string[]).includes(id)), [finished[1]]);
    clock.t += 1;
    const next = w.dispatchDelegation({ goals: ['next'] });
    const left = ids.all() as string[];
    assert.equal(left.length, 51, '50 finished and the running one');
    // Delivered rows go first, the oldest first: dropped results are kept longer.
    assert.deepEqual(finished.filter((id) => !left.includes(id)), [finished[1], finished[3]]);
    assert.ok(left.includes(next));
    // Finished rows still pending are not under the 50 (they wait for delivery; up to 1,000).
    const pending = Array.from({ length: 5 }, (_, i) => { const id = w.dispatchDelegation({ goals: [`p${i}`] }); w.completeDelegation(id); return id; });
    w.dispatchDelegation({ goals: ['last'] });
    for (const id of pending) assert.ok((ids.all() as string[]).includes(id));
  } finally {
    done();
  }
});

test('a store before schema 24 has no async_delegations: the writer says so', () => {
  const { w, done } = writer(23);
  try {
    assert.throws(() => w.dispatchDelegation({ goals: ['x'] }), /no async_delegations table \(Hermes schema 24 added it\)/);
  } finally {
    done();
  }
});

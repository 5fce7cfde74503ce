// The usage ledger (spec forwarding §6.2 items 13–14): one event per observed change of a session's counters, shared
// by backfill and forward so nothing is counted twice; a drop (absolute mode after an agent restart) is clamped and
// flagged; a replaced store or a deleted-then-recreated session does not count again what was already counted.
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { forwarderRig } from '../testing/index.js';

interface Setup {
  dir: string;
  path: string;
  clock: { t: number };
  db: ReturnType<typeof createStore>;
  w: StateDbWriter;
  rig: ReturnType<typeof forwarderRig>;
}

/** A WAL store written by the Hermes-like writer, a forwarder over it, all removed after `fn`. */
function withStore(fn: (s: Setup) => void): () => void {
  return () => {
    const { dir, cleanup } = tempDir();
    const path = join(dir, 'state.db');
    const clock = { t: 1784024103.25 };
    const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
    const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('ledger') });
    const rig = forwarderRig([path], { dir });
    try {
      fn({ dir, path, clock, db, w, rig });
    } finally {
      db.close();
      rig.cleanup();
      cleanup();
    }
  };
}

type Ev = { seq: number; input_tokens: number; output_tokens: number; api_call_count: number; clamped: number; origin: string; estimated_cost_usd: number };

test('backfill then forward share one ledger: events add up to the counters, never twice', withStore(({ rig, db, w, clock }) => {
  const id = w.createSession({ source: 'cli' });
  w.appendMessage(id, { role: 'user', content: 'hi' });
  w.updateTokenCounts(id, { input_tokens: 100, output_tokens: 10, estimated_cost_usd: 0.01 }, 'delta');
  rig.forwarder.backfill();
  rig.forwarder.backfill(); // unchanged: no second event
  clock.t += 5;
  w.appendMessage(id, { role: 'assistant', content: 'hello' });
  w.updateTokenCounts(id, { input_tokens: 50, output_tokens: 5, estimated_cost_usd: 0.005 }, 'delta');
  rig.forwarder.forwardOnce();
  rig.forwarder.forwardOnce();
  const events = rig.query<Ev>('SELECT seq, input_tokens, output_tokens, api_call_count, clamped, origin, estimated_cost_usd FROM usage_events ORDER BY seq');
  assert.deepEqual(events, [
    { seq: 1, input_tokens: 100, output_tokens: 10, api_call_count: 1, clamped: 0, origin: 'backfill', estimated_cost_usd: 0.01 },
    { seq: 2, input_tokens: 50, output_tokens: 5, api_call_count: 1, clamped: 0, origin: 'forward', estimated_cost_usd: 0.005 },
  ]);
  const [sum] = rig.query<{ i: number; o: number }>('SELECT SUM(input_tokens) AS i, SUM(output_tokens) AS o FROM usage_events');
  const [s] = rig.query<{ i: number; o: number }>('SELECT input_tokens AS i, output_tokens AS o FROM sessions');
  assert.deepEqual(sum, s);
  assert.deepEqual(s, { i: 150, o: 15 });
}));

test('absolute-mode counters that drop after a restart give a clamped event, then count on from the new value', withStore(({ rig, db, w }) => {
  const id = w.createSession({ source: 'telegram' });
  w.appendMessage(id, { role: 'user', content: 'hi' });
  const seen: [number, number][] = [[1000, 1], [2500, 3], [700, 1], [900, 2]];
  const clamped: number[] = [];
  for (const [input, calls] of seen) {
    w.updateTokenCounts(id, { input_tokens: input, api_calls: calls }, 'absolute');
    clamped.push(rig.forwarder.forwardOnce()[0]!.usageClamped);
  }
  // The pass that wrote the clamped event counts it (its tick line says it).
  assert.deepEqual(clamped, [0, 0, 1, 0]);
  const events = rig.query<Ev>('SELECT seq, input_tokens, api_call_count, clamped FROM usage_events ORDER BY seq');
  assert.deepEqual(events, [
    { seq: 1, input_tokens: 1000, api_call_count: 1, clamped: 0 },
    { seq: 2, input_tokens: 1500, api_call_count: 2, clamped: 0 },
    { seq: 3, input_tokens: 0, api_call_count: 0, clamped: 1 },
    { seq: 4, input_tokens: 200, api_call_count: 1, clamped: 0 },
  ] as unknown as Ev[]);
  // The session row still carries Hermes's own (current) counters.
  assert.equal(rig.query<{ n: number }>('SELECT input_tokens AS n FROM sessions')[0]!.n, 900);
}));

test('a replaced store with the same sessions adds no usage event; a deleted then recreated session keeps its rows marked, then counts only what is new', withStore(({ rig, db, w, dir, path }) => {
  const id = w.createSession({ source: 'cli' });
  w.appendMessage(id, { role: 'user', content: 'hi' });
  w.updateTokenCounts(id, { input_tokens: 100 }, 'delta');
  rig.forwarder.forwardOnce();
  db.pragma('wal_checkpoint(TRUNCATE)');
  // A restore: the same bytes under a new inode.
  copyFileSync(path, join(dir, 'copy.db'));
  rmSync(path);
  for (const s of ['-wal', '-shm']) rmSync(path + s, { force: true });
  copyFileSync(join(dir, 'copy.db'), path);
  const [r] = rig.forwarder.forwardOnce();
  assert.equal(r!.replaced, true);
  assert.equal(rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM usage_events')[0]!.n, 1);

  // Deleted while open, then recreated by the running chat's next save with its cumulative (absolute) counters.
  const db2 = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
  const w2 = new StateDbWriter(db2, { now: () => 1784024200, ids: createIdSource('ledger2') });
  try {
    w2.deleteSession(id);
    const [gone] = rig.forwarder.forwardOnce();
    assert.equal(gone!.sessionsRemoved, 1);
    assert.equal(rig.query<{ n: number }>('SELECT removed_from_store AS n FROM sessions')[0]!.n, 1);
    w2.createSession({ id, source: 'cli' });
    w2.appendMessage(id, { role: 'user', content: 'hi again' });
    w2.updateTokenCounts(id, { input_tokens: 130 }, 'absolute');
    const [back] = rig.forwarder.forwardOnce();
    assert.equal(back!.sessionsWritten, 1);
    assert.deepEqual(rig.query('SELECT seq, input_tokens FROM usage_events ORDER BY seq'), [{ seq: 1, input_tokens: 100 }, { seq: 2, input_tokens: 30 }]);
    assert.deepEqual(rig.query('SELECT removed_from_store, live_messages FROM sessions'), [{ removed_from_store: 0, live_messages: 1 }]);
  } finally {
    db2.close();
  }
}));

test('usage events carry the cost status, price source and pricing basis seen with them (spec forwarding §6.2 item 13)', withStore(({ rig, db, w }) => {
  const id = w.createSession({ source: 'cli' });
  w.appendMessage(id, { role: 'user', content: 'hi' });
  w.updateTokenCounts(id, { input_tokens: 10, estimated_cost_usd: 0.001, cost_status: 'estimated', cost_source: 'provider_models_api', billing_mode: 'official_docs_snapshot', billing_provider: 'openrouter', billing_base_url: 'https://openrouter.ai/api/v1' }, 'delta');
  rig.forwarder.backfill();
  assert.deepEqual(rig.query('SELECT cost_status, cost_source, billing_mode, provider FROM usage_events'), [
    { cost_status: 'estimated', cost_source: 'provider_models_api', billing_mode: 'official_docs_snapshot', provider: 'openrouter' },
  ]);
}));

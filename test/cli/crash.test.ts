// A real gateway killed (SIGKILL) the moment a client saw a state, and at random moments under concurrent keyed load:
// nothing a client was answered is lost (decision 0016). bench/crash.ts repeats the load round 20 times.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { CRASH_KEY, crashRound } from '../support/crash-load.js';
import { T0 } from '../support/harness.js';
import { spawnServe } from '../support/process.js';

const auth = { Authorization: `Bearer ${CRASH_KEY}`, 'Content-Type': 'application/json' };
const freshDb = () => join(mkdtempSync(join(tmpdir(), 'hermetic-crash-')), 'runs_idempotency.db');

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...auth, ...headers }, body });
  return { status: res.status, text: await res.text() };
}

async function get(url: string) {
  const res = await fetch(url, { headers: auth });
  return { status: res.status, text: await res.text() };
}

/** Keys of a JSON object text in order, at the top level. */
const topKeys = (text: string) => Object.keys(JSON.parse(text) as object);

it('a completion, a stop and an approval wait a client has seen survive a SIGKILL sent the moment it saw them', async () => {
  const db = freshDb();
  const args = ['--port', '0', '--db', db, '--api-key', CRASH_KEY, '--time', String(T0), '--frozen', '--seed', 'crash'];
  const first = await spawnServe(args);
  const admit = async (key: string) => JSON.parse((await post(`${first.url}/v1/runs`, '{"input":"x"}', { 'Idempotency-Key': key })).text).run_id as string;
  const done = await admit('done');
  const stopped = await admit('stopped');
  const parked = await admit('parked');
  await post(`${first.url}/__admin/runs/${stopped}/stop-policy`, '{"acknowledge": false}');
  // Background load sharing the server's turns: a large body being read and parsed, and a burst of admissions.
  const big = JSON.stringify({ input: 'y'.repeat(4_000_000) });
  const load = [
    post(`${first.url}/v1/runs`, big, { 'Idempotency-Key': 'big' }).catch(() => null),
    ...Array.from({ length: 40 }, (_, i) => post(`${first.url}/v1/runs`, '{"input":"z"}', { 'Idempotency-Key': `load-${i}` }).catch(() => null)),
  ];
  const seenCompleted = await post(`${first.url}/__admin/runs/${done}/complete`, '{"output":"Done.","usage":{"input_tokens":5,"output_tokens":7}}');
  const seenStopping = await post(`${first.url}/v1/runs/${stopped}/stop`, '{}');
  const seenParked = await post(`${first.url}/__admin/runs/${parked}/approval-request`, '{"command":"rm -rf /tmp/x","request_id":"req-1"}');
  const seenGet = await get(`${first.url}/v1/runs/${parked}`);
  first.child.kill('SIGKILL');
  await first.exited;
  await Promise.allSettled(load);
  assert.equal(JSON.parse(seenCompleted.text).status, 'completed');
  assert.equal(seenStopping.text, `{"run_id": "${stopped}", "status": "stopping"}`);
  assert.equal(seenParked.status, 200);
  assert.equal(JSON.parse(seenGet.text).status, 'waiting_for_approval');

  const second = await spawnServe(args);
  try {
    assert.deepEqual(await get(`${second.url}/v1/runs/${done}`), {
      status: 200,
      text: `{"created_at": ${T0}.0, "last_event": "run.completed", "model": "hermes-agent", "object": "hermes.run", "output": "Done.", "run_id": "${done}", "session_id": "${done}", "status": "completed", "updated_at": ${T0}.0, "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}}`,
    });
    // The last visible state was `stopping` (last_event run.stopping): the hydrated record keeps that key where the
    // sorted snapshot put it, rewritten, and appends error (spec §6.2, §12.6).
    assert.deepEqual(await get(`${second.url}/v1/runs/${stopped}`), {
      status: 200,
      text: `{"created_at": ${T0}.0, "last_event": "run.interrupted", "model": "hermes-agent", "object": "hermes.run", "run_id": "${stopped}", "session_id": "${stopped}", "status": "interrupted", "updated_at": ${T0}.0, "error": "The gateway restarted before this run settled."}`,
    });
    // The approval object persisted while waiting survives into the interrupted record, sorted like the snapshot.
    const interrupted = await get(`${second.url}/v1/runs/${parked}`);
    const was = JSON.parse(seenGet.text) as Record<string, unknown>;
    const now = JSON.parse(interrupted.text) as Record<string, unknown>;
    assert.deepEqual(topKeys(interrupted.text), ['approval', 'created_at', 'last_event', 'model', 'object', 'run_id', 'session_id', 'status', 'updated_at', 'error']);
    assert.deepEqual(Object.keys(now.approval as object), Object.keys(was.approval as object).sort());
    assert.deepEqual(now.approval, was.approval);
    assert.equal(now.status, 'interrupted');
    assert.equal(now.last_event, 'run.interrupted');
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});

for (const runTable of ['fast', 'plain']) it(`SIGKILL at random moments under concurrent keyed load loses no acknowledged run and no visible completion (${runTable} run table)`, async () => {
  for (let round = 0; round < 2; round++) {
    const db = freshDb();
    const result = await crashRound({
      args: ['--port', '0', '--db', db, '--api-key', CRASH_KEY, '--run-table', runTable],
      clients: 16,
      killAfterMs: 300 + Math.floor(Math.random() * 400),
    });
    assert.ok(result.acknowledged > 0, 'the load admitted runs before the kill');
    assert.deepEqual(result.lostAdmissions, [], `round ${round}`);
    assert.deepEqual(result.lostCompletions, [], `round ${round}`);
  }
});

// Nothing is answered — on a Hermes route, an event stream or the control plane — that shows a state not yet
// committed to the store file (decision 0016). Another connection holding the write lock makes the answers wait;
// they arrive only once the file holds what they show. Capacity under a burst, and the durable prune vs the sweep.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { describeTransports, T0, tick, type Harness } from '../support/harness.js';

const freshDb = () => join(mkdtempSync(join(tmpdir(), 'hermetic-durable-')), 'runs_idempotency.db');

/** Another process on the store: reads rows, or holds the write lock. */
function other(file: string) {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  return {
    status: (runId: string) => {
      const json = db.prepare('SELECT status_json FROM run_idempotency WHERE run_id = ?').pluck().get(runId) as string | undefined;
      return json === undefined ? undefined : (JSON.parse(json) as { status: string }).status;
    },
    hold(): () => void {
      db.exec('BEGIN IMMEDIATE');
      return () => db.exec('COMMIT');
    },
    close: () => db.close(),
  };
}

async function keyedRun(h: Harness, key: string): Promise<string> {
  const res = await h.request('POST', '/v1/runs', { body: '{"input":"x"}', headers: { 'Idempotency-Key': key } });
  assert.equal(res.status, 202);
  await tick();
  return res.json().run_id as string;
}

/** Whether `p` is still unsettled after the event loop has turned a few times (real time passes: the lock is real). */
async function stillWaiting(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  return !settled;
}

for (const runTable of ['fast', 'plain'] as const) describeTransports(`durability: answers wait for their commit (${runTable} run table)`, (openWith) => {
  const open = (options: Parameters<typeof openWith>[0] = {}) => openWith({ runTable, ...options });

  it('a control-plane completion, and a GET that would show it, are answered only once the file holds it', async () => {
    const db = freshDb();
    const h = await open({ db });
    const file = other(db);
    const runId = await keyedRun(h, 'complete-me');
    assert.equal(file.status(runId), 'running');
    const release = file.hold();
    const completing = h.request('POST', `/__admin/runs/${runId}/complete`, { body: '{"output":"Done."}' });
    assert.ok(await stillWaiting(completing), 'the control answer waits for the lock');
    const polling = h.request('GET', `/v1/runs/${runId}`);
    assert.ok(await stillWaiting(polling), 'a GET that would show completed waits too');
    release();
    const [done, polled] = await Promise.all([completing, polling]);
    assert.equal(done.status, 200);
    assert.equal(done.json().status, 'completed');
    assert.equal(polled.json().status, 'completed');
    assert.equal(file.status(runId), 'completed', 'what was answered is in the file');
    file.close();
  });

  it('while a write waits for the lock, health, the clock, an event on another run and reads of other runs answer at once (decision 0028)', async () => {
    const db = freshDb();
    const h = await open({ db });
    const file = other(db);
    const held = await keyedRun(h, 'held');
    const other1 = await keyedRun(h, 'other-1');
    const other2 = await keyedRun(h, 'other-2');
    // Everything admitted so far is in the file before the lock is taken.
    assert.equal((await h.request('GET', '/__admin/runs')).status, 200);
    const release = file.hold();
    let released = false;
    try {
      const completing = h.request('POST', `/__admin/runs/${held}/complete`, { body: '{"output":"Done."}' });
      assert.ok(await stillWaiting(completing), 'the completion shows its run: it waits for the lock');
      // Each of these resolves while the lock is still held (the completion above is still waiting): none waited.
      const health = await h.request('GET', '/__admin/health');
      assert.equal(health.status, 200);
      assert.equal(health.json().held_writes, 1, 'health reports the held write');
      const clock = await h.request('GET', '/__admin/clock');
      assert.deepEqual(clock.json(), { now: T0, frozen: true });
      assert.equal((await h.request('POST', '/__admin/clock', { body: '{"advance": 1}' })).status, 200);
      // An event on another keyed run (a progress update: Hermes does not persist it, so nothing more is held).
      const event = await h.request('POST', `/__admin/runs/${other1}/event`, { body: '{"event": "tool.started", "tool": "terminal", "preview": "ls"}' });
      assert.equal(event.status, 200, event.text);
      assert.equal(event.json().dropped, false);
      assert.equal((await h.request('GET', `/v1/runs/${other1}`)).json().last_event, 'tool.started');
      assert.equal((await h.request('GET', '/__admin/health')).json().held_writes, 1);
      // Runs with nothing held read at once, on Hermes's route and the control plane; so do the other control reads.
      assert.equal((await h.request('GET', `/v1/runs/${other2}`)).json().status, 'running');
      assert.equal((await h.request('GET', `/__admin/runs/${other2}`)).json().status, 'running');
      assert.equal((await h.request('GET', '/__admin/faults')).status, 200);
      assert.equal((await h.request('GET', '/__admin/requests/count')).status, 200);
      assert.equal((await h.request('GET', '/__admin/namespaces')).status, 200);
      assert.equal((await h.request('GET', '/health')).status, 200);
      // What shows the held run still waits.
      const polling = h.request('GET', `/v1/runs/${held}`);
      assert.ok(await stillWaiting(completing), 'the completion is still waiting');
      assert.ok(await stillWaiting(polling), 'a GET that would show the completion waits too');
      assert.equal(file.status(held), 'running', 'nothing held is in the file yet');
      release();
      released = true;
      const [done, polled] = await Promise.all([completing, polling]);
      assert.equal(done.json().status, 'completed');
      assert.equal(polled.json().status, 'completed');
      assert.equal(file.status(held), 'completed');
      assert.equal((await h.request('GET', '/__admin/health')).json().held_writes, 0);
    } finally {
      if (!released) release();
      file.close();
    }
  });

  it('the stop answer, the approval parking and the SSE run.completed frame wait for their commit', async () => {
    const db = freshDb();
    const h = await open({ db });
    const file = other(db);
    const stopped = await keyedRun(h, 'stop-me');
    await h.admin.stopPolicy(stopped, { acknowledge: false });
    let release = file.hold();
    const stopping = h.request('POST', `/v1/runs/${stopped}/stop`);
    assert.ok(await stillWaiting(stopping));
    release();
    assert.equal((await stopping).text, `{"run_id": "${stopped}", "status": "stopping"}`);
    assert.equal(file.status(stopped), 'stopping');

    const parked = await keyedRun(h, 'park-me');
    release = file.hold();
    const parking = h.request('POST', `/__admin/runs/${parked}/approval-request`, { body: '{"command":"rm -rf /tmp/x"}' });
    assert.ok(await stillWaiting(parking));
    release();
    assert.equal((await parking).status, 200);
    assert.equal(file.status(parked), 'waiting_for_approval');

    const streamed = await keyedRun(h, 'stream-me');
    const stream = await h.events(`/v1/runs/${streamed}/events`);
    release = file.hold();
    const completing = h.request('POST', `/__admin/runs/${streamed}/complete`, { body: '{"output":"Done."}' });
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.doesNotMatch(stream.text(), /run\.completed/, 'no frame announces a completion the file does not hold');
    release();
    await stream.until((t) => t.includes('run.completed'));
    assert.equal(file.status(streamed), 'completed');
    assert.equal((await completing).status, 200);
    stream.close();
    file.close();
  });

  it('200 identical keyed POSTs at once with the default capacity of 10 admit exactly one run; the rest replay it', async () => {
    const h = await open({ maxConcurrentRuns: 10 });
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => h.request('POST', '/v1/runs', { body: '{"input":"burst"}', headers: { 'Idempotency-Key': 'burst' } })),
    );
    assert.deepEqual([...new Set(replies.map((r) => r.status))], [202]);
    const bodies = replies.map((r) => r.json() as { run_id: string; replayed: boolean });
    assert.equal(new Set(bodies.map((b) => b.run_id)).size, 1);
    assert.equal(bodies.filter((b) => !b.replayed).length, 1);
  });

  it('a burst of distinct keyed POSTs fills capacity exactly: 10 admitted, the rest 429', async () => {
    const h = await open({ maxConcurrentRuns: 10 });
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => h.request('POST', '/v1/runs', { body: '{"input":"burst"}', headers: { 'Idempotency-Key': `distinct-${i}` } })),
    );
    assert.equal(replies.filter((r) => r.status === 202).length, 10);
    assert.equal(replies.filter((r) => r.status === 429).length, 20);
  });

  it('the 24 h durable prune does not sweep memory: an interrupted run pruned from the store still answers from memory', async () => {
    const db = freshDb();
    const h = await open({ db });
    const runId = await keyedRun(h, 'old');
    await h.admin.restart();
    // Hydration after the restart rewrites it to interrupted (never swept from memory, spec §12.5).
    const first = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(first.json().status, 'interrupted');
    await h.admin.clock({ advance: 86_401 });
    // A keyed admission prunes the durable row, which is terminal and more than 24 h old.
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input":"y"}', headers: { 'Idempotency-Key': 'new' } })).status, 202);
    const file = other(db);
    assert.equal(file.status(runId), undefined, 'the durable row is gone');
    file.close();
    const again = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
  });

  it('a completed run pruned from the store keeps answering until the 1-hour sweep forgets it', async () => {
    const db = freshDb();
    const h = await open({ db, frozen: true, time: T0 });
    const runId = await keyedRun(h, 'finished');
    await h.admin.complete(runId, { output: 'Done.' });
    // Set the row's age past 24 h behind the sweep's back (the store's own clock), then prune it by an admission.
    const file = new Database(db);
    file.prepare('UPDATE run_idempotency SET updated_at = ? WHERE run_id = ?').run(T0 - 86_401, runId);
    file.close();
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input":"y"}', headers: { 'Idempotency-Key': 'pruner' } })).status, 202);
    const res = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(res.status, 200);
    assert.equal(res.json().status, 'completed');
  });

  it('a lock held past the timeout: GET answers Hermes\'s 500 page, the control plane 503 HERMETIC_STORE_BUSY; the server lives and saves the change later', async () => {
    const db = freshDb();
    const h = await open({ db, lockTimeout: 0.2 });
    const file = other(db);
    const runId = await keyedRun(h, 'locked-out');
    const release = file.hold();
    try {
      const completing = await h.request('POST', `/__admin/runs/${runId}/complete`, { body: '{"output":"Done."}' });
      assert.equal(completing.status, 503);
      assert.equal(completing.json().error.code, 'HERMETIC_STORE_BUSY');
      const polled = await h.request('GET', `/v1/runs/${runId}`);
      assert.equal(polled.status, 500);
      assert.equal(polled.text, '500 Internal Server Error\n\nServer got itself in trouble');
      // Acting on the run again tells nothing of the completion not saved (a 409 "already finished" would): the same 503.
      const again = await h.request('POST', `/__admin/runs/${runId}/complete`, { body: '{"output":"Done."}' });
      assert.deepEqual([again.status, again.json().error.code], [503, 'HERMETIC_STORE_BUSY']);
      // Everything that does not need the store keeps answering.
      assert.equal((await h.request('GET', '/health')).status, 200);
      const keyless = await h.request('POST', '/v1/runs', { body: '{"input":"no key"}' });
      assert.equal(keyless.status, 202);
    } finally {
      release();
    }
    // Once the lock is free the held write is saved, and the run answers completed.
    const polled = await h.request('GET', `/v1/runs/${runId}`);
    assert.equal(polled.json().status, 'completed');
    assert.equal(file.status(runId), 'completed');
    file.close();
  });
});

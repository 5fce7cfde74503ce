// Checkpoints (issue 9 item 5): a checkpoint holds the namespace's runs, reservations and durable rows, clock,
// settings and id stream; restoring it puts them back, and restoring it twice gives the same state twice.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ControlledClock, type Timer } from '../../src/shared/clock.js';
import { describeTransports, T0, type Harness } from '../support/harness.js';

/** A caller's clock that knows how many timers are armed on it (not yet fired or cancelled). */
class WatchedClock extends ControlledClock {
  readonly #armed = new Set<object>();
  get armed(): number {
    return this.#armed.size;
  }
  override schedule(delay: number, fn: () => void): Timer {
    const token = {};
    this.#armed.add(token);
    const timer = super.schedule(delay, () => {
      this.#armed.delete(token);
      fn();
    });
    return this.#watch(timer, token);
  }
  override every(interval: number, fn: () => void, origin?: number): Timer {
    const token = {};
    this.#armed.add(token);
    return this.#watch(super.every(interval, fn, origin), token);
  }
  #watch(timer: Timer, token: object): Timer {
    const armed = this.#armed;
    return { cancel: () => { armed.delete(token); timer.cancel(); }, get due() { return timer.due; } };
  }
}

async function admin(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, `/__admin${path}`, { body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: reply.status, json: reply.text ? reply.json() : null };
}

async function submit(h: Harness, input: string, key?: string) {
  const reply = await h.request('POST', '/v1/runs', { body: JSON.stringify({ input }), headers: key ? { 'Idempotency-Key': key } : {} });
  assert.equal(reply.status, 202, reply.text);
  return reply.json() as { run_id: string; replayed: boolean };
}

/** Everything a client or a test could observe of the namespace. */
async function observe(h: Harness, runIds: string[]) {
  const polls: Record<string, string> = {};
  for (const id of runIds) {
    const reply = await h.request('GET', `/v1/runs/${id}`);
    polls[id] = `${reply.status} ${reply.text}`;
  }
  return { runs: (await h.admin.runs()).runs, clock: await h.admin.getClock(), gateway: await h.admin.getGateway(), polls };
}

describeTransports('checkpoints', (open) => {
  it('restore puts back runs, keys, queued events, start timers, clock and settings — twice the same', async () => {
    const h = await open({ agent: { startDelay: 5 } });
    const a = await submit(h, 'a', 'k1');
    await h.admin.clock({ advance: 5 });
    await h.admin.event(a.run_id, { event: 'tool.started', tool: 'terminal', preview: 'ls' });
    const b = await submit(h, 'b', 'k2'); // queued until T0 + 10
    const taken = await admin(h, 'POST', '/checkpoints', {});
    assert.equal(taken.status, 200);
    assert.deepEqual(taken.json, { id: 'cp_1', taken_at: T0 + 5, runs: 2, durable_rows: 2, branch: 'main', parent: null, request: null, clock: 'namespace' });
    const saved = await observe(h, [a.run_id, b.run_id]);

    // Move on: finish a, start b, a new run c, drain the gateway.
    await h.admin.complete(a.run_id, { output: 'done' });
    await h.admin.clock({ advance: 10 });
    const c = await submit(h, 'c', 'k3');
    await h.admin.gateway({ draining: true });

    for (let round = 0; round < 2; round++) {
      const restored = await admin(h, 'POST', '/checkpoints/cp_1/restore', {});
      assert.equal(restored.status, 200, JSON.stringify(restored.json));
      assert.deepEqual(await observe(h, [a.run_id, b.run_id]), saved, `round ${round}`);
      assert.equal((await h.request('GET', `/v1/runs/${c.run_id}`)).status, 404, 'a run from after the checkpoint is gone');
      // The durable rows: k3 is free again and draws the id c drew (the id stream went back too); k2 replays b.
      const again = await submit(h, 'c', 'k3');
      assert.deepEqual(again, c);
      const replay = await submit(h, 'b', 'k2');
      assert.deepEqual([replay.run_id, replay.replayed], [b.run_id, true]);
      // b's start timer was re-armed where it was due.
      await h.admin.clock({ advance: 4 });
      assert.equal((await h.admin.run(b.run_id)).started, false);
      await h.admin.clock({ advance: 1 });
      assert.equal((await h.admin.run(b.run_id)).started, true);
      // a's queued event is still there for its first subscriber.
      const stream = await h.events(`/v1/runs/${a.run_id}/events`);
      await stream.until((t) => t.includes('"tool.started"'));
      stream.close();
    }
  });

  it('lists and deletes checkpoints; an unknown id is a clear 404', async () => {
    const h = await open();
    await admin(h, 'POST', '/checkpoints', {});
    await h.admin.clock({ advance: 1 });
    await admin(h, 'POST', '/checkpoints', {});
    const listed = await admin(h, 'GET', '/checkpoints');
    assert.deepEqual(listed.json.checkpoints.map((c: { id: string; taken_at: number }) => [c.id, c.taken_at]), [['cp_1', T0], ['cp_2', T0 + 1]]);
    assert.equal((await admin(h, 'DELETE', '/checkpoints/cp_1')).status, 200);
    const unknown = await admin(h, 'POST', '/checkpoints/cp_1/restore', {});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.code, 'HERMETIC_CHECKPOINT_UNKNOWN');
    assert.match(unknown.json.error.message, /No checkpoint cp_1 in this namespace \(it has cp_2\)/);
  });

  it('a namespace keeps its latest 100 checkpoints: taking more lets the oldest go, and a restore of one says so', async () => {
    const h = await open();
    for (let i = 0; i < 102; i++) await admin(h, 'POST', '/checkpoints', {});
    const ids = (await admin(h, 'GET', '/checkpoints')).json.checkpoints.map((c: { id: string }) => c.id);
    assert.deepEqual([ids.length, ids[0], ids.at(-1)], [100, 'cp_3', 'cp_102']);
    const gone = await admin(h, 'POST', '/checkpoints/cp_1/restore', {});
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error.message, 'No checkpoint cp_1 in this namespace (it has 100: cp_3 … cp_102); it keeps the latest 100 (and at most 64.0 MiB of state), and has let 2 older ones go.');
    assert.equal((await admin(h, 'POST', '/checkpoints/cp_3/restore', {})).status, 200);
  });

  it('checkpoints belong to their namespace: another namespace\'s id is refused, saying whose it is', async () => {
    const h = await open();
    const taken = await h.request('POST', '/ns/one/__admin/checkpoints', { body: '{}' });
    assert.equal(taken.json().id, 'cp_1@one');
    await admin(h, 'POST', '/checkpoints', {});
    const elsewhere = await h.request('POST', `/ns/two/__admin/checkpoints/${encodeURIComponent('cp_1@one')}/restore`, { body: '{}' });
    assert.equal(elsewhere.status, 409);
    assert.deepEqual(elsewhere.json(), { error: { code: 'HERMETIC_CHECKPOINT_FOREIGN', message: 'cp_1@one is a checkpoint id of namespace "one" (whether or not it was taken there), not of this namespace ("two"): a namespace is only restored from its own checkpoints (/ns/one/__admin/… reaches that one).' } });
    // The default namespace's ids have no suffix: the same number elsewhere is still another namespace's.
    const fromDefault = await h.request('POST', '/ns/one/__admin/checkpoints/cp_1/restore', { body: '{}' });
    assert.equal(fromDefault.status, 409);
    assert.match(fromDefault.json().error.message, /^cp_1 is a checkpoint id of namespace "default" \(whether or not it was taken there\), not of this namespace \("one"\)/);
    const inDefault = await admin(h, 'POST', '/checkpoints/cp_1@one/restore', {});
    assert.deepEqual([inDefault.status, inDefault.json.error.code], [409, 'HERMETIC_CHECKPOINT_FOREIGN']);
    assert.equal((await h.request('POST', '/ns/one/__admin/checkpoints/cp_1@one/restore', { body: '{}' })).status, 200);
    // Neither namespace's id, nor any: the plain 404.
    const nothing = await h.request('POST', '/ns/two/__admin/checkpoints/cp_1@two/restore', { body: '{}' });
    assert.deepEqual([nothing.status, nothing.json().error.code], [404, 'HERMETIC_CHECKPOINT_UNKNOWN']);
    // A suffix that is no namespace's name makes no id of any namespace: the plain 404, the id shown cut short.
    for (const id of ['cp_1@bad%2Fname', `cp_1@${'x'.repeat(300)}`]) {
      const none = await h.request('POST', `/ns/two/__admin/checkpoints/${id}/restore`, { body: '{}' });
      assert.deepEqual([none.status, none.json().error.code], [404, 'HERMETIC_CHECKPOINT_UNKNOWN'], id);
      assert.ok(none.text.length < 400, none.text);
    }
  });

  it('on a clock the caller gave, a restore and a reset leave its time alone and cancel only the namespace\'s timers', async () => {
    const clock = new WatchedClock({ start: T0, frozen: true });
    let own = 0;
    clock.schedule(100, () => own++);
    const h = await open({ clock, agent: { startDelay: 5 } });
    assert.equal(h.emulator.clock, clock, 'emulator.clock is the very object the caller gave');
    const a = await submit(h, 'a', 'k1'); // its start timer is due at T0 + 5
    const taken = await h.admin.checkpoint();
    assert.deepEqual([taken.taken_at, taken.clock], [T0, 'caller']);
    clock.advance(3);
    const b = await submit(h, 'b', 'k2');
    const armedBefore = clock.armed;

    const restored = await h.admin.restoreCheckpoint(taken.id);
    assert.equal(restored.clock, 'caller');
    assert.deepEqual(await h.admin.getClock(), { now: T0 + 3, frozen: true }, 'the caller\'s time stays where the caller put it');
    assert.equal((await h.request('GET', `/v1/runs/${b.run_id}`)).status, 404, 'the state is the checkpoint\'s');
    // b's start timer went with the restore; a's was cancelled and armed again where it was due: one fewer than before.
    assert.equal(clock.armed, armedBefore - 1);
    clock.advance(1);
    assert.equal((await h.admin.run(a.run_id)).started, false);
    clock.advance(1);
    assert.equal((await h.admin.run(a.run_id)).started, true, 'a starts at T0 + 5 on the caller\'s clock');

    // To put the time back too, the caller sets it (or POST /__admin/clock {"set": taken_at}).
    await h.admin.restoreCheckpoint(taken.id);
    clock.set(taken.taken_at);
    assert.equal((await h.admin.getClock()).now, T0);

    await h.admin.reset();
    assert.equal((await h.admin.getClock()).now, T0, 'a reset leaves the caller\'s time');
    const refused = await admin(h, 'POST', '/clock', { reset: true });
    assert.deepEqual([refused.status, refused.json.error.code], [400, 'HERMETIC_ADMIN_BAD_FIELD']);
    assert.equal(clock.armed, 1, 'only the caller\'s own timer is left after a reset');
    await submit(h, 'c', 'k3');
    assert.ok(clock.armed > 1);
    await h.close();
    assert.equal(clock.armed, 1, 'closing the emulator leaves the caller\'s clock with the caller\'s timers only');
    clock.advance(100);
    assert.equal(own, 1);
    clock.close();
  });

  it('fault rules come back with their counts, and scenarios with them', async () => {
    const h = await open();
    const envelope = { error: { message: 'nope', type: 'invalid_request_error', param: null, code: 'run_not_found' } };
    await h.admin.addFault({ id: 'twice', operation: 'get', times: 2, action: 'respond', status: 404, body: envelope, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    await h.admin.scenarios({ scenarios: [{ name: 'greet', match: { input: 'hello' }, steps: [{ at: 1, complete: { output: 'hi there' } }] }] });
    const run = await submit(h, 'x');
    assert.equal((await h.request('GET', `/v1/runs/${run.run_id}`)).status, 404);
    await admin(h, 'POST', '/checkpoints', {});
    assert.equal((await h.request('GET', `/v1/runs/${run.run_id}`)).status, 404);
    assert.equal((await h.request('GET', `/v1/runs/${run.run_id}`)).status, 200, 'spent');
    await h.admin.deleteScenarios();
    await admin(h, 'POST', '/checkpoints/cp_1/restore', {});
    assert.deepEqual((await h.admin.faults()).faults.map((f) => [f.id, f.fired, f.remaining]), [['twice', 1, 1]]);
    assert.equal((await h.request('GET', `/v1/runs/${run.run_id}`)).status, 404, 'one firing left');
    assert.equal((await h.request('GET', `/v1/runs/${run.run_id}`)).status, 200);
    assert.deepEqual((await h.admin.getScenarios()).scenarios.map((sc) => sc.name), ['greet']);
    const greeted = await submit(h, 'hello');
    await h.admin.clock({ advance: 1 });
    assert.equal((await h.request('GET', `/v1/runs/${greeted.run_id}`)).json().output, 'hi there');
  });
});

// The timeline (decision 0065): checkpoints as a graph with branches and a head, automatic checkpoints after each
// request that changed the namespace (named by x-hermetic-checkpoint and the journal), and their refusals — over both
// transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, T0, type Harness } from '../support/harness.js';

async function admin(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, `/__admin${path}`, { body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: reply.status, json: reply.text ? reply.json() : null };
}

async function submit(h: Harness, input: string, headers: Record<string, string> = {}) {
  const reply = await h.request('POST', '/v1/runs', { body: JSON.stringify({ input }), headers });
  assert.equal(reply.status, 202, reply.text);
  return { runId: reply.json().run_id as string, checkpoint: reply.headers['x-hermetic-checkpoint'] ?? null, headers: reply.headers };
}

const status = async (h: Harness, runId: string) => (await h.request('GET', `/v1/runs/${runId}`)).json().status as string;

describeTransports('timeline', (open) => {
  it('GET /__admin/timeline: checkpoints with parents on branch main; a restore moves the head and the next one forks', async () => {
    const h = await open();
    assert.deepEqual(await h.admin.timeline(), {
      auto: false, branch: 'main', head: null, branches: { main: null }, checkpoints: [],
      bytes: 0, max_bytes: 64 * 1024 * 1024, max_checkpoints: 100, evicted: 0, skipped: 0,
    });
    await h.admin.checkpoint();
    await h.admin.clock({ advance: 1 });
    await h.admin.checkpoint();
    await h.admin.restoreCheckpoint('cp_1');
    const fork = await h.admin.checkpoint();
    assert.deepEqual([fork.id, fork.parent, fork.branch, fork.taken_at], ['cp_3', 'cp_1', 'main', T0]);
    const t = await h.admin.timeline();
    assert.deepEqual([t.head, t.branches], ['cp_3', { main: 'cp_3' }]);
    assert.deepEqual(t.checkpoints.map((c) => [c.id, c.parent, c.request]), [['cp_1', null, null], ['cp_2', 'cp_1', null], ['cp_3', 'cp_1', null]]);
    assert.ok(t.bytes > 0);
  });

  it('branches: made at a checkpoint, checked out with its state, checkpoints taken on it, moved, deleted', async () => {
    const h = await open();
    const a = await submit(h, 'a');
    await h.admin.checkpoint(); // cp_1: a running
    await h.admin.complete(a.runId, { output: 'done' });
    await h.admin.checkpoint(); // cp_2: a completed
    assert.deepEqual(await h.admin.createBranch('retry', { checkpoint: 'cp_1' }), { branch: 'retry', head: 'cp_1' });
    assert.equal((await h.admin.timeline()).branch, 'main', 'making a branch does not switch to it');

    const out = await admin(h, 'POST', '/branches/retry/checkout', {});
    assert.equal(out.status, 200);
    assert.deepEqual([out.json.branch, out.json.checkpoint.id], ['retry', 'cp_1']);
    assert.equal(await status(h, a.runId), 'running');
    await h.admin.fail(a.runId, { error: 'boom' });
    const onRetry = await h.admin.checkpoint();
    assert.deepEqual([onRetry.id, onRetry.branch, onRetry.parent], ['cp_3', 'retry', 'cp_1']);

    assert.equal((await h.admin.checkout('main')).checkpoint?.id, 'cp_2');
    assert.equal(await status(h, a.runId), 'completed');
    // A checkout naming a checkpoint moves that branch's head there first.
    assert.equal((await h.admin.checkout('retry', { checkpoint: 'cp_1' })).checkpoint?.id, 'cp_1');
    assert.deepEqual((await h.admin.timeline()).branches, { main: 'cp_2', retry: 'cp_1' });
    await h.admin.checkout('main');
    assert.deepEqual(await h.admin.deleteBranch('retry'), { branch: 'retry', head: 'cp_1' });
    assert.deepEqual((await h.admin.timeline()).branches, { main: 'cp_2' });
  });

  it('refusals: unknown, existing, current or badly named branches; another namespace\'s checkpoint; unknown fields', async () => {
    const h = await open();
    const noHead = await admin(h, 'POST', '/branches/exp', {});
    assert.deepEqual([noHead.status, noHead.json.error.code], [404, 'HERMETIC_CHECKPOINT_UNKNOWN']);
    await h.admin.checkpoint();
    await h.request('POST', '/ns/other/__admin/checkpoints', { body: '{}' });
    assert.equal((await admin(h, 'POST', '/branches/exp', {})).status, 200);
    const twice = await admin(h, 'POST', '/branches/exp', {});
    assert.deepEqual([twice.status, twice.json.error], [409, { code: 'HERMETIC_BRANCH_EXISTS', message: 'This namespace already has a branch "exp" (at cp_1); a checkout with {"checkpoint"} moves it.' }]);
    const unknown = await admin(h, 'POST', '/branches/nope/checkout', {});
    assert.deepEqual([unknown.status, unknown.json.error], [404, { code: 'HERMETIC_BRANCH_UNKNOWN', message: 'No branch "nope" in this namespace (it has "main", "exp"); POST /__admin/branches/{branch} makes one.' }]);
    const current = await admin(h, 'DELETE', '/branches/main');
    assert.deepEqual([current.status, current.json.error.code], [409, 'HERMETIC_BRANCH_CURRENT']);
    const badName = await admin(h, 'POST', '/branches/.hidden', {});
    assert.deepEqual([badName.status, badName.json.error.code], [400, 'HERMETIC_ADMIN_BAD_FIELD']);
    const foreign = await admin(h, 'POST', '/branches/exp/checkout', { checkpoint: 'cp_1@other' });
    assert.deepEqual([foreign.status, foreign.json.error.code], [409, 'HERMETIC_CHECKPOINT_FOREIGN']);
    assert.equal((await h.admin.timeline()).branch, 'main', 'a refused checkout changes nothing');
    const field = await admin(h, 'POST', '/branches/exp/checkout', { at: 'cp_1' });
    assert.deepEqual([field.status, field.json.error.message], [400, 'Unknown field "at" for a checkout. Known fields: checkpoint.']);
    const auto = await admin(h, 'POST', '/timeline', { auto: 'yes' });
    assert.deepEqual([auto.status, auto.json.error.message], [400, 'Field "auto" must be true or false.']);
  });

  it('automatic checkpoints are off by default: Hermes\'s answers carry no header and nothing is taken', async () => {
    const h = await open();
    const a = await submit(h, 'a');
    assert.equal(a.checkpoint, null);
    assert.equal((await h.request('POST', `/v1/runs/${a.runId}/stop`, { body: '{}' })).headers['x-hermetic-checkpoint'], undefined);
    assert.deepEqual((await h.admin.timeline()).checkpoints, []);
    assert.deepEqual((await h.admin.requests()).requests.map((e) => e.checkpoint), [null, null]);
  });

  it('with auto on, each request that changed the namespace is followed by a checkpoint, named on its answer and in the journal', async () => {
    const h = await open();
    assert.equal((await h.admin.setTimeline({ auto: true })).auto, true);
    const key = { 'Idempotency-Key': 'k1' };
    const a = await submit(h, 'a', key);
    assert.equal(a.checkpoint, 'cp_1');
    assert.equal(a.headers['content-length'] !== undefined, true);
    // Reads, replays, refusals and control routes take none.
    await h.request('GET', `/v1/runs/${a.runId}`);
    const replay = await submit(h, 'a', key);
    assert.equal(replay.checkpoint, null);
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input": ""}' })).headers['x-hermetic-checkpoint'], undefined);
    await h.admin.event(a.runId, { event: 'tool.started', tool: 'terminal', preview: 'ls' });
    const stop = await h.request('POST', `/v1/runs/${a.runId}/stop`, { body: '{}' });
    assert.equal(stop.status, 200);
    assert.equal(stop.headers['x-hermetic-checkpoint'], 'cp_2');

    const t = await h.admin.timeline();
    assert.deepEqual(t.checkpoints.map((c) => [c.id, c.parent, c.request]), [['cp_1', null, 'POST /v1/runs'], ['cp_2', 'cp_1', `POST /v1/runs/${a.runId}/stop`]]);
    const journal = (await h.admin.requests()).requests;
    assert.deepEqual(journal.map((e) => [e.method, e.status, e.checkpoint]), [
      ['POST', 202, 'cp_1'], ['GET', 200, null], ['POST', 202, null], ['POST', 400, null], ['POST', 200, 'cp_2'],
    ]);

    // Just before the stop (request 5) is the checkpoint of the request before it that changed something.
    assert.equal(await status(h, a.runId), 'cancelled');
    await h.admin.restoreCheckpoint('cp_1');
    assert.equal(await status(h, a.runId), 'running');
    assert.equal((await h.admin.run(a.runId)).live, true);
    // The restore is not a request of Hermes's: it takes none; the next change goes on from cp_1.
    const again = await h.request('POST', `/v1/runs/${a.runId}/stop`, { body: '{}' });
    assert.equal(again.headers['x-hermetic-checkpoint'], 'cp_3');
    assert.equal((await h.admin.timeline()).checkpoints.at(-1)!.parent, 'cp_1');

    assert.equal((await h.admin.setTimeline({ auto: false })).auto, false);
    assert.equal((await submit(h, 'b')).checkpoint, null);
  });

  it('a fault that answers for Hermes takes none; one that drops Hermes\'s accepted answer does (the run was admitted)', async () => {
    const h = await open();
    await h.admin.setTimeline({ auto: true });
    await h.admin.addFault({ operation: 'submit', times: 1, action: 'respond', status: 202, body: { run_id: `run_${'0'.repeat(32)}`, status: 'started', replayed: false } });
    assert.equal((await h.request('POST', '/v1/runs', { body: '{"input": "x"}' })).headers['x-hermetic-checkpoint'], undefined);
    await h.admin.addFault({ preset: 'hermes_submit_accepted_drop' });
    await assert.rejects(h.request('POST', '/v1/runs', { body: '{"input": "x"}' }));
    const [respond, dropped] = (await h.admin.requests()).requests;
    assert.deepEqual([respond!.checkpoint, dropped!.status, dropped!.checkpoint], [null, 0, 'cp_1']);
    assert.equal((await h.admin.timeline()).checkpoints[0]!.runs, 1);
  });

  it('the autoCheckpoints option turns it on in every namespace from the start; a reset goes back to the option and detaches the head', async () => {
    const h = await open({ autoCheckpoints: true });
    assert.equal((await submit(h, 'a')).checkpoint, 'cp_1');
    const other = await h.request('POST', '/ns/w3/v1/runs', { body: '{"input": "b"}' });
    assert.equal(other.headers['x-hermetic-checkpoint'], 'cp_1@w3');
    await h.admin.setTimeline({ auto: false });
    await h.admin.reset();
    const t = await h.admin.timeline();
    assert.deepEqual([t.auto, t.head, t.checkpoints.length], [true, null, 1], 'checkpoints outlive a reset');
    const after = await submit(h, 'c');
    assert.equal(after.checkpoint, 'cp_2');
    assert.equal((await h.admin.timeline()).checkpoints[1]!.parent, null);
  });
});

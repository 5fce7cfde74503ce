// Request bodies held at once are bounded by what they really hold (decision 0135): the bytes received as they come,
// what they decode to, their text and parse. What fits goes at once; one lease at a time may pass the budget, so
// bodies part-way through always finish and one costing more than the whole budget is served; an idle upload holds
// only what it sent; a client that leaves while its body waits gives back its place.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { waitFor, DEADLINE_MS } from '../../../test/support/wait.js';
import { BODY_ALLOWANCE, BodyBudget } from './body-budget.js';
import { startServer, type ServerHandle } from './node.js';

const KEY = 'test-key-0123456789abcdef';

/** Sends a request and resolves with its status (and text); rejects if no answer comes within the deadline. */
function send(server: ServerHandle, method: string, path: string, body: string | Buffer | null, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string | number> = { Authorization: `Bearer ${KEY}`, ...headers };
    if (body !== null) h['Content-Length'] = Buffer.byteLength(body);
    const req = request(`${server.url}${path}`, { method, headers: h, agent: false, signal: AbortSignal.timeout(DEADLINE_MS) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** A client that sends a head and the start of its body, then nothing more (until it is destroyed). */
function hold(server: ServerHandle, path: string, declared: number, sent: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.once('connect', () => {
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
      socket.write(head + sent, () => resolve(socket));
    });
    socket.once('error', reject);
  });
}

describe('the body budget', () => {
  it('what fits is held at once, even behind a want that waits; one lease at a time goes past the budget', async () => {
    // In units of a body's allowance (what any body may hold without waiting).
    const U = BODY_ALLOWANCE;
    const budget = new BodyBudget(100 * U);
    const [a, b, c, d, e] = [budget.lease(), budget.lease(), budget.lease(), budget.lease(), budget.lease()];
    a.take(100 * U);
    assert.equal(b.want(30 * U), null, 'no room, but nobody is past the budget: b may be');
    assert.equal(budget.used, 130 * U);
    assert.equal(b.want(1000 * U), null, 'a lease past the budget takes what it asks');
    const order: string[] = [];
    const cWaits = c.want(5 * U)!.then(() => order.push('c'));
    d.take(U);
    const dWaits = d.room()!.then(() => order.push('d'));
    assert.equal(budget.waiting, 2);
    assert.equal(budget.lease().want(U), null, 'within its allowance a body never waits');
    a.give(100 * U);
    assert.equal(budget.waiting, 2, 'still past the budget (b holds 1030 U): nobody else goes');
    const eWaits = e.want(50 * U)!.then(() => order.push('e'));
    b.end();
    await Promise.all([cWaits, dWaits, eWaits]);
    assert.deepEqual(order, ['c', 'd', 'e'], 'in order, each as it fits');
    assert.equal(budget.used, 57 * U);
    // A large want waits; a smaller one behind it that fits goes at once.
    const big = budget.lease();
    const small = budget.lease();
    e.take(43 * U); // full: 100 U
    const overdraft = budget.lease();
    assert.equal(overdraft.want(2 * U), null, 'past the budget: the overdraft');
    const bigWaits = big.want(80 * U);
    assert.ok(bigWaits, 'the overdraft is taken: the large want waits');
    e.give(40 * U);
    assert.equal(small.want(10 * U), null, 'what fits goes although a larger want waits before it');
    overdraft.end();
    await bigWaits;
    assert.equal(big.held, 80 * U, 'the large want takes the overdraft once it is free');
    // Ended leases hold nothing, and take or give nothing after.
    for (const l of [c, d, e, big, small]) l.end();
    c.end();
    c.take(10);
    assert.equal(budget.used, U, 'the lease that took its allowance and was never ended');
    assert.ok(budget.peak >= 1131 * U);
  });

  it('an upload that sends nothing more holds only what it sent: every other body goes at once', async () => {
    const budget = new BodyBudget(64 * 1024);
    const server = await startServer({ port: 0, apiKey: KEY, bodyBudget: budget, frozen: true, time: 1789169800 });
    const held: Socket[] = [];
    try {
      const run = JSON.parse((await send(server, 'POST', '/v1/runs', '{"input":"x"}')).text).run_id as string;
      // Twenty uploads declaring 1 MB each (more than the budget together) that send 5 bytes and stop.
      for (let i = 0; i < 20; i++) held.push(await hold(server, '/__admin/clock', 1_000_000, '{"adv'));
      await waitFor(() => budget.used === 20 * 5, 'the twenty uploads read');
      assert.equal((await send(server, 'POST', `/v1/runs/${run}/steer`, '{"text":"more"}')).status, 200);
      assert.equal((await send(server, 'POST', `/v1/runs/${run}/approval`, '{"choice":"once"}')).status, 409);
      assert.equal((await send(server, 'POST', '/v1/runs', '{"input":"y"}')).status, 202);
      assert.equal((await send(server, 'POST', '/__admin/clock', '{"advance":1}', { 'Content-Type': 'application/json' })).status, 200);
    } finally {
      for (const s of held) s.destroy();
      await server.close();
    }
  });

  it('POST /v1/runs uploads still arriving count as pending work: the next run is refused 429, as Hermes', async () => {
    const budget = new BodyBudget(64 * 1024);
    const server = await startServer({ port: 0, apiKey: KEY, bodyBudget: budget, frozen: true, time: 1789169800 });
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 10; i++) held.push(await hold(server, '/v1/runs', 10_000_000, '{"inp'));
      await waitFor(() => budget.used === 10 * 5, 'the ten uploads read');
      const refused = await send(server, 'POST', '/v1/runs', '{"input":"y"}');
      assert.equal(refused.status, 429);
      assert.equal(JSON.parse(refused.text).error.message, 'Too many concurrent runs (max 10)');
      for (const s of held) s.destroy();
      // Their places are given back: ten runs are admitted once they have gone.
      await waitFor(async () => (await send(server, 'POST', '/v1/runs', '{"input":"y"}')).status === 202, 'a run admitted');
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await send(server, 'POST', '/v1/runs', '{"input":"y"}')).status);
      assert.deepEqual(statuses, [202, 202, 202, 202, 202, 202, 202, 202, 202, 429]);
    } finally {
      for (const s of held) s.destroy();
      await server.close();
    }
  });

  it('a POST /v1/runs whose client leaves while its body waits for room gives back its place in admission', async () => {
    const budget = new BodyBudget(64 * 1024);
    const server = await startServer({ port: 0, apiKey: KEY, bodyBudget: budget, maxConcurrentRuns: 1, frozen: true, time: 1789169800 });
    let filler: Socket | null = null;
    let departed: Socket | null = null;
    try {
      // A control upload fills the budget with 100 KB and stops: it is past the budget, and every other body waits
      // once past its allowance.
      filler = await hold(server, '/__admin/clock', 1_000_000, ' '.repeat(100_000));
      await waitFor(() => budget.used >= 100_000, 'the filler read');
      departed = await hold(server, '/v1/runs', 200_000, ' '.repeat(100_000));
      await waitFor(() => budget.waiting === 1, 'the run request waiting for room');
      departed.destroy();
      // The server sees it leave (its read ends, its answer goes nowhere) before the room it waited for comes.
      await waitFor(() => budget.waiting === 0, 'the departed request out of the queue');
      filler.destroy();
      // Once both have gone, the one place is free: a run is admitted, and the next refused.
      await waitFor(async () => (await send(server, 'POST', '/v1/runs', '{"input":"y"}')).status === 202, 'a run admitted');
      assert.equal((await send(server, 'POST', '/v1/runs', '{"input":"z"}')).status, 429);
      await waitFor(() => budget.used === 0 && budget.waiting === 0, 'the budget given back');
    } finally {
      filler?.destroy();
      departed?.destroy();
      await server.close();
    }
  });

  it('a compressed body holds what it decodes to, and its text and parse; the budget is whole again after', async () => {
    const budget = new BodyBudget(256 * 1024);
    const server = await startServer({ port: 0, apiKey: KEY, bodyBudget: budget, frozen: true, time: 1789169800 });
    try {
      const spaces = gzipSync(Buffer.from('{"input":"hi"}' + ' '.repeat(1_000_000)));
      const res = await send(server, 'POST', '/v1/runs', spaces, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      assert.equal(res.status, 202);
      assert.ok(budget.peak >= 2_000_000, `decoded bytes and text counted (peak ${budget.peak})`);
      assert.equal(budget.used, 0);
    } finally {
      await server.close();
    }
  });

  it('bodies whose parse costs more than the budget are each served, one at a time past it', async () => {
    const junk = `{"input":"hi","x":[${'{},'.repeat(20_000)}{}]}`;
    const cost = async (n: number): Promise<number> => {
      const budget = new BodyBudget(256 * 1024);
      const server = await startServer({ port: 0, apiKey: KEY, bodyBudget: budget, frozen: true, time: 1789169800 });
      try {
        const statuses = await Promise.all(Array.from({ length: n }, (_, i) => send(server, 'POST', '/v1/runs', junk, { 'Idempotency-Key': `k-${i}` }).then((r) => r.status)));
        assert.deepEqual(statuses, Array(n).fill(202));
        assert.equal(budget.used, 0);
        return budget.peak;
      } finally {
        await server.close();
      }
    };
    const one = await cost(1);
    assert.ok(one > 4 * 256 * 1024, `one body costs more than four budgets (${one})`);
    const four = await cost(4);
    assert.ok(four < one + 256 * 1024 + 64 * 1024, `four at once hold the budget and one body at most (${four}, one ${one})`);
  });
});

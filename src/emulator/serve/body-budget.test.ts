// Request bodies held at once are bounded: each reserves what it may come to before it is read and gives it back when
// its answer is done; one that does not fit waits its turn (first come, first served) and is answered all the same.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { BodyBudget, startServer } from './node.js';

describe('the body budget', () => {
  it('reserves in order: a reservation that does not fit waits, and goes when enough is given back', async () => {
    const budget = new BodyBudget(100);
    const order: string[] = [];
    const a = await budget.reserve(60);
    const b = budget.reserve(50).then((r) => (order.push('b'), r));
    const c = budget.reserve(10).then((r) => (order.push('c'), r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [], 'b does not fit, and c waits behind it');
    a();
    a(); // given back once only
    const [rb, rc] = await Promise.all([b, c]);
    assert.deepEqual(order, ['b', 'c']);
    // More than the whole budget is capped at it (the route's own limit refuses such a body).
    rb();
    rc();
    (await budget.reserve(1000))();
  });

  it('over HTTP: bodies past the budget wait their turn and every one is answered', async () => {
    // 64 KiB of bodies at once; six clients each declare 40 KiB and send it in two halves.
    const server = await startServer({ port: 0, bodyBudget: 64 * 1024 });
    try {
      const body = JSON.stringify({ default: { complete_after: 1, output: 'x'.repeat(40 * 1024 - 60) } });
      const send = () => new Promise<number>((resolve, reject) => {
        const req = request(`${server.url}/__admin/scenarios`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        const half = Math.floor(body.length / 2);
        req.write(body.slice(0, half));
        setImmediate(() => req.end(body.slice(half)));
      });
      assert.deepEqual(await Promise.all(Array.from({ length: 6 }, send)), [200, 200, 200, 200, 200, 200]);
    } finally {
      await server.close();
    }
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { AdminClientError, createAdminClient } from './client.js';

const answering = (status: number, body: string, seen: Request[] = []) =>
  createAdminClient(async (request) => {
    seen.push(request);
    return new Response(body, { status, headers: { 'Content-Type': 'application/json' } });
  }, 'http://hermes.test/');

const refusal = (code: string, message: string, httpStatus: number, route: string) => (e: unknown) =>
  e instanceof AdminClientError &&
  e instanceof HermeticError &&
  e.code === code &&
  e.message === message &&
  e.httpStatus === httpStatus &&
  e.route === route;

test('URLs, methods and bodies come from the route table; a GET sends no body', async () => {
  const seen: Request[] = [];
  const admin = answering(200, '{"now": 5, "frozen": true}', seen);
  assert.deepEqual(await admin.clock({ advance: 5 }), { now: 5, frozen: true });
  await admin.getClock();
  await admin.stopPolicy('run/1', { acknowledge: false });
  assert.deepEqual(
    seen.map((r) => [r.method, r.url]),
    [['POST', 'http://hermes.test/__admin/clock'], ['GET', 'http://hermes.test/__admin/clock'], ['POST', 'http://hermes.test/__admin/runs/run%2F1/stop-policy']],
  );
  assert.equal(await seen[0]!.text(), '{"advance":5}');
  assert.equal(seen[1]!.body, null);
});

test('a refusal throws the server code and sentence, with the HTTP status and the route', async () => {
  const admin = answering(404, '{"error": {"code": "HERMETIC_RUN_UNKNOWN", "message": "No live run r in this gateway."}}');
  await assert.rejects(admin.complete('r', {}), refusal('HERMETIC_RUN_UNKNOWN', 'No live run r in this gateway.', 404, 'complete'));
});

test('an answer that is not the control plane\'s is HERMETIC_ADMIN_BAD_ANSWER', async () => {
  await assert.rejects(
    answering(502, '<html>Bad Gateway</html>').sweep(),
    refusal('HERMETIC_ADMIN_BAD_ANSWER', 'POST /__admin/sweep answered 502 with "<html>Bad Gateway</html>", not a control-plane answer.', 502, 'sweep'),
  );
  await assert.rejects(
    answering(400, '{"error": {"code": "HERMETIC_FROM_THE_FUTURE", "message": "x"}}').getGateway(),
    refusal(
      'HERMETIC_ADMIN_BAD_ANSWER',
      'GET /__admin/gateway answered 400 with "{\\"error\\": {\\"code\\": \\"HERMETIC_FROM_THE_FUTURE\\", \\"message\\": \\"x\\"}}", not a control-plane answer.',
      400,
      'getGateway',
    ),
  );
});

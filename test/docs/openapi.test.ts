// The OpenAPI document (GET /__admin/openapi.json) is generated from the route tables and the AdminRoutes contract
// and must not drift from them; the check that holds every answer of the suite to it must catch what it should.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { openApiModule, OPENAPI_MODULE } from '../../scripts/openapi/document.js';
import { createAdminClient } from '../../src/emulator/admin/client.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from '../../src/emulator/admin/routes.js';
import { ROUTES } from '../../src/emulator/api/routes.js';
import { SERVER_HEADER } from '../../src/emulator/app.js';
import { createEmulator } from '../../src/emulator/index.js';
import { checkAnswer, CONTRACT_CHECK_PRELOADED, ContractViolation, installContractCheck } from '../support/contract.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

test('the committed document is the one generated from the route tables and the contract (npm run docs:openapi)', () => {
  const committed = readFileSync(OPENAPI_MODULE, 'utf8');
  assert.ok(
    committed === openApiModule(),
    'src/emulator/admin/openapi.generated.ts is out of date: a route table, the AdminRoutes contract or api/contract.ts changed. Run `npm run docs:openapi` and commit the result.',
  );
});

test('the served document has every route of both tables, and nothing else', async () => {
  const hermes = createEmulator();
  try {
    const document = (await hermes.admin.openapi()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.equal(document.openapi, '3.1.0');
    const served = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((k) => METHODS.includes(k)).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const tables = [
      ...ROUTES.map((r) => `${r.method} ${r.path}`),
      ...ADMIN_ROUTES.map((r) => `${r.method} ${ADMIN_PREFIX}${r.path}`),
    ];
    assert.deepEqual([...served].sort(), [...tables].sort());
    assert.equal(new Set(served).size, served.length);
  } finally {
    await hermes.close();
  }
});

test('every $ref resolves, operation ids are unique, and each admin route names its client method', async () => {
  const hermes = createEmulator();
  try {
    const document = (await hermes.admin.openapi()) as any;
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.add(x);
          else walk(x);
        }
      }
    };
    walk(document);
    for (const ref of refs) {
      const target = ref.slice(2).split('/').reduce((at: any, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
      assert.ok(target !== undefined, `${ref} resolves`);
    }
    const ids: string[] = [];
    for (const item of Object.values<any>(document.paths)) for (const m of METHODS) if (item[m]) ids.push(item[m].operationId);
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    for (const route of ADMIN_ROUTES) {
      assert.equal(document.paths[ADMIN_PREFIX + route.path][route.method.toLowerCase()]['x-hermetic-client-method'], route.name);
    }
  } finally {
    await hermes.close();
  }
});

test('the answer check refuses a wrong field, an undocumented status or media type, and leaves unrouted paths alone', () => {
  const ok = { method: 'GET', url: 'http://h/__admin/clock', status: 200, contentType: 'application/json', text: '{"now": 1, "frozen": true}' };
  checkAnswer(ok);
  checkAnswer({ ...ok, url: 'http://h/ns/w3/__admin/clock' });
  assert.throws(() => checkAnswer({ ...ok, text: '{"now": "1", "frozen": true}' }), (e: Error) => e instanceof ContractViolation && /\/now must be number/.test(e.message));
  assert.throws(() => checkAnswer({ ...ok, text: '{"now": 1, "frozen": true, "extra": 1}' }), /must NOT have additional properties/);
  assert.throws(() => checkAnswer({ ...ok, status: 302 }), /status 302 is not documented/);
  assert.throws(() => checkAnswer({ ...ok, contentType: 'text/html' }), /media type "text\/html" is not documented/);
  // A refusal of any control route is a HERMETIC_* envelope.
  checkAnswer({ ...ok, status: 400, text: '{"error": {"code": "HERMETIC_CLOCK_RANGE", "message": "no"}}' });
  assert.throws(() => checkAnswer({ ...ok, status: 400, text: '{"error": "no"}' }), ContractViolation);
  // Hermes routes, under a profile and a namespace too.
  const missing = { method: 'GET', url: '/ns/a/p/work/v1/runs/run_1', status: 404, contentType: 'application/json; charset=utf-8' };
  checkAnswer({ ...missing, text: '{"error": {"message": "Run not found: run_1", "type": "invalid_request_error", "param": null, "code": "run_not_found"}}' });
  checkAnswer({ ...missing, text: '{"error": "Unknown or unconfigured profile"}' });
  assert.throws(() => checkAnswer({ ...missing, text: '{"error": {"message": "Run not found", "type": "invalid_request_error"}}' }), ContractViolation);
  // The CORS refusal is bare: octet-stream of no length (decision 0096).
  checkAnswer({ ...missing, status: 403, contentType: 'application/octet-stream', text: '' });
  assert.throws(() => checkAnswer({ ...missing, status: 403, contentType: 'application/octet-stream', text: 'x' }), /has no body/);
  assert.throws(() => checkAnswer({ ...missing, status: 403, text: 'x' }), /media type "application\/json" is not documented/);
  // aiohttp's 404 page for a path that is not a route, and a wrong method: no operation, nothing to hold them to.
  checkAnswer({ method: 'GET', url: '/v1/nothing', status: 404, contentType: 'text/plain', text: '404: Not Found' });
  checkAnswer({ method: 'DELETE', url: '/v1/runs', status: 405, contentType: 'text/plain', text: '405: Method Not Allowed' });
  // A parameter segment with braces is no route for aiohttp either (its 404 page).
  checkAnswer({ method: 'POST', url: '/v1/runs/%7Brun_id%7D/approval', status: 404, contentType: 'text/plain', text: '404: Not Found' });
  // Python's json.dumps writes Infinity for a float overflow the client sent (`1e999`): still a JSON number here.
  const run = '{"object": "hermes.run", "run_id": "run_1", "status": "running", "updated_at": 1.5, "created_at": 1.0, "session_id": Infinity, "model": -Infinity}';
  checkAnswer({ method: 'GET', url: '/v1/runs/run_1', status: 200, contentType: 'application/json', text: run });
});

test('an in-process emulator holds every answer of its fetch to the document, except a fault rule\'s own', async () => {
  installContractCheck();
  const hermes = createEmulator({ corsOrigins: ['http://app.test'] });
  try {
    // A namespace's fault answers what the test asked for (an undocumented 418): not the emulated API's answer.
    await hermes.admin.addFault({ operation: 'health', action: 'respond', status: 418, body: 'teapot' });
    const res = await hermes.fetch(new Request('http://h/health'));
    assert.equal(res.status, 418);
    assert.equal(await res.text(), 'teapot');
    // The answer handed on is the same bytes and headers: an empty body keeps its Content-Type (the CORS 403's, decision
    // 0029) or its lack of one (the allowed preflight).
    await hermes.admin.clearFaults();
    const health = await hermes.fetch(new Request('http://h/health'));
    assert.equal(await health.text(), '{"status": "ok", "platform": "hermes-agent", "version": "0.21.0"}');
    const refused = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', headers: { Origin: 'http://x' } }));
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('content-type'), 'application/octet-stream');
    const preflight = await hermes.fetch(new Request('http://h/v1/runs', { method: 'OPTIONS', headers: { Origin: 'http://app.test' } }));
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get('content-type'), null);
  } finally {
    await hermes.close();
  }
});

test('admin clients hold their answers to the document in the test suite', async () => {
  // scripts/run-tests.mjs (which says so with HERMETIC_TEST=1) preloads the check into every test process
  // (test/support/contract-check.ts, which alone sets its marker; a test may install the check itself too).
  if (process.env.HERMETIC_TEST === '1') {
    assert.equal((globalThis as Record<symbol, unknown>)[CONTRACT_CHECK_PRELOADED], true, 'the runner preloaded the contract check');
  }
  installContractCheck();
  const real = createEmulator();
  const lying = async (request: Request): Promise<Response> => {
    const body = (await (await real.fetch(request)).json()) as Record<string, unknown>;
    return new Response(JSON.stringify({ ...body, now: 'soon' }), { status: 200, headers: { 'content-type': 'application/json', server: SERVER_HEADER } });
  };
  try {
    await assert.rejects(createAdminClient(lying, 'http://h').getClock(), (e: Error) => e instanceof ContractViolation && /\/now must be number/.test(e.message));
    // A test's stub (no Hermetic Server header) answers as it likes.
    const stub = async () => new Response('{"now": "soon"}', { status: 200, headers: { 'content-type': 'application/json' } });
    assert.deepEqual(await createAdminClient(stub, 'http://h').getClock(), { now: 'soon' });
  } finally {
    await real.close();
  }
});

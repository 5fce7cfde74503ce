// Bugs are not Hermes errors: where Hermes raises, the client gets aiohttp's 500 page and nothing is reported; where
// our own code breaks, the client gets the same page (the API) or 500 HERMETIC_INTERNAL (the control plane), and the
// bug is reported through onInternalError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handleAdmin, type AdminDeps } from './admin/index.js';
import type { GatewaySettings } from './gateway.js';
import type { HttpRequest } from './http.js';
import { handleApi, type ApiDeps } from './api/index.js';
import { UnhandledHermesException } from './runs/hermes-errors.js';
import { StoreUnavailable } from './runs/run-table.js';

const gateway: GatewaySettings = {
  apiKey: null, draining: false, maxConcurrentRuns: 10, modelName: 'hermes-agent', agentModel: null, corsOrigins: [], profiles: new Map(),
};

const get = (path: string): HttpRequest => ({
  method: 'GET',
  path,
  query: '',
  header: () => undefined,
  readBody: async () => new Uint8Array(),
});

/** An API whose runs service throws `error` from GET /v1/runs/{id}. */
function api(error: unknown, reported: unknown[], said: string[] = []): ApiDeps {
  const service = { get: () => { throw error; } };
  return {
    service, registry: {}, gateway, clock: {}, durable: true, onInternalError: (e: unknown) => void reported.push(e),
    onStoreFailure: (request: string, e: StoreUnavailable) => void said.push(`${request}: ${e.message}`),
  } as unknown as ApiDeps;
}

const PAGE = '500 Internal Server Error\n\nServer got itself in trouble';

test('a bug in a /v1 handler is answered with aiohttp\'s 500 page and reported', async () => {
  const reported: unknown[] = [];
  const bug = new TypeError("Cannot read properties of undefined (reading 'status')");
  const res = await handleApi(get('/v1/runs/run_x'), api(bug, reported));
  assert.equal(res.status, 500);
  assert.equal(res.body, PAGE);
  assert.deepEqual(reported, [bug]);
});

test('where Hermes itself raises (a Python exception, a SQLite error) the page is Hermes\'s answer: no bug is reported; a store\'s failure is said', async () => {
  for (const [error, says] of [[new UnhandledHermesException('KeyError'), []], [new StoreUnavailable('busy', 'locked'), ['GET /v1/runs/run_x: locked']]] as const) {
    const reported: unknown[] = [];
    const said: string[] = [];
    const res = await handleApi(get('/v1/runs/run_x'), api(error, reported, said));
    assert.equal(res.status, 500);
    assert.equal(res.body, PAGE);
    assert.deepEqual(reported, []);
    assert.deepEqual(said, says);
  }
});

/** A control plane whose run listing throws `error`. */
function admin(error: unknown, reported: unknown[]): AdminDeps {
  const registry = { get statuses(): never { throw error; }, settle: () => null };
  return { registry, adminKey: null, onInternalError: (e: unknown) => void reported.push(e) } as unknown as AdminDeps;
}

test('a bug behind a control route is 500 HERMETIC_INTERNAL (not a BAD_FIELD) and reported', async () => {
  const reported: unknown[] = [];
  const bug = new RangeError('Invalid array length');
  const res = await handleAdmin(get('/__admin/runs'), admin(bug, reported));
  assert.equal(res.status, 500);
  assert.deepEqual(JSON.parse(String(res.body)), {
    error: { code: 'HERMETIC_INTERNAL', message: 'A bug in Hermetic answered this control request: Invalid array length. It was logged; please report it.' },
  });
  assert.deepEqual(reported, [bug]);
});

test('a store that stays locked is 503 HERMETIC_STORE_BUSY on the control plane, and no bug', async () => {
  const reported: unknown[] = [];
  const res = await handleAdmin(get('/__admin/runs'), admin(new StoreUnavailable('busy', 'The store is locked by another connection (x): database is locked'), reported));
  assert.equal(res.status, 503);
  assert.equal(JSON.parse(String(res.body)).error.code, 'HERMETIC_STORE_BUSY');
  assert.deepEqual(reported, []);
});

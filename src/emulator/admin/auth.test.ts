// The admin key: every control route but GET /__admin/health refuses a request without it, in every namespace
// (prefixed or by header); the comparison is constant-time; Hermes's own routes never ask for it.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { mock, test } from 'node:test';
import { HERMES_RELEASE, HERMETIC_VERSION } from '../../shared/version.js';
import { HERMES_VERSION } from '../api/meta.js';
import { createEmulator } from '../index.js';
import { startServer } from '../serve/node.js';
import { ADMIN_KEY_HEADER, adminKeyMatches } from './auth.js';
import { AdminClientError, createAdminClient } from './client.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from './routes.js';

const KEY = 'admin-key-0123456789abcdef';
const MISSING = `This server's control plane needs its admin key: send it as "x-hermetic-admin-key: <key>" (or "Authorization: Bearer <key>"). Only GET /__admin/health and the console's files (GET /__admin/ui/) are open.`;

const send = (emulator: ReturnType<typeof createEmulator>, method: string, path: string, headers: Record<string, string> = {}) =>
  emulator.fetch(new Request(`http://hermes.test${path}`, { method, headers, body: method === 'GET' ? undefined : '{}' }));

async function expectRefused(response: Response, message: string, what: string): Promise<void> {
  assert.equal(response.status, 401, what);
  assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="hermetic-admin"', what);
  assert.deepEqual(await response.json(), { error: { code: 'HERMETIC_ADMIN_UNAUTHORIZED', message } }, what);
}

/** Every route of the table (health aside), in the default namespace, under /ns/<name>, and by header. */
const GUARDED = ADMIN_ROUTES.filter((r) => r.name !== 'health').flatMap((route) => {
  const path = ADMIN_PREFIX + route.path.replace('{run_id}', 'run_0123');
  return [
    { method: route.method, path, headers: {} as Record<string, string>, what: `${route.method} ${path}` },
    { method: route.method, path: `/ns/w3${path}`, headers: {}, what: `${route.method} /ns/w3${path}` },
    { method: route.method, path, headers: { 'x-hermetic-namespace': 'w4' }, what: `${route.method} ${path} (namespace header)` },
  ];
});

test('with an admin key, every control route in every namespace refuses a request without it or with another key', async () => {
  const emulator = createEmulator({ adminKey: KEY });
  try {
    for (const { method, path, headers, what } of GUARDED) {
      await expectRefused(await send(emulator, method, path, headers), MISSING, what);
      await expectRefused(
        await send(emulator, method, path, { ...headers, [ADMIN_KEY_HEADER]: `${KEY}x` }),
        `The admin key in the ${ADMIN_KEY_HEADER} header is not this server's admin key.`,
        what,
      );
      await expectRefused(
        await send(emulator, method, path, { ...headers, authorization: 'Bearer nope' }),
        "The admin key in the Authorization: Bearer header is not this server's admin key.",
        what,
      );
      // The right key gets the route's own answer (a 404 for the made-up run id, a 200 elsewhere), never a 401.
      const allowed = await send(emulator, method, path, { ...headers, [ADMIN_KEY_HEADER]: KEY });
      assert.notEqual(allowed.status, 401, what);
    }
    // Unknown control routes too: a caller without the key learns nothing about what exists.
    await expectRefused(await send(emulator, 'GET', '/__admin/nope'), MISSING, 'unknown route');
    await expectRefused(await send(emulator, 'POST', '/__admin/health'), MISSING, 'POST on the health path');
    assert.equal((await send(emulator, 'GET', '/__admin/nope', { [ADMIN_KEY_HEADER]: KEY })).status, 404);
  } finally {
    await emulator.close();
  }
});

test('Authorization: Bearer carries the admin key on control routes; x-hermetic-admin-key, when present, decides', async () => {
  const emulator = createEmulator({ adminKey: KEY, apiKey: 'hermes-api-key-0123456789' });
  try {
    assert.equal((await send(emulator, 'GET', '/__admin/clock', { authorization: `Bearer ${KEY}` })).status, 200);
    assert.equal((await send(emulator, 'GET', '/__admin/clock', { authorization: `bearer   ${KEY}` })).status, 200);
    await expectRefused(
      await send(emulator, 'GET', '/__admin/clock', { [ADMIN_KEY_HEADER]: 'wrong', authorization: `Bearer ${KEY}` }),
      `The admin key in the ${ADMIN_KEY_HEADER} header is not this server's admin key.`,
      'header decides',
    );
    // Hermes's API key is not the admin key, and Basic is not a bearer token.
    await expectRefused(
      await send(emulator, 'GET', '/__admin/clock', { authorization: 'Bearer hermes-api-key-0123456789' }),
      "The admin key in the Authorization: Bearer header is not this server's admin key.",
      'api key',
    );
    await expectRefused(await send(emulator, 'GET', '/__admin/clock', { authorization: `Basic ${KEY}` }), MISSING, 'basic');
  } finally {
    await emulator.close();
  }
});

test('GET /__admin/health is open in every namespace and identifies the emulator', async () => {
  const emulator = createEmulator({ adminKey: KEY });
  try {
    for (const [path, headers, namespace] of [
      ['/__admin/health', {}, 'default'],
      ['/ns/w3/__admin/health', {}, 'w3'],
      ['/__admin/health', { 'x-hermetic-namespace': 'w4' }, 'w4'],
    ] as const) {
      const response = await send(emulator, 'GET', path, headers);
      assert.equal(response.status, 200, path);
      assert.deepEqual(await response.json(), {
        status: 'ok',
        emulator: 'hermetic',
        version: HERMETIC_VERSION,
        hermes_release: 'v2026.8.31',
        hermes_version: HERMES_VERSION,
        namespace,
        admin_key_required: true,
        held_writes: 0,
      });
    }
    assert.equal(HERMES_RELEASE, 'v2026.8.31');
    assert.match(HERMETIC_VERSION, /^\d+\.\d+\.\d+/);
  } finally {
    await emulator.close();
  }
});

test("the emulator's own admin clients send its key; Hermes's routes never ask for it", async () => {
  const emulator = createEmulator({ adminKey: KEY, frozen: true, time: 1_796_000_000 });
  try {
    assert.deepEqual(await emulator.admin.getClock(), { now: 1_796_000_000, frozen: true });
    assert.deepEqual(await emulator.namespace('w9').admin.clock({ advance: 5 }), { now: 1_796_000_005, frozen: true });
    assert.equal((await emulator.admin.health()).admin_key_required, true);
    const submitted = await send(emulator, 'POST', '/v1/runs', { 'Content-Type': 'application/json' });
    assert.equal(submitted.status, 400); // Hermes's own answer to a body without input: not the admin key's 401
    assert.equal((await send(emulator, 'GET', '/health')).status, 200);
  } finally {
    await emulator.close();
  }
});

test('without an admin key the control plane is open, and health says so; an empty key is refused', async () => {
  const emulator = createEmulator();
  try {
    assert.equal((await send(emulator, 'GET', '/__admin/clock')).status, 200);
    assert.equal((await emulator.admin.health()).admin_key_required, false);
  } finally {
    await emulator.close();
  }
  assert.throws(() => createEmulator({ adminKey: '' }), {
    code: 'HERMETIC_OPTIONS_INVALID',
    message: 'Option "adminKey" must not be empty; use null for an open control plane.',
  });
});

test('keys are compared with crypto.timingSafeEqual over SHA-256 digests, so the length does not decide early', () => {
  const spy = mock.method(crypto, 'timingSafeEqual');
  try {
    assert.equal(adminKeyMatches(KEY, KEY), true);
    assert.equal(adminKeyMatches('k', KEY), false);
    assert.equal(adminKeyMatches(`${KEY}${KEY}`, KEY), false);
    assert.equal(adminKeyMatches('', KEY), false);
    assert.equal(spy.mock.callCount(), 4);
    for (const call of spy.mock.calls) {
      const [a, b] = call.arguments as unknown as [Buffer, Buffer];
      assert.deepEqual([a.length, b.length], [32, 32]);
    }
  } finally {
    spy.mock.restore();
  }
});

test('createAdminClient sends the key given in its options as x-hermetic-admin-key; without options it sends none', async () => {
  const seen: Request[] = [];
  const fake = async (request: Request) => {
    seen.push(request);
    return new Response('{"now": 1, "frozen": true}', { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  };
  await createAdminClient(fake, 'http://hermes.test', { adminKey: KEY }).clock({ advance: 1 });
  await createAdminClient(fake, 'http://hermes.test', { adminKey: KEY }).getClock();
  await createAdminClient(fake, 'http://hermes.test').getClock();
  await createAdminClient(fake, 'http://hermes.test', { adminKey: null }).getClock();
  assert.deepEqual(seen.map((r) => r.headers.get(ADMIN_KEY_HEADER)), [KEY, KEY, null, null]);
  assert.equal(seen[0]!.headers.get('content-type'), 'application/json');

  // Against a real server: the refusal is an AdminClientError with the server's code; the key makes it pass.
  const server = await startServer({ port: 0, adminKey: KEY });
  try {
    await assert.rejects(createAdminClient(fetch, server.url).getClock(), (e: unknown) =>
      e instanceof AdminClientError && e.code === 'HERMETIC_ADMIN_UNAUTHORIZED' && e.httpStatus === 401 && e.message === MISSING);
    assert.equal((await createAdminClient(fetch, server.url).health()).emulator, 'hermetic');
    assert.equal(typeof (await createAdminClient(fetch, server.url, { adminKey: KEY }).getClock()).now, 'number');
    assert.equal((await createAdminClient(fetch, `${server.url}/ns/remote`, { adminKey: KEY }).health()).namespace, 'remote');
  } finally {
    await server.close();
  }
});

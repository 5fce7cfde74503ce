// What a namespace costs (decision 0028): nothing for a request refused for its credentials, a few KB for one that only
// answered a 404, SQLite handles only once something is written — and a reset or an eviction closes them again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createEmulator } from '../index.js';
import { createFrontDoor } from '../front-door.js';
import type { HttpRequest } from '../http.js';
import { parseEmulatorOptions } from '../options.js';
import type { RunTable } from '../runs/run-table.js';
import { realLockWait } from '../store/busy.js';
import { openRunTable } from '../store/db.js';
import { LazyRunTable, LazySessionTable } from '../store/lazy.js';
import { Namespaces } from './index.js';

const KEY = 'k'.repeat(24);
const ADMIN = 'a'.repeat(24);

function request(method: string, path: string, headers: Record<string, string> = {}, body = ''): HttpRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { method, path, query: '', header: (name) => lower[name], readBody: async () => new TextEncoder().encode(body) };
}

test('stores open on a namespace\'s first write; a reset and an eviction close them', async () => {
  const options = parseEmulatorOptions({ apiKey: KEY, maxNamespaces: 3, time: 1_800_000_000, frozen: true });
  const open: RunTable[] = [];
  const namespaces = new Namespaces({
    options,
    lock: realLockWait(1000),
    openStore: () => {
      const table = openRunTable(':memory:', { kind: 'fast', lock: realLockWait(1000), onBackgroundError: () => {} });
      open.push(table);
      return table;
    },
    onInternalError: (e) => assert.fail(String(e)),
  });
  const front = createFrontDoor(namespaces, options);
  const auth = { Authorization: `Bearer ${KEY}` };
  try {
    assert.equal(open.length, 1, 'the default namespace opens its store at once');
    assert.equal((await front(request('GET', '/ns/a/v1/runs/run_x', auth))).status, 404);
    assert.equal((await front(request('GET', '/ns/a/api/sessions', auth))).status, 200);
    const a = namespaces.find('a')!;
    const store = a.registry.store as LazyRunTable;
    const sessions = a.sessions.table as LazySessionTable;
    assert.ok(store instanceof LazyRunTable && sessions instanceof LazySessionTable);
    assert.deepEqual([store.opened, sessions.opened, open.length], [false, false, 1], 'reads open nothing');
    // A keyed run writes its row; a session created through the API writes the session store.
    assert.equal((await front(request('POST', '/ns/a/v1/runs', { ...auth, 'Idempotency-Key': 'k1' }, '{"input":"x"}'))).status, 202);
    assert.equal((await front(request('POST', '/ns/a/api/sessions', auth, '{"title":"t"}'))).status, 201);
    assert.deepEqual([store.opened, sessions.opened, open.length], [true, true, 2]);
    // A reset closes both; the replay after it is a new run (the rows went with the store).
    assert.equal((await front(request('POST', '/ns/a/__admin/reset', {}, '{}'))).status, 200);
    assert.deepEqual([store.opened, sessions.opened], [false, false]);
    const again = await front(request('POST', '/ns/a/v1/runs', { ...auth, 'Idempotency-Key': 'k1' }, '{"input":"x"}'));
    assert.equal(JSON.parse(again.body as string).replayed, false);
    assert.equal(store.opened, true);
    // Eviction closes the evicted namespace's stores: a is busy (a live run), so b goes when c comes.
    assert.equal((await front(request('GET', '/ns/b/v1/runs/run_x', auth))).status, 404);
    assert.equal((await front(request('POST', '/ns/b/v1/runs', { ...auth, 'Idempotency-Key': 'k2' }, '{"input":"y"}'))).status, 202);
    const b = namespaces.find('b')!;
    const bStore = b.registry.store as LazyRunTable;
    const runB = [...b.registry.live.keys()][0]!;
    assert.equal((await front(request('POST', `/ns/b/__admin/runs/${runB}/complete`, {}, '{"output":"ok"}'))).status, 200);
    assert.equal(bStore.opened, true);
    assert.equal((await front(request('GET', '/ns/c/v1/runs/run_x', auth))).status, 404);
    assert.deepEqual(namespaces.list().map((ns) => ns.name), ['default', 'a', 'c']);
    assert.equal(bStore.opened, false, 'the evicted namespace closed its store');
    assert.equal(namespaces.evicted, 1);
  } finally {
    namespaces.close();
  }
});

/** Namespaces over in-memory stores and the front door to them, for the tests of what creates a namespace. */
function frontDoorOver(options: ReturnType<typeof parseEmulatorOptions>) {
  const namespaces = new Namespaces({
    options,
    lock: realLockWait(1000),
    openStore: () => openRunTable(':memory:', { kind: 'fast', lock: realLockWait(1000), onBackgroundError: () => {} }),
    onInternalError: (e) => assert.fail(String(e)),
  });
  return { namespaces, front: createFrontDoor(namespaces, options) };
}

test('keyless requests that reach no state never push another test\'s namespace out', async () => {
  const options = parseEmulatorOptions({ apiKey: KEY, adminKey: ADMIN, maxNamespaces: 2, corsOrigins: ['http://ok.test'], time: 1_800_000_000, frozen: true });
  const { namespaces, front } = frontDoorOver(options);
  try {
    const auth = { Authorization: `Bearer ${KEY}` };
    const submitted = await front(request('POST', '/ns/victim/v1/runs', auth, '{"input":"x"}'));
    assert.equal(submitted.status, 202);
    // Completed: the victim is idle, so a new namespace at the cap would evict it.
    const run = JSON.parse(String(submitted.body)).run_id as string;
    assert.equal((await front(request('POST', `/ns/victim/__admin/runs/${run}/complete`, { 'x-hermetic-admin-key': ADMIN }, '{"output":"ok"}'))).status, 200);
    assert.equal((await front(request('POST', '/ns/victim/__admin/checkpoints', { 'x-hermetic-admin-key': ADMIN }, '{}'))).status, 200);
    // Each answered as a new namespace answers it: the same status and body as in the namespace that exists.
    const probes: [string, string, Record<string, string>, number][] = [
      ['GET', '/health', {}, 200],
      ['GET', '/v1/health', {}, 200],
      ['GET', '/nonexistent', {}, 404],
      ['POST', '/v1/runs', { origin: 'http://evil.test' }, 403],
      ['OPTIONS', '/v1/runs', { origin: 'http://ok.test', 'access-control-request-method': 'POST' }, 200],
      ['GET', '/__admin/health', {}, 200],
    ];
    for (const [i, [method, path, headers, status]] of probes.entries()) {
      const fresh = await front(request(method, `/ns/anon${i}${path}`, headers));
      const known = await front(request(method, `/ns/victim${path}`, headers));
      assert.equal(fresh.status, status, `${method} ${path}`);
      const body = (r: typeof fresh) => String(r.body ?? '').replaceAll('anon' + i, 'victim');
      assert.equal(body(fresh), body(known), `${method} ${path}: the same answer`);
    }
    assert.deepEqual(namespaces.list().map((ns) => ns.name), ['default', 'victim']);
    assert.equal(namespaces.evicted, 0);
    const checkpoints = await front(request('GET', '/ns/victim/__admin/checkpoints', { 'x-hermetic-admin-key': ADMIN }));
    assert.equal(JSON.parse(String(checkpoints.body)).checkpoints.length, 1, 'the victim kept its checkpoint');
    // A request that reaches state with its key still creates one, and at the cap evicts the idle one.
    assert.equal((await front(request('GET', '/ns/keyed/v1/runs/run_x', auth))).status, 404);
    assert.deepEqual([namespaces.list().map((ns) => ns.name), namespaces.evicted], [['default', 'keyed'], 1]);
  } finally {
    namespaces.close();
  }
});

test('below the cap a keyless health check makes an unclaimed namespace (its faults spend, its clock is reachable); one is evicted before any claimed one', async () => {
  const options = parseEmulatorOptions({
    apiKey: KEY, adminKey: ADMIN, maxNamespaces: 4, time: 1_800_000_000, frozen: true,
    faults: [{ action: 'respond', status: 503, path_prefix: '/health', times: 1 }],
  });
  const { namespaces, front } = frontDoorOver(options);
  try {
    // The same namespace answers each probe: the one-shot fault is spent once.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await front(request('GET', '/ns/poller/health'))).status);
    assert.deepEqual(statuses, [503, 200, 200]);
    assert.equal(namespaces.find('poller')!.claimed, false);
    // Its clock is the one the control plane moves.
    const clock = await front(request('POST', '/ns/poller/__admin/clock', { 'x-hermetic-admin-key': ADMIN }, '{"advance": 10}'));
    assert.equal(clock.status, 200);
    assert.equal(namespaces.find('poller')!.claimed, true, 'a control request claims it');
    // At the cap (default, poller, a, b): a keyed newcomer evicts the unclaimed one first, though a claimed one is older.
    const auth = { Authorization: `Bearer ${KEY}` };
    assert.equal((await front(request('GET', '/ns/a/v1/runs/run_x', auth))).status, 404);
    assert.equal((await front(request('GET', '/ns/junk/health'))).status, 503);
    assert.deepEqual(namespaces.list().map((ns) => [ns.name, ns.claimed]), [['default', true], ['poller', true], ['a', true], ['junk', false]]);
    assert.equal((await front(request('GET', '/ns/b/v1/runs/run_x', auth))).status, 404);
    assert.deepEqual(namespaces.list().map((ns) => ns.name), ['default', 'poller', 'a', 'b']);
    // Full of claimed ones: a keyless probe evicts none, and is answered all the same.
    assert.equal((await front(request('GET', '/ns/junk2/health'))).status, 503);
    assert.deepEqual(namespaces.list().map((ns) => ns.name), ['default', 'poller', 'a', 'b']);
  } finally {
    namespaces.close();
  }
});

/** V8's collector, for measuring what is retained rather than what is waiting to be collected. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

const MB = 1024 * 1024;

test('20,000 namespaces: refused ones create nothing (RSS +≤ 30 MB), authenticated ones cost ≤ 20 KB each, health answers throughout', async (t) => {
  const gc = collector();
  const hermes = createEmulator({ apiKey: KEY, adminKey: ADMIN, maxNamespaces: 100_000, time: 1_800_000_000, frozen: true });
  // The transport-neutral handler (as node:http calls it): what is measured is the emulator, not a fetch Response.
  const send = async (path: string, headers: Record<string, string> = {}) => (await hermes.handle(request('GET', path, headers))).status;
  const count = async () => (await hermes.admin.namespaces()).namespaces.length;
  const health: number[] = [];
  const probeHealth = async () => {
    const started = performance.now();
    assert.equal(await send('/__admin/health'), 200);
    health.push(performance.now() - started);
  };
  try {
    // Warm up (V8's heap grows to its working size first), then measure what 20,000 more requests keep.
    for (let i = 0; i < 2000; i++) await send(`/ns/warm${i}/v1/runs/run_x`, { Authorization: `Bearer ${KEY}` });
    for (let i = 0; i < 2000; i++) await send(`/ns/cold${i}/v1/runs/run_x`);
    const before = await count();
    gc();
    const rss0 = process.memoryUsage().rss;
    for (let i = 0; i < 20_000; i++) {
      // No API key, a wrong admin key, no admin key: each refused before any namespace exists.
      const path = i % 3 === 0 ? `/ns/u${i}/v1/runs/run_x` : `/ns/u${i}/__admin/runs`;
      assert.equal(await send(path, i % 3 === 1 ? { 'x-hermetic-admin-key': 'wrong' } : {}), 401);
      if (i % 1000 === 0) await probeHealth();
    }
    gc();
    const refusedGrowth = process.memoryUsage().rss - rss0;
    assert.equal(await count(), before, 'no refused request created a namespace');
    assert.ok(refusedGrowth <= 30 * MB, `20,000 refused requests grew RSS by ${(refusedGrowth / MB).toFixed(1)} MB (≤ 30 MB)`);

    gc();
    const rss1 = process.memoryUsage().rss;
    for (let i = 0; i < 20_000; i++) {
      assert.equal(await send(`/ns/n${i}/v1/runs/run_x`, { Authorization: `Bearer ${KEY}` }), 404);
      if (i % 1000 === 0) await probeHealth();
    }
    gc();
    const growth = process.memoryUsage().rss - rss1;
    assert.equal(await count(), before + 20_000);
    assert.ok(growth <= 400 * MB, `20,000 namespaces grew RSS by ${(growth / MB).toFixed(1)} MB (≤ 400 MB)`);
    const perNamespace = growth / 20_000 / 1024;
    assert.ok(perNamespace <= 20, `a namespace that answered a 404 costs ${perNamespace.toFixed(1)} KB of RSS (≤ 20 KB)`);
    // Timing is reported, never asserted (the suite runs on shared machines): see bench/namespaces.ts for the figure.
    const slowest = Math.max(...health);
    t.diagnostic(`refused: +${(refusedGrowth / MB).toFixed(1)} MB RSS; created: ${perNamespace.toFixed(1)} KB RSS each; health: ${health.length} probes, slowest ${slowest.toFixed(1)} ms`);
    // Resetting every namespace gives their state back: one namespace is left.
    assert.equal((await hermes.admin.reset({ all: true })).reset.length, before + 20_000);
    assert.equal(await count(), 1);
  } finally {
    await hermes.close();
  }
});

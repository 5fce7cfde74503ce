// hermetic/testing: one server per file, a fresh namespace per test (nothing of one test is seen by the next, even
// with the same server), reset after each; over a real server, in process, and against a server started elsewhere.
import assert from 'node:assert/strict';
import * as nodeTest from 'node:test';
import { after, describe, test } from 'node:test';
import { startServer } from '../emulator/serve/node.js';
import { isHermeticError } from '../shared/errors.js';
import { connect, start, uniqueNamespace, useHermetic, type HermeticNamespace, type HermeticSuite, type TestHooks } from './index.js';

const KEY = 'test-key-0123456789abcdef';
const T0 = 1789169800;

async function submit(ns: HermeticNamespace, input = 'hello'): Promise<string> {
  const res = await ns.fetch(new Request(`${ns.url}/v1/runs`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}` }, body: JSON.stringify({ input }) }));
  assert.equal(res.status, 202);
  return ((await res.json()) as { run_id: string }).run_id;
}

async function status(ns: HermeticNamespace, runId: string): Promise<number | string> {
  const res = await ns.fetch(new Request(`${ns.url}/v1/runs/${runId}`, { headers: { Authorization: `Bearer ${KEY}` } }));
  return res.status === 200 ? ((await res.json()) as { status: string }).status : res.status;
}

/** Two tests in order: the first dirties its namespace in every way; the second must see none of it. */
function isolationSuite(hermes: HermeticSuite): void {
  const seen: { name?: string; runId?: string } = {};
  test('a test changes its namespace: a run, the clock, the gateway, a scenario-free manual agent', async () => {
    assert.match(hermes.name, /^t-[0-9a-z]+-\d+$/);
    assert.ok(hermes.url.endsWith(`/ns/${hermes.name}`));
    assert.deepEqual(hermes.headers, { 'x-hermetic-namespace': hermes.name });
    seen.name = hermes.name;
    seen.runId = await submit(hermes);
    await hermes.admin.complete(seen.runId, { output: 'Done.' });
    assert.equal(await status(hermes, seen.runId), 'completed');
    // The header selects the same namespace as the /ns/<name> prefix.
    const root = hermes.url.slice(0, -`/ns/${hermes.name}`.length);
    const byHeader = await hermes.fetch(new Request(`${root}/v1/runs/${seen.runId}`, { headers: { ...hermes.headers, Authorization: `Bearer ${KEY}` } }));
    assert.equal(byHeader.status, 200);
    await hermes.admin.clock({ advance: 3600 });
    await hermes.admin.gateway({ draining: true });
    assert.equal((await hermes.admin.runs()).runs.length, 1);
  });
  test('the next test has a fresh namespace: no runs, the start time, settings as configured', async () => {
    assert.notEqual(hermes.name, seen.name);
    assert.equal((await hermes.admin.runs()).runs.length, 0);
    assert.equal(await status(hermes, seen.runId!), 404);
    assert.equal((await hermes.admin.getClock()).now, T0);
    assert.equal((await hermes.admin.getGateway()).draining, false);
    // The first test's namespace was reset after it: it still exists, empty.
    const list = (await hermes.server.admin.namespaces()).namespaces;
    assert.equal(list.find((n) => n.name === seen.name)?.runs, 0);
    // Another namespace for the same test is isolated from this one too.
    const other = hermes.another();
    const runId = await submit(other);
    assert.equal(await status(other, runId), 'running');
    assert.equal(await status(hermes, runId), 404);
  });
  test('fetch is a drop-in fetch: a URL string, a URL, a Request, init overriding them, and paths under the namespace', async () => {
    // A client typed to take `fetch` itself, called with a string and init (as SDKs do).
    const sdk = { fetch: hermes.fetch as typeof globalThis.fetch };
    const submitted = await sdk.fetch(`${hermes.url}/v1/runs`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}` }, body: '{"input":"hi"}' });
    assert.equal(submitted.status, 202);
    const runId = ((await submitted.json()) as { run_id: string }).run_id;
    const auth = { Authorization: `Bearer ${KEY}` };
    const replies = [
      await hermes.fetch(new URL(`${hermes.url}/v1/runs/${runId}`), { headers: auth }),
      await hermes.fetch(new Request(`${hermes.url}/v1/runs/${runId}`, { headers: { Authorization: 'Bearer wrong' } }), { headers: auth }),
      await hermes.fetch(`/v1/runs/${runId}`, { headers: auth }),
    ];
    assert.deepEqual(replies.map((r) => r.status), [200, 200, 200]);
    // The bare path reached this test's namespace: another namespace does not know the run.
    assert.equal((await hermes.another().fetch(`/v1/runs/${runId}`, { headers: auth })).status, 404);
    assert.equal((await hermes.server.fetch(`/ns/${hermes.name}/v1/runs/${runId}`, { headers: auth })).status, 200);
    const stopped = await hermes.fetch(new Request(`${hermes.url}/v1/runs/${runId}`, { headers: auth }), { method: 'POST', body: '' });
    assert.equal(stopped.status, 405, 'init gave the method');
  });
}

describe('useHermetic over a real server (node:test hooks)', () => {
  const hermes = useHermetic(nodeTest, { apiKey: KEY, time: T0, frozen: true });
  isolationSuite(hermes);
  test('the server is a real one on a free port of 127.0.0.1', () => {
    assert.match(hermes.server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(hermes.server.emulator);
  });
});

describe('useHermetic in process', () => {
  const hermes = useHermetic(nodeTest, { transport: 'fetch', apiKey: KEY, time: T0, frozen: true });
  isolationSuite(hermes);
});

const ADMIN_KEY = 'admin-key-0123456789';
// A server started elsewhere (as `hermetic serve` would be, in CI), with an admin key.
const elsewhere = await startServer({ port: 0, apiKey: KEY, time: T0, frozen: true, adminKey: ADMIN_KEY });
after(() => elsewhere.close());

describe('useHermetic with vitest-style hooks (beforeAll/afterAll), connected to a server started elsewhere', () => {
  const hooks: TestHooks = { beforeAll: nodeTest.before, afterAll: nodeTest.after, beforeEach: nodeTest.beforeEach, afterEach: nodeTest.afterEach };
  const hermes = useHermetic(hooks, { url: elsewhere.url, adminKey: ADMIN_KEY });
  isolationSuite(hermes);
  test('connected: no emulator of its own, and the admin key goes with every control call', async () => {
    assert.equal(hermes.server.emulator, null);
    const res = await fetch(`${hermes.url}/__admin/clock`);
    assert.equal(res.status, 401);
    assert.equal((await hermes.admin.getClock()).now, T0);
  });
});

test('start() and connect() by hand; uniqueNamespace never repeats', async () => {
  const names = new Set(Array.from({ length: 100 }, () => uniqueNamespace('w')));
  assert.equal(names.size, 100);
  const hermes = await start({ apiKey: KEY, time: T0, frozen: true });
  try {
    const remote = connect(hermes.url);
    const a = hermes.namespace();
    const b = remote.namespace(a.name);
    const runId = await submit(a);
    assert.equal((await b.admin.run(runId)).status, 'running');
    await b.reset();
    assert.equal((await a.admin.runs()).runs.length, 0);
    await remote.close();
    assert.equal((await hermes.admin.getClock()).now, T0, 'a connected server is not stopped by close()');
  } finally {
    await hermes.close();
  }
});

test('useHermetic refuses a url that is present but undefined, empty or not http(s), at once, starting nothing', () => {
  const registered: Array<() => Promise<void>> = [];
  const hooks: TestHooks = { before: (fn) => registered.push(fn), after: (fn) => registered.push(fn), beforeEach: (fn) => registered.push(fn), afterEach: (fn) => registered.push(fn) };
  const unset = "useHermetic was given url: undefined (an unset environment variable?); give the running server's URL, or leave url out to start a server for this file.";
  const cases: Array<[unknown, string]> = [
    [undefined, unset],
    [null, unset.replace('url: undefined', 'url: null')],
    ['', unset.replace('url: undefined', "url: ''")],
    ['127.0.0.1:8642', `useHermetic was given url: "127.0.0.1:8642", which is not an http(s) URL; give the running server's URL, e.g. http://127.0.0.1:8642.`],
    ['ftp://x', `useHermetic was given url: "ftp://x", which is not an http(s) URL; give the running server's URL, e.g. http://127.0.0.1:8642.`],
  ];
  for (const [url, message] of cases) {
    assert.throws(
      () => useHermetic(hooks, { url: url as string | undefined, apiKey: KEY }),
      (e: unknown) => isHermeticError(e) && e.code === 'HERMETIC_TESTING_URL' && e.status === 400 && e.message === message,
      String(url),
    );
  }
  assert.equal(registered.length, 0, 'no hooks registered: nothing would start');
  // Absent, the key still means "start a server for this file".
  useHermetic(hooks, { apiKey: KEY });
  assert.equal(registered.length, 4);
});

test('useHermetic refuses a test that starts while another of its file runs, and leaves the running one its namespace', async () => {
  // The hooks as a framework calls them for two overlapping tests (describe.concurrent): each given its test's context.
  const hook: Record<string, (context?: unknown) => Promise<void>> = {};
  const hooks: TestHooks = { before: (fn) => (hook.before = fn), after: (fn) => (hook.after = fn), beforeEach: (fn) => (hook.beforeEach = fn), afterEach: (fn) => (hook.afterEach = fn) };
  const hermes = useHermetic(hooks, { transport: 'fetch', apiKey: KEY, time: T0, frozen: true });
  await hook.before!();
  try {
    const [a, b] = [{ name: 'a' }, { name: 'b' }];
    await hook.beforeEach!(a);
    const mine = hermes.name;
    const runId = await submit(hermes);
    await assert.rejects(hook.beforeEach!(b), /^Error: useHermetic: this test started while another test of the file was running \(concurrent tests\).*const ns = hermes\.server\.namespace\(\); … await ns\.reset\(\)\.$/);
    // The refused test's afterEach ends nothing: the running test keeps its namespace and its run.
    await hook.afterEach!(b);
    assert.equal(hermes.name, mine);
    assert.equal((await hermes.admin.run(runId)).status, 'running');
    await hook.afterEach!(a);
    assert.throws(() => hermes.url, /inside a test/);
    // One at a time again: the next test starts, in a fresh namespace.
    await hook.beforeEach!(b);
    assert.notEqual(hermes.name, mine);
    assert.deepEqual((await hermes.admin.runs()).runs, []);
    await hook.afterEach!(b);
  } finally {
    await hook.after!();
  }
});

test('start() refuses a transport it does not know, naming the one meant, and starts nothing', async () => {
  await assert.rejects(start({ transport: 'fech' as 'fetch' }), { code: 'HERMETIC_OPTIONS_INVALID', message: 'Option "transport" must be "http" or "fetch"; got "fech". Did you mean "fetch"?' });
  await assert.rejects(start({ transport: 'websocket' as 'http' }), { code: 'HERMETIC_OPTIONS_INVALID', message: 'Option "transport" must be "http" or "fetch"; got "websocket".' });
});

test('useHermetic refuses hooks it cannot use, and a namespace outside a test', () => {
  assert.throws(() => useHermetic({ beforeEach: () => undefined, afterEach: () => undefined }), /before\/beforeAll/);
  const registered: Array<() => Promise<void>> = [];
  const hooks: TestHooks = { before: (fn) => registered.push(fn), after: (fn) => registered.push(fn), beforeEach: (fn) => registered.push(fn), afterEach: (fn) => registered.push(fn) };
  const hermes = useHermetic(hooks, { transport: 'fetch' });
  assert.equal(registered.length, 4);
  assert.throws(() => hermes.url, /inside a test/);
  assert.throws(() => hermes.server, /before\/beforeAll hook/);
});

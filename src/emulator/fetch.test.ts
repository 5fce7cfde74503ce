// createEmulator().fetch is a drop-in fetch: a URL string, a URL, a Request, each with init overriding method, headers
// and body as fetch does; a bare path is resolved against http://hermes.test. A client typed to take `fetch` takes it.
// A request holds the process open until it is answered, and its AbortSignal is honoured, as over a socket.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cliBuild } from '../../test/support/cli-build.js';
import { createEmulator } from './index.js';
import { toRequest } from './fetch.js';
import { startServer } from './serve/node.js';

const KEY = 'test-key-0123456789abcdef';
const auth = { Authorization: `Bearer ${KEY}` };
const hermes = createEmulator({ apiKey: KEY, time: 1789169800, frozen: true, seed: 'fetch' });
after(() => hermes.close());

/** A client of the kind SDKs are: it takes `fetch`, typed as fetch itself, and calls it with a string and init. */
class MyClient {
  constructor(private readonly options: { baseUrl: string; fetch: typeof globalThis.fetch }) {}
  async submit(input: string): Promise<string> {
    const res = await this.options.fetch(`${this.options.baseUrl}/v1/runs`, { method: 'POST', headers: auth, body: JSON.stringify({ input }) });
    assert.equal(res.status, 202, await res.clone().text());
    return ((await res.json()) as { run_id: string }).run_id;
  }
}

test('a URL string with init, a URL object, a Request, and a bare path all reach the emulator', async () => {
  const runId = await new MyClient({ baseUrl: 'http://hermes.test', fetch: hermes.fetch }).submit('hi');
  const forms: Array<Parameters<typeof hermes.fetch>> = [
    [`http://hermes.test/v1/runs/${runId}`, { headers: auth }],
    [new URL(`http://any-host.example/v1/runs/${runId}`), { headers: auth }],
    [new Request(`http://hermes.test/v1/runs/${runId}`, { headers: auth })],
    [`/v1/runs/${runId}`, { headers: auth }],
    [`v1/runs/${runId}`, { headers: auth }],
  ];
  for (const args of forms) {
    const res = await hermes.fetch(...args);
    assert.equal(res.status, 200, String(args[0]));
    assert.equal(((await res.json()) as { run_id: string }).run_id, runId);
  }
  // Without init's headers the same request is Hermes's 401.
  assert.equal((await hermes.fetch(`/v1/runs/${runId}`)).status, 401);
});

test("init overrides a Request's method, headers and body, as fetch does", async () => {
  const base = new Request('http://hermes.test/health', { headers: { Authorization: 'Bearer wrong' } });
  const res = await hermes.fetch(base, { method: 'POST', headers: auth, body: JSON.stringify({ input: 'from init' }) });
  assert.equal(res.status, 405, 'POST /health: the method came from init');
  const submitted = await hermes.fetch(new Request('http://hermes.test/v1/runs', { method: 'POST', headers: { Authorization: 'Bearer wrong' }, body: '{}' }), {
    headers: auth,
    body: '{"input":"replaced"}',
  });
  assert.equal(submitted.status, 202, 'the key and the body came from init');
  const runId = ((await submitted.json()) as { run_id: string }).run_id;
  assert.equal((await hermes.admin.run(runId)).live, true);
});

test('toRequest: absolute URLs pass through; paths join the base (a namespace base keeps its prefix)', () => {
  const base = 'http://127.0.0.1:8642/ns/t-1/';
  assert.equal(toRequest('/v1/runs?x=1', undefined, base).url, 'http://127.0.0.1:8642/ns/t-1/v1/runs?x=1');
  assert.equal(toRequest('v1/runs', undefined, base).url, 'http://127.0.0.1:8642/ns/t-1/v1/runs');
  assert.equal(toRequest('http://elsewhere.test/health', undefined, base).url, 'http://elsewhere.test/health');
  assert.equal(toRequest(new URL('http://elsewhere.test/a'), { method: 'DELETE' }, base).method, 'DELETE');
  const request = new Request('http://hermes.test/x');
  assert.equal(toRequest(request, undefined, base), request, 'a Request without init is used as it is');
});

test('an in-process request waiting on the real clock holds the process until it is answered, as its socket would', () => {
  // In a process of its own: there, nothing but the request can keep Node running. Before, Node ended at the first
  // wait (exit 13, an unsettled top-level await) because the emulator's clock does not hold the process.
  const script = `
    import { createEmulator } from ${JSON.stringify(pathToFileURL(join(cliBuild(), 'dist', 'index.js')).href)};
    const h = createEmulator({ scenarios: { default: { complete_after: 0.2, output: 'pong' } } });
    const json = { 'content-type': 'application/json' };
    const r = await h.fetch('/v1/runs', { method: 'POST', headers: json, body: JSON.stringify({ input: 'hi' }) });
    const events = await (await h.fetch('/v1/runs/' + (await r.json()).run_id + '/events')).text();
    const s = await (await h.fetch('/api/sessions', { method: 'POST', headers: json, body: '{}' })).json();
    const chat = await h.fetch('/api/sessions/' + s.session.id + '/chat', { method: 'POST', headers: json, body: '{"message":"ping"}' });
    console.log(JSON.stringify({ completed: events.includes('"event": "run.completed"') && events.endsWith(': stream closed\\n\\n'), chat: chat.status, answer: (await chat.json()).message.content }));
    await h.close();`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), { completed: true, chat: 200, answer: 'pong' });
});

test('an AbortSignal is honoured as by fetch: aborted before, the request is not sent; after, the open stream fails', async () => {
  const h = createEmulator({ apiKey: KEY, time: 1789169800, frozen: true, seed: 'abort', scenarios: { default: { complete_after: 60, output: 'late' } } });
  try {
    const submit = (init: RequestInit = {}) => h.fetch('/v1/runs', { method: 'POST', headers: auth, body: '{"input":"hi"}', ...init });
    const before = (await h.admin.runs()).runs.length;
    await assert.rejects(submit({ signal: AbortSignal.abort() }), { name: 'AbortError' });
    await assert.rejects(submit({ signal: AbortSignal.abort(new Error('my reason')) }), { message: 'my reason' });
    assert.equal((await h.admin.runs()).runs.length, before, 'no run was submitted');
    const runId = ((await (await submit()).json()) as { run_id: string }).run_id;
    // A read waiting on the open event stream fails with the signal's reason once it is aborted.
    const ac = new AbortController();
    const events = await h.fetch(`/v1/runs/${runId}/events`, { headers: auth, signal: ac.signal });
    assert.equal(events.status, 200);
    const read = events.body!.getReader().read();
    ac.abort();
    await assert.rejects(read, { name: 'AbortError' });
    // A request still being handled when its signal goes: fetch rejects at once (the emulator goes on with it).
    const waiting = new AbortController();
    const session = ((await (await h.fetch('/api/sessions', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' })).json()) as { session: { id: string } }).session.id;
    const chat = h.fetch(`/api/sessions/${session}/chat`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"message":"ping"}', signal: waiting.signal });
    waiting.abort();
    await assert.rejects(chat, { name: 'AbortError' });
  } finally {
    await h.close();
  }
});

test('a request body whose stream fails mid-way is a bad body (Invalid JSON), as a connection lost mid-body, not a bug', async () => {
  const bugs: unknown[] = [];
  const emulator = createEmulator({ apiKey: KEY, time: 1789169800, frozen: true, onInternalError: (e) => void bugs.push(e) });
  try {
    const failing = () => new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"input": "hi"}'));
        controller.error(new Error('the client went away'));
      },
    });
    const init = (body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
      ({ method: 'POST', headers: { ...auth, ...headers }, body, duplex: 'half' }) as RequestInit;
    const submitted = await emulator.fetch('/v1/runs', init(failing(), { 'Idempotency-Key': 'k1' }));
    assert.equal(submitted.status, 400);
    assert.equal(await submitted.text(), '{"error": {"message": "Invalid JSON", "type": "invalid_request_error", "param": null, "code": null}}');
    const created = await emulator.fetch('/api/sessions', init(failing()));
    assert.equal(created.status, 400);
    assert.equal(((await created.json()) as { error: { message: string } }).error.message, 'Invalid JSON in request body');
    // Nothing was admitted: the same key starts a new run.
    const replay = await emulator.fetch('/v1/runs', { method: 'POST', headers: { ...auth, 'Idempotency-Key': 'k1' }, body: '{"input": "hi"}' });
    assert.equal(((await replay.json()) as { replayed: boolean }).replayed, false);
    assert.deepEqual(bugs, []);
  } finally {
    await emulator.close();
  }
});

test('a body past 10 MB is answered as over HTTP: 413 when fetch would send its size, Invalid JSON for a stream sent chunked', async () => {
  const server = await startServer({ apiKey: KEY, time: 1789169800, frozen: true, port: 0 });
  try {
    const big = ' '.repeat(10_000_001);
    const bodies: Array<[string, () => RequestInit['body']]> = [
      ['string', () => big],
      ['bytes', () => new TextEncoder().encode(big)],
      ['Blob', () => new Blob([big])],
      // An emoji is twelve bytes encoded (%F0%9F%98%80): past the limit with few characters, which URLSearchParams
      // encodes slowly (ten million spaces took seconds).
      ['URLSearchParams', () => new URLSearchParams({ x: '😀'.repeat(850_000) })],
      ['stream', () => new Blob([big]).stream()],
    ];
    for (const [what, body] of bodies) {
      const answers = [];
      for (const [fetcher, base] of [[hermes.fetch, 'http://hermes.test'], [globalThis.fetch, server.url]] as const) {
        const res = await fetcher(`${base}/v1/runs`, { method: 'POST', headers: auth, body: body(), duplex: 'half' } as RequestInit);
        answers.push([res.status, ((await res.json()) as { error: { message: string } }).error.message]);
      }
      assert.deepEqual(answers[0], what === 'stream' ? [400, 'Invalid JSON'] : [413, 'Request body too large.'], what);
      assert.deepEqual(answers[0], answers[1], `${what}: in process as over HTTP`);
    }
  } finally {
    await server.close();
  }
});

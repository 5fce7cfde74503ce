// createEmulator().fetch is a drop-in fetch: a URL string, a URL, a Request, each with init overriding method, headers
// and body as fetch does; a bare path is resolved against http://hermes.test. A client typed to take `fetch` takes it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createEmulator } from './index.js';
import { toRequest } from './fetch.js';

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

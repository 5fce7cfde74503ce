// How the OTLP sink fails, against a real receiver: 503 (with Retry-After), 429, 408 and no answer are retriable and
// the next write goes through; 400, 401 and 404 are fatal; a partial success is reported and not an error; an untrusted
// TLS certificate is retriable and its message names the fix.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, test } from 'node:test';
import { createOtlpSink, type OtlpPartialSuccess } from './index.js';
import { ORIGIN } from './testing/batches.js';
import { failure } from './testing/failure.js';
import { startReceiver, type Receiver } from './testing/receiver.js';
import type { DeltaBatch } from '../remote/contract.js';

// One small session, written by hand in the dataset's row shapes: enough for a trace and its points.
const STORE = '/home/test/.hermes/state.db';
const BATCH: DeltaBatch = {
  origin: ORIGIN, fromSeq: 0, toSeq: 3,
  upserts: [
    {
      table: 'sessions',
      rows: [{
        store: STORE, session_id: 's1', profile: 'default', source: 'cli', model: 'gpt-5', provider: 'openai', policy: 'full',
        started_at: 1780000000, ended_at: null, last_activity_at: 1780000010.5, message_count: 2, tool_call_count: 0, api_call_count: 1,
        input_tokens: 100, output_tokens: 20, cache_read_tokens: 5, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0.01, actual_cost_usd: null,
      }],
    },
    {
      table: 'messages',
      rows: [
        { store: STORE, session_id: 's1', message_id: 1, logical_id: 1, seq: 0, role: 'user', kind: 'message', content: 'hi', created_at: 1780000001 },
        { store: STORE, session_id: 's1', message_id: 2, logical_id: 2, seq: 1, role: 'assistant', kind: 'message', content: 'hello', model: 'gpt-5', finish_reason: 'stop', created_at: 1780000010.5 },
      ],
    },
  ],
  deletes: [],
};

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());

test('503 with Retry-After is retriable and says when; the same batch then goes through', async () => {
  receiver.clear();
  receiver.plan({ status: 503, headers: { 'retry-after': '7' } });
  const sink = createOtlpSink(receiver.sinkUrl(), { env: {} });
  const e = await failure(sink.write(BATCH));
  assert.equal(e.code, 'HERMETIC_SINK_OTLP_UNAVAILABLE');
  assert.equal(e.retriable, true);
  assert.equal(e.retryAfterMs, 7000);
  assert.equal(e.message, `The OTLP receiver at ${sink.display} answered 503 to the traces: {"code":503,"message":"planned failure"}; the batch will be sent again after 7 s (Retry-After).`);
  await sink.write(BATCH);
  assert.deepEqual(receiver.requests.map((r) => r.path), ['/v1/traces', '/v1/traces', '/v1/metrics']);
  assert.deepEqual(receiver.requests[0]!.spans, receiver.requests[1]!.spans, 'the retry sends the same spans');
  assert.equal(sink.lastWrite!.spans, 3);
});

test('Retry-After as an HTTP date is counted from the injected clock', async () => {
  receiver.clear();
  receiver.plan({ status: 429, headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:30 GMT' } });
  const sink = createOtlpSink(receiver.sinkUrl(), { env: {}, now: () => Date.parse('2026-10-21T07:28:00Z') });
  const e = await failure(sink.write(BATCH));
  assert.equal(e.retriable, true);
  assert.equal(e.retryAfterMs, 30_000);
});

test('a failure on the metrics after the traces went through is retriable too (the replay resends the same spans)', async () => {
  receiver.clear();
  receiver.plan({ status: 200 }, { status: 502 });
  const sink = createOtlpSink(receiver.sinkUrl('json'), { env: {} });
  const e = await failure(sink.write(BATCH));
  assert.equal(e.code, 'HERMETIC_SINK_OTLP_UNAVAILABLE');
  assert.match(e.message, /answered 502 to the metrics/);
  assert.equal(e.retryAfterMs, null);
});

test('400, 401 and 404 are fatal, with a hint where one helps', async () => {
  const sink = createOtlpSink(receiver.sinkUrl(), { env: {} });
  receiver.clear();
  receiver.plan({ status: 400 });
  let e = await failure(sink.write(BATCH));
  assert.equal(e.code, 'HERMETIC_SINK_OTLP_REJECTED');
  assert.equal(e.retriable, false);
  assert.equal(e.message, `The OTLP receiver at ${sink.display} refused the traces with 400: {"code":400,"message":"planned failure"}; sending the same batch again cannot help.`);
  receiver.plan({ status: 401 });
  e = await failure(sink.write(BATCH));
  assert.match(e.message, /refused the traces with 401.*check the credentials: --sink-header or OTEL_EXPORTER_OTLP_HEADERS/);
  receiver.plan({ status: 404 });
  e = await failure(sink.write(BATCH));
  assert.match(e.message, /with 404.*\/v1\/traces the receiver's OTLP\/HTTP path/);  receiver.plan({ status: 307, headers: { location: 'http://elsewhere.test/v1/traces' } });
  e = await failure(sink.write(BATCH));
  assert.equal(e.retriable, false);
  assert.match(e.message, /with 307.*a redirect: give the final URL/);
  assert.equal(receiver.requests.length, 4, 'the redirect was not followed');
});

test('a partial success is reported, not retried', async () => {
  receiver.clear();
  const seen: OtlpPartialSuccess[] = [];
  for (const encoding of ['protobuf', 'json'] as const) {
    receiver.plan({ status: 200, partial: { rejected: 2, message: 'spans too old' } }, { status: 200, partial: { rejected: 1, message: 'bad unit' } });
    const sink = createOtlpSink(receiver.sinkUrl(encoding), { env: {}, onPartialSuccess: (p) => seen.push(p) });
    await sink.write(BATCH);
    assert.deepEqual(sink.lastWrite!.partial, seen.slice(-2));
  }
  const expected = [{ signal: 'traces', rejected: 2, message: 'spans too old' }, { signal: 'metrics', rejected: 1, message: 'bad unit' }];
  assert.deepEqual(seen, [...expected, ...expected]);
  assert.equal(receiver.requests.length, 4, 'nothing sent twice');
});

test('no receiver listening, or one that never answers, is retriable; abort() cuts a request short', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  let e = await failure(createOtlpSink(`otlp+http://127.0.0.1:${port}`, { env: {} }).write(BATCH));
  assert.equal(e.code, 'HERMETIC_SINK_OTLP_UNAVAILABLE');
  assert.equal(e.retriable, true);
  assert.match(e.message, /could not be reached \(ECONNREFUSED\); the batch will be sent again\.$/);

  const silent: Server = createServer(() => { /* never answers */ });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const url = `otlp+http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    e = await failure(createOtlpSink(url, { env: {}, timeoutMs: 200 }).write(BATCH));
    assert.equal(e.retriable, true);
    assert.match(e.message, /did not answer within 200 ms/);
    // A stopping process does not wait out the timeout: abort() cuts the request short, and the sink is usable after.
    const sink = createOtlpSink(url, { env: {}, timeoutMs: 600_000 });
    const writing = failure(sink.write(BATCH));
    await new Promise((r) => setTimeout(r, 50));
    sink.abort();
    e = await writing;
    assert.equal(e.retriable, true);
    assert.equal(e.message, `The OTLP receiver at ${sink.display} was not waited for: hermetic is stopping; the batch will be sent again.`);
    await sink.close();
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});

test('the timeout fires while the garbage collector runs: a receiver that never answers is given up on at the deadline', async () => {
  // Node 20 let an AbortSignal.timeout combined by AbortSignal.any be collected before it fired: the request then waited
  // for undici's own 300 s (it happened in a full run). Collecting every 20 ms made it happen every time.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const silent: Server = createServer(() => { /* never answers */ });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const collecting = setInterval(gc, 20);
  try {
    const sink = createOtlpSink(`otlp+http://127.0.0.1:${(silent.address() as AddressInfo).port}`, { env: {}, timeoutMs: 200 });
    // Only a guard for the failure this test is about (it would otherwise wait 300 s): far past the deadline.
    const guard = new Promise<string>((r) => setTimeout(() => r('still waiting after 60 s'), 60_000).unref());
    const said = await Promise.race([failure(sink.write(BATCH)).then((e) => e.message), guard]);
    assert.match(said, /did not answer within 200 ms/);
    await sink.close();
  } finally {
    clearInterval(collecting);
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});

test('a receiver whose TLS certificate this machine does not trust: retriable, and the message names the fix (NODE_EXTRA_CA_CERTS)', async () => {
  // A real HTTPS receiver with a self-signed certificate (testing/tls: a throwaway pair made for this test).
  const tls = (f: string) => readFileSync(new URL(`./testing/tls/${f}`, import.meta.url));
  const server = createTlsServer({ key: tls('self-signed.key'), cert: tls('self-signed.crt') }, (_, res) => res.end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const sink = createOtlpSink(`otlp+https://127.0.0.1:${(server.address() as AddressInfo).port}`, { env: {} });
    const e = await failure(sink.write(BATCH));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_UNAVAILABLE');
    assert.equal(e.retriable, true);
    assert.equal(e.message, `The OTLP receiver at ${sink.display} could not be reached (DEPTH_ZERO_SELF_SIGNED_CERT: the receiver's TLS certificate is not signed by a CA this machine trusts; give node that CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem); the batch will be sent again.`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

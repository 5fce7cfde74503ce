// An adversarial pass over the OTLP sink (decision 0077), each against a real HTTP server on a port: a receiver that
// answers 200 with a body that never ends, 413 for a request above its size limit, a success page that is not an
// OTLP answer, a partial success in the other encoding; and URLs and headers that could only fail later, or loudly.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { HermeticError } from '../../../shared/errors.js';
import { hasLoneSurrogate } from '../../../shared/python/strings.js';
import type { DeltaBatch } from '../remote/contract.js';
import { createOtlpSink, type OtlpPartialSuccess } from './index.js';
import { ORIGIN } from './testing/batches.js';
import { failure } from './testing/failure.js';
import { decodeRequest } from './testing/receiver.js';

const STORE = '/home/test/.hermes/state.db';

/** `sessions` sessions of one user and one assistant message each: 3 spans and 8 points per session (no billed cost). */
function batch(sessions: number, text = 'hello'): DeltaBatch {
  const rows = Array.from({ length: sessions }, (_, i) => ({
    store: STORE, session_id: `s${i}`, profile: 'default', source: 'cli', model: 'gpt-5', provider: 'openai', policy: 'full',
    started_at: 1780000000 + i, ended_at: null, last_activity_at: 1780000010.5 + i, message_count: 2, tool_call_count: 0, api_call_count: 1,
    input_tokens: 100, output_tokens: 20, cache_read_tokens: 5, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0.01, actual_cost_usd: null,
  }));
  const messages = rows.flatMap((s, i) => [
    { store: STORE, session_id: s.session_id, message_id: 2 * i + 1, logical_id: 2 * i + 1, seq: 0, role: 'user', kind: 'message', content: 'hi', created_at: s.started_at + 1 },
    { store: STORE, session_id: s.session_id, message_id: 2 * i + 2, logical_id: 2 * i + 2, seq: 1, role: 'assistant', kind: 'message', content: text, model: 'gpt-5', finish_reason: 'stop', created_at: s.last_activity_at },
  ]);
  return { origin: ORIGIN, fromSeq: 0, toSeq: 1, upserts: [{ table: 'sessions', rows }, { table: 'messages', rows: messages }], deletes: [] };
}

async function serve(handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void): Promise<{ url: (json?: boolean) => string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (json = false) => `otlp+http${json ? '-json' : ''}://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('a receiver whose answer never ends: the sink reads the start of it and goes on (memory stays bounded)', { timeout: 30_000 }, async () => {
  let sent = 0;
  let closed = 0;
  const receiver = await serve((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    const chunk = Buffer.alloc(64 * 1024, 0x0a);
    const pump = () => {
      while (!res.destroyed && sent < 1024 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.on('close', () => closed++);
    pump();
  });
  try {
    // No timeout to save it: the answer has to be cut short by the sink itself.
    const sink = createOtlpSink(receiver.url(), { env: {}, timeoutMs: 3_600_000 });
    await sink.write(batch(1));
    assert.equal(sink.lastWrite!.requests, 2);
    assert.ok(sent < 256 * 1024 * 1024, `the receiver could send ${sent} bytes before the sink stopped reading`);
  } finally {
    await receiver.close();
  }
  assert.ok(closed >= 1);
});

test('413 for a request above the receiver\'s limit: the request is split until each part fits, nothing lost or sent twice', async () => {
  const limit = 2_000;
  const spans = new Map<string, number>();
  const points: string[] = [];
  let refused = 0;
  const receiver = await serve((req, body, res) => {
    if (body.length > limit) {
      refused++;
      res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
      return;
    }
    const got = decodeRequest(req.url!, 'protobuf', body);
    for (const s of got.spans) spans.set(s.spanId, (spans.get(s.spanId) ?? 0) + 1);
    for (const p of got.points) points.push(`${p.metric} ${JSON.stringify(p.attributes)}`);
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  try {
    const sink = createOtlpSink(receiver.url(), { env: {} });
    await sink.write(batch(4));
    assert.ok(refused >= 2, `the first requests were too large (${refused} refused)`);
    assert.equal(spans.size, 12);
    assert.ok([...spans.values()].every((n) => n === 1), 'no span sent twice');
    assert.equal(points.length, 4 * 8);
    assert.equal(new Set(points).size, points.length, 'no point sent twice');
    assert.equal(sink.lastWrite!.spans, 12);
    assert.equal(sink.lastWrite!.points, 32);
  } finally {
    await receiver.close();
  }
});

test('413s teach the sink the receiver\'s size: the next writes of the same shape are sent in parts that fit, with no 413', async () => {
  const limit = 2_000;
  let refused = 0;
  let accepted = 0;
  const receiver = await serve((_req, body, res) => {
    if (body.length > limit) {
      refused++;
      res.writeHead(413, { 'content-type': 'text/plain' }).end('request entity too large');
      return;
    }
    accepted++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  try {
    const sink = createOtlpSink(receiver.url(), { env: {} });
    await sink.write(batch(4));
    assert.ok(refused >= 2, `the first write learnt the limit by 413s (${refused})`);
    const first = { refused, requests: sink.lastWrite!.requests };
    for (let i = 0; i < 3; i++) await sink.write(batch(4));
    assert.equal(refused, first.refused, 'no 413 after the first write');
    assert.equal(sink.lastWrite!.requests, first.requests, 'each later write sends as many requests as the first one that passed');
    assert.equal(accepted, 4 * first.requests);
  } finally {
    await receiver.close();
  }
});

test('413 for a single span: fatal, saying what to change', async () => {
  const receiver = await serve((_req, body, res) => {
    if (body.length > 20_000) res.writeHead(413).end();
    else res.writeHead(200).end();
  });
  try {
    const sink = createOtlpSink(receiver.url(), { env: {}, content: true });
    const e = await failure(sink.write(batch(1, 'x'.repeat(50_000))));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_REJECTED');
    assert.equal(e.retriable, false);
    assert.match(e.message, /refused one span of \d+ bytes with 413 \(too large\)/);
    assert.match(e.message, /OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, or leave out --otlp-content/);
  } finally {
    await receiver.close();
  }
});

test('a 200 that is a web page, not an OTLP answer (a proxy\'s login page, a wrong port): not taken as delivered', async () => {
  const receiver = await serve((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Sign in</title>');
  });
  try {
    const sink = createOtlpSink(receiver.url(), { env: {} });
    const e = await failure(sink.write(batch(1)));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_REJECTED');
    assert.equal(e.retriable, false);
    assert.match(e.message, /answered 200 with a web page \(text\/html\), not an OTLP response/);
    assert.equal(sink.lastWrite, null);
  } finally {
    await receiver.close();
  }
});

test('a partial success answered in JSON to a protobuf request is still read and reported', async () => {
  const receiver = await serve((req, _body, res) => {
    const partialSuccess = req.url === '/v1/traces' ? { rejectedSpans: '2', errorMessage: 'spans too old' } : { rejectedDataPoints: '1', errorMessage: 'bad unit' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ partialSuccess }));
  });
  try {
    const seen: OtlpPartialSuccess[] = [];
    const sink = createOtlpSink(receiver.url(), { env: {}, onPartialSuccess: (p) => seen.push(p) });
    await sink.write(batch(1));
    assert.deepEqual(seen, [{ signal: 'traces', rejected: 2, message: 'spans too old' }, { signal: 'metrics', rejected: 1, message: 'bad unit' }]);
  } finally {
    await receiver.close();
  }
});

function refusal(f: () => unknown): HermeticError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof HermeticError, `a HermeticError, not ${String(e)}`);
    return e;
  }
  assert.fail('should have been refused');
}

test('a URL whose user or password is not valid percent-encoding is refused with its code, the password not shown', () => {
  for (const url of ['otlp+http://user:pa%zzword@collector:4318', 'otlp+http://us%zzer:password@collector:4318']) {
    const e = refusal(() => createOtlpSink(url, { env: {} }));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_URL');
    assert.match(e.message, /percent-encoding/);
    assert.ok(!e.message.includes('pa%zzword') && !e.message.includes(':password@'), e.message);
  }
});

test('a header value HTTP cannot carry (a character above U+00FF) is refused when the sink is made, its value not shown', () => {
  const cases: Array<[{ headers?: string[]; env?: Record<string, string> }, string]> = [
    [{ headers: ['authorization=Bearer s€cret'] }, '--sink-header'],
    [{ env: { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s%E2%82%ACcret' } }, 'OTEL_EXPORTER_OTLP_HEADERS'],
  ];
  for (const [options, where] of cases) {
    const e = refusal(() => createOtlpSink('otlp+http://collector:4318', { env: {}, ...options }));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_HEADERS');
    assert.ok(e.message.includes('"authorization"') && e.message.includes(where), e.message);
    assert.ok(!e.message.includes('cret'), e.message);
  }
});

test('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT (or OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT) cuts long attribute values, never inside a character', async () => {
  const bodies: Buffer[] = [];
  const receiver = await serve((req, body, res) => {
    if (req.url === '/v1/traces') bodies.push(body);
    res.writeHead(200).end();
  });
  try {
    const text = `${'x'.repeat(99)}😀${'y'.repeat(50_000)}`;
    for (const env of [{ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '7' }, { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100' }]) {
      bodies.length = 0;
      await createOtlpSink(receiver.url(), { env, content: true }).write(batch(1, text));
      const spans = decodeRequest('/v1/traces', 'protobuf', bodies[0]!).spans;
      const chat = spans.find((s) => s.name.startsWith('chat'))!;
      const output = String(chat.attributes['gen_ai.output.messages']);
      assert.ok(output.length === 100 || output.length === 99, `${output.length} characters`);
      assert.ok(!hasLoneSurrogate(output), 'never half a surrogate pair');
      assert.ok(text.startsWith(output.slice(output.indexOf('xxx'))), 'the start of the text');
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat', 'short values as they are');
    }
    // A cut through a pair keeps the pair whole out: 99 x, then the emoji would end at 101.
    bodies.length = 0;
    await createOtlpSink(receiver.url(), { env: { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100' }, content: true }).write({ ...batch(1), upserts: [{ ...batch(1).upserts[0]!, rows: [{ ...batch(1).upserts[0]!.rows[0]!, title: text }] }] });
    {
      const root = decodeRequest('/v1/traces', 'protobuf', bodies[0]!).spans.find((s) => s.name === 'hermes.session')!;
      assert.equal(root.attributes['hermes.session.title'], 'x'.repeat(99));
    }
    const e = refusal(() => createOtlpSink(receiver.url(), { env: { OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'lots' } }));
    assert.equal(e.code, 'HERMETIC_OPTIONS_INVALID');
    assert.match(e.message, /OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT must be a whole number/);
  } finally {
    await receiver.close();
  }
});

test('a receiver that sends its status line and then nothing more: the timeout covers the answer\'s body too', { timeout: 20_000 }, async () => {
  let status = 200;
  const receiver = await serve((_req, _body, res) => {
    res.writeHead(status, { 'content-type': 'application/x-protobuf' });
    res.write('\x0a'); // the start of an answer, never ended
  });
  try {
    // The status line must arrive within the timeout however loaded the machine is (a 200 ms one missed it in a full
    // run beside other work): 2 s, which each of the two requests then waits for the body that never ends.
    const patient = createOtlpSink(receiver.url(), { env: {}, timeoutMs: 2_000 });
    await patient.write(batch(1)); // a 200 is an acceptance, whatever follows it
    assert.equal(patient.lastWrite!.requests, 2);
    status = 503;
    // A 503 whose body never ends is unavailable whenever the timeout ends it, early or late.
    const sink = createOtlpSink(receiver.url(), { env: {}, timeoutMs: 200 });
    const e = await failure(sink.write(batch(1)));
    assert.equal(e.code, 'HERMETIC_SINK_OTLP_UNAVAILABLE');
    assert.equal(e.retriable, true);
  } finally {
    await receiver.close();
  }
});

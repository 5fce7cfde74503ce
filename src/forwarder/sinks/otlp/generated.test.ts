// A generated store of a hundred sessions through the OTLP sink with small request limits: the spans go in several
// requests (none past spansPerRequest), the points in several (a series never split), and what arrives still adds up.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import { createOtlpSink } from './index.js';
import { encodeSpans } from './encode.js';
import { batchTelemetry } from './model/batch.js';
import { NO_CONTEXT } from './model/traces.js';
import { wholeBatch } from './testing/batches.js';
import { startReceiver, type Receiver } from './testing/receiver.js';

let rig: Rig;
let receiver: Receiver;
let cleanup: () => void;

before(async () => {
  const t = tempDir('hermetic-otlp-gen-');
  cleanup = t.cleanup;
  const store = join(t.dir, 'state.db');
  generatedStore({ out: store, sessions: 100, messages: 1500, seed: 'otlp' });
  rig = forwarderRig([store], { dir: t.dir });
  assert.equal(rig.forwarder.backfill()[0]!.error, null);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  rig.cleanup();
  cleanup();
});

test('a large batch is split into requests; every span and point arrives once and the totals hold', async () => {
  const batch = wholeBatch(rig.query);
  const sink = createOtlpSink(receiver.sinkUrl(), { env: {}, spansPerRequest: 250, pointsPerRequest: 300 });
  const started = process.hrtime.bigint();
  await sink.write(batch);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const traces = receiver.requests.filter((r) => r.path === '/v1/traces');
  const metrics = receiver.requests.filter((r) => r.path === '/v1/metrics');
  assert.ok(traces.length > 1 && traces.every((r) => r.spans.length <= 250), `${traces.length} trace requests`);
  assert.ok(metrics.length > 1 && metrics.every((r) => r.points.length <= 300), `${metrics.length} metrics requests`);
  const spans = receiver.spans();
  assert.equal(spans.length, sink.lastWrite!.spans);
  assert.equal(new Set(spans.map((s) => s.spanId)).size, spans.length, 'no span twice');
  const sessions = rig.query<{ n: number; o: number; i: number }>('SELECT COUNT(*) n, SUM(output_tokens) o, SUM(input_tokens + cache_read_tokens + cache_write_tokens) i FROM sessions')[0]!;
  const roots = spans.filter((s) => s.parentSpanId === null);
  assert.equal(roots.length, sessions.n);
  assert.equal(new Set(spans.map((s) => s.traceId)).size, sessions.n);
  assert.equal(roots.reduce((n, s) => n + Number(s.attributes['gen_ai.usage.output_tokens']), 0), sessions.o);
  const points = receiver.points();
  const keys = points.map((p) => JSON.stringify([p.metric, p.attributes]));
  assert.equal(new Set(keys).size, points.length, 'no series point twice');
  const input = points.filter((p) => p.metric === 'gen_ai.client.token.usage' && p.attributes['gen_ai.token.type'] === 'input' && p.attributes['hermes.task'] === 'main');
  assert.equal(input.reduce((n, p) => n + p.sum!, 0), sessions.i);
  const messages = rig.query<{ n: number }>('SELECT COUNT(*) n FROM messages')[0]!.n;
  // A figure for the report, not an assertion: the model and the encoding alone, without HTTP or the receiver.
  const t0 = process.hrtime.bigint();
  const model = batchTelemetry(batch, NO_CONTEXT, { content: false });
  const bytes = encodeSpans(model.spans, batch.origin, 'protobuf').length;
  const encodeMs = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`# ${messages} messages, ${sessions.n} sessions → ${spans.length} spans in ${traces.length} requests, ${points.length} points in ${metrics.length}; write with the in-process receiver ${ms.toFixed(0)} ms; model + protobuf ${encodeMs.toFixed(0)} ms (${bytes} bytes)`);
});

// The OTLP sink against a real OTLP/HTTP receiver (node:http) that decodes with its own reading of the schema: a
// dataset backfilled from Hermes's fixture stores becomes one trace per session with the GenAI span tree, usage
// totals equal to the dataset's, the same ids on a replay, no content unless asked, and the same in JSON.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { copyFixture, tempDir } from '../../../state-db/testing/fixtures.js';
import { decodeToolCalls } from '../../normalize/tool-calls.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import { createOtlpSink } from './index.js';
import { ORIGIN, splitBatches, wholeBatch } from './testing/batches.js';
import { startReceiver, type ReceivedSpan, type Receiver } from './testing/receiver.js';

type Row = Record<string, any>;
let rig: Rig;
let receiver: Receiver;
let cleanup: () => void;

before(async () => {
  const t = tempDir('hermetic-otlp-');
  cleanup = t.cleanup;
  rig = forwarderRig([copyFixture('usage', t.dir), copyFixture('basic', t.dir), copyFixture('channels', t.dir)], { dir: t.dir });
  const [a, b, c] = rig.forwarder.backfill();
  assert.deepEqual([a!.error, b!.error, c!.error], [null, null, null]);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  rig.cleanup();
  cleanup();
});

const ns = (seconds: number) => BigInt(Math.round(seconds * 1e6)) * 1000n;
const CONTENT_KEYS = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.system_instructions', 'hermes.session.title'];

async function send(encoding: 'protobuf' | 'json', options: Parameters<typeof createOtlpSink>[1] = {}) {
  receiver.clear();
  const sink = createOtlpSink(receiver.sinkUrl(encoding), { env: {}, ...options });
  await sink.open();
  await sink.write(wholeBatch(rig.query));
  await sink.close();
  return { spans: receiver.spans(), points: receiver.points(), requests: [...receiver.requests], sink };
}

test('each session is one trace: a root span with its usage, invoke_agent turns, chat and execute_tool spans under them', async () => {
  const { spans, requests } = await send('protobuf');
  assert.deepEqual(requests.map((r) => [r.path, r.encoding, r.headers['content-type']]), [
    ['/v1/traces', 'protobuf', 'application/x-protobuf'], ['/v1/metrics', 'protobuf', 'application/x-protobuf'],
  ]);
  const sessions = rig.query<Row>('SELECT * FROM sessions');
  const messages = rig.query<Row>('SELECT * FROM messages ORDER BY store, session_id, seq');
  const byTrace = new Map<string, ReceivedSpan[]>();
  for (const s of spans) byTrace.set(s.traceId, [...(byTrace.get(s.traceId) ?? []), s]);
  assert.equal(byTrace.size, sessions.length, 'one trace per session');
  assert.equal(new Set(spans.map((s) => s.spanId)).size, spans.length, 'span ids are unique');

  for (const s of sessions) {
    const roots = spans.filter((x) => x.parentSpanId === null && x.attributes['gen_ai.conversation.id'] === s.session_id);
    assert.equal(roots.length, 1, `one root for ${s.session_id}`);
    const root = roots[0]!;
    const trace = byTrace.get(root.traceId)!;
    assert.equal(root.name, 'hermes.session');
    assert.equal(root.kind, 1);
    assert.equal(root.startNs, ns(s.started_at));
    assert.equal(root.endNs, ns(s.ended_at ?? s.last_activity_at));
    assert.equal(root.attributes['gen_ai.usage.input_tokens'], s.input_tokens + s.cache_read_tokens + s.cache_write_tokens);
    assert.equal(root.attributes['gen_ai.usage.output_tokens'], s.output_tokens);
    assert.equal(root.attributes['gen_ai.usage.cache_read.input_tokens'], s.cache_read_tokens);
    assert.equal(root.attributes['gen_ai.usage.cache_creation.input_tokens'], s.cache_write_tokens);
    assert.equal(root.attributes['hermes.usage.reasoning_tokens'], s.reasoning_tokens);
    assert.equal(root.attributes['hermes.usage.input_tokens'], s.input_tokens);
    assert.equal(root.attributes['hermes.session.open'], s.ended_at === null);
    assert.equal(root.attributes['hermes.cost.usd'], s.actual_cost_usd ?? s.estimated_cost_usd ?? undefined);
    assert.equal(root.attributes['hermes.session.source'], s.source);

    const own = messages.filter((m) => m.store === s.store && m.session_id === s.session_id);
    const turns = trace.filter((x) => x.attributes['gen_ai.operation.name'] === 'invoke_agent');
    const chats = trace.filter((x) => x.attributes['gen_ai.operation.name'] === 'chat');
    const tools = trace.filter((x) => x.attributes['gen_ai.operation.name'] === 'execute_tool');
    assert.equal(trace.length, 1 + turns.length + chats.length + tools.length, 'nothing but the four kinds');
    const userMessages = own.filter((m) => m.role === 'user' && m.kind === 'message');
    const assistant = own.filter((m) => m.role === 'assistant' && m.kind === 'message');
    const calls = assistant.flatMap((m) => decodeToolCalls(m.tool_calls).calls ?? []);
    assert.equal(turns.length, userMessages.length, 'a turn per user message');
    assert.equal(chats.length, assistant.length, 'a chat span per assistant message');
    assert.equal(tools.length, calls.length, 'an execute_tool span per tool call');
    for (const t of turns) {
      assert.equal(t.parentSpanId, root.spanId);
      assert.equal(t.name, 'invoke_agent hermes');
      assert.equal(t.attributes['gen_ai.agent.name'], 'hermes');
    }
    const turnIds = new Set(turns.map((t) => t.spanId));
    const firstUser = userMessages[0]?.seq ?? Infinity;
    for (const c of chats) {
      const m = assistant.find((a) => a.message_id === c.attributes['hermes.message.id'])!;
      assert.ok(m, 'the chat span names its message');
      assert.equal(c.parentSpanId, m.seq > firstUser ? turns.find((t) => t.spanId === c.parentSpanId)?.spanId : root.spanId);
      assert.equal(c.kind, 3, 'chat is a client span');
      assert.equal(c.endNs, ns(m.created_at), 'a chat span ends when its message was written');
      const prev = own[own.indexOf(m) - 1];
      assert.equal(c.startNs, prev ? ns(Math.min(prev.created_at, m.created_at)) : ns(m.created_at), 'and starts at the message before it');
      const model = m.model ?? s.model;
      assert.equal(c.attributes['gen_ai.request.model'], model);
      assert.equal(c.name, `chat ${model}`);
      assert.equal(c.attributes['gen_ai.conversation.id'], s.session_id);
      if (m.finish_reason) assert.deepEqual(c.attributes['gen_ai.response.finish_reasons'], [m.finish_reason]);
    }
    // Each call, in transcript order, and the result that answers it (the first result with its id after it: Hermes's
    // stores reuse call ids within a session).
    const expectedTools = assistant.flatMap((m) => (decodeToolCalls(m.tool_calls).calls ?? []).map((c) => {
      const result = own.find((r) => r.role === 'tool' && r.tool_call_id === c.id && r.seq > m.seq);
      return { name: c.name, id: c.id, start: ns(m.created_at), end: result ? ns(result.created_at) : ns(m.created_at) };
    }));
    const sent = tools.map((t) => ({ name: t.attributes['gen_ai.tool.name'], id: t.attributes['gen_ai.tool.call.id'], start: t.startNs, end: t.endNs }));
    const order = (a: { start: bigint; name: unknown }, b: { start: bigint; name: unknown }) => (a.start < b.start ? -1 : a.start > b.start ? 1 : String(a.name).localeCompare(String(b.name)));
    assert.deepEqual(sent.sort(order), expectedTools.sort(order), 'tool spans: name, call id, from the call to its result');
    for (const t of tools) {
      assert.ok(turnIds.has(t.parentSpanId!) || t.parentSpanId === root.spanId);
      assert.equal(t.name, `execute_tool ${t.attributes['gen_ai.tool.name']}`);
      assert.equal(t.attributes['gen_ai.tool.type'], 'function');
    }
  }
  // The provider as GenAI names it, where it knows it; Hermes's name otherwise.
  const providers = new Set(spans.map((x) => x.attributes['gen_ai.provider.name']).filter(Boolean));
  for (const p of providers) assert.ok(!['google', 'xai', 'mistral'].includes(p as string), `${p} is mapped`);
  // The resource says where the data came from.
  assert.deepEqual(spans[0]!.resource, { 'service.name': 'hermes-agent', 'host.name': ORIGIN.hostname, 'hermetic.machine.id': ORIGIN.machineId });
  assert.equal(spans[0]!.scope, 'hermetic.forwarder.otlp');
});

test('token and cost sums over the spans and the metrics equal the dataset\'s', async () => {
  const { spans, points } = await send('protobuf');
  const totals = rig.query<Row>('SELECT SUM(input_tokens) i, SUM(output_tokens) o, SUM(cache_read_tokens) cr, SUM(cache_write_tokens) cw, SUM(reasoning_tokens) r, TOTAL(estimated_cost_usd) e, TOTAL(actual_cost_usd) a FROM sessions')[0]!;
  const aux = rig.query<Row>('SELECT SUM(input_tokens) i, SUM(output_tokens) o, SUM(cache_read_tokens) cr, SUM(cache_write_tokens) cw, SUM(reasoning_tokens) r, TOTAL(estimated_cost_usd) e, COUNT(*) n FROM model_usage WHERE in_session_totals = 0')[0]!;
  const roots = spans.filter((s) => s.parentSpanId === null);
  const sum = (list: ReceivedSpan[], k: string) => list.reduce((n, s) => n + Number(s.attributes[k] ?? 0), 0);
  assert.equal(sum(roots, 'gen_ai.usage.output_tokens'), totals.o);
  assert.equal(sum(roots, 'gen_ai.usage.input_tokens'), totals.i + totals.cr + totals.cw);
  assert.equal(sum(roots, 'gen_ai.usage.cache_read.input_tokens'), totals.cr);
  assert.equal(sum(roots, 'gen_ai.usage.cache_creation.input_tokens'), totals.cw);
  assert.equal(sum(roots, 'hermes.usage.reasoning_tokens'), totals.r);
  assert.ok(Math.abs(sum(roots, 'hermes.cost.estimated_usd') - totals.e) < 1e-9);

  const tokens = points.filter((p) => p.metric === 'hermetic.usage.tokens');
  const byType = (task: (t: unknown) => boolean, type: string) =>
    tokens.filter((p) => task(p.attributes['hermes.task']) && p.attributes['hermetic.token.type'] === type).reduce((n, p) => n + p.value!, 0);
  const main = (t: unknown) => t === 'main', auxTask = (t: unknown) => t !== 'main';
  for (const [type, k] of [['input', 'i'], ['output', 'o'], ['cache_read', 'cr'], ['cache_write', 'cw'], ['reasoning', 'r']] as const) {
    assert.equal(byType(main, type), totals[k], `main ${type}`);
    assert.equal(byType(auxTask, type), aux[k] ?? 0, `auxiliary ${type}`);
  }
  assert.ok(aux.n > 0, 'the fixtures have auxiliary usage');
  for (const p of tokens) {
    assert.equal(p.type, 'sum');
    assert.equal(p.temporality, 2, 'cumulative');
    assert.equal(p.monotonic, false);
    assert.equal(p.unit, '{token}');
  }
  const usage = points.filter((p) => p.metric === 'gen_ai.client.token.usage');
  assert.ok(usage.every((p) => p.type === 'histogram' && p.temporality === 2 && p.count === p.bucketCounts[0]));
  const histogram = (type: string) => usage.filter((p) => p.attributes['gen_ai.token.type'] === type).reduce((n, p) => n + p.sum!, 0);
  assert.equal(histogram('output'), totals.o + (aux.o ?? 0));
  assert.equal(histogram('input'), totals.i + totals.cr + totals.cw + (aux.i ?? 0) + (aux.cr ?? 0) + (aux.cw ?? 0));
  const cost = points.filter((p) => p.metric === 'hermetic.usage.cost' && p.attributes['hermetic.cost.kind'] === 'estimated' && p.attributes['hermes.task'] === 'main');
  assert.ok(Math.abs(cost.reduce((n, p) => n + p.value!, 0) - totals.e) < 1e-9);
  assert.ok(points.every((p) => p.timeNs >= p.startNs && typeof p.attributes['gen_ai.conversation.id'] === 'string'));
});

test('a replay sends the same trace ids, span ids, times and attributes, and the same points', async () => {
  const first = await send('protobuf');
  const again = await send('protobuf');
  assert.ok(first.spans.length > 20);
  assert.deepEqual(again.spans, first.spans);
  assert.deepEqual(again.points, first.points);
});

test('message content is left out by default and sent with the content option', async () => {
  const userText = rig.query<Row>("SELECT content FROM messages WHERE role = 'user' AND kind = 'message' AND content IS NOT NULL LIMIT 1")[0]!.content as string;
  const plain = await send('protobuf');
  for (const s of plain.spans) {
    for (const k of CONTENT_KEYS) assert.equal(s.attributes[k], undefined, `${s.name} has no ${k}`);
    for (const v of Object.values(s.attributes)) assert.ok(typeof v !== 'string' || !v.includes(userText), 'no message text anywhere');
  }
  const full = await send('protobuf', { content: true });
  const turns = full.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
  assert.ok(turns.some((t) => JSON.parse(t.attributes['gen_ai.input.messages'] as string)[0].parts[0].content === userText));
  const chats = full.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
  assert.ok(chats.every((c) => JSON.parse(c.attributes['gen_ai.output.messages'] as string)[0].role === 'assistant'));
  const tools = full.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
  assert.ok(tools.some((t) => typeof t.attributes['gen_ai.tool.call.arguments'] === 'string' && typeof t.attributes['gen_ai.tool.call.result'] === 'string'));
  // Same ids with or without content: only attributes differ.
  assert.deepEqual(full.spans.map((s) => s.spanId), plain.spans.map((s) => s.spanId));
});

test('the JSON encoding (otlp+http-json://) carries the same spans and points', async () => {
  const proto = await send('protobuf');
  const json = await send('json');
  assert.deepEqual(json.requests.map((r) => [r.path, r.encoding, r.headers['content-type']]), [
    ['/v1/traces', 'json', 'application/json'], ['/v1/metrics', 'json', 'application/json'],
  ]);
  assert.deepEqual(json.spans, proto.spans);
  assert.deepEqual(json.points, proto.points);
});

test('a session shipped in two batches (new messages only) ends as the same spans, its turn read from the dataset', async () => {
  const whole = await send('protobuf');
  const last = new Map<string, ReceivedSpan>();
  receiver.clear();
  const sink = createOtlpSink(receiver.sinkUrl(), { env: {}, datasetPath: `${rig.home}/hermetic.db` });
  await sink.open();
  for (const batch of splitBatches(rig.query, 3)) await sink.write(batch);
  await sink.close();
  for (const s of receiver.spans()) last.set(s.spanId, s); // a receiver that dedupes keeps the latest
  const expected = new Map(whole.spans.map((s) => [s.spanId, s]));
  assert.deepEqual(new Set(last.keys()), new Set(expected.keys()));
  for (const [id, s] of last) assert.deepEqual(s, expected.get(id), `${s.name} as if sent whole`);
});

test('headers come from the option and OTEL_EXPORTER_OTLP_HEADERS (the option wins); URL credentials become Basic auth', async () => {
  receiver.clear();
  const url = receiver.sinkUrl().replace('://', '://alice:s3cret@');
  const sink = createOtlpSink(url, {
    headers: ['x-team=ml', 'X-Override=from-flag'],
    env: { OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%20def, x-override=from-env', OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-signal=metrics' },
  });
  assert.equal(sink.display.includes('s3cret'), false);
  assert.equal(sink.id.includes('alice'), false);
  await sink.write(wholeBatch(rig.query));
  const [traces, metrics] = receiver.requests;
  for (const r of [traces!, metrics!]) {
    assert.equal(r.headers['x-team'], 'ml');
    assert.equal(r.headers['api-key'], 'abc def');
    assert.equal(r.headers['x-override'], 'from-flag');
    assert.equal(r.headers.authorization, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
  }
  assert.equal(traces!.headers['x-signal'], undefined);
  assert.equal(metrics!.headers['x-signal'], 'metrics');
});

// The span and point models → OTLP request bodies, through OpenTelemetry's own serializers
// (@opentelemetry/otlp-transformer, protobuf or JSON). We hand them SDK-shaped records built from our own ids and
// times, so the bytes are deterministic: no SDK tracer, no clock, no random id (decision 0039).
import { SpanKind, SpanStatusCode, TraceFlags, ValueType, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type MetricData, type MetricDescriptor, type ResourceMetrics, type SumMetricData } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { JsonMetricsSerializer, JsonTraceSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Origin } from '../remote/contract.js';
import type { MetricsModel, PointModel, SumPointModel } from './model/metrics.js';
import type { SpanModel } from './model/traces.js';
import { SCOPE, SERVICE_NAME } from './model/vocabulary.js';
import type { OtlpEncoding } from './options.js';

/**
 * Epoch seconds (a REAL with microseconds, as Hermes stores them) → [seconds, nanoseconds], rounded to the microsecond
 * so the same REAL always gives the same nanoseconds.
 * @example hrTime(1780000606.510776) // [1780000606, 510776000]
 */
export function hrTime(seconds: number): HrTime {
  const micros = Math.round(seconds * 1e6);
  const s = Math.floor(micros / 1e6);
  return [s, (micros - s * 1e6) * 1000];
}

/** The resource every span and point of an origin is sent under. */
export function originResource(origin: Origin): Resource {
  return resourceFromAttributes({
    'service.name': SERVICE_NAME,
    'host.name': origin.hostname,
    'hermetic.machine.id': origin.machineId,
  });
}

/**
 * A string cut to `limit` UTF-16 units, as the OpenTelemetry SDKs cut attribute values, but never between the two
 * halves of a surrogate pair (half a pair is not UTF-8: a receiver would see U+FFFD, or refuse the request).
 * @example cutValue('ab😀', 3) // 'ab'
 */
export function cutValue(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const last = value.charCodeAt(limit - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}

function limited(attributes: SpanModel['attributes'], limit: number | null): SpanModel['attributes'] {
  if (limit === null) return attributes;
  const out: SpanModel['attributes'] = {};
  for (const [k, v] of Object.entries(attributes)) {
    out[k] = typeof v === 'string' ? cutValue(v, limit) : Array.isArray(v) ? v.map((x) => cutValue(x, limit)) : v;
  }
  return out;
}

function readable(s: SpanModel, resource: Resource, limit: number | null): ReadableSpan {
  const start = hrTime(s.start), end = hrTime(s.end);
  const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: TraceFlags.SAMPLED };
  const micros = Math.max(0, Math.round(s.end * 1e6) - Math.round(s.start * 1e6));
  return {
    name: s.name,
    kind: s.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(s.parentSpanId ? { parentSpanContext: { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED } } : {}),
    startTime: start,
    endTime: end,
    duration: [Math.floor(micros / 1e6), (micros % 1e6) * 1000],
    status: { code: SpanStatusCode.UNSET },
    attributes: limited(s.attributes, limit),
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** `attributeValueLengthLimit`: string attribute values cut to so many characters (null: as they are). */
export function encodeSpans(spans: SpanModel[], origin: Origin, encoding: OtlpEncoding, attributeValueLengthLimit: number | null = null): Uint8Array {
  const resource = originResource(origin);
  const records = spans.map((s) => readable(s, resource, attributeValueLengthLimit));
  const body = encoding === 'json' ? JsonTraceSerializer.serializeRequest(records) : ProtobufTraceSerializer.serializeRequest(records);
  if (!body) throw new Error('the OTLP trace serializer returned nothing');
  return body;
}

const at = (p: PointModel) => ({ startTime: hrTime(p.start), endTime: hrTime(p.time), attributes: p.attributes });

/** A cumulative sum of Hermes's counters: not monotonic, they can go down (absolute-mode counters after an agent restart). */
function counterSum(descriptor: MetricDescriptor, points: readonly SumPointModel[]): SumMetricData {
  return {
    descriptor,
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.SUM,
    isMonotonic: false,
    dataPoints: points.map((p) => ({ ...at(p), value: p.value })),
  };
}

export function encodeMetrics(m: MetricsModel, origin: Origin, encoding: OtlpEncoding): Uint8Array {
  const metrics: MetricData[] = [];
  if (m.tokenUsage.length) {
    metrics.push({
      descriptor: { name: 'gen_ai.client.token.usage', description: 'Tokens used by the model calls of a Hermes conversation (running total since it started).', unit: '{token}', valueType: ValueType.INT },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.HISTOGRAM,
      // One bucket: Hermes keeps totals per session, not each call's figure, so count and sum are exact and the
      // distribution is not known.
      dataPoints: m.tokenUsage.map((p) => ({ ...at(p), value: { buckets: { boundaries: [], counts: [p.count] }, count: p.count, sum: p.sum } })),
    });
  }
  if (m.tokens.length) {
    metrics.push(counterSum({ name: 'hermetic.usage.tokens', description: 'Hermes\'s token counters of a conversation (input net of cache, output, cache read, cache write, reasoning).', unit: '{token}', valueType: ValueType.INT }, m.tokens));
  }
  if (m.cost.length) {
    metrics.push(counterSum({ name: 'hermetic.usage.cost', description: 'Cost of a conversation in US dollars, estimated or billed, as Hermes recorded it.', unit: 'USD', valueType: ValueType.DOUBLE }, m.cost));
  }
  const request: ResourceMetrics = { resource: originResource(origin), scopeMetrics: [{ scope: SCOPE, metrics }] };
  const body = encoding === 'json' ? JsonMetricsSerializer.serializeRequest(request) : ProtobufMetricsSerializer.serializeRequest(request);
  if (!body) throw new Error('the OTLP metrics serializer returned nothing');
  return body;
}

// A real OTLP/HTTP receiver for tests (node:http on a free port): it decodes what arrives with an independent reading
// of the OTLP schema (protobufjs over testing/otlp.proto, or the JSON encoding's field names), keeps every request,
// and answers as told (a queue of planned answers: 503 with Retry-After, 400, a partial success…).
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const root = protobuf.parse(readFileSync(new URL('./otlp.proto', import.meta.url), 'utf8'), { keepCase: false }).root;
const TYPES = {
  traceRequest: root.lookupType('otlp.ExportTraceServiceRequest'),
  traceResponse: root.lookupType('otlp.ExportTraceServiceResponse'),
  metricsRequest: root.lookupType('otlp.ExportMetricsServiceRequest'),
  metricsResponse: root.lookupType('otlp.ExportMetricsServiceResponse'),
};

export type Attributes = Record<string, unknown>;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind: 1 internal, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  resource: Attributes;
  scope: string;
}

export interface ReceivedPoint {
  metric: string;
  unit: string;
  type: 'sum' | 'histogram' | 'gauge';
  /** OTLP AggregationTemporality: 1 delta, 2 cumulative. */
  temporality: number | null;
  monotonic: boolean | null;
  attributes: Attributes;
  resource: Attributes;
  startNs: bigint;
  timeNs: bigint;
  value: number | null;
  count: number | null;
  sum: number | null;
  bucketCounts: number[];
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  encoding: 'protobuf' | 'json';
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
}

export interface PlannedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** A partial success to answer (encoded as the request was). */
  partial?: { rejected: number; message: string };
}

type Json = Record<string, any>;

const hexOf = (v: unknown, encoding: 'protobuf' | 'json'): string =>
  typeof v !== 'string' || v === '' ? '' : encoding === 'json' ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');

function anyValue(v: Json | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return ((v.arrayValue?.values ?? []) as Json[]).map(anyValue);
  if ('kvlistValue' in v) return attributes(v.kvlistValue?.values);
  return undefined;
}

function attributes(list: Json[] | undefined): Attributes {
  const out: Attributes = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

const big = (v: unknown): bigint => BigInt(v === undefined || v === null || v === '' ? 0 : String(v));

function spansOf(doc: Json, encoding: 'protobuf' | 'json'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (doc.resourceSpans ?? []) as Json[]) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of (rs.scopeSpans ?? []) as Json[]) {
      for (const s of (ss.spans ?? []) as Json[]) {
        out.push({
          traceId: hexOf(s.traceId, encoding), spanId: hexOf(s.spanId, encoding),
          parentSpanId: hexOf(s.parentSpanId, encoding) || null,
          name: s.name, kind: Number(s.kind ?? 0),
          startNs: big(s.startTimeUnixNano), endNs: big(s.endTimeUnixNano),
          attributes: attributes(s.attributes), resource, scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

function pointsOf(doc: Json): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of (doc.resourceMetrics ?? []) as Json[]) {
    const resource = attributes(rm.resource?.attributes);
    for (const sm of (rm.scopeMetrics ?? []) as Json[]) {
      for (const m of (sm.metrics ?? []) as Json[]) {
        const type = m.sum ? 'sum' : m.histogram ? 'histogram' : 'gauge';
        const data = (m.sum ?? m.histogram ?? m.gauge ?? {}) as Json;
        for (const p of (data.dataPoints ?? []) as Json[]) {
          out.push({
            metric: m.name, unit: m.unit ?? '', type,
            temporality: data.aggregationTemporality === undefined ? null : Number(data.aggregationTemporality),
            monotonic: type === 'sum' ? Boolean(data.isMonotonic) : null,
            attributes: attributes(p.attributes), resource,
            startNs: big(p.startTimeUnixNano), timeNs: big(p.timeUnixNano),
            value: p.asDouble !== undefined ? Number(p.asDouble) : p.asInt !== undefined ? Number(p.asInt) : null,
            count: p.count !== undefined ? Number(p.count) : null,
            sum: p.sum !== undefined ? Number(p.sum) : null,
            bucketCounts: ((p.bucketCounts ?? []) as unknown[]).map(Number),
          });
        }
      }
    }
  }
  return out;
}

/** The spans or points of one request body, as this receiver reads them (throws on an undecodable body). */
export function decodeRequest(path: string, encoding: 'protobuf' | 'json', body: Uint8Array): { spans: ReceivedSpan[]; points: ReceivedPoint[] } {
  const traces = path.endsWith('/v1/traces');
  let doc: Json;
  if (encoding === 'json') doc = JSON.parse(Buffer.from(body).toString('utf8')) as Json;
  else {
    const type = traces ? TYPES.traceRequest : TYPES.metricsRequest;
    doc = type.toObject(type.decode(body), { longs: String, bytes: String, enums: Number, defaults: false, oneofs: false }) as Json;
  }
  return { spans: traces ? spansOf(doc, encoding) : [], points: traces ? [] : pointsOf(doc) };
}

export interface Receiver {
  /** The sink URL for this receiver: `otlp+http://127.0.0.1:<port>` or the `-json` form. */
  sinkUrl(encoding?: 'protobuf' | 'json'): string;
  requests: ReceivedRequest[];
  /** Answers for the next requests, in order; after them, 200. */
  plan(...answers: PlannedAnswer[]): void;
  spans(): ReceivedSpan[];
  points(): ReceivedPoint[];
  clear(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const planned: PlannedAnswer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      const encoding = String(req.headers['content-type']).startsWith('application/json') ? 'json' : 'protobuf';
      const traces = path.endsWith('/v1/traces');
      let decoded: { spans: ReceivedSpan[]; points: ReceivedPoint[] };
      try {
        decoded = decodeRequest(path, encoding, body);
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`undecodable body: ${(e as Error).message}`);
        return;
      }
      requests.push({ path, headers: req.headers, encoding, ...decoded });
      const answer = planned.shift() ?? { status: 200 };
      let out: Buffer = Buffer.alloc(0);
      if (answer.partial) {
        const partialSuccess = traces
          ? { rejectedSpans: answer.partial.rejected, errorMessage: answer.partial.message }
          : { rejectedDataPoints: answer.partial.rejected, errorMessage: answer.partial.message };
        if (encoding === 'json') out = Buffer.from(JSON.stringify({ partialSuccess }));
        else {
          const type = traces ? TYPES.traceResponse : TYPES.metricsResponse;
          out = Buffer.from(type.encode(type.fromObject({ partialSuccess })).finish());
        }
      } else if (answer.status >= 400) out = Buffer.from(`{"code":${answer.status},"message":"planned failure"}`);
      res.writeHead(answer.status, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf', ...answer.headers }).end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    sinkUrl: (encoding = 'protobuf') => `otlp+http${encoding === 'json' ? '-json' : ''}://127.0.0.1:${port}`,
    requests,
    plan: (...answers) => planned.push(...answers),
    spans: () => requests.flatMap((r) => r.spans),
    points: () => requests.flatMap((r) => r.points),
    clear: () => {
      requests.length = 0;
      planned.length = 0;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// One OTLP/HTTP export: POST the body, then sort the answer (OTLP/HTTP spec "Failures" and "Partial success"):
// 2xx is done (a partial success is reported, never retried), 408, 429 and 5xx or no answer at all are retriable
// (after Retry-After when the receiver gave one), any other status is fatal.
import { IExportMetricsServiceResponse, IExportTraceServiceResponse, JsonMetricsSerializer, JsonTraceSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { SinkError } from '../remote/contract.js';
import type { OtlpEncoding, OtlpPartialSuccess } from './options.js';

export interface Export {
  signal: 'traces' | 'metrics';
  url: string;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
  encoding: OtlpEncoding;
  /** What messages name the receiver by (the sink's display: no password). */
  display: string;
  timeoutMs: number;
  now: () => number;
  /** Aborted when the process stops (OtlpSink.abort): the request is cut short, the batch sent again later. */
  stop?: AbortSignal;
}

/** Retry-After as seconds or an HTTP date → milliseconds from now (null when absent or unreadable). */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function partial(signal: Export['signal'], encoding: OtlpEncoding, body: Uint8Array): OtlpPartialSuccess | null {
  if (body.length === 0) return null;
  let rejected = 0, message = '';
  try {
    if (signal === 'traces') {
      const r: IExportTraceServiceResponse = (encoding === 'json' ? JsonTraceSerializer : ProtobufTraceSerializer).deserializeResponse(body);
      rejected = Number(r.partialSuccess?.rejectedSpans ?? 0);
      message = r.partialSuccess?.errorMessage ?? '';
    } else {
      const r: IExportMetricsServiceResponse = (encoding === 'json' ? JsonMetricsSerializer : ProtobufMetricsSerializer).deserializeResponse(body);
      rejected = Number(r.partialSuccess?.rejectedDataPoints ?? 0);
      message = r.partialSuccess?.errorMessage ?? '';
    }
  } catch {
    return null; // An unreadable success body is still a success: the receiver accepted the request.
  }
  return rejected > 0 || message ? { signal, rejected, message: message || '(no message)' } : null;
}

/** Sends one export; resolves with the partial success the receiver reported (else null); throws SinkError. */
export async function postExport(e: Export): Promise<OtlpPartialSuccess | null> {
  let response: Response;
  try {
    response = await fetch(e.url, {
      method: 'POST',
      headers: { ...e.headers, 'content-type': e.encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
      body: e.body as Uint8Array<ArrayBuffer>,
      redirect: 'manual',
      signal: e.stop ? AbortSignal.any([AbortSignal.timeout(e.timeoutMs), e.stop]) : AbortSignal.timeout(e.timeoutMs),
    });
  } catch (cause) {
    const timedOut = (cause as Error)?.name === 'TimeoutError';
    const why = e.stop?.aborted ? 'was not waited for: hermetic is stopping' : timedOut ? `did not answer within ${e.timeoutMs} ms` : `could not be reached (${describe(cause)})`;
    throw new SinkError('HERMETIC_SINK_OTLP_UNAVAILABLE', `The OTLP receiver at ${e.display} ${why}; the batch will be sent again.`, true, { cause });
  }
  const body = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  const status = response.status;
  if (status >= 200 && status < 300) return partial(e.signal, e.encoding, body);
  const said = snippet(body);
  if (status === 408 || status === 429 || status >= 500) {
    const wait = retryAfterMs(response.headers.get('retry-after'), e.now());
    throw new SinkError(
      'HERMETIC_SINK_OTLP_UNAVAILABLE',
      `The OTLP receiver at ${e.display} answered ${status} to the ${e.signal}${said}; the batch will be sent again${wait !== null ? ` after ${Math.ceil(wait / 1000)} s (Retry-After)` : ''}.`,
      true,
      { retryAfterMs: wait ?? undefined },
    );
  }
  const hint = status === 401 || status === 403 ? ' (check the credentials: --sink-header or OTEL_EXPORTER_OTLP_HEADERS)'
    : status === 404 ? ` (is ${e.url} the receiver's OTLP/HTTP path?)`
      : status >= 300 && status < 400 ? ' (a redirect: give the final URL)' : '';
  throw new SinkError('HERMETIC_SINK_OTLP_REJECTED', `The OTLP receiver at ${e.display} refused the ${e.signal} with ${status}${said}${hint}; sending the same batch again cannot help.`, false);
}

function describe(cause: unknown): string {
  const c = (cause as { cause?: { code?: string; message?: string } })?.cause;
  return c?.code ?? c?.message ?? (cause as Error)?.message ?? String(cause);
}

// The start of what the receiver said, when it is text (its JSON or plain error); protobuf Status bodies are skipped.
function snippet(body: Uint8Array): string {
  if (body.length === 0) return '';
  const t = new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, 300)).replace(/\s+/g, ' ').trim();
  return /^[\x20-\x7e]+$/.test(t) ? `: ${t.slice(0, 200)}` : '';
}

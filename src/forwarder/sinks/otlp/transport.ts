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

/**
 * A 413 (the request is above the receiver's size limit): the sink splits the request and sends the halves; a request
 * of one span or one series that is still too large is fatal (`sizeRefusal`).
 */
export class TooLarge extends SinkError {
  constructor(readonly e: Pick<Export, 'display' | 'signal'>, readonly bytes: number, said: string) {
    super('HERMETIC_SINK_OTLP_REJECTED', `The OTLP receiver at ${e.display} refused the ${e.signal} (${bytes} bytes) with 413 (too large)${said}.`, false);
  }
}

/** What a 413 for a request that cannot be split says (one span, or one series' points). */
export function sizeRefusal(t: TooLarge): SinkError {
  const what = t.e.signal === 'traces' ? 'one span' : "one series' points";
  const or = t.e.signal === 'traces' ? ', set OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, or leave out --otlp-content (message texts and tool results make the large spans)' : '';
  return new SinkError(
    'HERMETIC_SINK_OTLP_REJECTED',
    `The OTLP receiver at ${t.e.display} refused ${what} of ${t.bytes} bytes with 413 (too large); raise its request size limit (the collector's max_request_body_size)${or}. Sending the same batch again cannot help.`,
    false,
    { cause: t },
  );
}

/** The most of an answer read: an OTLP response is a few bytes (a partial success, an error status). */
const MAX_ANSWER = 64 * 1024;

// The start of the answer's body, at most MAX_ANSWER bytes; the rest is never read (a receiver or a proxy that sends a
// huge or endless body cannot fill memory). Errors while reading (the timeout, a reset) give what was read.
// `signal` (the timeout, or the process stopping) cuts the reading short: fetch's own signal does not reach a body
// whose headers came, and undici would wait 300 s for a stalled one.
async function readAnswer(response: Response, signal: AbortSignal): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  const cut = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cut, { once: true });
  if (signal.aborted) cut();
  try {
    while (size < MAX_ANSWER) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } catch {
    // cut short: keep what came
  } finally {
    signal.removeEventListener('abort', cut);
    reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(Math.min(size, MAX_ANSWER));
  let at = 0;
  for (const p of parts) {
    const n = Math.min(p.length, out.length - at);
    out.set(p.subarray(0, n), at);
    at += n;
    if (at === out.length) break;
  }
  return out;
}

// The encoding of the answer: its content type when it names one (a gateway may answer JSON to protobuf), else the
// request's (OTLP/HTTP: the response uses the request's encoding).
function answerEncoding(contentType: string | null, sent: OtlpEncoding): OtlpEncoding {
  const t = (contentType ?? '').toLowerCase();
  return t.startsWith('application/json') ? 'json' : t.startsWith('application/x-protobuf') || t.startsWith('application/protobuf') ? 'protobuf' : sent;
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

/**
 * One export's deadline: aborted after `timeoutMs`, or when the process stops. A timer of its own, held until `done`:
 * Node 20 lets an `AbortSignal.timeout` combined by `AbortSignal.any` be collected before it fires, and a request then
 * waited for undici's 300 s instead (seen in the suite, under GC pressure).
 */
function deadline(timeoutMs: number, stop: AbortSignal | undefined): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onStop = () => controller.abort(stop?.reason);
  stop?.addEventListener('abort', onStop, { once: true });
  if (stop?.aborted) onStop();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    },
  };
}

/** Sends one export; resolves with the partial success the receiver reported (else null); throws SinkError. */
export async function postExport(e: Export): Promise<OtlpPartialSuccess | null> {
  const limit = deadline(e.timeoutMs, e.stop);
  try {
    return await exchange(e, limit.signal, limit.timedOut);
  } finally {
    limit.done();
  }
}

/** The request and its answer under `signal`; `timedOut` tells a deadline passed from the process stopping or a failure. */
async function exchange(e: Export, signal: AbortSignal, timedOut: () => boolean): Promise<OtlpPartialSuccess | null> {
  let response: Response;
  try {
    response = await fetch(e.url, {
      method: 'POST',
      headers: { ...e.headers, 'content-type': e.encoding === 'json' ? 'application/json' : 'application/x-protobuf' },
      body: e.body as Uint8Array<ArrayBuffer>,
      redirect: 'manual',
      signal,
    });
  } catch (cause) {
    const why = e.stop?.aborted ? 'was not waited for: hermetic is stopping' : timedOut() ? `did not answer within ${e.timeoutMs} ms` : `could not be reached (${describe(cause)}${certificateHint(cause)})`;
    throw new SinkError('HERMETIC_SINK_OTLP_UNAVAILABLE', `The OTLP receiver at ${e.display} ${why}; the batch will be sent again.`, true, { cause });
  }
  const body = await readAnswer(response, signal);
  const status = response.status;
  const said = snippet(body);
  if (status >= 200 && status < 300) {
    // An HTML page is not an OTLP answer: a proxy's or a portal's sign-in page, a web server on the wrong port. Taking
    // it as delivered would lose the batch without a word.
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('text/html')) {
      throw new SinkError('HERMETIC_SINK_OTLP_REJECTED', `The OTLP receiver at ${e.display} answered ${status} with a web page (text/html), not an OTLP response, to the ${e.signal}: is ${e.url} an OTLP/HTTP receiver, without a proxy's sign-in in the way? Nothing was taken as delivered.`, false);
    }
    return partial(e.signal, answerEncoding(response.headers.get('content-type'), e.encoding), body);
  }
  if (status === 413) throw new TooLarge(e, e.body.length, said);
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

/**
 * Said beside a TLS certificate this machine does not trust (a self-signed or private CA's, a name or date that does
 * not match): still retried, since the receiver's operator may fix it, but the usual fix is on this side.
 */
function certificateHint(cause: unknown): string {
  const code = (cause as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof code !== 'string' || !/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/.test(code)) return '';
  return code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID'
    ? ": the receiver's TLS certificate does not match its name or date"
    : ": the receiver's TLS certificate is not signed by a CA this machine trusts; give node that CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem";
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

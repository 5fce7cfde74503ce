// The Fetch transport: a standard Request in, a standard Response out, over the same handler the server uses.
import { headerFromWire, headerWireText, reasonPhrase, type HttpRequest, type HttpResponse, type StreamSink } from './http.js';

async function readLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | 'too-large'> {
  if (!stream) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return 'too-large';
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * A drop-in `fetch`: `(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>`, so a client that takes a
 * `fetch` option accepts it. `RequestInfo` is `Request | string` (spelled out: Node's types have no global for it).
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The Content-Length fetch sends for a body of a size known up front (undici's `extractBody`: a string as UTF-8, bytes,
 * a Blob, URLSearchParams); null for a stream, sent chunked, or a body whose size only undici computes (FormData).
 */
export function knownBodyLength(body: RequestInit['body'] | undefined): number | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.byteLength(body, 'utf8');
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  if (body instanceof Blob) return body.size;
  if (body instanceof URLSearchParams) return Buffer.byteLength(body.toString(), 'utf8');
  return null;
}

/** The Content-Length a client's fetch would have sent, by Request, when it was not a header of its own. */
const sentLengths = new WeakMap<Request, number>();

/**
 * fetch's two arguments as one Request. A string that is not an absolute URL is a path under `base`: '/v1/runs' and
 * 'v1/runs' both mean `${base}/v1/runs` (so a path reaches a namespace's base URL, /ns/<name> included). The
 * Content-Length a real fetch would send for `init.body` is kept beside the Request (not in its headers: a real fetch
 * adds its own), so the in-process emulator reads it as a server would (decision 0070).
 */
export function toRequest(input: string | URL | Request, init: RequestInit | undefined, base: string): Request {
  if (typeof input === 'string' && !URL.canParse(input)) input = `${base.replace(/\/+$/, '')}/${input.replace(/^\/+/, '')}`;
  const request = input instanceof Request && init === undefined ? input : new Request(input, init);
  const length = knownBodyLength(init?.body);
  if (length !== null) sentLengths.set(request, length);
  return request;
}

export function fromFetchRequest(request: Request): HttpRequest {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const target = start < 0 ? '/' : url.slice(start);
  const q = target.search(/[?#]/);
  const hash = target.indexOf('#');
  let consumed = false;
  return {
    method: request.method.toUpperCase(),
    path: q < 0 ? target : target.slice(0, q),
    query: q < 0 || target[q] === '#' ? '' : target.slice(q + 1, hash < 0 ? undefined : hash),
    header: (name) => {
      const v = request.headers.get(name);
      if (v === null) return name === 'content-length' ? sentLengths.get(request)?.toString() : undefined;
      return headerFromWire(v);
    },
    readBody: (limit) => {
      if (consumed) return Promise.resolve(new Uint8Array(0));
      consumed = true;
      return readLimited(request.body, limit);
    },
  };
}

const encoder = new TextEncoder();

/**
 * The bytes a streamed body holds for a reader that is not reading before the writer is told to wait: asyncio's
 * default write-buffer high-water mark, which pauses aiohttp's protocol (decision 0083).
 */
const STREAM_HIGH_WATER = 64 * 1024;

/** What undici's fetch rejects with when the server closes the connection (a dropped-connection fault). */
function socketClosed(message: 'fetch failed' | 'terminated'): TypeError {
  const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError(message, { cause });
}

/** What fetch() rejects with once its signal is aborted: the signal's reason (an AbortError unless one was given). */
export const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/**
 * `promise`, or a rejection with the signal's reason as soon as it is aborted (the request goes on being handled, as
 * a server goes on with a request whose client hung up).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/**
 * Keeps the process alive while in-process requests are open, as an open socket does over HTTP: the emulator's own
 * clock never holds a process (its timer is unref'd, so an idle emulator does not keep a test run from ending), but a
 * request waiting on that clock (a scenario's next step, a run's events, a chat's answer) must not see the process
 * end under it.
 */
export class KeepAlive {
  #open = 0;
  #timer: NodeJS.Timeout | null = null;

  /** Holds the process until the returned function is called (once; later calls do nothing). */
  hold(): () => void {
    if (this.#open++ === 0) this.#timer = setInterval(() => {}, 2 ** 31 - 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.#open === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = null;
      }
    };
  }
}

export interface FetchResponseOptions {
  /** The request's signal: aborted, an open body fails with its reason and the stream is let go, as on the wire. */
  signal?: AbortSignal;
  /** Called once when a streamed body ends, fails or is let go (a body that is not streamed does not call it). */
  settled?: () => void;
}

/** `head`: the answer to a HEAD request carries its headers (Content-Length included) but no body, as on the wire. */
export function toFetchResponse(response: HttpResponse, head = false, options: FetchResponseOptions = {}): Response {
  // A dropped connection: no Response at all, as a network failure rejects fetch().
  if (response.drop) throw socketClosed('fetch failed');
  const headers = new Headers();
  for (const [k, v] of response.headers) headers.append(k, headerWireText(v));
  // What aiohttp says to an HTTP/1.1 client before it closes the connection (a 500 page).
  if (response.close && !headers.has('connection')) headers.set('Connection', 'close');
  if (response.stream) {
    const open = response.stream;
    const { signal } = options;
    let gone = false;
    let aborting = false;
    let onAbort: (() => void) | null = null;
    let settled = false;
    /** Writers waiting for the reader to take the queue below the high-water mark: true, or false once it is gone. */
    let drainWaiters: Array<(drained: boolean) => void> = [];
    const wake = (drained: boolean) => {
      const waiters = drainWaiters;
      drainWaiters = [];
      for (const w of waiters) w(drained);
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      if (onAbort) signal!.removeEventListener('abort', onAbort);
      wake(false);
      options.settled?.();
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const sink: StreamSink = {
          write(chunk) {
            if (gone) return false;
            controller.enqueue(encoder.encode(chunk));
            return true;
          },
          drained() {
            if (gone || (controller.desiredSize ?? 1) > 0) return null;
            return new Promise<boolean>((resolve) => drainWaiters.push(resolve));
          },
          end() {
            if (gone) return;
            gone = true;
            controller.close();
            settle();
          },
          abort() {
            if (gone) return;
            gone = true;
            // What was written still reaches the reader; the read after it fails, as over a socket closed mid-body.
            if (controller.desiredSize === STREAM_HIGH_WATER) controller.error(socketClosed('terminated'));
            else aborting = true;
            settle();
          },
        };
        if (signal) {
          // The client hung up: its reads fail with the signal's reason, and the subscriber notices on its next write.
          onAbort = () => {
            if (gone) return;
            gone = true;
            controller.error(abortReason(signal));
            settle();
          };
          signal.addEventListener('abort', onAbort, { once: true });
        }
        open(sink);
      },
      pull(controller) {
        // Called whenever the reader has taken the queue below the high-water mark (and after each read since).
        if (aborting) {
          if (controller.desiredSize === STREAM_HIGH_WATER) controller.error(socketClosed('terminated'));
        } else wake(true);
      },
      cancel() {
        // The reader went away; the subscriber notices on its next write, as over a socket.
        gone = true;
        settle();
      },
    }, new ByteLengthQueuingStrategy({ highWaterMark: STREAM_HIGH_WATER }));
    return new Response(body, { status: response.status, statusText: reasonPhrase(response.status), headers });
  }
  const nullBody = head || response.body === null || response.status === 204 || response.status === 304;
  return new Response(nullBody ? null : (response.body as string | ArrayBuffer), { status: response.status, statusText: reasonPhrase(response.status), headers });
}

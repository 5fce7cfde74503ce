// The transport-neutral request and response the emulator works on. Both ways in — the Fetch adapter and the
// node:http server — translate to and from these, so every behaviour is the same over either transport.
import { decodeSurrogateEscape, withoutLoneSurrogates } from '../shared/python/index.js';

export interface HttpRequest {
  /** Upper-case method. */
  readonly method: string;
  /** The request target's path, still percent-encoded, without the query string. */
  readonly path: string;
  /** The raw query string without its '?' ('' when there is none). */
  readonly query: string;
  /** The request line's HTTP version, '1.0' or '1.1' ('1.1' when absent: the Fetch transport). */
  readonly httpVersion?: string;
  /**
   * Header lookup by lower-case name: the first value when the header is repeated, as aiohttp's `headers.get()`
   * (over HTTP; a Fetch Request's Headers have already joined repeated values with ", ").
   */
  header(name: string): string | undefined;
  /** Every value of a repeated header in arrival order (aiohttp's C parser takes Content-Encoding from the last). */
  headerValues?(name: string): readonly string[];
  /**
   * Reads the body once; resolves 'too-large' as soon as more than `limit` bytes arrive, and rejects when the body
   * cannot be read to its end (in process: the Request's body stream failed).
   */
  readBody(limit: number): Promise<Uint8Array | 'too-large'>;
  /**
   * What the body holds in memory, charged to the server's budget (serve/body-budget.ts): the transport counts the
   * bytes received, the readers what they decode and parse (api/body.ts). Absent in process (decision 0135).
   */
  readonly bodyCharge?: BodyCharge;
  /** Set by the namespace's fault rules when one is armed at Hermes's own checks (faults/index.ts). */
  readonly faultChecks?: FaultChecks;
}

/** A body's share of the memory request bodies may hold at once (decision 0135). */
export interface BodyCharge {
  /** Counts bytes that already exist (a chunk received or decoded); never waits. */
  take(bytes: number): void;
  /** Null while the holder may make more bytes; else a promise resolved once it may (the budget has room again). */
  room(): Promise<void> | null;
  /** Holds `bytes` before they are made: null when held at once, else a promise resolved once they are. */
  want(bytes: number): Promise<void> | null;
  /** Gives bytes back (no more than are held). */
  give(bytes: number): void;
}

/**
 * Fault rules armed at Hermes's own checks in POST /v1/runs, asked only where Hermes checks (spec runs-api §5.1):
 * true makes that check refuse, and spends the rule. Each is asked at most once per request that reaches the check.
 */
export interface FaultChecks {
  /** Step 2: draining, right after auth (replays too). */
  draining(): boolean;
  /** Step 12: capacity, for new runs only (after validation and the idempotency lookup). */
  capacity(): boolean;
}

/** Where an event stream writes; write() returns false once the client is gone (noticed only when writing). */
export interface StreamSink {
  write(chunk: string): boolean;
  /**
   * Backpressure, as aiohttp's `drain()` sees it (decision 0083): null while the transport takes more; else, once its
   * buffer is past the high-water mark (a client that stopped reading), a promise that resolves true when what was
   * written has drained, false when the client went away first.
   */
  drained?(): Promise<boolean> | null;
  end(): void;
  /** Drops the connection after what was written (a fault): over node:http the socket closes mid-body; in process the body's reader rejects with TypeError('terminated'). */
  abort?(): void;
}

export interface HttpResponse {
  status: number;
  /** Header name/value pairs in wire order; transports add Content-Length (and Transfer-Encoding for streams). */
  headers: Array<[string, string]>;
  body: string | Uint8Array | null;
  /** For event streams: called once the head is sent; the body is written through the sink. */
  stream?: (sink: StreamSink) => void;
  /** Close the connection after this response (aiohttp does after a 500). */
  close?: boolean;
  /**
   * aiohttp's page for a request its HTTP parser refused (decision 0046): the status line says HTTP/1.0, there is no
   * Connection header, and the connection closes after it. Over node:http the bytes are written to the socket as they are.
   */
  parserPage?: boolean;
  /**
   * The Content-Type aiohttp's prepare() sets by default (`setdefault`) when the answer has none: written after
   * Content-Length, before Date and Server. Only the CORS 403s carry one, as recorded from Hermes (decision 0029).
   */
  defaultContentType?: string;
  /**
   * No answer reaches the client: the transport drops the connection (node:http destroys the socket; in process the
   * fetch rejects with TypeError('fetch failed')). Set by a fault rule; `status` and `body` are then what Hermes had
   * answered before the answer was lost (admit_then_drop: a 202 with its run id), or 0 and null when Hermes never saw
   * the request (drop).
   */
  drop?: boolean;
  /** The id of the fault rule that affected this request (faults/index.ts), for the request journal. */
  faultId?: string;
}

/** Python's HTTPStatus phrases (3.12, the names aiohttp sends; a fault may answer any of them). */
const STATUS_TEXT: Record<number, string> = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information', 204: 'No Content', 205: 'Reset Content',
  206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
  300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 305: 'Use Proxy',
  307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Request Entity Too Large', 414: 'Request-URI Too Long',
  415: 'Unsupported Media Type', 416: 'Requested Range Not Satisfiable', 417: 'Expectation Failed', 418: "I'm a Teapot",
  421: 'Misdirected Request', 422: 'Unprocessable Entity', 423: 'Locked', 424: 'Failed Dependency', 425: 'Too Early',
  426: 'Upgrade Required', 428: 'Precondition Required', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates', 507: 'Insufficient Storage', 508: 'Loop Detected',
  510: 'Not Extended', 511: 'Network Authentication Required',
};

/** aiohttp's reason phrases (used by the node server's status line): a status HTTPStatus does not name has none. */
export const reasonPhrase = (status: number): string => STATUS_TEXT[status] ?? '';

/**
 * A header value as the bytes aiohttp writes, spelled as the latin-1 string both Node transports send byte for byte:
 * UTF-8, where its C header writer skips a lone surrogate (`_write_utf8`: "surogate pair, ignored"), so a value read
 * from undecodable bytes echoes without them (decision 0070). Values from requests arrive decoded as aiohttp decodes
 * them (headerFromWire), so any other echo round-trips exactly.
 */
export function headerWireText(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  return Buffer.from(withoutLoneSurrogates(value), 'utf8').toString('latin1');
}

/**
 * A request header value as aiohttp reads it: the latin-1 text Node gives (one character a byte), re-read as UTF-8
 * with Python's `surrogateescape` (aiohttp's C parser: `decode('utf-8', 'surrogateescape')`): each byte that is not
 * part of a valid UTF-8 sequence becomes the lone surrogate U+DC80 + (byte − 0x80), not U+FFFD (decision 0070).
 */
export function headerFromWire(value: string): string {
  if (!/[^\x00-\x7f]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = bytes.toString('utf8');
  return text.includes('\ufffd') ? decodeSurrogateEscape(bytes) : text;
}

// Byte-exact responses as Hermes's aiohttp server writes them: JSON via Python's json.dumps, Hermes's error
// envelopes (spec runs-api §2.1), aiohttp's plain-text pages (§2.5), and the security headers (§2.2).
import type { HttpResponse } from '../http.js';
import type { HermesError } from '../runs/hermes-errors.js';
import { dumps, type PyValue } from '../../shared/python/index.js';
import { redactSensitiveText } from '../../shared/redact/index.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['X-XSS-Protection', '0'],
  ['Referrer-Policy', 'no-referrer'],
];

/**
 * aiohttp's `web.json_response(value, status=…, headers=…)`: `Response.__init__` builds its header dict from the
 * handler's headers and only then sets Content-Type, so the handler's headers go first on the wire (decision 0046).
 */
export function jsonResponse(status: number, value: PyValue, headers: Array<[string, string]> = []): HttpResponse {
  return { status, headers: headers.length === 0 ? [['Content-Type', JSON_TYPE]] : [...headers, ['Content-Type', JSON_TYPE]], body: dumps(value) };
}

/**
 * Hermes's standard four-key envelope (`_openai_error`): the message force-redacted once (redaction.md §2), so an id
 * from the URL that looks like a secret is masked. `Retry-After: 1` on capacity and draining answers.
 */
export function errorResponse(error: HermesError): HttpResponse {
  const body = new Map<string, PyValue>([
    ['error', new Map<string, PyValue>([
      ['message', redactSensitiveText(error.message, { force: true })],
      ['type', error.type],
      ['param', error.param ?? null],
      ['code', error.code],
    ])],
  ]);
  return jsonResponse(error.status, body, error.retryAfter ? [['Retry-After', '1']] : []);
}

/** The 401 for a missing or wrong API key: three keys, no `param` (127 bytes). */
export function authErrorResponse(): HttpResponse {
  return jsonResponse(401, new Map<string, PyValue>([
    ['error', new Map<string, PyValue>([
      ['message', 'Invalid gateway API key (API_SERVER_KEY)'],
      ['type', 'gateway_auth_error'],
      ['code', 'gateway_auth_failed'],
    ])],
  ]));
}

/** The X-Hermes-Session-Key 400s: two keys only. */
export function sessionKeyErrorResponse(message: string): HttpResponse {
  return jsonResponse(400, new Map<string, PyValue>([
    ['error', new Map<string, PyValue>([['message', message], ['type', 'invalid_request_error']])],
  ]));
}

export function unknownProfileResponse(): HttpResponse {
  return jsonResponse(404, new Map<string, PyValue>([['error', 'Unknown or unconfigured profile']]));
}

/** aiohttp's bare `web.Response(status=…)`: no body, and (aiohttp ≥ 3.10.6) no Content-Type either. */
export function emptyResponse(status: number, headers: Array<[string, string]> = []): HttpResponse {
  return { status, headers, body: null };
}

/**
 * Hermes's CORS refusal, a bare `web.Response(status=403)`, as recorded from aiohttp 3.14.3: no body, yet
 * `Content-Type: application/octet-stream` after `Content-Length: 0` — which that tag's source would not send
 * (decision 0029: the emulator follows the recording).
 */
export function corsForbiddenResponse(): HttpResponse {
  return { status: 403, headers: [], body: null, defaultContentType: 'application/octet-stream' };
}

/**
 * aiohttp's text pages. Its HTTP exceptions (404, 405) set Content-Type in the constructor and then their own headers
 * (`HTTPMethodNotAllowed` adds `Allow` after), so here Content-Type comes first.
 */
export function textResponse(status: number, text: string, headers: Array<[string, string]> = []): HttpResponse {
  return { status, headers: [['Content-Type', TEXT_TYPE], ...headers], body: text };
}

/**
 * aiohttp's answer to a request its HTTP parser refused (web_protocol.py `handle_error(request, 400, exc, exc.message)`
 * on the parser's error message): a text page, then the connection closes (decision 0046).
 */
export function parserRefusalPage(message: string): HttpResponse {
  return { status: 400, headers: [['Content-Type', TEXT_TYPE]], body: message, parserPage: true };
}

/**
 * A handler's `raise web.HTTPNotFound()` (or another aiohttp HTTP exception): it passes up through every middleware
 * untouched, so the answer has no security or CORS headers, as the router's own 404/405 (decision 0049, addendum).
 */
export class RaisedAnswer extends Error {
  constructor(readonly response: HttpResponse, message = 'raised by the handler') {
    super(message);
  }
}

/** Thrown where Hermes's handler reads a body that aiohttp's parser refuses only as the message completes. */
export class ParserRefusal extends RaisedAnswer {
  constructor(response: HttpResponse) {
    super(response, 'refused by the HTTP parser');
  }
}

/** aiohttp's routing answers (raised exceptions: no security or CORS headers). */
export const notFoundText = (): HttpResponse => textResponse(404, '404: Not Found');
export const methodNotAllowedText = (allowed: string[]): HttpResponse =>
  textResponse(405, '405: Method Not Allowed', [['Allow', [...allowed].sort().join(',')]]);

/**
 * aiohttp's `HTTPExpectationFailed(text="Unknown Expect: %s" % expect)`, raised by its default expect handler for an
 * HTTP/1.1 request whose Expect header is not `100-continue` (decision 0070).
 */
export const expectationFailedText = (expect: string): HttpResponse => textResponse(417, `Unknown Expect: ${expect}`);

/** Whether aiohttp's error page for this request is its HTML one (`Accept` names text/html). */
export const acceptsHtml = (req: { header(name: string): string | undefined }): boolean => (req.header('accept') ?? '').includes('text/html');

/** aiohttp's page for an exception escaping a handler; it always closes the connection. */
export function internalErrorPage(acceptsHtml: boolean): HttpResponse {
  const title = '500 Internal Server Error';
  const message = 'Server got itself in trouble';
  const response = acceptsHtml
    ? {
        status: 500,
        headers: [['Content-Type', 'text/html; charset=utf-8']] as Array<[string, string]>,
        body: `<html><head><title>${title}</title></head><body>\n<h1>${title}</h1>\n${message}\n</body></html>\n`,
      }
    : textResponse(500, `${title}\n\n${message}`);
  return { ...response, close: true };
}

const SECURITY_NAMES = new Set(SECURITY_HEADERS.map(([k]) => k.toLowerCase()));

/** The security-headers middleware: setdefault on a handler's response. */
export function withSecurityHeaders(response: HttpResponse): HttpResponse {
  // Handlers almost never set one of these themselves; only then is the slower setdefault needed.
  if (!response.headers.some(([k]) => k !== 'Content-Type' && SECURITY_NAMES.has(k.toLowerCase()))) {
    response.headers.push(...SECURITY_HEADERS);
    return response;
  }
  const present = new Set(response.headers.map(([k]) => k.toLowerCase()));
  for (const [k, v] of SECURITY_HEADERS) if (!present.has(k.toLowerCase())) response.headers.push([k, v]);
  return response;
}

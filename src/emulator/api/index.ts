// The emulated Hermes surface: Hermes's middleware chain in its order (profile prefix → CORS → body limit →
// security headers), then the route table. spec runs-api §1.2, §2.
import type { HttpRequest, HttpResponse } from '../http.js';
import { hermesErrors, UnhandledHermesException } from '../runs/hermes-errors.js';
import { StoreUnavailable } from '../runs/run-table.js';
import {
  authErrorResponse,
  corsForbiddenResponse,
  emptyResponse,
  errorResponse,
  internalErrorPage,
  methodNotAllowedText,
  notFoundText,
  unknownProfileResponse,
  withSecurityHeaders,
} from '../wire/responses.js';
import { authenticate, DEFAULT_PROFILE, ownershipScope } from './auth.js';
import { MAX_REQUEST_BYTES } from './body.js';
import type { ApiDeps } from './context.js';
import { matchRoute, type Route } from './routes.js';

export type { ApiDeps } from './context.js';

const CORS_COMMON: ReadonlyArray<[string, string]> = [
  ['Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS'],
  ['Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key'],
];

function corsHeadersFor(origin: string, allowed: readonly string[]): Array<[string, string]> | null {
  if (!origin || allowed.length === 0) return null;
  if (allowed.includes('*')) return [...CORS_COMMON, ['Access-Control-Allow-Origin', '*'], ['Access-Control-Max-Age', '600']];
  if (!allowed.includes(origin)) return null;
  return [...CORS_COMMON, ['Access-Control-Allow-Origin', origin], ['Vary', 'Origin'], ['Access-Control-Max-Age', '600']];
}

/** A response plus whether it reached the client as a raised exception (those skip the outer middlewares' headers). */
interface Outcome {
  response: HttpResponse;
  raised: boolean;
}

const PROFILE_PREFIX = /^\/p\/([^/]+)(\/.*)$/;

export async function handleApi(req: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  // 1. Profile prefix.
  let path = req.path;
  let profile: string | null = null;
  const prefixed = path.startsWith('/p/') ? PROFILE_PREFIX.exec(path) : null;
  if (prefixed) {
    profile = prefixed[1]!;
    if (profile !== DEFAULT_PROFILE && !deps.gateway.profiles.has(profile)) return unknownProfileResponse();
    path = prefixed[2]!;
  }
  // 2. CORS: a refused Origin gets a bare 403 before anything else; preflights end here.
  const origin = req.header('origin') ?? '';
  const origins = deps.gateway.corsOrigins;
  if (origin && !origins.includes('*') && !origins.includes(origin)) return corsForbiddenResponse();
  const cors = corsHeadersFor(origin, origins);
  if (req.method === 'OPTIONS') return cors ? emptyResponse(200, cors) : corsForbiddenResponse();
  const { response, raised } = await limitedAndRouted(req, deps, path, profile);
  if (cors && !raised && !response.stream) response.headers.push(...cors);
  return response;
}

async function limitedAndRouted(req: HttpRequest, deps: ApiDeps, path: string, profile: string | null): Promise<Outcome> {
  // 3. Body limit (POST/PUT/PATCH).
  if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
    const length = req.header('content-length');
    if (length !== undefined) {
      if (!/^\s*[+-]?\d+\s*$/.test(length)) return { response: errorResponse(hermesErrors.invalidContentLength()), raised: false };
      if (Number(length) > MAX_REQUEST_BYTES) return { response: errorResponse(hermesErrors.bodyTooLarge()), raised: false };
    }
  }
  // aiohttp resolves the route; a miss is an exception passing through every middleware untouched.
  const match = matchRoute(req.method, path);
  if (match.kind === 'not-found') return { response: notFoundText(), raised: true };
  if (match.kind === 'method-not-allowed') return { response: methodNotAllowedText(match.allowed), raised: true };
  try {
    const response = await runHandler(req, deps, match.route, match.params, profile);
    // 4. Security headers, on what the handler returned (an event stream has already sent its head).
    return { response: response.stream ? response : withSecurityHeaders(response), raised: false };
  } catch (e) {
    // Where Hermes raises (a Python exception, a SQLite error) aiohttp answers its 500 page; so do we. Anything else
    // is a bug of ours: the client still gets the page (there is no better answer), and the bug is reported.
    if (!(e instanceof UnhandledHermesException) && !(e instanceof StoreUnavailable)) deps.onInternalError(e);
    return { response: internalErrorPage((req.header('accept') ?? '').includes('text/html')), raised: true };
  }
}

function runHandler(req: HttpRequest, deps: ApiDeps, route: Route, params: Record<string, string>, profile: string | null) {
  if (route.auth !== 'none') {
    const outcome = authenticate(req, deps.gateway, profile);
    if (outcome === 'room' && route.auth === 'key-or-room') {
      // No room authority exists in the emulator: every grant is invalid (spec §15).
      return errorResponse({ status: 401, message: 'Room authorization is invalid or expired.', type: 'gateway_auth_error', code: 'invalid_room_grant' });
    }
    if (outcome !== 'ok') return authErrorResponse();
  }
  return route.handler({ req, params, profile, scope: ownershipScope(deps.gateway, profile), deps });
}

// The emulated Hermes surface: Hermes's middleware chain in its order (profile prefix → CORS → body limit →
// security headers), then the route table. spec runs-api §1.2, §2.
import type { GatewaySettings } from '../gateway.js';
import { pyStrip } from '../../shared/python/index.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { hermesErrors, UnhandledHermesException } from '../runs/hermes-errors.js';
import { StoreUnavailable } from '../runs/run-table.js';
import {
  authErrorResponse,
  corsForbiddenResponse,
  emptyResponse,
  errorResponse,
  acceptsHtml,
  expectationFailedText,
  internalErrorPage,
  methodNotAllowedText,
  notFoundText,
  RaisedAnswer,
  unknownProfileResponse,
  withSecurityHeaders,
} from '../wire/responses.js';
import { authenticate, DEFAULT_PROFILE, ownershipScope, roomGrantInvalid } from './auth.js';
import { MAX_REQUEST_BYTES } from './body.js';
import type { ApiDeps, Handler } from './context.js';
import { capabilities, health } from './meta.js';
import { runEvents } from './run-events.js';
import { approveRun, getRun, steerRun, stopRun, submitRun } from './runs.js';
import { decodeSegment, matchRoute, type Operation, type Route, type RouteMatch } from './routes.js';
import { createSession, deleteSession, forkSession, getSession, listSessions, lockSessionModel, patchSession, sessionChat, sessionChatStream, sessionMessages } from './sessions.js';
import { ALWAYS_REFUSED, guardAnswer, unsupported } from './unemulated.js';

export type { ApiDeps } from './context.js';

/** The handler of each operation of the route table (routes.ts). */
const HANDLERS: { readonly [O in Operation]: Handler } = {
  submit: submitRun,
  get: getRun,
  events: runEvents,
  approval: approveRun,
  steer: steerRun,
  stop: stopRun,
  health,
  capabilities,
  sessions: listSessions,
  session_create: createSession,
  session: getSession,
  session_update: patchSession,
  session_delete: deleteSession,
  session_messages: sessionMessages,
  session_fork: forkSession,
  session_chat: sessionChat,
  session_chat_stream: sessionChatStream,
  session_model_lock: lockSessionModel,
  unsupported,
};

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

/**
 * Where a request stands after Hermes's middlewares (profile prefix, CORS, body limit) and aiohttp's router: answered
 * there, or a route for the auth check and the handler; `cors` is what the CORS middleware adds on the way out.
 */
type Gate =
  | { kind: 'answered'; response: HttpResponse }
  | { kind: 'outcome'; outcome: Outcome; cors: Array<[string, string]> | null }
  | { kind: 'route'; route: Route; params: Record<string, string>; profile: string | null; cors: Array<[string, string]> | null };

const PROFILE_PREFIX = /^\/p\/([^/]+)(\/.*)$/;

/**
 * aiohttp's router, then the profile middleware's reading of it. Hermes registers every route twice, as itself and
 * under `/p/{profile}` (`connect()`), whether or not profiles are multiplexed; the middleware reads `{profile}` from
 * the matched route (`request.match_info`), so only a request that matched a route has a profile to check. An unrouted
 * path or a wrong method under `/p/<name>/` has none: it gets aiohttp's 404/405 like any other (decision 0046).
 */
function resolve(req: HttpRequest): { match: RouteMatch; profile: string | null } {
  const prefixed = req.path.startsWith('/p/') ? PROFILE_PREFIX.exec(req.path) : null;
  if (!prefixed) return { match: matchRoute(req.method, req.path), profile: null };
  const segment = decodeSegment(prefixed[1]!);
  // `{profile}` matches a segment without braces (aiohttp's default `[^{}/]+`).
  if (segment.includes('{') || segment.includes('}')) return { match: { kind: 'not-found' }, profile: null };
  const match = matchRoute(req.method, prefixed[2]!);
  // `(request.match_info.get("profile") or "").strip()`: a blank name is no prefix at all.
  const profile = pyStrip(segment);
  return { match, profile: match.kind === 'route' && profile !== '' ? profile : null };
}

/**
 * `profile_matches_home` without multiplexing: `normalize_profile_name` reads `default` in any case (`casefold`), so
 * `/p/DEFAULT/` names the gateway's own home as `/p/default/` does. No other character folds into these ASCII letters.
 */
const namesOwnHome = (profile: string): boolean => profile.length === 7 && profile.toLowerCase() === DEFAULT_PROFILE;

function gate(req: HttpRequest, gateway: GatewaySettings): Gate {
  const { match, profile: named } = resolve(req);
  const profile = named !== null && gateway.profiles.size === 0 && namesOwnHome(named) ? DEFAULT_PROFILE : named;
  // 0. aiohttp's Application._handle, after the router and before any middleware: an Expect header on an HTTP/1.1
  // request other than 100-continue is `_default_expect_handler`'s 417, whatever the path (decision 0070).
  const expect = req.header('expect');
  if (expect && req.httpVersion !== '1.0' && expect.toLowerCase() !== '100-continue') return { kind: 'answered', response: expectationFailedText(expect) };
  // 1. Profile prefix: a name this gateway does not serve. Without multiplexing (no named profiles) only the
  // gateway's own profile, `default`, may prefix a route (S-A `_resolve_request_profile`, #91583); with it, `default`
  // and the configured names.
  if (profile !== null && profile !== DEFAULT_PROFILE && !gateway.profiles.has(profile)) return { kind: 'answered', response: unknownProfileResponse() };
  // 2. CORS: a refused Origin gets a bare 403 before anything else; preflights end here.
  const origin = req.header('origin') ?? '';
  const origins = gateway.corsOrigins;
  if (origin && !origins.includes('*') && !origins.includes(origin)) return { kind: 'answered', response: corsForbiddenResponse() };
  const cors = corsHeadersFor(origin, origins);
  if (req.method === 'OPTIONS') return { kind: 'answered', response: cors ? emptyResponse(200, cors) : corsForbiddenResponse() };
  // 3. Body limit (POST/PUT/PATCH).
  if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') {
    const length = req.header('content-length');
    if (length !== undefined) {
      if (!/^\s*[+-]?\d+\s*$/.test(length)) return { kind: 'outcome', outcome: { response: errorResponse(hermesErrors.invalidContentLength()), raised: false }, cors };
      if (Number(length) > MAX_REQUEST_BYTES) return { kind: 'outcome', outcome: { response: errorResponse(hermesErrors.bodyTooLarge()), raised: false }, cors };
    }
  }
  // A miss is the router's exception, passing through every middleware untouched.
  if (match.kind === 'not-found') return { kind: 'outcome', outcome: { response: notFoundText(), raised: true }, cors };
  if (match.kind === 'method-not-allowed') return { kind: 'outcome', outcome: { response: methodNotAllowedText(match.allowed), raised: true }, cors };
  return { kind: 'route', route: match.route, params: match.params, profile, cors };
}

/** The CORS middleware's headers on the way out (not on a raised exception, nor on an event stream's sent head). */
function withCors({ response, raised }: Outcome, cors: Array<[string, string]> | null): HttpResponse {
  if (cors && !raised && !response.stream) response.headers.push(...cors);
  return response;
}

/**
 * Whether a request reaches a handler of a namespace's state (runs, sessions, capabilities): only such a request
 * creates a namespace (front-door.ts). The health check, an unrouted path, a refused Origin, a preflight or a body
 * refused by its declared length are answered the same by any new namespace, and create none.
 */
export function reachesState(req: HttpRequest, gateway: GatewaySettings): boolean {
  const at = gate(req, gateway);
  return at.kind === 'route' && at.route.auth !== 'none';
}

export async function handleApi(req: HttpRequest, deps: ApiDeps): Promise<HttpResponse> {
  const at = gate(req, deps.gateway);
  if (at.kind === 'answered') return at.response;
  if (at.kind === 'outcome') return withCors(at.outcome, at.cors);
  return withCors(await routed(req, deps, at.route, at.params, at.profile), at.cors);
}

/**
 * The answer a namespace not created yet gives when it can only refuse, before any handler state is needed: Hermes's
 * 401 for the route's key, or, for a route whose guard refuses every request (unemulated.ts ALWAYS_REFUSED: credentials
 * the emulator cannot honour, a platform that is not connected), that refusal; null when the request goes on. The
 * front door asks this so such a request creates nothing (decision 0028); the bytes are those handleApi would give.
 */
export function refuseFresh(req: HttpRequest, gateway: GatewaySettings): HttpResponse | Promise<HttpResponse> | null {
  const at = gate(req, gateway);
  if (at.kind !== 'route') return null;
  const { route, params, profile, cors } = at;
  let refusal: HttpResponse | null;
  try {
    refusal = authorize(req, gateway, route, profile);
  } catch (e) {
    // The key check raised (a token that is not UTF-8): aiohttp's 500 page, as routed() gives it.
    if (e instanceof RaisedAnswer) return e.response;
    throw e;
  }
  if (refusal) return withCors({ response: withSecurityHeaders(refusal), raised: false }, cors);
  if (route.guard === undefined || !ALWAYS_REFUSED.has(route.guard)) return null;
  return (async () => {
    try {
      const answer = await guardAnswer(req, route.guard, params, () => gateway.draining);
      if (answer === null) throw new Error(`the ${String(route.guard)} guard let ${req.method} ${req.path} through`);
      return withCors({ response: withSecurityHeaders(answer), raised: false }, cors);
    } catch (e) {
      // An exception the guard raises (the feature flag's 404) or a body aiohttp's parser refuses as the message
      // completes: the bare answer, as routed() gives it.
      if (e instanceof RaisedAnswer) return e.response;
      throw e;
    }
  })();
}

async function routed(req: HttpRequest, deps: ApiDeps, route: Route, params: Record<string, string>, profile: string | null): Promise<Outcome> {
  try {
    const response = authorize(req, deps.gateway, route, profile) ?? (await HANDLERS[route.operation]({ req, route, params, profile, scope: ownershipScope(deps.gateway, profile), deps }));
    // 4. Security headers, on what the handler returned (an event stream has already sent its head).
    return { response: response.stream ? response : withSecurityHeaders(response), raised: false };
  } catch (e) {
    // An aiohttp HTTP exception the handler raises, or a body aiohttp's parser refuses as the message completes (its
    // own page, not the handler's): past every middleware untouched.
    if (e instanceof RaisedAnswer) return { response: e.response, raised: true };
    // Where Hermes raises (a Python exception, a SQLite error) aiohttp answers its 500 page; so do we. Anything else
    // is a bug of ours: the client still gets the page (there is no better answer), and the bug is reported.
    if (e instanceof StoreUnavailable) deps.onStoreFailure(`${req.method} ${req.path}`, e);
    else if (!(e instanceof UnhandledHermesException)) deps.onInternalError(e);
    return { response: internalErrorPage(acceptsHtml(req)), raised: true };
  }
}

/**
 * The route's key check: null when the request may go on, else Hermes's 401. Where `_check_auth` itself raises (a
 * Bearer token that is not UTF-8), it throws RaisedAnswer with aiohttp's 500 page.
 */
function authorize(req: HttpRequest, gateway: GatewaySettings, route: Route, profile: string | null): HttpResponse | null {
  if (route.auth === 'none') return null;
  const outcome = authenticate(req, gateway, profile, route.auth === 'key-or-room');
  if (outcome === 'ok') return null;
  if (outcome === 'raises') throw new RaisedAnswer(internalErrorPage(acceptsHtml(req)), "the API key check raised: the token's bytes are not UTF-8");
  if (outcome === 'room') {
    // No room authority exists in the emulator: every grant is invalid (spec §15).
    return errorResponse(roomGrantInvalid());
  }
  return authErrorResponse();
}

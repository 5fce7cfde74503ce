// The routes Hermes serves that the emulator does not reproduce (operation 'unsupported'): the rest of the guard
// Hermes's handler begins with, after the route table's key check, then a clear 501 (decision 0049). Which guard a
// route has is data (endpoints.ts); what each answers is here. Some guards refuse every request, as Hermes does at its
// defaults (the browser-control flag off, no room authority, no Chronos settings, no platform adapter): those routes
// answer exactly what Hermes answers and never reach the 501.
import { HermeticError } from '../../shared/errors.js';
import { pyStrip, type PyValue } from '../../shared/python/index.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { hermesErrors, type HermesError } from '../runs/hermes-errors.js';
import { bodyObject } from '../sessions/index.js';
import { errorResponse, jsonResponse, notFoundText, RaisedAnswer } from '../wire/responses.js';
import { roomGrantInvalid } from './auth.js';
import { readJson } from './body.js';
import { drainingFor, type ApiContext } from './context.js';
import { EMULATED_SESSION_ENDPOINTS, type UnemulatedGuard } from './endpoints.js';

const std = (status: number, message: string, code: string): HermesError => ({ status, message, type: 'invalid_request_error', code });

/** Hermes's own answers on these routes before it would serve them (api_server.py, api_server_room_grants.py). */
export const unemulatedErrors = {
  /** `_handle_browser_control_register`, `_handle_artifact_upload` with the flag off (api_server.py at the pin). */
  browserControlDisabled: () => std(404, 'Browser control is not enabled on this server.', 'browser_control_disabled'),
  roomRefreshFields: () => std(400, 'Grant refresh accepts only ttl_seconds.', 'invalid_room_grant_refresh'),
  roomRevokeFields: () => std(400, 'Grant revoke accepts no fields.', 'invalid_room_grant_revoke'),
  invalidPlatform: () => std(400, 'Invalid platform name', 'invalid_platform'),
  platformUnavailable: () => std(503, 'Platform adapter is not connected', 'platform_unavailable'),
  platformEventsUnsupported: () => std(503, 'Platform adapter does not support HTTP events', 'platform_http_events_unsupported'),
} as const;

/** `_handle_cron_fire`'s refusal: `error` is a plain string here. */
const fireTokenRefused = (): HttpResponse => jsonResponse(401, new Map<string, PyValue>([['error', 'invalid fire token']]));

/**
 * `_normalize_callback_platform`: stripped, lower-cased, `-` made `_`, then `[a-z0-9_]+` or nothing.
 * @example callbackPlatform(' Google-Chat ') // 'google_chat'
 */
export function callbackPlatform(value: string): string {
  const normalized = pyStrip(value).toLowerCase().replace(/-/g, '_');
  return /^[a-z0-9_]+$/.test(normalized) ? normalized : '';
}

/**
 * The guards that refuse every request, whatever a namespace holds: a feature that is off, credentials the emulator
 * cannot honour, a platform that is not connected. The front door answers them for a namespace not created yet
 * (index.ts `refuseFresh`), so a request that can only be refused creates nothing (decision 0028).
 */
export const ALWAYS_REFUSED: ReadonlySet<UnemulatedGuard> = new Set(['feature', 'feature-page', 'room', 'room-refresh', 'room-revoke', 'fire-token', 'platform']);

/**
 * What Hermes answers before it would serve the request, or null when it would go on to serve it. The key check has
 * passed (or the route asks none). Throws RaisedAnswer where Hermes's handler raises an aiohttp HTTP exception.
 */
export async function guardAnswer(req: HttpRequest, guard: UnemulatedGuard | undefined, params: Readonly<Record<string, string>>, draining: () => boolean): Promise<HttpResponse | null> {
  switch (guard) {
    case 'admitted':
    case 'draining':
      return draining() ? errorResponse(hermesErrors.draining()) : null;
    case 'feature':
      // `if not self._browser_control_enabled(): return web.json_response(_openai_error(…), status=404)`: the flag is
      // off at Hermes's defaults (/v1/capabilities says `enabled: false`), before the API_SERVER_KEY and key checks.
      return errorResponse(unemulatedErrors.browserControlDisabled());
    case 'feature-page':
      // `if not self._browser_control_enabled(): raise web.HTTPNotFound()`: aiohttp's own page, no middleware headers.
      throw new RaisedAnswer(notFoundText());
    case 'room':
      // `_room_grant_claims`: no grant is "room grant is missing"; a grant cannot be verified without a room authority.
      return errorResponse(roomGrantInvalid());
    case 'room-refresh':
    case 'room-revoke': {
      const body = bodyObject(await readJson(req));
      if (!body.ok) return errorResponse(body.error);
      if (guard === 'room-refresh' && [...body.value.keys()].some((k) => k !== 'ttl_seconds')) return errorResponse(unemulatedErrors.roomRefreshFields());
      if (guard === 'room-revoke' && body.value.size > 0) return errorResponse(unemulatedErrors.roomRevokeFields());
      return errorResponse(roomGrantInvalid());
    }
    case 'fire-token':
      // The Chronos verifier refuses every token while `cron.chronos.expected_audience` is unset (Hermes's default).
      return fireTokenRefused();
    case 'platform': {
      const platform = callbackPlatform(params.platform ?? '');
      if (platform === '') return errorResponse(unemulatedErrors.invalidPlatform());
      // `request.app["api_server_adapter"]` is the API server itself, which verifies no platform events; no other
      // platform adapter is connected to the emulated gateway.
      return errorResponse(platform === 'api_server' ? unemulatedErrors.platformEventsUnsupported() : unemulatedErrors.platformUnavailable());
    }
    default:
      return null;
  }
}

/** How the 501 names each session route the emulator serves: a new one does not compile until it is named here. */
const SESSION_ROUTE_WORDS: Record<(typeof EMULATED_SESSION_ENDPOINTS)[number], string> = {
  sessions: 'list', session_create: 'create', session: 'get', session_update: 'update', session_delete: 'delete',
  session_messages: 'messages', session_fork: 'fork', session_chat: 'chat', session_chat_stream: 'chat stream',
  session_model_lock: 'model lock',
};

/** What the emulator serves, as the 501 says it. */
const EMULATED = `/v1/runs, /api/sessions (${EMULATED_SESSION_ENDPOINTS.map((e) => SESSION_ROUTE_WORDS[e]).join(', ')}), /health, /v1/health and /v1/capabilities`;

/**
 * A Hermes route the emulator does not reproduce: Hermes's own answers up to where it would serve the request (the
 * draining 503 of an agent turn, the browser-control flag's 404, the refusals of credentials the emulator cannot
 * honour), then a clear 501 rather than a 404 that looks like Hermes's (decision 0049).
 */
export async function unsupported(ctx: ApiContext): Promise<HttpResponse> {
  const answer = await guardAnswer(ctx.req, ctx.route.guard, ctx.params, () => drainingFor(ctx));
  if (answer) return answer;
  const error = new HermeticError(
    'HERMETIC_UNSUPPORTED_ROUTE',
    `Hermes serves ${ctx.req.method} ${ctx.req.path}, but Hermetic emulates only ${EMULATED}.`,
  );
  return { status: 501, headers: [['Content-Type', 'application/json; charset=utf-8']], body: JSON.stringify(error.toJSON()) };
}

// The endpoints Hermes advertises in /v1/capabilities (name, method, path, in Hermes's order), the routes it registers
// without listing them there, and which of all these the emulator does not reproduce, with how Hermes's handler of
// each begins (docs/reference/coverage.md, decision 0049). Data only: the route table reads all of it, the
// capabilities body only ENDPOINTS.

/** [name, method, path] as /v1/capabilities lists them at the pin. */
export const ENDPOINTS: Array<[string, string, string]> = [
  ['health', 'GET', '/health'],
  ['health_detailed', 'GET', '/health/detailed'],
  ['models', 'GET', '/v1/models'],
  ['model_options', 'GET', '/api/model/options'],
  ['chat_completions', 'POST', '/v1/chat/completions'],
  ['responses', 'POST', '/v1/responses'],
  ['runs', 'POST', '/v1/runs'],
  ['run_status', 'GET', '/v1/runs/{run_id}'],
  ['run_events', 'GET', '/v1/runs/{run_id}/events'],
  ['run_approval', 'POST', '/v1/runs/{run_id}/approval'],
  ['run_steer', 'POST', '/v1/runs/{run_id}/steer'],
  ['run_stop', 'POST', '/v1/runs/{run_id}/stop'],
  ['skills', 'GET', '/v1/skills'],
  ['toolsets', 'GET', '/v1/toolsets'],
  ['sessions', 'GET', '/api/sessions'],
  ['session_create', 'POST', '/api/sessions'],
  ['session', 'GET', '/api/sessions/{session_id}'],
  ['session_update', 'PATCH', '/api/sessions/{session_id}'],
  ['session_delete', 'DELETE', '/api/sessions/{session_id}'],
  ['session_messages', 'GET', '/api/sessions/{session_id}/messages'],
  ['session_fork', 'POST', '/api/sessions/{session_id}/fork'],
  ['session_chat', 'POST', '/api/sessions/{session_id}/chat'],
  ['session_chat_stream', 'POST', '/api/sessions/{session_id}/chat/stream'],
  ['session_model_lock', 'POST', '/api/sessions/{session_id}/model'],
  ['browser_control_register', 'POST', '/v1/browser-control/register'],
  ['browser_control_ws', 'GET', '/v1/browser-control/ws'],
  ['artifact_upload', 'POST', '/v1/artifacts/upload'],
  ['artifact_download', 'GET', '/v1/artifacts/download/{artifact_id}'],
];

/**
 * The session endpoints the emulator serves (spec sessions-api §1), named as /v1/capabilities names them: also the
 * operations of their routes (routes.ts).
 */
export const EMULATED_SESSION_ENDPOINTS = [
  'sessions', 'session_create', 'session', 'session_update', 'session_delete', 'session_messages', 'session_fork', 'session_chat',
  'session_chat_stream', 'session_model_lock',
] as const;
const EMULATED: ReadonlySet<string> = new Set(EMULATED_SESSION_ENDPOINTS);

/**
 * How Hermes's handler of a route the emulator does not reproduce begins (api_server.py at the pin; decision 0049 and
 * its addendum), so the emulator answers as Hermes would until the point where Hermes would serve the request:
 * - 'key': `_check_auth` before anything else, so a missing or wrong key is Hermes's 401;
 * - 'admitted': `@_admit_api_agent_request`, the same key check, then the draining 503 (an agent turn);
 * - 'draining': `_check_auth`, then `_draining_response()`, written out in the handler (the jobs run trigger): the
 *   same answers as 'admitted';
 * - 'feature': the browser-control flag first (`browser.extension_control.enabled`, off at Hermes's defaults, as
 *   /v1/capabilities says), then `API_SERVER_KEY` set (else 403), and only then the key check; with the flag off the
 *   handler returns its JSON 404 `browser_control_disabled` and nothing after it is reached: no key asked, no 501;
 * - 'feature-page': the same flag, but the handler raises `web.HTTPNotFound()` while it is off: aiohttp's plain-text
 *   404, past every middleware (as an unknown path's);
 * - 'room': `_room_grant_claims` first, a HermesRoom grant and never the API key: with no room authority in the
 *   emulator, a missing grant and every grant are Hermes's 401 `invalid_room_grant`, so the 501 never comes;
 * - 'room-refresh', 'room-revoke': `_read_json_body` first (its two 400s), then the body's own rule (only
 *   `ttl_seconds`; no field at all: a 400 each), then the same grant check and 401;
 * - 'fire-token': the Chronos verifier on `Authorization: Bearer <NAS-signed JWT>`, never the API key; without the
 *   `cron.chronos` settings (Hermes's defaults, and the emulator's) every token is refused: 401 `invalid fire token`;
 * - 'platform': the `{platform}` name (400 `invalid_platform`), then that platform's adapter: the emulator connects
 *   none, so the answer is Hermes's 503 for a gateway that runs only its API server.
 */
export type UnemulatedGuard = 'key' | 'admitted' | 'draining' | 'feature' | 'feature-page' | 'room' | 'room-refresh' | 'room-revoke' | 'fire-token' | 'platform';

/** The guards whose first check is Hermes's `_check_auth` (the route table's 'key' rule). */
export const KEY_FIRST: ReadonlySet<UnemulatedGuard> = new Set(['key', 'admitted', 'draining']);

const GUARDS: Readonly<Record<string, UnemulatedGuard>> = {
  health_detailed: 'key',
  models: 'key',
  model_options: 'key',
  chat_completions: 'admitted',
  responses: 'admitted',
  skills: 'key',
  toolsets: 'key',
  browser_control_register: 'feature',
  browser_control_ws: 'feature-page',
  artifact_upload: 'feature',
  artifact_download: 'feature-page',
};

/**
 * The routes Hermes registers that /v1/capabilities does not list, in its `_http_route_table` order: the rest of its
 * own rows, then `_room_grants._http_routes`, then `/api/cron/fire` (added when `cron.jobs` imports, as it does in
 * every install). [method, path, guard]; never in the capabilities body.
 */
export const UNLISTED_ROUTES: ReadonlyArray<readonly [string, string, UnemulatedGuard]> = [
  ['GET', '/v1/responses/{response_id}', 'key'],
  ['DELETE', '/v1/responses/{response_id}', 'key'],
  ['POST', '/api/platforms/{platform}/events', 'platform'],
  ['GET', '/api/jobs', 'key'],
  ['POST', '/api/jobs', 'key'],
  ['GET', '/api/jobs/{job_id}', 'key'],
  ['PATCH', '/api/jobs/{job_id}', 'key'],
  ['DELETE', '/api/jobs/{job_id}', 'key'],
  ['POST', '/api/jobs/{job_id}/pause', 'key'],
  ['POST', '/api/jobs/{job_id}/resume', 'key'],
  ['POST', '/api/jobs/{job_id}/run', 'draining'],
  ['POST', '/v1/room-members/invitations', 'key'],
  ['GET', '/v1/room-members/capabilities', 'room'],
  ['POST', '/v1/room-members/grants/refresh', 'room-refresh'],
  ['POST', '/v1/room-members/grants/revoke', 'room-revoke'],
  ['POST', '/api/cron/fire', 'fire-token'],
];

/**
 * Routes Hermes serves that the emulator does not reproduce (docs/reference/coverage.md): [method, path, guard], the
 * listed ones in capabilities order, then the unlisted ones.
 */
export const UNEMULATED_ROUTES: Array<[string, string, UnemulatedGuard]> = [
  ...ENDPOINTS.filter(
    ([name, , path]) =>
      !path.startsWith('/v1/runs') && path !== '/health' && path !== '/v1/capabilities' && !EMULATED.has(name),
  ).map(([name, method, path]): [string, string, UnemulatedGuard] => {
    const guard = GUARDS[name];
    if (guard === undefined) throw new Error(`endpoints.ts: say how Hermes guards ${method} ${path} (${name})`);
    return [method, path, guard];
  }),
  ...UNLISTED_ROUTES.map(([method, path, guard]): [string, string, UnemulatedGuard] => [method, path, guard]),
];

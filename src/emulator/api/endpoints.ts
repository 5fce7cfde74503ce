// The endpoints Hermes advertises in /v1/capabilities (name, method, path, in Hermes's order), and those of them the
// emulator does not reproduce (docs/reference/coverage.md). Data only: the route table and the capabilities body
// both read it.

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

/** The session endpoints the emulator serves (spec sessions-api §1); fork, chat/stream and model are not. */
const EMULATED_SESSION_ENDPOINTS = new Set(['sessions', 'session_create', 'session', 'session_update', 'session_delete', 'session_messages', 'session_chat']);

/**
 * How Hermes's handler of an endpoint the emulator does not reproduce begins (api_server.py at the pin; decision 0049):
 * - 'key': `_check_auth` before anything else, so a missing or wrong key is Hermes's 401;
 * - 'admitted': `@_admit_api_agent_request`, the same key check, then the draining 503 (an agent turn);
 * - 'feature': the browser-control flag first (off, as /v1/capabilities says: 404), then `API_SERVER_KEY` set (else
 *   403), and only then the key check, which with the flag off is never reached: no 401 to give.
 */
export type UnemulatedGuard = 'key' | 'admitted' | 'feature';

const GUARDS: Readonly<Record<string, UnemulatedGuard>> = {
  health_detailed: 'key',
  models: 'key',
  model_options: 'key',
  chat_completions: 'admitted',
  responses: 'admitted',
  skills: 'key',
  toolsets: 'key',
  session_fork: 'key',
  session_chat_stream: 'admitted',
  session_model_lock: 'key',
  browser_control_register: 'feature',
  browser_control_ws: 'feature',
  artifact_upload: 'feature',
  artifact_download: 'feature',
};

/** Routes Hermes advertises that the emulator does not reproduce (docs/reference/coverage.md): [method, path, guard]. */
export const UNEMULATED_ROUTES: Array<[string, string, UnemulatedGuard]> = ENDPOINTS.filter(
  ([name, , path]) =>
    !path.startsWith('/v1/runs') && path !== '/health' && path !== '/v1/capabilities' && !EMULATED_SESSION_ENDPOINTS.has(name),
).map(([name, method, path]) => {
  const guard = GUARDS[name];
  if (guard === undefined) throw new Error(`endpoints.ts: say how Hermes guards ${method} ${path} (${name})`);
  return [method, path, guard];
});

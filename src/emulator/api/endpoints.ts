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

/** Routes Hermes advertises that the emulator does not reproduce (docs/reference/coverage.md). */
export const UNEMULATED_ROUTES: Array<[string, string]> = ENDPOINTS.filter(
  ([name, , path]) =>
    !path.startsWith('/v1/runs') && path !== '/health' && path !== '/v1/capabilities' && !EMULATED_SESSION_ENDPOINTS.has(name),
).map(([, method, path]) => [method, path]);

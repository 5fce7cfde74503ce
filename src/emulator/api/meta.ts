// GET /health, /v1/health (no auth) and /v1/capabilities (API key): what a peer client reads before it runs
// anything (spec runs-api §14; body as read in Hermes's source next to the pin, docs/decisions/0003). The 501 of the
// routes Hermes serves that the emulator does not is in unemulated.ts.
import type { HttpResponse } from '../http.js';
import { PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import { jsonResponse } from '../wire/responses.js';
import { ENDPOINTS } from './endpoints.js';
import type { ApiContext } from './context.js';

export const HERMES_VERSION = '0.21.0';

const dict = (entries: Array<[string, PyValue]>): PyDict => new Map(entries);
const endpoint = (method: string, path: string): PyDict => dict([['method', method], ['path', path]]);

export function health(): HttpResponse {
  return jsonResponse(200, dict([['status', 'ok'], ['platform', 'hermes-agent'], ['version', HERMES_VERSION]]));
}

const FLAGS_BEFORE_IDEMPOTENCY = ['chat_completions', 'chat_completions_streaming', 'responses_api', 'responses_streaming', 'run_submission'];
const FLAGS_AFTER_IDEMPOTENCY: Array<[string, boolean]> = [
  ['run_status', true], ['run_events_sse', true], ['run_stop', true], ['run_steer', true],
  ['run_approval_response', true], ['tool_progress_events', true], ['approval_events', true],
  ['session_resources', true], ['model_options', true], ['session_chat', true], ['session_chat_streaming', true],
  ['session_fork', true], ['session_model_lock', true], ['admin_config_rw', false], ['jobs_admin', false],
  ['memory_write_api', false], ['skills_api', true], ['audio_api', false], ['realtime_voice', false],
];

function browserControl(): PyDict {
  return dict([
    ['enabled', false],
    ['protocol_version', 1],
    ['capabilities', ['browser_back', 'browser_click', 'browser_navigate', 'browser_press', 'browser_screenshot',
      'browser_scroll', 'browser_snapshot', 'browser_tab_activate', 'browser_tabs', 'browser_type', 'controller.noop']],
    ['artifact_capabilities', ['browser_artifact_download', 'browser_artifact_upload']],
    ['developer_capabilities', ['browser_cdp', 'browser_evaluate']],
    ['developer_mode', false],
    ['artifact_transport', dict([
      ['upload', endpoint('POST', '/v1/artifacts/upload')],
      ['download', endpoint('GET', '/v1/artifacts/download/{artifact_id}')],
      ['max_bytes', 10485760],
      ['ttl_seconds', new PyFloat(300)],
      ['allowed_mime_types', ['application/json', 'application/pdf', 'image/gif', 'image/jpeg', 'image/png', 'image/webp', 'text/plain']],
    ])],
    ['real_browser_actions', true],
    ['transports', dict([['local_vps', 'websocket-subprotocol-ticket'], ['cloud', 'authenticated-gateway-rpc']])],
  ]);
}

export function capabilities(ctx: ApiContext): HttpResponse {
  const { gateway, durable } = ctx.deps;
  const features = dict([
    ...FLAGS_BEFORE_IDEMPOTENCY.map((k): [string, PyValue] => [k, true]),
    ['runs_idempotency', dict([['supported', true], ['durable', durable], ['retention_seconds', 86400]])],
    ...FLAGS_AFTER_IDEMPOTENCY,
    ['session_continuity_header', 'X-Hermes-Session-Id'],
    ['session_key_header', 'X-Hermes-Session-Key'],
    ['cors', gateway.corsOrigins.length > 0],
    ['browser_extension_control', browserControl()],
  ]);
  return jsonResponse(200, dict([
    ['object', 'hermes.api_server.capabilities'],
    ['platform', 'hermes-agent'],
    ['model', gateway.modelName],
    // `bool(self._api_key)`: the listener's key, under a profile prefix too (decision 0096).
    ['auth', dict([['type', 'bearer'], ['required', gateway.apiKey !== null]])],
    ['runtime', dict([
      ['mode', 'server_agent'],
      ['tool_execution', 'server'],
      ['split_runtime', false],
      ['description', 'The API server creates a server-side Hermes AIAgent; tools execute on the API-server host unless a future explicit split-runtime mode is enabled.'],
    ])],
    ['features', features],
    ['endpoints', dict(ENDPOINTS.map(([name, method, path]): [string, PyValue] => [name, endpoint(method, path)]))],
  ]));
}

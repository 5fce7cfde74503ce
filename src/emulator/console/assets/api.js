// The console's only door to the server: every call it makes is a route of this table, each one a documented route
// of GET /__admin/openapi.json (src/emulator/console/console.test.ts holds the table to the document). The admin
// key and the Hermes API key live in sessionStorage (this tab only, gone when it closes) and go out as headers.
// Importing this module touches no browser global, so a test can read ROUTES in Node.

/** Name → [method, path]. Control routes are under /__admin; the two Hermes reads are the client's own routes. */
export const ROUTES = Object.freeze({
  health: ['GET', '/__admin/health'],
  namespaces: ['GET', '/__admin/namespaces'],
  reset: ['POST', '/__admin/reset'],
  getClock: ['GET', '/__admin/clock'],
  clock: ['POST', '/__admin/clock'],
  getGateway: ['GET', '/__admin/gateway'],
  runs: ['GET', '/__admin/runs'],
  run: ['GET', '/__admin/runs/{run_id}'],
  start: ['POST', '/__admin/runs/{run_id}/start'],
  event: ['POST', '/__admin/runs/{run_id}/event'],
  approvalRequest: ['POST', '/__admin/runs/{run_id}/approval-request'],
  complete: ['POST', '/__admin/runs/{run_id}/complete'],
  fail: ['POST', '/__admin/runs/{run_id}/fail'],
  raise: ['POST', '/__admin/runs/{run_id}/raise'],
  cancel: ['POST', '/__admin/runs/{run_id}/cancel'],
  steerPolicy: ['POST', '/__admin/runs/{run_id}/steer-policy'],
  stopPolicy: ['POST', '/__admin/runs/{run_id}/stop-policy'],
  getScenarios: ['GET', '/__admin/scenarios'],
  scenarios: ['POST', '/__admin/scenarios'],
  deleteScenarios: ['DELETE', '/__admin/scenarios'],
  faults: ['GET', '/__admin/faults'],
  addFault: ['POST', '/__admin/faults'],
  clearFaults: ['DELETE', '/__admin/faults'],
  faultPresets: ['GET', '/__admin/faults/presets'],
  deleteFault: ['DELETE', '/__admin/faults/{fault_id}'],
  checkpoint: ['POST', '/__admin/checkpoints'],
  restoreCheckpoint: ['POST', '/__admin/checkpoints/{checkpoint_id}/restore'],
  deleteCheckpoint: ['DELETE', '/__admin/checkpoints/{checkpoint_id}'],
  timeline: ['GET', '/__admin/timeline'],
  setTimeline: ['POST', '/__admin/timeline'],
  createBranch: ['POST', '/__admin/branches/{branch}'],
  checkoutBranch: ['POST', '/__admin/branches/{branch}/checkout'],
  deleteBranch: ['DELETE', '/__admin/branches/{branch}'],
  requests: ['GET', '/__admin/requests'],
  countRequests: ['GET', '/__admin/requests/count'],
  clearRequests: ['DELETE', '/__admin/requests'],
  // Hermes's own routes, as a client under test reads them (journaled like any client's request).
  hermesRun: ['GET', '/v1/runs/{run_id}'],
  hermesEvents: ['GET', '/v1/runs/{run_id}/events'],
  hermesApproval: ['POST', '/v1/runs/{run_id}/approval'],
});

const ADMIN_KEY = 'hermetic.console.adminKey';
const API_KEY = 'hermetic.console.apiKey';

/** A refusal as the server worded it: HTTP status, the HERMETIC_* code (or Hermes's own), and its sentence. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

export const keys = {
  admin: () => sessionStorage.getItem(ADMIN_KEY),
  api: () => sessionStorage.getItem(API_KEY),
  set(admin, api) {
    if (admin) sessionStorage.setItem(ADMIN_KEY, admin); else sessionStorage.removeItem(ADMIN_KEY);
    if (api) sessionStorage.setItem(API_KEY, api); else sessionStorage.removeItem(API_KEY);
  },
};

/** The path of a route with its one parameter filled in, and a query string from `query`'s defined fields. */
export function pathOf(name, param, query) {
  const route = ROUTES[name];
  if (!route) throw new Error(`No console route "${name}"`);
  let path = route[1].replace(/\{[a-z_]+\}/, () => encodeURIComponent(param ?? ''));
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.append(k, String(v));
    const text = params.toString();
    if (text) path += `?${text}`;
  }
  return path;
}

function headersFor(name, namespace, body) {
  const headers = { Accept: 'application/json', 'x-hermetic-namespace': namespace };
  const hermes = name.startsWith('hermes');
  const key = hermes ? keys.api() : keys.admin();
  if (key) headers[hermes ? 'Authorization' : 'x-hermetic-admin-key'] = hermes ? `Bearer ${key}` : key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return headers;
}

async function refusal(response) {
  const text = await response.text();
  let parsed = null;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  const error = parsed && typeof parsed === 'object' ? parsed.error : null;
  if (error && typeof error === 'object' && typeof error.message === 'string') {
    return new ApiError(response.status, error.code ?? null, error.message);
  }
  return new ApiError(response.status, null, `${response.status} ${text.slice(0, 200) || response.statusText}`);
}

/**
 * Calls one route in `namespace`; resolves the parsed JSON (or `{ text }` with `raw`), rejects with ApiError.
 * @example await call('complete', 'default', { param: runId, body: { output: 'Done.' } })
 */
export async function call(name, namespace, { param, body, query, raw } = {}) {
  const [method] = ROUTES[name];
  const response = await fetch(pathOf(name, param, query), {
    method,
    headers: headersFor(name, namespace, body),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  if (!response.ok) throw await refusal(response);
  if (raw) return { status: response.status, text: await response.text() };
  return response.json();
}

/**
 * Attaches to a run's event stream (GET /v1/runs/{id}/events) and calls `onFrame(text)` for each SSE frame's data
 * (or comment); resolves when the stream ends. `signal` detaches. Hermes's subscribers compete for events.
 */
export async function stream(runId, namespace, onFrame, signal) {
  const response = await fetch(pathOf('hermesEvents', runId), { headers: headersFor('hermesEvents', namespace), signal, cache: 'no-store' });
  if (!response.ok) throw await refusal(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    let end;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = frame.split('\n').map((line) => (line.startsWith('data: ') ? line.slice(6) : line)).join('\n');
      onFrame(data);
    }
  }
}

// Handlers for the /v1/runs routes: parse the request in Hermes's order, ask the runs service, render the answer.
// The step numbers refer to spec runs-api §5.1, §9, §10 and §11.
import type { HttpResponse } from '../http.js';
import { fingerprint } from '../runs/fingerprint.js';
import { hermesErrors, type HermesError, type Result } from '../runs/hermes-errors.js';
import { isDict, pyStrip, valueCost, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { StopOutcome } from '../runs/service.js';
import { parseSessionKey, validateRunBody, validIdempotencyKey, type RunRequest } from '../runs/validate.js';
import { errorResponse, jsonResponse, sessionKeyErrorResponse } from '../wire/responses.js';
import { DEFAULT_PROFILE } from './auth.js';
import { keepOfBody, readJson } from './body.js';
import { drainingFor, type ApiContext } from './context.js';

/** POST /v1/runs (auth already passed: step 2 continues with draining). */
export async function submitRun(ctx: ApiContext): Promise<HttpResponse> {
  const { service, gateway } = ctx.deps;
  if (drainingFor(ctx)) return errorResponse(hermesErrors.draining());
  // Step 3: X-Hermes-Session-Key, before the body is read.
  const rawSessionKey = ctx.req.header('x-hermes-session-key');
  if (rawSessionKey !== undefined && pyStrip(rawSessionKey) !== '' && gateway.apiKey === null) {
    // Hermes reads the listener's own key here (`if not self._api_key`), not the profile's (decision 0096).
    return errorResponse(hermesErrors.sessionKeyNeedsAuth());
  }
  const sessionKey = parseSessionKey(rawSessionKey);
  if ('invalid' in sessionKey) return sessionKeyErrorResponse(sessionKey.invalid);
  // Step 4: request.json(), holding Hermes's pending-work reservation while it suspends. The parsed body is handed
  // straight to admissionOf and lives no longer than that call: a named variable here would keep it (and every value
  // the run does not need) alive across the commit awaited below (decision 0135).
  const admission = admissionOf(ctx, sessionKey.key, await readBodyAsPendingWork(ctx));
  if ('status' in admission) return errorResponse(admission);
  // Steps 11–15.
  const { key, print, request } = admission;
  const admitted = await service.submit({ scope: ctx.scope, idempotencyKey: key || null, fingerprint: print, request, capacityFault: ctx.req.faultChecks?.capacity, header: (name) => ctx.req.header(name), profile: ctx.profile ?? DEFAULT_PROFILE, sessionKey: sessionKey.key || null });
  if (!admitted.ok) return errorResponse(admitted.error);
  const { runId, status, replayed } = admitted.value;
  const headers: Array<[string, string]> = [];
  if (replayed) headers.push(['Idempotency-Replayed', 'true']);
  if (sessionKey.key) headers.push(['X-Hermes-Session-Key', sessionKey.key]);
  const body = new Map<string, PyValue>([['run_id', runId], ['status', status], ['replayed', replayed]]);
  return jsonResponse(202, body, headers);
}

/**
 * Steps 4–10 on the parsed body: Invalid JSON, the Idempotency-Key, the fingerprint (computed before the body is
 * validated), then validation. What the run keeps of the body (its input, history, session id, model and
 * instructions) is all that stays charged to the server's body budget after this (keepOfBody).
 */
function admissionOf(
  ctx: ApiContext,
  sessionKey: string,
  parsed: { value: PyValue } | undefined,
): HermesError | { key: string; print: string | null; request: RunRequest } {
  if (!parsed) return hermesErrors.invalidJson();
  const key = pyStrip(ctx.req.header('idempotency-key') ?? '');
  if (key !== '' && !validIdempotencyKey(key)) return hermesErrors.invalidIdempotencyKey();
  const print = key !== '' ? fingerprint(parsed.value, sessionKey) : null;
  const request = validateRunBody(parsed.value);
  if ('status' in request) return request;
  keepOfBody(ctx.req, () => runRequestCost(request));
  return { key, print, request };
}

function runRequestCost(request: RunRequest): number {
  let cost = valueCost(request.userMessage) + valueCost(request.sessionId) + valueCost(request.model?.value) + valueCost(request.instructions);
  for (const turn of request.history) cost += valueCost(turn.role) + valueCost(turn.content);
  return cost;
}

/**
 * aiohttp reads a body that has already arrived without suspending the handler, so a burst of small requests is
 * admitted one at a time and none counts another as pending work. Only a read still waiting for bytes after this
 * event-loop turn (a slow or large upload) suspends, and only then does the request count (spec §13, decision 0016).
 */
async function readBodyAsPendingWork(ctx: ApiContext): ReturnType<typeof readJson> {
  let release: (() => void) | null = null;
  const turn = setImmediate(() => (release = ctx.deps.service.suspendedInAdmission()));
  try {
    return await readJson(ctx.req);
  } finally {
    clearImmediate(turn);
    (release as (() => void) | null)?.();
  }
}

/** Renders a domain result that may still wait for its commit (no promise on the common, synchronous path). */
function render<T>(result: Result<T> | Promise<Result<T>>, ok: (r: Result<T>) => HttpResponse): HttpResponse | Promise<HttpResponse> {
  return result instanceof Promise ? result.then(ok) : ok(result);
}

// Renderers defined once (a GET is the hottest path: no closure per request).
const statusAnswer = (r: Result<PyDict>): HttpResponse => (r.ok ? jsonResponse(200, r.value) : errorResponse(r.error));
const stopAnswer = (r: Result<StopOutcome>): HttpResponse => {
  if (!r.ok) return errorResponse(r.error);
  const outcome = r.value;
  return outcome.kind === 'status'
    ? jsonResponse(200, outcome.status)
    : jsonResponse(200, new Map<string, PyValue>([['run_id', outcome.runId], ['status', 'stopping']]));
};

/** GET /v1/runs/{run_id} */
export function getRun(ctx: ApiContext): HttpResponse | Promise<HttpResponse> {
  return render(ctx.deps.service.get(ctx.scope, ctx.params.run_id!), statusAnswer);
}

/** POST /v1/runs/{run_id}/stop — the body is never read. */
export function stopRun(ctx: ApiContext): HttpResponse | Promise<HttpResponse> {
  return render(ctx.deps.service.stop(ctx.scope, ctx.params.run_id!), stopAnswer);
}

/** POST /v1/runs/{run_id}/approval */
export async function approveRun(ctx: ApiContext): Promise<HttpResponse> {
  const { service } = ctx.deps;
  const runId = ctx.params.run_id!;
  // Visibility and status come before the body (spec §9 steps 2–3).
  const target = await service.get(ctx.scope, runId);
  if (!target.ok) return errorResponse(target.error);
  const parsed = await readJson(ctx.req);
  if (!parsed) return errorResponse(hermesErrors.invalidJson());
  return render(service.approve(runId, parsed.value), statusAnswer);
}

/** POST /v1/runs/{run_id}/steer — API key only; state is checked before the body is read. */
export async function steerRun(ctx: ApiContext): Promise<HttpResponse> {
  const { service } = ctx.deps;
  const target = service.steerTarget(ctx.scope, ctx.params.run_id!);
  if (!target.ok) return errorResponse(target.error);
  const parsed = await readJson(ctx.req);
  if (!parsed) return errorResponse(hermesErrors.steerInvalidJson());
  if (!isDict(parsed.value)) return errorResponse(hermesErrors.steerNotObject());
  const result = await service.steer(target.value, parsed.value);
  return result.ok ? jsonResponse(200, result.value) : errorResponse(result.error);
}

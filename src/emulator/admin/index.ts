// The control plane's dispatcher: binds a handler to each row of the route table (routes.ts), matches a request to
// its row, reads the body, commits what the answer shows (the row's `shows`), and renders answers and HERMETIC_*
// errors as JSON.
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { StoreUnavailable } from '../runs/run-table.js';
import { dumps } from '../../shared/python/index.js';
import { checkAdminKey } from './auth.js';
import {
  checkoutHandler,
  createBranchHandler,
  deleteBranchHandler,
  deleteCheckpointHandler,
  listCheckpointsHandler,
  restoreCheckpointHandler,
  setTimelineHandler,
  takeCheckpointHandler,
  timelineHandler,
} from './checkpoints.js';
import type { AdminRoutes } from './client.js';
import { clockHandler } from './clock.js';
import { AdminText, readAdminBody, type AdminDeps, type AdminHandler } from './context.js';
import { addFaultHandler, addPresetHandler, clearFaultsHandler, deleteFaultHandler, faultPresetsHandler, getFaultHandler, listFaultsHandler } from './faults.js';
import { gatewayHandler, restartHandler, sweepHandler } from './gateway.js';
import { healthHandler, indexHandler } from './health.js';
import { clearRequestsHandler, countRequestsHandler, listRequestsHandler } from './journal.js';
import { metricsHandler, resetMetricsHandler } from './metrics.js';
import { listNamespacesHandler, resetHandler } from './namespaces.js';
import { openApiHandler } from './openapi.js';
import { ADMIN_PREFIX, ADMIN_ROUTES, type AdminRouteName, type AdminRouteNamed } from './routes.js';
import {
  approvalRequestHandler,
  cancelHandler,
  completeHandler,
  eventHandler,
  failHandler,
  listRunsHandler,
  raiseHandler,
  runInfoHandler,
  startHandler,
  steerPolicyHandler,
  stopPolicyHandler,
} from './runs.js';
import { addScenariosHandler, deleteScenariosHandler, listScenariosHandler } from './scenarios.js';

export type { AdminDeps, ControlledNamespace, ControlledNamespaces, NamespaceSummary } from './context.js';

/** The handler of each route of the table, by the route's name. */
const HANDLERS = {
  index: indexHandler,
  health: healthHandler,
  clock: clockHandler,
  getClock: clockHandler,
  sweep: sweepHandler,
  restart: restartHandler,
  gateway: gatewayHandler,
  getGateway: gatewayHandler,
  reset: resetHandler,
  openapi: openApiHandler,
  namespaces: listNamespacesHandler,
  runs: listRunsHandler,
  run: runInfoHandler,
  start: startHandler,
  event: eventHandler,
  approvalRequest: approvalRequestHandler,
  complete: completeHandler,
  fail: failHandler,
  raise: raiseHandler,
  cancel: cancelHandler,
  steerPolicy: steerPolicyHandler,
  stopPolicy: stopPolicyHandler,
  scenarios: addScenariosHandler,
  getScenarios: listScenariosHandler,
  deleteScenarios: deleteScenariosHandler,
  faults: listFaultsHandler,
  addFault: addFaultHandler,
  addPreset: addPresetHandler,
  clearFaults: clearFaultsHandler,
  faultPresets: faultPresetsHandler,
  fault: getFaultHandler,
  deleteFault: deleteFaultHandler,
  checkpoint: takeCheckpointHandler,
  checkpoints: listCheckpointsHandler,
  restoreCheckpoint: restoreCheckpointHandler,
  deleteCheckpoint: deleteCheckpointHandler,
  timeline: timelineHandler,
  setTimeline: setTimelineHandler,
  createBranch: createBranchHandler,
  checkout: checkoutHandler,
  deleteBranch: deleteBranchHandler,
  requests: listRequestsHandler,
  countRequests: countRequestsHandler,
  clearRequests: clearRequestsHandler,
  metrics: metricsHandler,
  resetMetrics: resetMetricsHandler,
} as const satisfies { readonly [N in AdminRouteName]: AdminHandler };

const JSON_HEADERS = (): Array<[string, string]> => [['Content-Type', 'application/json; charset=utf-8']];

function render(status: number, value: unknown): HttpResponse {
  const body = value instanceof Map ? dumps(value) : JSON.stringify(value);
  return { status, headers: JSON_HEADERS(), body };
}

/** A HERMETIC_* error as the control plane renders it. */
export function renderAdminError(e: HermeticError): HttpResponse {
  const answer = render(e.status, e.toJSON());
  // RFC 9110 §11.6.1: a 401 names the scheme it wants.
  if (e.code === 'HERMETIC_ADMIN_UNAUTHORIZED') answer.headers.push(['WWW-Authenticate', 'Bearer realm="hermetic-admin"']);
  return answer;
}

/**
 * The 401 a control request without the admin key gets (the dispatcher checks the key before anything else), or null.
 * The front door asks this of a namespace not created yet, so such a request creates nothing (decision 0028).
 */
export function refuseAdminKey(req: HttpRequest, adminKey: string | null): HttpResponse | null {
  try {
    checkAdminKey(req, req.path.split('?')[0]!, adminKey);
    return null;
  } catch (e) {
    if (isHermeticError(e)) return renderAdminError(e);
    throw e;
  }
}

/** A route as path segments; `{name}` segments capture one non-empty segment. */
interface Compiled {
  route: (typeof ADMIN_ROUTES)[number];
  handler: AdminHandler;
  segments: string[];
}

const COMPILED: Compiled[] = ADMIN_ROUTES.map((route) => ({
  route,
  handler: HANDLERS[route.name],
  segments: (ADMIN_PREFIX + route.path).split('/'),
}));

/** The routes by method, then by segment count, in table order: only these can match a request of that shape. */
const BY_SHAPE = new Map<string, Compiled[][]>();
for (const c of COMPILED) {
  let byLength = BY_SHAPE.get(c.route.method);
  if (!byLength) BY_SHAPE.set(c.route.method, (byLength = []));
  (byLength[c.segments.length] ??= []).push(c);
}

function decodeSegment(segment: string): string {
  try {
    return segment.includes('%') ? decodeURIComponent(segment) : segment;
  } catch {
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `The path segment "${segment}" is not valid percent-encoding.`);
  }
}

/** The route's parameters if `parts` (the request path split on '/') matches it, else null. */
function matchSegments(c: Compiled, parts: string[]): Record<string, string> | null {
  if (c.segments.length !== parts.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < parts.length; i++) {
    const want = c.segments[i]!;
    const got = parts[i]!;
    if (want.charCodeAt(0) === 123 /* { */) {
      if (got === '') return null;
      (params ??= {})[want.slice(1, -1)] = decodeSegment(got);
    } else if (want !== got) return null;
  }
  return params ?? {};
}

/** Refuses a query parameter a changing route does not read, and `namespace` on any (the journal's filters are checked by their own parser). */
function checkQuery(route: (typeof ADMIN_ROUTES)[number], query: string): void {
  const allowed = (route as { query?: readonly string[] | 'journal' }).query;
  if (query === '' || allowed === 'journal') return;
  for (const name of new URLSearchParams(query).keys()) {
    // A read with a parameter it does not use (a cache-buster) reads the same; a change, or a namespace meant to be
    // picked this way, must not act quietly on what was not meant.
    if (allowed?.includes(name) || (route.method === 'GET' && name !== 'namespace')) continue;
    const where = `${route.method} ${ADMIN_PREFIX}${route.path}`;
    const takes = allowed?.length ? `it takes ${allowed.map((a) => `"${a}"`).join(', ')}` : 'it takes none';
    const ns = name === 'namespace' ? ' A namespace is chosen by the path (/ns/<name>/__admin/…) or the X-Hermetic-Namespace header.' : '';
    throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `Unknown query parameter "${name}" on ${where}: ${takes}.${ns}`);
  }
}

/** A request's route and its path parameters, both frozen. */
interface AdminMatch {
  readonly hit: Compiled;
  readonly params: Readonly<Record<string, string>>;
}

// The last match: a script drives one run with many requests to the same path (events, polls), as a client polls
// one run on the API side (api/routes.ts matchRoute). Frozen, so sharing it is safe; errors are never kept.
let lastMethod = '';
let lastPath = '';
let lastMatch: AdminMatch | null = null;

/** The route a request's method and path match; throws HERMETIC_ADMIN_NOT_FOUND (naming the allowed methods) for none. */
function matchAdmin(method: string, path: string): AdminMatch {
  if (lastMatch !== null && path === lastPath && method === lastMethod) return lastMatch;
  const parts = path.split('/');
  for (const c of BY_SHAPE.get(method)?.[parts.length] ?? []) {
    const params = matchSegments(c, parts);
    if (params) {
      lastMethod = method;
      lastPath = path;
      return (lastMatch = Object.freeze({ hit: c, params: Object.freeze(params) }));
    }
  }
  const others = COMPILED.filter((c) => matchSegments(c, parts) !== null);
  const message = others.length
    ? `${method} is not allowed on ${path}; use ${others.map((c) => c.route.method).join(' or ')}.`
    : `No control route ${method} ${path}. See docs/reference/admin-api.md.`;
  throw new HermeticError('HERMETIC_ADMIN_NOT_FOUND', message);
}

export async function handleAdmin(req: HttpRequest, deps: AdminDeps): Promise<HttpResponse> {
  try {
    const q = req.path.indexOf('?');
    const path = q < 0 ? req.path : req.path.slice(0, q);
    // Before anything else, unknown routes included: without the key a caller learns nothing but the health route.
    checkAdminKey(req, path, deps.adminKey);
    const { hit, params } = matchAdmin(req.method, path);
    checkQuery(hit.route, req.query);
    const body = await readAdminBody(req);
    const shows = (hit.route as { shows?: 'run' | 'runs' }).shows;
    // A run's state not saved yet (a held write) is not acted on, nor told (a 409 "already finished" would tell an
    // unsaved completion): its write is committed first, or this answer is the store's refusal.
    const held = shows === 'run' && params.run_id !== undefined ? deps.registry.settle(params.run_id) : null;
    if (held) await held;
    let answer: unknown = hit.handler({ req, params, deps, body });
    if (answer instanceof Promise) answer = await answer;
    // The durability barrier, for what this answer shows: one run's state, every run's, or none (decision 0028). An
    // answer that shows no held status never waits for another connection's lock.
    const barrier = shows === 'run' ? deps.registry.settle(params.run_id) : shows === 'runs' ? deps.registry.settle() : null;
    if (barrier) await barrier;
    if (answer instanceof AdminText) return { status: 200, headers: [['Content-Type', answer.contentType]], body: answer.text };
    return render(200, answer);
  } catch (e) {
    if (isHermeticError(e)) return renderAdminError(e);
    if (e instanceof StoreUnavailable) {
      const error = e.reason === 'busy'
        ? new HermeticError('HERMETIC_STORE_BUSY', `The emulator store is locked by another connection; the change is held in memory and saved once the lock is free, and nothing depending on it is answered until then. (${e.message})`)
        : new HermeticError('HERMETIC_STORE_FAILED', `The emulator store failed; the change is held in memory and retried, and nothing depending on it is answered until it is saved. (${e.message})`);
      return render(error.status, error.toJSON());
    }
    deps.onInternalError(e);
    const error = new HermeticError('HERMETIC_INTERNAL', `A bug in Hermetic answered this control request: ${(e as Error)?.message ?? String(e)}. It was logged; please report it.`);
    return render(error.status, error.toJSON());
  }
}

// Compile-time checks that the table, its handlers and the client's contract (AdminRoutes in client.ts) agree: the
// same names, a run id exactly where the path has {run_id} (any other parameter where the contract's `param` names
// it), and each plain-object answer with exactly the contract's fields.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type TakesRun<N extends AdminRouteName> = AdminRouteNamed<N>['path'] extends `${string}{run_id}${string}` ? true : false;
/** The path's parameter other than a run id (`{fault_id}`, `{checkpoint_id}`, `{branch}`), as the contract's `param` names it. */
type PathParam<N extends AdminRouteName> = AdminRouteNamed<N>['path'] extends `${string}{${infer P}}${string}` ? (P extends 'run_id' ? null : P) : null;
type ContractParam<N extends keyof AdminRoutes> = AdminRoutes[N] extends { param: infer P } ? P : null;
type Answer<N extends AdminRouteName> = Awaited<ReturnType<(typeof HANDLERS)[N]>>;
type AllKeys<T> = T extends unknown ? keyof T : never;
type FieldsAgree<N extends keyof AdminRoutes & AdminRouteName> =
  Answer<N> extends ReadonlyMap<unknown, unknown>
    ? true
    : Answer<N> extends AdminText
      ? Same<AdminRoutes[N]['result'], string> extends true ? (AdminRouteNamed<N> extends { text: true } ? true : false) : false
      : Same<AllKeys<Answer<N>>, AllKeys<AdminRoutes[N]['result']>>;
type RouteAgrees = {
  [N in keyof AdminRoutes & AdminRouteName]: Same<TakesRun<N>, AdminRoutes[N]['run']> extends true
    ? Same<PathParam<N>, ContractParam<N>> extends true ? FieldsAgree<N> : false
    : false;
};
export type AdminTableMatchesClient = [
  Holds<Same<AdminRouteName, keyof AdminRoutes>>,
  Holds<RouteAgrees[keyof AdminRoutes & AdminRouteName]>,
];

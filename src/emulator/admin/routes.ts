// THE control-plane route table. The server dispatches on it and the admin client derives its methods and URLs
// from it, so the two cannot drift.
import type { AdminRoutes } from './client.js';
import type { AdminHandler, AdminText } from './context.js';
import { deleteCheckpointHandler, listCheckpointsHandler, restoreCheckpointHandler, takeCheckpointHandler } from './checkpoints.js';
import { clockHandler } from './clock.js';
import {
  addFaultHandler,
  clearFaultsHandler,
  deleteFaultHandler,
  faultPresetsHandler,
  getFaultHandler,
  listFaultsHandler,
} from './faults.js';
import { gatewayHandler, restartHandler, sweepHandler } from './gateway.js';
import { healthHandler } from './health.js';
import { listNamespacesHandler, resetHandler } from './namespaces.js';
import { openApiHandler } from './openapi.js';
import { clearRequestsHandler, countRequestsHandler, listRequestsHandler } from './journal.js';
import { metricsHandler } from './metrics.js';
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

export interface AdminRoute {
  /** Method name on the admin client. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path under the admin prefix; at most one parameter: `{run_id}`, `{fault_id}` or `{checkpoint_id}`. */
  readonly path: string;
  readonly handler: AdminHandler;
  /** The answer is text (the handler returns AdminText) and the client returns it as a string. */
  readonly text?: true;
}

export const ADMIN_PREFIX = '/__admin';

export const ADMIN_ROUTES = [
  { name: 'health', method: 'GET', path: '/health', handler: healthHandler },
  { name: 'clock', method: 'POST', path: '/clock', handler: clockHandler },
  { name: 'getClock', method: 'GET', path: '/clock', handler: clockHandler },
  { name: 'sweep', method: 'POST', path: '/sweep', handler: sweepHandler },
  { name: 'restart', method: 'POST', path: '/restart', handler: restartHandler },
  { name: 'gateway', method: 'POST', path: '/gateway', handler: gatewayHandler },
  { name: 'getGateway', method: 'GET', path: '/gateway', handler: gatewayHandler },
  { name: 'reset', method: 'POST', path: '/reset', handler: resetHandler },
  { name: 'openapi', method: 'GET', path: '/openapi.json', handler: openApiHandler },
  { name: 'namespaces', method: 'GET', path: '/namespaces', handler: listNamespacesHandler },
  { name: 'runs', method: 'GET', path: '/runs', handler: listRunsHandler },
  { name: 'run', method: 'GET', path: '/runs/{run_id}', handler: runInfoHandler },
  { name: 'start', method: 'POST', path: '/runs/{run_id}/start', handler: startHandler },
  { name: 'event', method: 'POST', path: '/runs/{run_id}/event', handler: eventHandler },
  { name: 'approvalRequest', method: 'POST', path: '/runs/{run_id}/approval-request', handler: approvalRequestHandler },
  { name: 'complete', method: 'POST', path: '/runs/{run_id}/complete', handler: completeHandler },
  { name: 'fail', method: 'POST', path: '/runs/{run_id}/fail', handler: failHandler },
  { name: 'raise', method: 'POST', path: '/runs/{run_id}/raise', handler: raiseHandler },
  { name: 'cancel', method: 'POST', path: '/runs/{run_id}/cancel', handler: cancelHandler },
  { name: 'steerPolicy', method: 'POST', path: '/runs/{run_id}/steer-policy', handler: steerPolicyHandler },
  { name: 'stopPolicy', method: 'POST', path: '/runs/{run_id}/stop-policy', handler: stopPolicyHandler },
  { name: 'scenarios', method: 'POST', path: '/scenarios', handler: addScenariosHandler },
  { name: 'getScenarios', method: 'GET', path: '/scenarios', handler: listScenariosHandler },
  { name: 'deleteScenarios', method: 'DELETE', path: '/scenarios', handler: deleteScenariosHandler },
  { name: 'faults', method: 'GET', path: '/faults', handler: listFaultsHandler },
  { name: 'addFault', method: 'POST', path: '/faults', handler: addFaultHandler },
  { name: 'clearFaults', method: 'DELETE', path: '/faults', handler: clearFaultsHandler },
  // Before /faults/{fault_id}: "presets" is never a rule id.
  { name: 'faultPresets', method: 'GET', path: '/faults/presets', handler: faultPresetsHandler },
  { name: 'fault', method: 'GET', path: '/faults/{fault_id}', handler: getFaultHandler },
  { name: 'deleteFault', method: 'DELETE', path: '/faults/{fault_id}', handler: deleteFaultHandler },
  { name: 'checkpoint', method: 'POST', path: '/checkpoints', handler: takeCheckpointHandler },
  { name: 'checkpoints', method: 'GET', path: '/checkpoints', handler: listCheckpointsHandler },
  { name: 'restoreCheckpoint', method: 'POST', path: '/checkpoints/{checkpoint_id}/restore', handler: restoreCheckpointHandler },
  { name: 'deleteCheckpoint', method: 'DELETE', path: '/checkpoints/{checkpoint_id}', handler: deleteCheckpointHandler },
  { name: 'requests', method: 'GET', path: '/requests', handler: listRequestsHandler },
  { name: 'countRequests', method: 'GET', path: '/requests/count', handler: countRequestsHandler },
  { name: 'clearRequests', method: 'DELETE', path: '/requests', handler: clearRequestsHandler },
  { name: 'metrics', method: 'GET', path: '/metrics', text: true, handler: metricsHandler },
] as const satisfies readonly AdminRoute[];

export type AdminRouteName = (typeof ADMIN_ROUTES)[number]['name'];

// Compile-time checks that this table and the client's contract (AdminRoutes in client.ts) agree: the same names,
// a run id exactly where the path has {run_id} (any other parameter where the contract's `param` names it), and each
// plain-object answer with exactly the contract's fields.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type RouteNamed<N> = Extract<(typeof ADMIN_ROUTES)[number], { name: N }>;
type TakesRun<N> = RouteNamed<N>['path'] extends `${string}{run_id}${string}` ? true : false;
/** The path's parameter other than a run id (`{fault_id}`, `{checkpoint_id}`), as the contract's `param` names it. */
type PathParam<N> = RouteNamed<N>['path'] extends `${string}{${infer P}}${string}` ? (P extends 'run_id' ? null : P) : null;
type ContractParam<N extends keyof AdminRoutes> = AdminRoutes[N] extends { param: infer P } ? P : null;
type Answer<N> = Awaited<ReturnType<RouteNamed<N>['handler']>>;
type AllKeys<T> = T extends unknown ? keyof T : never;
type FieldsAgree<N extends keyof AdminRoutes> =
  Answer<N> extends ReadonlyMap<unknown, unknown>
    ? true
    : Answer<N> extends AdminText
      ? Same<AdminRoutes[N]['result'], string> extends true ? (RouteNamed<N> extends { text: true } ? true : false) : false
      : Same<AllKeys<Answer<N>>, AllKeys<AdminRoutes[N]['result']>>;
type RouteAgrees = {
  [N in keyof AdminRoutes]: Same<TakesRun<N>, AdminRoutes[N]['run']> extends true
    ? Same<PathParam<N>, ContractParam<N>> extends true ? FieldsAgree<N> : false
    : false;
};
export type AdminTableMatchesClient = [
  Holds<Same<AdminRouteName, keyof AdminRoutes>>,
  Holds<RouteAgrees[keyof AdminRoutes]>,
];

// THE control-plane route table, as data: name, method, path, whether the answer is text, and which runs' state the
// answer shows. The server binds a handler to each name (admin/index.ts) and the admin client derives its methods
// and URLs from the same rows (client.ts), so neither can drift; loading the table loads no handler.

export interface AdminRoute {
  /** Method name on the admin client, and the key its handler is bound under. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path under the admin prefix; at most one parameter: `{run_id}`, `{fault_id}`, `{checkpoint_id}`, `{branch}` or `{preset}`. */
  readonly path: string;
  /** The answer is text (the handler returns AdminText) and the client returns it as a string. */
  readonly text?: true;
  /**
   * The run state the answer shows, which the durability barrier commits before it leaves (decision 0016): `run` the
   * path's run, `runs` every run of the namespace. Absent: the answer shows no run's status, so it never waits for a
   * held write (health, the clock, an event, settings, faults, the journal: decision 0028).
   */
  readonly shows?: 'run' | 'runs';
  /**
   * The query parameters the route reads. Any other is refused on a POST or DELETE, and `namespace` on every route
   * (HERMETIC_ADMIN_BAD_FIELD), so a `?namespace=` meant to pick a namespace does not quietly act on another. `'journal'`: the journal's filters, which its own parser checks.
   */
  readonly query?: readonly string[] | 'journal';
}

export const ADMIN_PREFIX = '/__admin';

export const ADMIN_ROUTES = [
  { name: 'index', method: 'GET', path: '' },
  { name: 'health', method: 'GET', path: '/health' },
  { name: 'clock', method: 'POST', path: '/clock' },
  { name: 'getClock', method: 'GET', path: '/clock' },
  { name: 'sweep', method: 'POST', path: '/sweep' },
  { name: 'restart', method: 'POST', path: '/restart' },
  { name: 'gateway', method: 'POST', path: '/gateway' },
  { name: 'getGateway', method: 'GET', path: '/gateway' },
  { name: 'reset', method: 'POST', path: '/reset', query: ['all'] },
  { name: 'openapi', method: 'GET', path: '/openapi.json' },
  { name: 'namespaces', method: 'GET', path: '/namespaces' },
  { name: 'runs', method: 'GET', path: '/runs', shows: 'runs' },
  { name: 'run', method: 'GET', path: '/runs/{run_id}', shows: 'run' },
  { name: 'start', method: 'POST', path: '/runs/{run_id}/start', shows: 'run' },
  { name: 'event', method: 'POST', path: '/runs/{run_id}/event' },
  { name: 'approvalRequest', method: 'POST', path: '/runs/{run_id}/approval-request', shows: 'run' },
  { name: 'complete', method: 'POST', path: '/runs/{run_id}/complete', shows: 'run' },
  { name: 'fail', method: 'POST', path: '/runs/{run_id}/fail', shows: 'run' },
  { name: 'raise', method: 'POST', path: '/runs/{run_id}/raise', shows: 'run' },
  { name: 'cancel', method: 'POST', path: '/runs/{run_id}/cancel', shows: 'run' },
  { name: 'steerPolicy', method: 'POST', path: '/runs/{run_id}/steer-policy' },
  { name: 'stopPolicy', method: 'POST', path: '/runs/{run_id}/stop-policy' },
  { name: 'scenarios', method: 'POST', path: '/scenarios' },
  { name: 'getScenarios', method: 'GET', path: '/scenarios' },
  { name: 'deleteScenarios', method: 'DELETE', path: '/scenarios', query: ['name'] },
  { name: 'faults', method: 'GET', path: '/faults' },
  { name: 'addFault', method: 'POST', path: '/faults' },
  { name: 'clearFaults', method: 'DELETE', path: '/faults' },
  // Before /faults/{fault_id}: "presets" is never a rule id.
  { name: 'faultPresets', method: 'GET', path: '/faults/presets' },
  { name: 'addPreset', method: 'POST', path: '/faults/presets/{preset}' },
  { name: 'fault', method: 'GET', path: '/faults/{fault_id}' },
  { name: 'deleteFault', method: 'DELETE', path: '/faults/{fault_id}' },
  // A checkpoint keeps the rows as committed: what it saves is committed first.
  { name: 'checkpoint', method: 'POST', path: '/checkpoints', shows: 'runs' },
  { name: 'checkpoints', method: 'GET', path: '/checkpoints' },
  { name: 'restoreCheckpoint', method: 'POST', path: '/checkpoints/{checkpoint_id}/restore' },
  { name: 'deleteCheckpoint', method: 'DELETE', path: '/checkpoints/{checkpoint_id}' },
  { name: 'timeline', method: 'GET', path: '/timeline' },
  { name: 'setTimeline', method: 'POST', path: '/timeline' },
  { name: 'createBranch', method: 'POST', path: '/branches/{branch}' },
  { name: 'checkout', method: 'POST', path: '/branches/{branch}/checkout' },
  { name: 'deleteBranch', method: 'DELETE', path: '/branches/{branch}' },
  { name: 'requests', method: 'GET', path: '/requests', query: 'journal' },
  { name: 'countRequests', method: 'GET', path: '/requests/count', query: 'journal' },
  { name: 'clearRequests', method: 'DELETE', path: '/requests' },
  { name: 'metrics', method: 'GET', path: '/metrics', text: true },
  { name: 'resetMetrics', method: 'DELETE', path: '/metrics' },
] as const satisfies readonly AdminRoute[];

export type AdminRouteName = (typeof ADMIN_ROUTES)[number]['name'];
export type AdminRouteNamed<N extends AdminRouteName> = Extract<(typeof ADMIN_ROUTES)[number], { name: N }>;

/** A route of the console (src/emulator/console/): static files, served before any namespace is chosen. */
export interface ConsoleRoute {
  readonly name: string;
  readonly method: 'GET';
  /** Under the admin prefix; `{asset}` is one path segment naming one of the console's files. */
  readonly path: string;
}

/** Where the console lives: GET /__admin/ui/ (decision 0042). */
export const CONSOLE_PREFIX = `${ADMIN_PREFIX}/ui`;

// The console's own table. Its files hold no data and need no key; every call they make is a control route above,
// which does (decision 0042). Not in ADMIN_ROUTES: the admin client has no method for a page.
export const CONSOLE_ROUTES = [
  { name: 'consoleRedirect', method: 'GET', path: '/ui' },
  { name: 'consolePage', method: 'GET', path: '/ui/' },
  { name: 'consoleAsset', method: 'GET', path: '/ui/{asset}' },
] as const satisfies readonly ConsoleRoute[];

export type ConsoleRouteName = (typeof CONSOLE_ROUTES)[number]['name'];

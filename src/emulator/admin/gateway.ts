// Gateway-level controls: settings (draining, capacity, API key), the retention sweep, and an emulated restart.
import { HermeticError } from '../../shared/errors.js';
import { normaliseCap } from '../gateway.js';
import { field, onlyKeys, type AdminContext } from './context.js';

/** POST /__admin/gateway with any of draining, max_concurrent_runs, api_key; GET reads the settings. */
export function gatewayHandler({ body, deps: { gateway } }: AdminContext) {
  onlyKeys(body, ['draining', 'max_concurrent_runs', 'api_key'], 'the gateway');
  // Every field read before any is applied: a refused body changes nothing.
  const draining = body.has('draining') ? field.boolean(body, 'draining') : undefined;
  let cap: number | undefined;
  if (body.has('max_concurrent_runs')) {
    const raw = body.get('max_concurrent_runs');
    if (typeof raw !== 'number' || !Number.isInteger(raw)) {
      throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "max_concurrent_runs" must be an integer (0 disables the cap).');
    }
    cap = normaliseCap(raw);
  }
  const key = body.has('api_key') ? field.nullableString(body, 'api_key', null) : undefined;
  if (key === '') throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', 'Field "api_key" must be a non-empty string, or null for no key.');
  if (draining !== undefined) gateway.draining = draining;
  if (cap !== undefined) gateway.maxConcurrentRuns = cap;
  if (key !== undefined) gateway.apiKey = key;
  return {
    draining: gateway.draining,
    max_concurrent_runs: gateway.maxConcurrentRuns,
    api_key_set: gateway.apiKey !== null,
  };
}

/** POST /__admin/sweep: Hermes's 60-second retention sweep, now. */
export function sweepHandler({ body, deps: { registry } }: AdminContext) {
  onlyKeys(body, [], 'the sweep');
  const swept = registry.sweep();
  return { swept_statuses: swept.statuses, swept_buffers: swept.buffers };
}

/** POST /__admin/restart: the gateway crashes and starts again on the same store. */
export function restartHandler({ body, deps }: AdminContext) {
  onlyKeys(body, [], 'a restart');
  deps.namespace.restart();
  return { restarted: true, owner_pid: deps.registry.owner.pid, owner_started: deps.registry.owner.started };
}

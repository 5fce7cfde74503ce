// Namespace controls: list every namespace with its run counts, and reset one namespace (or every one) to how a new
// namespace starts. These see the whole emulator, whichever namespace the request came through.
import { field, onlyKeys, type AdminContext } from './context.js';

/** GET /__admin/namespaces: the default first, then the others in order of first use. */
export function listNamespacesHandler({ deps }: AdminContext) {
  return { namespaces: deps.namespaces.summaries() };
}

/**
 * POST /__admin/reset: this namespace starts over (no runs, no durable rows, the start time, the first settings);
 * `?all=1` or {"all": true}: every namespace (the default starts over, the others are forgotten).
 */
export function resetHandler({ req, body, deps }: AdminContext) {
  onlyKeys(body, ['all'], 'a reset');
  const query = new URLSearchParams(req.query);
  const all = field.boolean(body, 'all', false) || query.get('all') === '1' || query.get('all') === 'true';
  if (all) return { reset: deps.namespaces.resetAll() };
  deps.namespace.reset();
  return { reset: [deps.namespace.name] };
}

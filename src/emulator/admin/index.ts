// The control plane's dispatcher: matches the admin route table, reads the body, renders answers and
// HERMETIC_* errors as JSON.
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { dumps } from '../../shared/python/index.js';
import { readAdminBody, type AdminDeps } from './context.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from './routes.js';

export type { AdminDeps } from './context.js';

const JSON_HEADERS = (): Array<[string, string]> => [['Content-Type', 'application/json; charset=utf-8']];

function render(status: number, value: unknown): HttpResponse {
  const body = value instanceof Map ? dumps(value) : JSON.stringify(value);
  return { status, headers: JSON_HEADERS(), body };
}

const COMPILED = ADMIN_ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${ADMIN_PREFIX}${route.path.replace('{run_id}', '(?<run_id>[^/]+)')}$`),
}));

export async function handleAdmin(req: HttpRequest, deps: AdminDeps): Promise<HttpResponse> {
  try {
    const path = req.path.split('?')[0]!;
    const candidates = COMPILED.filter((c) => c.pattern.test(path));
    const hit = candidates.find((c) => c.route.method === req.method);
    if (!hit) {
      const message = candidates.length
        ? `${req.method} is not allowed on ${path}; use ${candidates.map((c) => c.route.method).join(' or ')}.`
        : `No control route ${req.method} ${path}. See docs/reference/admin-api.md.`;
      throw new HermeticError('HERMETIC_ADMIN_NOT_FOUND', message);
    }
    const groups = hit.pattern.exec(path)!.groups ?? {};
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(groups)) params[k] = decodeURIComponent(v);
    const body = await readAdminBody(req);
    return render(200, await hit.route.handler({ req, params, deps, body }));
  } catch (e) {
    if (isHermeticError(e)) return render(e.status, e.toJSON());
    const error = new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `The control request failed: ${(e as Error).message}`);
    return render(error.status, error.toJSON());
  }
}

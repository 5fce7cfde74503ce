// The control plane's dispatcher: matches the admin route table, reads the body, renders answers and
// HERMETIC_* errors as JSON.
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { StoreUnavailable } from '../runs/run-table.js';
import { dumps } from '../../shared/python/index.js';
import { checkAdminKey } from './auth.js';
import { AdminText, readAdminBody, type AdminDeps } from './context.js';
import { ADMIN_PREFIX, ADMIN_ROUTES } from './routes.js';

export type { AdminDeps } from './context.js';

const JSON_HEADERS = (): Array<[string, string]> => [['Content-Type', 'application/json; charset=utf-8']];

function render(status: number, value: unknown): HttpResponse {
  const body = value instanceof Map ? dumps(value) : JSON.stringify(value);
  return { status, headers: JSON_HEADERS(), body };
}

/** A HERMETIC_* error as the control plane renders it. */
export const renderAdminError = (e: HermeticError): HttpResponse => render(e.status, e.toJSON());

/** A route as path segments; `{name}` segments capture one non-empty segment. */
interface Compiled {
  route: (typeof ADMIN_ROUTES)[number];
  segments: string[];
}

const COMPILED: Compiled[] = ADMIN_ROUTES.map((route) => ({ route, segments: (ADMIN_PREFIX + route.path).split('/') }));

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

export async function handleAdmin(req: HttpRequest, deps: AdminDeps): Promise<HttpResponse> {
  try {
    const path = req.path.split('?')[0]!;
    // Before anything else, unknown routes included: without the key a caller learns nothing but the health route.
    checkAdminKey(req, path, deps.adminKey);
    const parts = path.split('/');
    let hit: Compiled | null = null;
    let params: Record<string, string> | null = null;
    for (const c of COMPILED) {
      if (c.route.method !== req.method) continue;
      params = matchSegments(c, parts);
      if (params) {
        hit = c;
        break;
      }
    }
    if (!hit || !params) {
      const others = COMPILED.filter((c) => matchSegments(c, parts) !== null);
      const message = others.length
        ? `${req.method} is not allowed on ${path}; use ${others.map((c) => c.route.method).join(' or ')}.`
        : `No control route ${req.method} ${path}. See docs/reference/admin-api.md.`;
      throw new HermeticError('HERMETIC_ADMIN_NOT_FOUND', message);
    }
    const body = await readAdminBody(req);
    let answer: unknown = hit.route.handler({ req, params, deps, body });
    if (answer instanceof Promise) answer = await answer;
    // The durability barrier: a control answer may show any run's new state, so everything held is committed first.
    const barrier = deps.registry.settle();
    if (barrier) await barrier;
    if (answer instanceof AdminText) return { status: 200, headers: [['Content-Type', answer.contentType]], body: answer.text };
    return render(200, answer);
  } catch (e) {
    if (isHermeticError(e)) {
      const answer = render(e.status, e.toJSON());
      // RFC 9110 §11.6.1: a 401 names the scheme it wants.
      if (e.code === 'HERMETIC_ADMIN_UNAUTHORIZED') answer.headers.push(['WWW-Authenticate', 'Bearer realm="hermetic-admin"']);
      return answer;
    }
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

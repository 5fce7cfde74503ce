// What a request does, named once from the route tables, for everything that matches or counts requests (fault rules,
// the request journal, metrics): a Hermes operation (submit, get, events, approval, steer, stop, …), `admin` for the
// control plane, `other` for a path no route serves; and the run id the path names, if any.
import { ADMIN_PREFIX } from '../admin/routes.js';
import { decodeSegment, matchRoute, type Operation } from '../api/routes.js';
import type { HttpRequest } from '../http.js';

export type RequestOperation = Operation | 'admin' | 'other';

export interface RequestInfo {
  readonly operation: RequestOperation;
  /** The run id in the path (/v1/runs/{run_id}/…, /__admin/runs/{run_id}/…), else null. */
  readonly runId: string | null;
}

const PROFILE_PREFIX = /^\/p\/[^/]+(\/.*)$/;
const ADMIN_RUN = /^\/__admin\/runs\/([^/]+)/;

/** `req.path` has already lost its /ns/<name> prefix. */
export function describeRequest(req: HttpRequest): RequestInfo {
  const path = req.path;
  if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
    const run = ADMIN_RUN.exec(path);
    return { operation: 'admin', runId: run ? decodeSegment(run[1]!) : null };
  }
  const unprefixed = path.startsWith('/p/') ? (PROFILE_PREFIX.exec(path)?.[1] ?? path) : path;
  const match = matchRoute(req.method, unprefixed);
  if (match.kind !== 'route') return { operation: 'other', runId: null };
  return { operation: match.route.operation, runId: match.params.run_id ?? null };
}

// A typed client for the control plane, derived from the admin route table; it takes any fetch, so the same
// object drives an in-process emulator (emulator.fetch) or a server over HTTP (globalThis.fetch).
import { HermeticError, type ErrorCode } from '../../shared/errors.js';
import { ADMIN_PREFIX, ADMIN_ROUTES, type AdminRouteName } from './routes.js';

type Routes = (typeof ADMIN_ROUTES)[number];
type RouteOf<N extends AdminRouteName> = Extract<Routes, { name: N }>;
type NeedsRun<N extends AdminRouteName> = RouteOf<N>['path'] extends `${string}{run_id}${string}` ? true : false;

export type AdminClient = {
  [N in AdminRouteName]: NeedsRun<N> extends true
    ? (runId: string, body?: Record<string, unknown>) => Promise<any>
    : (body?: Record<string, unknown>) => Promise<any>;
};

export type FetchLike = (input: Request) => Promise<Response>;

/**
 * @example
 *   const admin = createAdminClient(emulator.fetch, 'http://hermes.test');
 *   await admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200 } });
 */
export function createAdminClient(fetchImpl: FetchLike, baseUrl: string): AdminClient {
  const base = baseUrl.replace(/\/+$/, '');
  const client: Record<string, unknown> = {};
  for (const route of ADMIN_ROUTES) {
    const needsRun = route.path.includes('{run_id}');
    client[route.name] = async (...args: unknown[]) => {
      const runId = needsRun ? String(args[0]) : undefined;
      const body = (needsRun ? args[1] : args[0]) as Record<string, unknown> | undefined;
      const path = ADMIN_PREFIX + route.path.replace('{run_id}', encodeURIComponent(runId ?? ''));
      const init: RequestInit = { method: route.method };
      if (route.method !== 'GET') {
        init.body = JSON.stringify(body ?? {});
        init.headers = { 'Content-Type': 'application/json' };
      }
      const response = await fetchImpl(new Request(base + path, init));
      const parsed = (await response.json()) as { error?: { code: ErrorCode; message: string } };
      if (!response.ok) {
        const error = parsed.error;
        throw new HermeticError(error?.code ?? 'HERMETIC_ADMIN_NOT_FOUND', error?.message ?? `HTTP ${response.status}`);
      }
      return parsed;
    };
  }
  return client as AdminClient;
}

// GET /__admin/health: what a probe reads to know it reached Hermetic (not a real Hermes), which release it emulates
// and which namespace answered. Always open, even on a server with an admin key (auth.ts), and always answered at
// once: it shows no run's status, so it never waits for a held write; it says how many are held (decision 0028).
// GET /__admin: the control routes, and where the OpenAPI document, the console and the docs are.
import { ADMIN_PREFIX, ADMIN_ROUTES, CONSOLE_PREFIX } from './routes.js';
import { HERMES_RELEASE, HERMETIC_VERSION } from '../../shared/version.js';
import { HERMES_VERSION } from '../api/meta.js';
import type { AdminContext } from './context.js';

export function healthHandler({ deps }: AdminContext) {
  return {
    status: 'ok' as const,
    emulator: 'hermetic' as const,
    version: HERMETIC_VERSION,
    hermes_release: HERMES_RELEASE,
    hermes_version: HERMES_VERSION,
    namespace: deps.namespace.name,
    admin_key_required: deps.adminKey !== null,
    held_writes: deps.namespace.heldWrites(),
  };
}

/** GET /__admin: where things are (a person who opened it in a browser, or a script that lists the routes). */
export function indexHandler(_: AdminContext) {
  return {
    emulator: 'hermetic' as const,
    hermes_release: HERMES_RELEASE,
    routes: ADMIN_ROUTES.map((r) => `${r.method} ${ADMIN_PREFIX}${r.path}`),
    openapi: `${ADMIN_PREFIX}/openapi.json`,
    console: `${CONSOLE_PREFIX}/`,
    docs: 'docs/reference/admin-api.md',
  };
}

// GET /__admin/health: what a probe reads to know it reached Hermetic (not a real Hermes), which release it emulates
// and which namespace answered. Always open, even on a server with an admin key (auth.ts), and always answered at
// once: it shows no run's status, so it never waits for a held write; it says how many are held (decision 0028).
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

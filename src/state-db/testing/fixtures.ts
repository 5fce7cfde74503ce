// Test helpers: temp dirs and copies of the real Hermes fixtures (never opened in place; fixtures README).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The state.db stores Hermes itself wrote, kept in the repository (test/fixtures/state-db/README.md). */
export const FIXTURE_ROOT = fileURLToPath(new URL('../../../test/fixtures/state-db', import.meta.url));
export const FIXTURES = ['basic', 'channels', 'usage'] as const;
/** Stores Hermes's own code wrote at an early schema version (v2; decision 0109): read by the forwarder's fixture tests. */
export const EARLY_FIXTURES = ['v2'] as const;

export function tempDir(prefix = 'hermetic-statedb-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Copies a fixture's state.db into `dir` and returns the copy's path. */
export function copyFixture(name: string, dir: string): string {
  const out = join(dir, `${name}.db`);
  copyFileSync(join(FIXTURE_ROOT, name, 'state.db'), out);
  return out;
}

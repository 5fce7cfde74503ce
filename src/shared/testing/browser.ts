// A real browser for end-to-end tests: Debian's `chromium` (.ci/run installs it), driven by playwright-core with an
// explicit executable path and --no-sandbox (we run as root in CI); nothing downloads a browser. One browser per
// process (sharedBrowser), a fresh context per test; closed at process exit.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The Chromium binary: $HERMETIC_CHROMIUM, else Debian's. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [env.HERMETIC_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('Chromium is not installed: the browser tests need Debian\'s chromium package (apt-get install chromium; .ci/run installs it), or HERMETIC_CHROMIUM naming a Chromium binary.');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

let shared: Promise<Browser> | null = null;

/**
 * Closes the shared browser (call it in the test file's `after`): its pipe keeps the event loop alive, so a test
 * process holding it would not reach 'beforeExit' and would never end.
 */
export async function closeSharedBrowser(): Promise<void> {
  const b = shared;
  shared = null;
  if (b) await (await b.catch(() => null))?.close().catch(() => undefined);
}

/** One browser for this process, launched on first use and closed when the process ends. */
export function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    shared = launchBrowser();
    shared.then((b) => {
      // node:test ends the process when its tests are done; close the browser then so no chromium is left behind.
      const close = () => { void b.close().catch(() => undefined); };
      process.once('beforeExit', close);
    }, () => undefined);
  }
  return shared;
}

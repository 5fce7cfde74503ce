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
 * One browser for this process, launched on first use. A test file closes it in its own `after(closeSharedBrowser)`:
 * the browser's pipe keeps the process alive, so no `beforeExit` would ever come. Should a process end without that,
 * the browser is killed at exit so no chromium is left behind.
 */
export function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    shared = launchBrowser();
    shared.then((b) => {
      const pid = (b as unknown as { process?: () => { pid?: number } | null }).process?.()?.pid;
      if (pid) process.once('exit', () => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone already */ } });
    }, () => undefined);
  }
  return shared;
}

/** Closes the shared browser, if one was launched (for `after()`). */
export async function closeSharedBrowser(): Promise<void> {
  const b = shared;
  shared = null;
  if (b) await (await b.catch(() => null))?.close();
}

// A real browser for end-to-end tests: Debian's Chromium (.ci/run installs it), driven by playwright-core with an
// explicit executable path and --no-sandbox (we run as root in CI); nothing downloads a browser. One browser per
// process (sharedBrowser), a fresh context per test; closed at process exit. The tests drive Debian's headless shell
// of Chromium where it is installed (decision 0121); the screenshots and the bench, the desktop browser.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const DESKTOP = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
/**
 * Debian's `chromium-headless-shell`: Chromium's own headless build (what Playwright runs for headless tests), the
 * same Blink and V8 without the desktop browser around it. A browser test file costs about a third less CPU in it.
 */
const SHELL = '/usr/bin/chromium-headless-shell';

/**
 * The Chromium binary: $HERMETIC_CHROMIUM, else (for the tests, `shell`) Debian's headless shell where it is
 * installed, else Debian's chromium.
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env, { shell = false, exists = existsSync }: { shell?: boolean; exists?: (path: string) => boolean } = {}): string {
  const candidates = [env.HERMETIC_CHROMIUM, ...(shell ? [SHELL] : []), ...DESKTOP].filter((p): p is string => !!p);
  const found = candidates.find((p) => exists(p));
  if (!found) throw new Error('Chromium is not installed: the browser tests need Debian\'s chromium-headless-shell or chromium package (apt-get install chromium-headless-shell chromium; .ci/run installs them), or HERMETIC_CHROMIUM naming a Chromium binary.');
  return found;
}

/** A browser of its own: the desktop Chromium (the screenshots, the bench), or with `shell` the tests' choice. */
export function launchBrowser({ shell = false }: { shell?: boolean } = {}): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(process.env, { shell }), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

let shared: Promise<Browser> | null = null;

/**
 * One browser for this process, launched on first use. A test file closes it in its own `after(closeSharedBrowser)`:
 * the browser's pipe keeps the process alive, so no `beforeExit` would ever come. Should a process end without that,
 * the browser is killed at exit so no chromium is left behind.
 */
export function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    shared = launchBrowser({ shell: true });
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

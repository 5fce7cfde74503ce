// Regenerates the PNG screenshots in docs/screenshots/ (npm run screenshots) in Debian's Chromium. A list of pages:
// each names its file, how to start what it shows, the path, the theme and the window size. Another UI adds its own
// entries to PAGES.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../src/shared/testing/browser.js';
import { dashboardRig } from '../src/forwarder/web/testing.js';

interface Shot {
  file: string;
  /** Starts what is shown; resolves with its base URL and how to stop it. */
  start: () => Promise<{ url: string; close: () => Promise<void> }>;
  /** The page's path, or a function finding it on the running app (the dashboard's costliest session). */
  path: string | ((url: string) => Promise<string>);
  theme: 'light' | 'dark';
  viewport?: { width: number; height: number };
  /** Resolves once the page has drawn (default: the dashboard's html[data-ready] equals the path). */
  ready?: string;
  fullPage?: boolean;
}

const dashboard = () => dashboardRig({ timeZone: 'UTC' });

async function costliestSession(url: string): Promise<string> {
  const top = (await (await fetch(new URL('/api/sessions?top=1&period=30d', url))).json()) as { rows: { session_id: string }[] };
  return `/session?id=${encodeURIComponent(top.rows[0]!.session_id)}`;
}

export const PAGES: Shot[] = [
  { file: 'dashboard-light.png', start: dashboard, path: '/?period=30d', theme: 'light', fullPage: true },
  { file: 'dashboard-dark.png', start: dashboard, path: '/?period=30d', theme: 'dark', fullPage: true },
  { file: 'dashboard-session.png', start: dashboard, path: costliestSession, theme: 'light' },
  { file: 'dashboard-tools.png', start: dashboard, path: '/tools?period=30d', theme: 'dark' },
  { file: 'dashboard-narrow.png', start: dashboard, path: '/?period=7d', theme: 'dark', viewport: { width: 420, height: 900 } },
];

async function main(): Promise<void> {
  const out = join(process.cwd(), 'docs', 'screenshots');
  mkdirSync(out, { recursive: true });
  const browser = await launchBrowser();
  const started = new Map<Shot['start'], Awaited<ReturnType<Shot['start']>>>();
  try {
    for (const shot of PAGES) {
      if (!started.has(shot.start)) started.set(shot.start, await shot.start());
      const app = started.get(shot.start)!;
      const context = await browser.newContext({ viewport: shot.viewport ?? { width: 1280, height: 800 }, colorScheme: shot.theme });
      const page = await context.newPage();
      const path = typeof shot.path === 'string' ? shot.path : await shot.path(app.url);
      await page.goto(new URL(path, app.url).href);
      const ready = shot.ready ?? `html[data-ready="${path.replace(/"/g, '\\"')}"]`;
      await page.waitForSelector(ready, { state: 'attached' });
      await page.screenshot({ path: join(out, shot.file), fullPage: shot.fullPage ?? false });
      await context.close();
      console.log(`docs/screenshots/${shot.file}`);
    }
  } finally {
    for (const app of started.values()) await app.close();
    await browser.close();
  }
}

await main();

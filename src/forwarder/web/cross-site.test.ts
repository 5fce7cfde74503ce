// Another site's page against a running `hermetic web`, in a real Chromium (decision 0081). The dashboard's answers
// are already unreadable to it (no CORS, CORP same-origin, nosniff), but the queries ran: any page the user opens could
// keep the machine busy with whole-history reports, or time filters to learn which models and projects the dataset
// holds. With fetch metadata the server refuses such a request before it reads anything; following a link to the
// dashboard from elsewhere still opens it, and the page then works as ever.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { closeSharedBrowser, sharedBrowser } from '../../shared/testing/browser.js';
import type { UsageSource } from './data/source.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer, type WebServer } from './server.js';
import { dashboardRig, type DashboardRig } from './testing.js';

let app: DashboardRig;
let served: Database.Database;
let web: WebServer;
let other: Server;
/** Every question the dashboard's source was asked. */
const asked: string[] = [];

/** The source, counting what it is asked. */
function counted(source: UsageSource): UsageSource {
  const count = <T extends unknown[], R>(name: string, f: (...a: T) => R) => (...a: T): R => (asked.push(name), f(...a));
  return { ...source, report: count('report', source.report), values: count('values', source.values), session: count('session', source.session), slowestCalls: count('slowestCalls', source.slowestCalls) };
}

before(async () => {
  app = await dashboardRig({ sessions: 20, messages: 300 });
  served = new Database(join(app.home, 'hermetic.db'), { readonly: true });
  web = await startWebServer({ source: counted(sqliteSource(served)), port: 0, now: () => app.now * 1000 });
  // Another site: `localhost` is another site than `127.0.0.1` (no port makes a site).
  const dashboard = web.url.replace(/\/$/, '');
  const page = `<!doctype html><title>elsewhere</title>
    <img src="${dashboard}/api/report?period=all&amp;by=session&amp;by=day">
    <a id="go" href="${dashboard}/?period=all">the dashboard</a>
    <script>
      Promise.allSettled([
        fetch('${dashboard}/api/overview?period=all', { mode: 'no-cors' }),
        fetch('${dashboard}/api/sessions?period=all&project=%2Fhome%2Fu%2Fclient', { mode: 'no-cors', credentials: 'include' }),
        new Promise((resolve) => { const s = document.createElement('script'); s.src = '${dashboard}/api/options?period=all'; s.onload = s.onerror = resolve; document.head.append(s); }),
      ]).then(() => { document.title = 'done'; });
    </script>`;
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((resolve) => other.listen(0, 'localhost', resolve));
});
after(async () => {
  await closeSharedBrowser();
  await new Promise((resolve) => other.close(resolve));
  await web.close();
  served.close();
  await app.close();
});

describe('another site\'s page', () => {
  it('its images, fetches and scripts reach no query; a link it has to the dashboard opens the dashboard', async () => {
    const browser = await sharedBrowser();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const { port } = other.address() as AddressInfo;
      await page.goto(`http://localhost:${port}/`);
      await page.waitForFunction(() => document.title === 'done' && (document.querySelector('img') as HTMLImageElement).complete);
      assert.equal(asked.length, 0, `nothing is read for another site; read: ${asked.join(', ')}`);
      await page.click('#go');
      await page.waitForFunction(() => document.documentElement.dataset.ready === '/?period=all');
      assert.equal(await page.locator('.error').count(), 0);
      assert.ok(asked.includes('report'), 'the dashboard, opened by the link, read its figures');
    } finally {
      await context.close();
    }
  });
});

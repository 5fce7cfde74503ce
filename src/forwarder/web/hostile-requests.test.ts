// `hermetic web` asked what no page asks (decision 0081): request targets that are no URL or start with two slashes,
// heads node's parser refuses, a filter repeated thousands of times. Each is answered with its own status and HERMETIC_*
// code, and none reaches the server's "unexpected failure" hook, which is for bugs. A real server on a loopback port
// over generated history.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { usageReport } from '../report/index.js';
import { sqliteSource } from './data/sqlite.js';
import { CSP, startWebServer, type WebServer } from './server.js';
import { dashboardRig, type DashboardRig } from './testing.js';

let app: DashboardRig;
let web: WebServer;
let served: Database.Database;
/** What reached onError: each one is a request the server took for its own bug. */
const bugs: unknown[] = [];

before(async () => {
  app = await dashboardRig({ sessions: 20, messages: 300 });
  served = new Database(join(app.home, 'hermetic.db'), { readonly: true });
  web = await startWebServer({ source: sqliteSource(served), port: 0, now: () => app.now * 1000, onError: (e) => bugs.push(e) });
});
after(async () => {
  await web.close();
  served.close();
  await app.close();
});

/** One request written by hand (fetch and http.request mend or refuse odd targets): status, headers and JSON body. */
function raw(target: string): Promise<{ status: number; headers: string; body: any }> {
  return rawHead(`GET ${target} HTTP/1.1\r\nHost: ${new URL(web.url).host}\r\nConnection: close\r\n\r\n`);
}

/** A request head exactly as written, and the answer read to the connection's end. */
async function rawHead(request: string): Promise<{ status: number; headers: string; body: any }> {
  const { port } = new URL(web.url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.setEncoding('utf8').on('data', (d) => (out += d)).on('end', () => resolve(out)).on('error', reject);
  });
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)![1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : null };
}

describe('request targets', () => {
  it('a target that is no URL is refused as the client\'s mistake (400), not answered as a bug (500)', async () => {
    for (const target of ['http://[/api/overview', 'http://:99999/api/overview']) {
      const r = await raw(target);
      assert.deepEqual([r.status, r.body], [400, { error: { code: 'HERMETIC_WEB_INVALID', message: 'The request\'s target is not a URL the dashboard can read.' } }], target);
      assert.ok(r.headers.includes(`content-security-policy: ${CSP.toLowerCase()}`));
    }
    assert.deepEqual(bugs, []);
  });

  it('a path that starts with two slashes is that path, not another host\'s: //evil/api/overview is no endpoint', async () => {
    const r = await raw('//evil.example/api/overview');
    assert.deepEqual([r.status, r.body], [404, { error: { code: 'HERMETIC_WEB_NOT_FOUND', message: 'There is no page or file at //evil.example/api/overview.' } }]);
    assert.deepEqual(bugs, []);
  });
});

describe('heads node\'s parser refuses', () => {
  it('a head past 16 KiB is 431 HERMETIC_WEB_TOO_LARGE, and one that is not HTTP is 400 HERMETIC_WEB_INVALID, as JSON with the CSP', async () => {
    const long = await raw(`/api/overview?period=all&model=${'m'.repeat(20_000)}`);
    assert.deepEqual([long.status, long.body], [431, { error: { code: 'HERMETIC_WEB_TOO_LARGE', message: 'The request\'s head (its target and headers) is larger than the dashboard reads (16 KiB).' } }]);
    const broken = await rawHead(`GET /api/overview HTTP/1.1\r\nHost: ${new URL(web.url).host}\r\nno colon here\r\n\r\n`);
    assert.deepEqual([broken.status, broken.body], [400, { error: { code: 'HERMETIC_WEB_INVALID', message: 'The request could not be read as HTTP/1.1.' } }]);
    for (const r of [long, broken]) {
      assert.ok(r.headers.includes(`content-security-policy: ${CSP.toLowerCase()}`));
      assert.ok(r.headers.includes('content-type: application/json; charset=utf-8'));
    }
    assert.deepEqual(bugs, []);
  });

  it('an HTTP/1.1 head without Host is refused by the Host check, as JSON (not node\'s bare 400)', async () => {
    const r = await rawHead('GET /api/overview HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.deepEqual([r.status, r.body], [404, { error: { code: 'HERMETIC_WEB_NOT_FOUND', message: 'This dashboard answers only as localhost or a loopback address (127.0.0.1, ::1), not as ""; to answer as another name, start it with --allowed-host NAME.' } }]);
    assert.ok(r.headers.includes(`content-security-policy: ${CSP.toLowerCase()}`));
  });
});

describe('query strings', () => {
  it('a filter given thousands of values is answered (the values are alternatives), not failed by SQLite\'s expression depth', async () => {
    const model = app.db.prepare('SELECT model FROM usage_ledger WHERE model IS NOT NULL GROUP BY model ORDER BY COUNT(*) DESC LIMIT 1').pluck().get() as string;
    const values = [...Array.from({ length: 1200 }, (_, i) => `m${i}`), model];
    const query = values.map((v) => `model=${encodeURIComponent(v)}`).join('&');
    const r = await raw(`/api/overview?period=all&${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const want = usageReport(app.db, { filter: { model: values } });
    assert.deepEqual(r.body.totals, want.totals);
    assert.ok(want.totals.sessions! > 0);
    // The same value many times is the same filter (`project=`: usage with no project).
    const repeated = await raw(`/api/breakdown?by=source&period=all&${Array(1100).fill('project=').join('&')}`);
    assert.equal(repeated.status, 200, JSON.stringify(repeated.body));
    assert.deepEqual(repeated.body, usageReport(app.db, { filter: { project: [''] }, by: ['source'], top: 10 }));
    assert.deepEqual(bugs, []);
  });
});

// `hermetic web` through the real bin: it prints its URL, answers the report's figures over HTTP, serves the page and
// Chart.js from a build too (assets found from dist/), stops cleanly on SIGTERM and SIGINT (exit 0, as serve); a
// refused flag is one line and exit 2; a fleet store nobody answers at is one line and exit 1. Bound to the network it
// says which names it answers as and refuses the rest (DNS rebinding), --allowed-host adding names.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { rowIssuesIn, uncostedIn, usageReport } from '../../src/forwarder/report/index.js';
import { forwarderRig } from '../../src/forwarder/testing/index.js';
import { copyFixture, tempDir } from '../../src/state-db/testing/fixtures.js';
import { runBinAsync, spawnBin } from '../support/process.js';
import { waitFor } from '../support/wait.js';
import { parseFlags } from '../../src/cli/args.js';
import { FLAGS, webCommand } from '../../src/forwarder/cli/web.js';

let home: string;
let cleanup: () => void;

before(() => {
  const t = tempDir('hermetic-web-cli-');
  cleanup = t.cleanup;
  const rig = forwarderRig(['basic', 'usage'].map((f) => copyFixture(f, t.dir)), { dir: t.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
});
after(() => cleanup());

/** Starts `hermetic web ...args` and resolves once it printed its URL. */
async function startWeb(args: string[], env?: NodeJS.ProcessEnv) {
  const p = spawnBin(['web', ...args], { env });
  const deadline = setTimeout(() => p.child.kill('SIGKILL'), 60_000); // only a hang; a slow start is not a failure
  assert.ok(await p.until((o) => /dashboard is at http:\/\/\S+/.test(o)), p.output());
  clearTimeout(deadline);
  return { p, url: /dashboard is at (http:\/\/\S+)/.exec(p.output())![1]! };
}

it('prints its URL, answers usageReport, serves the page and Chart.js, and stops cleanly on SIGTERM', async () => {
  const { p, url } = await startWeb(['--home', home, '--port', '0', '--refresh', '2s']);
  try {
    // How often an open page asks whether the data changed (decision 0119).
    assert.equal(((await (await fetch(new URL('/api/version', url))).json()) as { refresh_ms: number }).refresh_ms, 2000);
    const overview = (await (await fetch(new URL('/api/overview?period=all', url))).json()) as Record<string, unknown>;
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    try {
      const { cache_hit_rate: _, row_issues, uncosted, unread, ...report } = overview;
      assert.equal(unread, null);
      assert.deepEqual(report, usageReport(db, {}));
      assert.deepEqual(row_issues, rowIssuesIn(db, {}));
      assert.equal(uncosted, uncostedIn(db, {}));
    } finally {
      db.close();
    }
    assert.equal((await fetch(new URL('/', url))).status, 200);
    assert.equal((await fetch(new URL('/vendor/chart.umd.js', url))).status, 200);
  } finally {
    p.child.kill('SIGTERM');
  }
  assert.equal(await p.exited, 0);
  assert.match(p.stdout(), /\nhermetic web: stopped\n$/);
  assert.equal(p.stderr(), '');
});

it('Ctrl-C (SIGINT) closes the server, says it stopped and exits 0, as serve does', async () => {
  const { p, url } = await startWeb(['--home', home, '--port', '0']);
  // A browser's keep-alive connection does not hold the stop up.
  const page = await fetch(new URL('/', url), { headers: { connection: 'keep-alive' } });
  assert.equal(page.status, 200);
  await page.arrayBuffer();
  p.child.kill('SIGINT');
  assert.equal(await p.exited, 0, p.output());
  assert.deepEqual(p.stdout().split('\n'), [`hermetic web: the usage dashboard is at ${url} (Ctrl-C stops it)`, 'hermetic web: stopped', '']);
  assert.equal(p.stderr(), '');
  await assert.rejects(fetch(new URL('/', url)), 'nothing listens any more');
});

it('--from a fleet store nobody answers at: one line, HERMETIC_FLEET_UNAVAILABLE, exit 1, the password never shown', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = s.address() as { port: number };
      s.close(() => resolve(free));
    });
  });
  const r = await runBinAsync(['web', '--port', '0', '--from', `postgres://fleet:hunter2-secret@127.0.0.1:${port}/fleet`]);
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^hermetic: PostgreSQL could not be reached or dropped the connection \\(postgres://fleet:\\*\\*\\*@127\\.0\\.0\\.1:${port}/fleet\\): .*ECONNREFUSED.*; nothing was read; try again when it answers\\. \\[HERMETIC_FLEET_UNAVAILABLE\\]\\n$`));
  assert.ok(!r.stderr.includes('hunter2'), r.stderr);
});

it('refuses a bad port and a missing dataset in one line', async () => {
  const [port, missing] = await Promise.all([
    runBinAsync(['web', '--port', 'http']),
    runBinAsync(['web', '--home', join(home, 'nowhere')]),
  ]);
  assert.deepEqual(port, { status: 2, stdout: '', stderr: 'hermetic: --port must be a whole number; got "http". [HERMETIC_CLI_USAGE]\nRun "hermetic web --help" for the options.\n' });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^hermetic: There is no dataset at .*nowhere\/hermetic\.db yet; run "hermetic backfill" first\. \[HERMETIC_DATASET_OPEN\]\n$/);
  // --refresh out of its range, or not a duration (in process: the same parser the bin runs).
  for (const refresh of ['0s', '500ms', '2h', 'often']) {
    await assert.rejects(webCommand(['--home', home, '--port', '0', '--refresh', refresh], { started: () => assert.fail('started') }),
      { code: 'HERMETIC_CLI_USAGE', message: `--refresh must be a duration from 1s to 1h such as 5s or 1m, or off; got "${refresh}".` });
  }
  // A stray port or host names its flag (in process: the same parser the bin runs).
  assert.throws(() => parseFlags(['8080'], FLAGS), { message: 'Unexpected argument "8080"; did you mean "--port 8080"?' });
  assert.throws(() => parseFlags(['--port', '0', '0.0.0.0'], FLAGS), { message: 'Unexpected argument "0.0.0.0"; did you mean "--host 0.0.0.0"?' });
});

it('--host 0.0.0.0 says which names it answers as; another Host is refused, an --allowed-host name answered', async () => {
  const { p, url } = await startWeb(['--home', home, '--port', '0', '--host', '0.0.0.0', '--allowed-host', 'Dash.Example', '--allowed-host', '.corp.example']);
  const port = new URL(url).port;
  /** GET /api/overview on 127.0.0.1 naming `host` (fetch cannot set Host): status and JSON body. */
  const named = (host: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/api/overview', headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    }).on('error', reject).end();
  });
  const machine = hostname();
  const own = [...new Set([machine.toLowerCase(), machine.toLowerCase().split('.')[0]])].join(', ');
  const names = `localhost, any IP address, this machine's name (${own}), dash.example or corp.example and its subdomains`;
  try {
    assert.equal(url, `http://localhost:${port}/`);
    for (const host of [`dash.example:${port}`, 'team.corp.example', `127.0.0.1:${port}`, machine, `localhost:${port}`]) assert.equal((await named(host)).status, 200, host);
    assert.deepEqual(await named(`attacker.example:${port}`), { status: 404, body: { error: { code: 'HERMETIC_WEB_NOT_FOUND', message: `This dashboard answers only as ${names}, not as "attacker.example"; to answer as another name, start it with --allowed-host NAME.` } } });
  } finally {
    p.child.kill('SIGTERM');
  }
  assert.equal(await p.exited, 0, p.output());
  assert.equal(p.stderr(), `hermetic web: listening on 0.0.0.0: anyone who can reach this machine can read your usage; the dashboard has no login. It answers as ${names}; --allowed-host NAME adds a name.\n`);
});

it('--allowed-host: a name that is none is refused in one line (exit 2); \'*\' turns the check off, and says so', async () => {
  const refused = await runBinAsync(['web', '--home', home, '--port', '0', '--allowed-host', 'dash.example', '--allowed-host', 'me@dash.example']);
  assert.deepEqual(refused, { status: 2, stdout: '', stderr: 'hermetic: --allowed-host must be a host name (dashboard.example), .example.com for a domain and its subdomains, or * for any name; got "me@dash.example". [HERMETIC_CLI_USAGE]\nRun "hermetic web --help" for the options.\n' });
  const { p, url } = await startWeb(['--home', home, '--port', '0', '--allowed-host', '*']);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      request(new URL('/api/overview', url), { headers: { host: 'attacker.example' } }, (res) => resolve(res.resume().statusCode!)).on('error', reject).end();
    });
    assert.equal(status, 200);
  } finally {
    p.child.kill('SIGTERM');
  }
  assert.equal(await p.exited, 0, p.output());
  assert.equal(p.stderr(), 'hermetic web: --allowed-host \'*\': the dashboard answers as any name, so a page on another site can read it through your browser (DNS rebinding).\n');
});

it('--open hands the URL to the desktop\'s opener, and says so when the opener finds no browser', { skip: process.platform === 'darwin' || process.platform === 'win32' ? 'xdg-open is Linux\'s opener' : false }, async () => {
  // A fake xdg-open first on PATH: it notes the URL it was given, then exits with the code its folder's name says.
  const t = tempDir('hermetic-web-open-');
  try {
    for (const code of [0, 3]) {
      const bin = join(t.dir, `exit-${code}`);
      mkdirSync(bin);
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > "${bin}/asking"\nmv "${bin}/asking" "${bin}/asked"\nexit ${code}\n`);
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const { p, url } = await startWeb(['--home', home, '--port', '0', '--open'], { PATH: `${bin}:${process.env.PATH}` });
      try {
        await waitFor(() => existsSync(join(bin, 'asked')), `the opener, asked to open the URL (${p.output()})`);
        assert.equal(readFileSync(join(bin, 'asked'), 'utf8').trim(), url);
        if (code === 3) {
          await waitFor(() => p.output().includes('could not open a browser'), `its word on the opener (${p.output()})`);
          assert.ok(p.output().includes(`hermetic: could not open a browser (xdg-open exited with code 3); open ${url} yourself.`), p.output());
        } else {
          // The stop is said after anything the opener's end would have said: nothing of it for an opener that worked.
          p.child.kill('SIGTERM');
          await p.exited;
          assert.ok(!p.output().includes('could not open'), p.output());
        }
      } finally {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
  } finally {
    t.cleanup();
  }
});

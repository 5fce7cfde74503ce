// `hermetic web` (the command, on a home's dataset) while the dataset file is replaced or deleted under it (decision
// 0081): moved aside and built again, as a damaged dataset's message says to do, or deleted. Each request reads the
// file that is at the dataset's path then — never the one moved away, never a deleted one — and a request made while
// there is none is refused with HERMETIC_DATASET_OPEN; the server keeps running and reads the next one built. And a
// dataset another process holds locked fails the request that meets the lock (503), not the server, and not as a bug.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printed } from '../../shared/testing/console.js';
import type { Db } from '../../shared/sqlite.js';
import { datasetFileSource } from './data/dataset-file.js';
import type { UsageSource } from './data/source.js';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { webCommand } from '../cli/web.js';
import { usageReport } from '../report/index.js';
import { forwarderRig } from '../testing/index.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer, type WebServer } from './server.js';
import { DASHBOARD_NOW } from './testing.js';

let dir: string;
let cleanup: () => void;
let home: string;
let generated: string;
let fixture: string;
let web: WebServer;
const dataset = () => join(home, 'hermetic.db');

/** A backfill of these stores into the home (a first build when there is no dataset, else in place). */
function backfill(stores: string[]): void {
  const rig = forwarderRig(stores, { dir, home, timeZone: 'Europe/Berlin' });
  rig.forwarder.backfill();
  rig.forwarder.close();
}

/** The all-time totals `hermetic report` gives now, from a connection opened for it. */
function totalsNow(): unknown {
  const db = new Database(dataset(), { readonly: true });
  try {
    return usageReport(db, {}).totals;
  } finally {
    db.close();
  }
}

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, web.url));
  return { status: res.status, body: await res.json() };
}

before(async () => {
  ({ dir, cleanup } = tempDir('hermetic-web-replaced-'));
  home = join(dir, 'hermetic-home');
  generated = generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: 20, messages: 300, seed: 'replaced', end: DASHBOARD_NOW, days: 30 }).path;
  fixture = copyFixture('usage', dir);
  backfill([generated]);
  await printed(() => webCommand(['--home', home, '--port', '0'], { now: () => DASHBOARD_NOW * 1000, started: (s) => { web = s; } }));
});
after(async () => {
  await web.close();
  cleanup();
});

describe('the dataset replaced under a running dashboard', () => {
  it('moved aside and built again: the next request reads the new dataset, and keeps reading it as it grows', async () => {
    const first = await get('/api/overview?period=all');
    assert.deepEqual([first.status, first.body.totals], [200, totalsNow()]);
    // The page follows the data by /api/version (decision 0119): each file, and each commit to it, has its own.
    const versions = [(await get('/api/version')).body.version];
    renameSync(dataset(), join(home, 'hermetic.db.aside'));
    backfill([fixture]);
    versions.push((await get('/api/version')).body.version);
    const rebuilt = await get('/api/overview?period=all');
    assert.equal(rebuilt.status, 200, JSON.stringify(rebuilt.body));
    assert.deepEqual(rebuilt.body.totals, totalsNow());
    assert.notEqual(rebuilt.body.totals.sessions, first.body.totals.sessions, 'the two datasets differ');
    // A later pass writes into the new file in place (its write-ahead log beside it): still read, not "damaged".
    backfill([fixture, generated]);
    versions.push((await get('/api/version')).body.version);
    const grown = await get('/api/overview?period=all');
    assert.equal(grown.status, 200, JSON.stringify(grown.body));
    assert.deepEqual(grown.body.totals, totalsNow());
    assert.equal(new Set(versions).size, 3, versions.join(' '));
    assert.ok(versions.every((v) => typeof v === 'string'));
  });

  it('deleted: each request for data is refused with HERMETIC_DATASET_OPEN, the page is still served, and a dataset built again is read', async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(dataset() + suffix, { force: true });
    const gone = await get('/api/overview?period=all');
    assert.deepEqual([gone.status, gone.body], [500, { error: { code: 'HERMETIC_DATASET_OPEN', message: `There is no dataset at ${dataset()} yet; run "hermetic backfill" first.` } }]);
    assert.equal((await get('/api/session?id=x')).body.error.code, 'HERMETIC_DATASET_OPEN');
    assert.equal((await fetch(new URL('/', web.url))).status, 200);
    backfill([fixture]);
    const back = await get('/api/overview?period=all');
    assert.deepEqual([back.status, back.body.totals], [200, totalsNow()]);
  });
});

describe('the version of a dataset deleted and built again (decision 0120)', () => {
  it('moves though the new file has the old one\'s inode and its connection\'s counter starts where the old one stood', async () => {
    // ext4 gives a file made just after a delete the freed inode; a fresh connection's data_version starts at 1.
    const path = join(dir, 'inode.db');
    const build = () => { const db = new Database(path); db.exec('CREATE TABLE t (x)'); db.close(); };
    build();
    const counter = (db: Db) => ({ version: async () => String(db.pragma('data_version', { simple: true })), close: async () => { db.close(); } }) as unknown as UsageSource;
    const source = datasetFileSource(path, () => new Database(path, { readonly: true, fileMustExist: true }), counter);
    const held = await source.version();
    rmSync(path);
    await assert.rejects(source.version());
    build();
    assert.notEqual(await source.version(), held);
    await source.close();
  });
});

describe('a dataset another process writes or holds locked', () => {
  it('a forwarder\'s open write transaction holds no reader back: the dashboard answers at once from the last commit, then sees the next', async () => {
    const before = (await get('/api/overview?period=all')).body.totals;
    const writer = new Database(dataset());
    try {
      writer.exec('BEGIN IMMEDIATE');
      const rows = writer.prepare('UPDATE usage_ledger SET input_tokens = input_tokens + 1000').run().changes;
      const started = performance.now();
      const during = await get('/api/overview?period=all');
      assert.ok(performance.now() - started < 2000, 'not held for the 5 s busy wait');
      assert.deepEqual([during.status, during.body.totals], [200, before]);
      writer.exec('COMMIT');
      assert.equal((await get('/api/overview?period=all')).body.totals.input_tokens, before.input_tokens + 1000 * rows);
    } finally {
      writer.close();
    }
  });

  it('the request that meets the lock is 503 HERMETIC_WEB_BUSY (not a bug\'s 500); once it is free the next is answered', async () => {
    // The dataset is WAL, where a reader never waits for the forwarder; a copy in rollback mode (a restored backup,
    // before a forwarder opens it again) is where a writer's exclusive lock shuts readers out.
    const copy = join(dir, 'locked.db');
    const source = new Database(dataset(), { readonly: true });
    source.prepare('VACUUM INTO ?').run(copy);
    source.close();
    const writer = new Database(copy);
    writer.pragma('journal_mode = DELETE');
    const served = new Database(copy, { readonly: true });
    served.pragma('busy_timeout = 50');
    const bugs: unknown[] = [];
    const server = await startWebServer({ source: sqliteSource(served), port: 0, now: () => DASHBOARD_NOW * 1000, onError: (e) => bugs.push(e) });
    try {
      writer.exec('BEGIN EXCLUSIVE');
      const locked = await fetch(new URL('/api/overview?period=all', server.url));
      assert.deepEqual([locked.status, await locked.json()], [503, { error: { code: 'HERMETIC_WEB_BUSY', message: 'Another process held the dataset locked past the wait (SQLite: database is locked); nothing was read: try again.' } }]);
      assert.deepEqual(bugs, []);
      writer.exec('COMMIT');
      assert.equal((await fetch(new URL('/api/overview?period=all', server.url))).status, 200);
    } finally {
      await server.close();
      served.close();
      writer.close();
    }
  });
});

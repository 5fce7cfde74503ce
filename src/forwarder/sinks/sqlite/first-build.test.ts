// A home's first dataset is built aside and published whole (decision 0058): nobody sees it before, it ends equal to
// a dataset written in place, a build killed before it was published is dropped by the next writer, and a build that
// loses the race to another process's dataset is dropped and its pass run again over that dataset.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs, { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { datasetDump, forwarderRig, sinkFailingFor, type Rig } from '../../testing/index.js';
import type { ForwarderOptions } from '../../pipeline/forwarder.js';
import { buildAside } from '../../pipeline/forwarder-options.js';
import { liveBuilds } from './build-files.js';
import { startBuild } from './first-build.js';
import { statusCommand } from '../../cli/status.js';
import { openDataset, openDatasetReadOnly } from './dataset.js';
import { printed } from '../../../shared/testing/console.js';

/** Sessions of the store: a pass writes them in several batches. */
const SESSIONS = 160;
const require = createRequire(import.meta.url);
let tmp: ReturnType<typeof tempDir>;
let store: string;
/** The dataset of one backfill written in place from its first batch: what every build must end equal to. */
let inPlace: Record<string, unknown[]>;
before(() => {
  tmp = tempDir('hermetic-first-build-');
  store = join(tmp.dir, 'state.db');
  generatedStore({ out: store, sessions: SESSIONS, messages: 2_400, seed: 'first-build' });
  const rig = forwarderRig([store], { dir: tmp.dir, home: join(tmp.dir, 'in-place'), readWorker: 'off', buildAside: 0 });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    inPlace = datasetDump(rig);
  } finally {
    rig.cleanup();
  }
});
after(() => tmp.cleanup());

const builds = (home: string) => (existsSync(home) ? readdirSync(home).filter((n) => n.startsWith('hermetic.db.build-')) : []);
const journalMode = (home: string) => {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  try {
    return [db.pragma('journal_mode', { simple: true }), db.pragma('integrity_check', { simple: true })];
  } finally {
    db.close();
  }
};

/** A forwarder of the store (read on one thread) with its home in `tmp/<name>`, for `body`; closed after. */
function inHome<T>(name: string, options: Omit<ForwarderOptions, 'stateDbs'>, body: (rig: Rig, home: string) => T): T {
  const home = join(tmp.dir, name);
  const rig = forwarderRig([store], { dir: tmp.dir, home, readWorker: 'off', ...options });
  try {
    return body(rig, home);
  } finally {
    rig.cleanup();
  }
}

/** A pid no process has now: a child that has already exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

test('a first backfill builds the dataset aside, unseen until its pass ends, and publishes it whole: WAL, intact, equal to one written in place', () => inHome('aside', {}, (rig, home) => {
  let batches = 0;
  const [r] = rig.forwarder.backfill({
    beforeWrite: () => {
      if (batches++ === 0) return;
      assert.equal(existsSync(join(home, 'hermetic.db')), false, 'nobody sees the dataset before the pass ends');
      assert.equal(builds(home).length, 1);
      assert.deepEqual(liveBuilds(home, true).map((b) => b.pid), [process.pid]);
    },
  });
  assert.equal(r!.error, null);
  assert.ok(batches > 2, `the pass wrote several batches (${batches})`);
  assert.equal(r!.sessionsWritten, SESSIONS);
  assert.deepEqual(builds(home), [], 'the build file is gone once published');
  assert.deepEqual(journalMode(home), ['wal', 'ok']);
  assert.deepEqual(datasetDump(rig), inPlace);
  // The next pass finds the published dataset and its cursors: nothing to write.
  assert.equal(rig.forwarder.backfill()[0]!.sessionsWritten, 0);
}));

test('sessions a build wrote and then failed, rewrote or wrote again within it end as written in place: nothing left twice', () => {
  const home = join(tmp.dir, 'touched');
  const copy = join(tmp.dir, 'touched-state.db');
  fs.copyFileSync(store, copy);
  const build = startBuild(home);
  const hermes = new Database(copy);
  const ids = hermes.prepare('SELECT id FROM sessions ORDER BY id').pluck().all() as string[];
  const failingId = ids[Math.floor(ids.length / 2)]!;
  let failing = true;
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([copy], { dir: tmp.dir, home, readWorker: 'off', now: () => clock, sink: sinkFailingFor(build, failingId, () => failing) });
  const inBuild = { query: <T>(sql: string, ...params: unknown[]) => build.db.prepare(sql).all(...params) as T[] };
  try {
    // Its batch fails and is written again session by session; it is quarantined, the rest land.
    const [first] = rig.forwarder.backfill();
    assert.equal(first!.sessionsQuarantined, 1);
    assert.equal(first!.sessionsWritten, SESSIONS - 1);
    // Two sessions the build wrote change in Hermes: one loses its last rows, one is cut to its first message.
    const cut = (id: string, keep: string) => {
      hermes.prepare(`DELETE FROM messages WHERE session_id = ? AND id > (${keep})`).run(id, id);
      hermes.prepare('UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?) WHERE id = ?').run(id, id);
    };
    cut(ids[0]!, 'SELECT MAX(id) - 2 FROM messages WHERE session_id = ?');
    cut(ids[1]!, 'SELECT MIN(id) FROM messages WHERE session_id = ?');
    failing = false;
    clock += 24 * 3600_000;
    const [second] = rig.forwarder.backfill();
    assert.equal(second!.error, null);
    assert.equal(second!.sessionsWritten, 3);
    assert.deepEqual(inBuild.query('SELECT * FROM quarantine'), [], 'the quarantine row of the session now written went');
    const clean = forwarderRig([copy], { dir: tmp.dir, home: join(tmp.dir, 'touched-clean'), readWorker: 'off', buildAside: 0 });
    try {
      assert.equal(clean.forwarder.backfill()[0]!.error, null);
      assert.deepEqual(datasetDump(inBuild), datasetDump(clean), 'nothing of the rows the build wrote first was left');
    } finally {
      clean.cleanup();
    }
  } finally {
    hermes.close();
    rig.cleanup();
  }
});

test('a build that reaches its size is published mid-pass, and the rest of the pass is written in place', () => inHome('mid-pass', { buildAside: 200 }, (rig, home) => {
  const seen: boolean[] = [];
  const [r] = rig.forwarder.backfill({ beforeWrite: () => void seen.push(existsSync(join(home, 'hermetic.db'))) });
  assert.equal(r!.error, null);
  assert.equal(seen[0], false);
  assert.ok(seen.includes(true), 'later batches were written into the published dataset');
  assert.deepEqual(builds(home), []);
  assert.deepEqual(datasetDump(rig), inPlace);
}));

/** What a command prints (console.log), once it returned 0. */
async function captured(run: () => Promise<number>): Promise<string> {
  const { value, out } = await printed(run);
  assert.equal(value, 0);
  return out.join('\n');
}

/** A process holding a build of its own in `home`, as a backfill under way does (its lock taken); its file's name. */
async function runningBuild(home: string): Promise<{ pid: number; name: string; stop(): void }> {
  const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const path = require('node:path').join(${JSON.stringify(home)}, 'hermetic.db.build-' + process.pid + '-3');
    const db = new D(path); db.pragma('locking_mode = EXCLUSIVE'); db.pragma('journal_mode = MEMORY'); db.exec('CREATE TABLE t (x)');
    process.stdout.write('ready'); setTimeout(() => {}, 60000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the builder exited ${code}`)));
  });
  return { pid: child.pid!, name: `hermetic.db.build-${child.pid}-3`, stop: () => void child.kill('SIGKILL') };
}

test('a build killed before it was published is removed by the next process that writes; a running one is left alone and said', async () => {
  const home = join(tmp.dir, 'killed');
  mkdirSync(home);
  const dead = deadPid();
  // A killed build: a database nobody holds; its journal; and a journal whose build is gone.
  const killed = new Database(join(home, `hermetic.db.build-${dead}-1`));
  killed.exec('CREATE TABLE t (x)');
  killed.close();
  for (const name of [`hermetic.db.build-${dead}-1-journal`, `hermetic.db.build-${dead}-2-wal`]) writeFileSync(join(home, name), 'x');
  const running = await runningBuild(home);
  try {
    // Another process's build under way: read-only openers say so instead of "run hermetic backfill".
    assert.deepEqual(liveBuilds(home).map((b) => b.pid), [running.pid]);
    assert.throws(() => openDatasetReadOnly(home), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN' && e.message.includes(`the first pass of a backfill or forward (process ${running.pid}) is writing it`));
    const said = await captured(() => statusCommand(['--home', home, '--state-db', store]));
    assert.match(said, new RegExp(`^dataset: .* \\(not created yet: the first pass of a backfill or forward, process ${running.pid}, is writing it, [\\d.]+ kB so far; it appears when that pass ends\\)$`, 'm'));
    const json = JSON.parse(await captured(() => statusCommand(['--home', home, '--state-db', store, '--json']))) as { dataset_exists: boolean; dataset_building: { pid: number; bytes: number } | null };
    assert.equal(json.dataset_exists, false);
    assert.equal(json.dataset_building?.pid, running.pid);
    const rig = forwarderRig([store], { dir: tmp.dir, home, readWorker: 'off' });
    try {
      assert.equal(rig.forwarder.backfill()[0]!.error, null);
      assert.deepEqual(builds(home), [running.name], 'only what nobody writes is removed');
      assert.deepEqual(datasetDump(rig), inPlace);
    } finally {
      rig.cleanup();
    }
  } finally {
    running.stop();
  }
});

test('a build whose dataset another process created meanwhile is dropped, and its pass runs again over that dataset', () => inHome('race', {}, (rig, home) => {
  let batches = 0;
  let writes = 0;
  const [r] = rig.forwarder.backfill({
    beforeWrite: (batch) => {
      writes += batch.writes.length;
      // Another process (`hermetic sinks add`, a forward started at the same moment) creates the dataset.
      if (batches++ === 1) openDataset(home).close();
    },
  });
  assert.equal(r!.error, null);
  assert.equal(writes, SESSIONS * 2, 'every session was written twice: into the dropped build, then again');
  assert.equal(r!.sessionsWritten, SESSIONS, 'the second run wrote every session into the dataset that was there');
  assert.deepEqual(builds(home), []);
  assert.deepEqual(datasetDump(rig), inPlace);
}));

test('a forward pass that loses the race to a windowed backfill runs again with nothing remembered: every session is written', () => inHome('race-forward', {}, (rig, home) => {
  let batches = 0;
  const [r] = rig.forwarder.forwardOnce({
    beforeWrite: () => {
      // A backfill whose window holds nothing publishes a dataset that names the store, with none of its sessions.
      if (batches++ !== 1) return;
      const other = forwarderRig([store], { dir: tmp.dir, home, readWorker: 'off' });
      other.forwarder.backfill({ until: 0 });
      other.forwarder.close();
    },
  });
  assert.equal(r!.error, null);
  assert.equal(r!.sessionsWritten, SESSIONS, 'the second run read the store again, not taken for idle by the first one\'s stamp');
  assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 0);
  assert.equal(rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM sessions')[0]!.n, SESSIONS);
}));

test('a build published mid-pass that loses the race stops its pass there, then the pass runs again: long sessions in chunks too', () => inHome('race-chunks', { buildAside: 150, chunkRows: 10 }, (rig, home) => {
  let batches = 0;
  const [r] = rig.forwarder.backfill({ beforeWrite: () => void (batches++ === 1 && openDataset(home).close()) });
  assert.equal(r!.error, null);
  assert.equal(r!.sessionsQuarantined + r!.sessionsWaiting, 0, 'no chunk was written against a cursor of the dropped build');
  assert.deepEqual(rig.query('SELECT session_id FROM quarantine'), []);
  assert.deepEqual(builds(home), []);
  // Read in chunks of 10 messages, written as a whole read writes them (decision 0055).
  assert.deepEqual(datasetDump(rig), inPlace);
}));

test('a build that cannot be published fails its pass, which claims nothing: the next pass writes everything', () => inHome('publish-fails', { buildAside: 500 }, (rig, home) => {
  const link = fs.linkSync;
  let fails = 1;
  fs.linkSync = ((from: string, to: string) => {
    if (fails-- > 0) throw Object.assign(new Error('EIO: i/o error, link'), { code: 'EIO' });
    return link(from, to);
  }) as typeof fs.linkSync;
  syncBuiltinESMExports();
  try {
    assert.throws(() => rig.forwarder.backfill(), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_WRITE' && /Cannot publish the new dataset .*EIO.* Nothing this pass read was kept; run it again\./.test(e.message));
    assert.equal(existsSync(join(home, 'hermetic.db')), false);
    assert.deepEqual(builds(home), []);
  } finally {
    fs.linkSync = link;
    syncBuiltinESMExports();
  }
  assert.equal(rig.forwarder.backfill()[0]!.sessionsWritten, SESSIONS);
  assert.deepEqual(datasetDump(rig), inPlace);
}));

test('a build whose final sync reports a write error (EIO) is not published: its pass fails and claims nothing, no descriptor is left', () => inHome('sync-fails', {}, (rig, home) => {
  const sync = fs.fsyncSync;
  /** This process's descriptors open on a build file (removed or not). */
  const onBuilds = () => readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).includes('hermetic.db.build-');
    } catch {
      return false;
    }
  });
  let failed = 0;
  fs.fsyncSync = ((fd: number) => {
    if (failed++ === 0) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    return sync(fd);
  }) as typeof fs.fsyncSync;
  syncBuiltinESMExports();
  try {
    assert.throws(() => rig.forwarder.backfill(), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_WRITE' && /Cannot publish the new dataset .*EIO/.test(e.message));
    assert.equal(failed, 1, 'the first sync of the pass is the final one: nothing else synced the build');
    assert.equal(existsSync(join(home, 'hermetic.db')), false);
    assert.deepEqual(builds(home), []);
    assert.deepEqual(onBuilds(), [], 'the build\'s connection and its two sync descriptors closed');
  } finally {
    fs.fsyncSync = sync;
    syncBuiltinESMExports();
  }
  assert.equal(rig.forwarder.backfill()[0]!.sessionsWritten, SESSIONS);
  assert.deepEqual(datasetDump(rig), inPlace);
  assert.deepEqual(onBuilds(), []);
}));

test('a pass stopped or failed half-way publishes what it committed, and the next pass finishes it', () => {
  for (const how of ['stopped', 'failed'] as const) {
    const home = join(tmp.dir, how);
    const rig = forwarderRig([store], { dir: tmp.dir, home, readWorker: 'off' });
    try {
      let commits = 0;
      if (how === 'stopped') rig.forwarder.backfill({ keepGoing: () => ++commits < 2 });
      else {
        assert.throws(() => rig.forwarder.backfill({ beforeWrite: () => {
          if (++commits === 3) throw new Error('a bug');
        } }), /a bug/);
      }
    } finally {
      rig.forwarder.close();
    }
    const written = new Database(join(home, 'hermetic.db'), { readonly: true });
    const sessions = written.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number;
    written.close();
    assert.ok(sessions > 0 && sessions < SESSIONS, `${how}: part of the sessions were published (${sessions})`);
    const again = forwarderRig([store], { dir: tmp.dir, home, readWorker: 'off' });
    try {
      assert.equal(again.forwarder.backfill()[0]!.sessionsWritten, SESSIONS - sessions);
      assert.deepEqual(datasetDump(again), inPlace, how);
    } finally {
      again.cleanup();
    }
  }
});

test('the size a build is published at: the option, else HERMETIC_BUILD_ASIDE, else 250,000 messages; anything but a whole number is refused', () => {
  assert.equal(buildAside(undefined, {}), 250_000);
  assert.equal(buildAside(undefined, { HERMETIC_BUILD_ASIDE: '0' }), 0);
  assert.equal(buildAside(undefined, { HERMETIC_BUILD_ASIDE: ' 5000 ' }), 5000);
  assert.equal(buildAside(12, { HERMETIC_BUILD_ASIDE: '5000' }), 12);
  for (const bad of ['-1', '1e3', 'lots', '2.5']) {
    assert.throws(() => buildAside(undefined, { HERMETIC_BUILD_ASIDE: bad }), (e: Error & { code?: string }) => e.code === 'HERMETIC_OPTIONS_INVALID' && e.message.includes('HERMETIC_BUILD_ASIDE'));
  }
  assert.throws(() => buildAside(-3), (e: Error & { code?: string }) => e.code === 'HERMETIC_OPTIONS_INVALID');
});

test('a build that cannot be opened (a time zone that is not one) is removed at once, not left to the next sweep', () => {
  const { dir, cleanup } = tempDir('hermetic-build-fails-');
  try {
    assert.throws(() => startBuild(dir, { timeZone: 'Mars/Olympus' }), (e: Error & { code?: string }) => e.code === 'HERMETIC_OPTIONS_INVALID');
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    cleanup();
  }
});

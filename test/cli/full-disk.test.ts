// A dataset on a disk that fills up, on a real small file system: a tmpfs, where the system lets the test mount one
// (Linux, as root; skipped elsewhere). backfill stops with one line and exit 1, what it published is whole, and once
// there is room the next run finishes it, equal to a dataset written with room; forward says it once, keeps running,
// and catches up by itself. The injected SQLITE_FULL of pipeline/isolation.test.ts is the same promise without a disk.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mountable, smallDisk, type SmallDisk } from '../../src/shared/testing/small-disks.js';
import { generatedStore } from '../../src/state-db/testing/generated.js';
import { childEnv, COMPARED_TABLES, datasetCount, datasetDifferences, datasetRows, keptDifferencesIn, ledgerDifferences, spawnHermetic, STACK_LINE, type DatasetRows } from '../support/forwarder-harness.js';
import { runMain } from '../support/process.js';
import { waitFor } from '../support/wait.js';

const TABLES = [...COMPARED_TABLES, 'usage_ledger', 'tool_usage', 'delegations'];
const FULL = /^hermetic: Cannot write to the dataset: database or disk is full\. \[HERMETIC_DATASET_WRITE\]$/m;

describe('a dataset on a disk that fills up', { skip: mountable }, () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let store: string;
  /** The dataset the store gives on a disk with room. */
  let expected: DatasetRows;
  const disks: SmallDisk[] = [];
  /** A 2 MB tmpfs in the test's folder; null when this system refuses one. */
  const fullDisk = (name: string) => {
    const disk = smallDisk(join(dir, name), '2m');
    if (disk) disks.push(disk);
    return disk;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hermetic-full-disk-'));
    env = childEnv(dir);
    store = join(dir, 'store', 'state.db');
    mkdirSync(join(dir, 'store'));
    generatedStore({ out: store, sessions: 120, messages: 6_000, seed: 'full-disk' });
    const room = join(dir, 'room');
    const r = await runMain(['backfill', '--state-db', store, '--home', room]);
    assert.equal(r.status, 0, r.stderr);
    expected = datasetRows(room, TABLES);
    // Twice the small disks' 2 MB at least: a run there cannot fit by luck.
    assert.ok(statSync(join(room, 'hermetic.db')).size > 4e6, `${statSync(join(room, 'hermetic.db')).size} bytes`);
  });
  after(() => {
    for (const disk of disks) disk.release();
    rmSync(dir, { recursive: true, force: true });
  });

  it('backfill: one line and exit 1; what it published is whole; with room, the next run finishes it as one run with room would', async (t) => {
    const disk = fullDisk('backfill');
    if (!disk) return t.skip('this system refused a tmpfs');
    const home = join(disk.path, 'home');
    const first = spawnHermetic(['backfill', '--state-db', store, '--home', home], { env });
    assert.equal((await first.exited).code, 1);
    assert.match(first.stderr(), FULL);
    assert.doesNotMatch(first.stderr(), STACK_LINE);
    assert.match(first.stdout(), /^backfill: the dataset could not be written \(see above\)/);
    // What the build had committed was published (decision 0058): sound, and every session in it whole.
    assert.ok(existsSync(join(home, 'hermetic.db')), 'a part was published');
    assert.deepEqual(readdirSync(home).filter((n) => n.includes('.build-')), [], 'no build file left');
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const counts = db.prepare('SELECT session_id, COUNT(*) FROM messages GROUP BY session_id').raw().all() as [string, number][];
      assert.ok(counts.length > 0 && counts.length < 120, `${counts.length} sessions published`);
      const whole = new Map<string, number>();
      for (const m of expected.messages!) whole.set(m[1] as string, (whole.get(m[1] as string) ?? 0) + 1);
      for (const [session, n] of counts) assert.equal(n, whole.get(session), session);
    } finally {
      db.close();
    }
    // Still full: nothing more, the same line again.
    const again = spawnHermetic(['backfill', '--state-db', store, '--home', home], { env });
    assert.equal((await again.exited).code, 1);
    assert.match(again.stderr(), FULL);
    disk.grow('64m');
    const done = spawnHermetic(['backfill', '--state-db', store, '--home', home], { env });
    assert.equal((await done.exited).code, 0, done.stderr());
    assert.deepEqual(datasetDifferences(datasetRows(home, TABLES), expected), []);
    assert.deepEqual(ledgerDifferences(home), []);
    assert.deepEqual(keptDifferencesIn(home), []);
  });

  it('forward: says it once, keeps running, and catches up by itself once there is room; SIGTERM ends it with 0', async (t) => {
    const disk = fullDisk('forward');
    if (!disk) return t.skip('this system refused a tmpfs');
    const home = join(disk.path, 'home');
    const h = spawnHermetic(['forward', '--interval', '1s', '--state-db', store, '--home', home], { env });
    assert.ok(await h.line(/HERMETIC_DATASET_WRITE/), h.stderr());
    disk.grow('64m');
    await waitFor(() => datasetCount(home, 'messages') === expected.messages!.length, 'forward to catch up');
    h.child.kill('SIGTERM');
    assert.equal((await h.exited).code, 0, h.stderr());
    assert.equal(h.stderr().match(/HERMETIC_DATASET_WRITE/g)?.length, 1, h.stderr());
    assert.doesNotMatch(h.stderr(), STACK_LINE);
    assert.deepEqual(datasetDifferences(datasetRows(home, TABLES), expected), []);
    assert.deepEqual(ledgerDifferences(home), []);
  });
});

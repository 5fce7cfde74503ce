// A build's early syncs (decision 0060, addendum "early syncs"): started in the background once the build has grown by
// EARLY_SYNC_BYTES, one at a time; the final sync is on a descriptor of its own; no descriptor outlives close().
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { BuildSync, EARLY_SYNC_BYTES } from './build-sync.js';

/** This process's descriptors open on `path` (other tests sharing the process open and close their own meanwhile). */
const openOn = (path: string) => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
}).length;
const returned = async (s: BuildSync) => {
  while (s.syncing) await new Promise((r) => setImmediate(r));
};

test('an early sync starts each time the build has grown by EARLY_SYNC_BYTES, never two at once; the final one and close() end it', async () => {
  const tmp = tempDir('hermetic-build-sync-');
  try {
    const path = join(tmp.dir, 'hermetic.db.build-1-1');
    writeFileSync(path, Buffer.alloc(1 << 20, 1));
    const s = BuildSync.open(path)!;
    assert.equal(openOn(path), 2, 'two descriptors, both opened with the build');
    s.nudge();
    assert.deepEqual([s.started, s.syncing], [0, false], 'below the step: nothing started');
    appendFileSync(path, Buffer.alloc(EARLY_SYNC_BYTES, 2));
    s.nudge();
    assert.deepEqual([s.started, s.syncing], [1, true]);
    appendFileSync(path, Buffer.alloc(EARLY_SYNC_BYTES, 3));
    s.nudge();
    assert.equal(s.started, 1, 'one at a time');
    await returned(s);
    s.nudge();
    assert.equal(s.started, 2, 'the growth since the last start');
    s.final();
    s.close();
    s.close();
    await returned(s);
    assert.equal(openOn(path), 0, 'the early descriptor closed once its sync returned');
    s.nudge();
    assert.equal(s.started, 2, 'nothing after close()');
  } finally {
    tmp.cleanup();
  }
});

test('a build whose descriptors cannot be opened has no early syncs (null): it is synced by its path at the end', () => {
  assert.equal(BuildSync.open('/nonexistent/hermetic.db.build-1-1'), null);
});

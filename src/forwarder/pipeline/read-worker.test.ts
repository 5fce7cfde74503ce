// The read worker (decision 0027) is a fast path beside the plain one: a backfill read by the worker writes the same
// dataset, row for row, as one read on the calling thread alone; a store the worker cannot read fails the pass with
// the code the calling thread would give, and the next pass does it all.
import assert from 'node:assert/strict';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from '../../state-db/generate/index.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { DATASET_TABLES } from '../dataset/columns.js';
import { forwarderRig, type Rig } from '../testing/index.js';
import type { ReadWorkerMode } from './read-mode.js';

/** Every table of the dataset, every row, in primary-key order. */
function dump(rig: Rig): Record<string, unknown[]> {
  return Object.fromEntries(DATASET_TABLES.map((t) => [t.name, rig.query(`SELECT * FROM "${t.name}" ORDER BY ${t.primaryKey.map((c) => `"${c}"`).join(', ')}`)]));
}

for (const profile of ['v30', 'mid', 'wal-tail']) {
  for (const redact of [false, true]) {
    test(`${profile}${redact ? ', redacted' : ''}: read by the worker, by this thread alone, or both, the dataset is the same`, () => {
      const { dir, cleanup } = tempDir('hermetic-read-worker-');
      // One store per profile, generated once for both redact settings (and kept for the next run).
      const { path } = generatedStore({ out: join(dir, 'hermes', 'state.db'), profile, sessions: 130, messages: 2600, seed: 'read-worker' });
      const rigs = (['off', 'only', 'auto'] as ReadWorkerMode[]).map((readWorker) => forwarderRig([path], { dir, home: join(dir, readWorker), readWorker, redact }));
      try {
        const results = rigs.map((rig) => rig.forwarder.backfill()[0]!);
        for (const r of results) assert.equal(r.error, null);
        assert.equal(results[0]!.readByWorker, 0);
        assert.equal(results[1]!.readByWorker, results[1]!.sessionsSeen);
        const [plain, ...fast] = rigs.map(dump);
        assert.ok(plain!.messages!.length > 2000 && plain!.parts!.length > plain!.messages!.length);
        for (const d of fast) assert.deepEqual(d, plain);
        // And a second pass finds nothing to do, whoever read the first.
        for (const rig of rigs) assert.equal(rig.forwarder.backfill()[0]!.sessionsWritten, 0);
      } finally {
        for (const rig of rigs) rig.cleanup();
        cleanup();
      }
    });
  }
}

test('a store the worker cannot open fails the pass with HERMETIC_READER_OPEN, writes nothing (no dataset), and the next pass does it all', () => {
  const { dir, cleanup } = tempDir('hermetic-read-worker-');
  const { path, sessions } = generate({ out: join(dir, 'hermes', 'state.db'), sessions: 40, messages: 400, seed: 'read-worker-gone', journal: 'delete' });
  const rig = forwarderRig([path], { dir, readWorker: 'only' });
  try {
    // The calling thread has the store open when the pass starts; the worker opens it after, and finds it gone.
    const [r] = rig.forwarder.backfill({ onProgress: (done) => { if (done === 0) renameSync(path, `${path}.away`); } });
    assert.equal(r!.error?.code, 'HERMETIC_READER_OPEN');
    assert.match(r!.error!.message, new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    // Nothing was written, so not even the dataset was created.
    assert.equal(existsSync(join(rig.home, 'hermetic.db')), false);
    renameSync(`${path}.away`, path);
    const [again] = rig.forwarder.backfill();
    assert.deepEqual([again!.error, again!.sessionsWritten, again!.readByWorker], [null, sessions, sessions]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

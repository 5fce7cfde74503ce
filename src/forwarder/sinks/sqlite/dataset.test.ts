// The dataset as its openers find it: a table removed by hand is said as damage with what to do (HERMETIC_DATASET_OPEN),
// by the writer's opener and the read-only one alike, and never met later by a statement as a bug.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { DATASET_FILE, openDataset, openDatasetReadOnly } from './dataset.js';

test('a dataset missing a table (removed by hand) is refused by both openers, naming the table and what to do', () => {
  const { dir, cleanup } = tempDir('hermetic-dataset-tables-');
  try {
    openDataset(dir).close();
    // Whole: both open it.
    openDatasetReadOnly(dir).close();
    const db = new Database(join(dir, DATASET_FILE));
    db.exec('DROP TABLE tool_calls; DROP TABLE quarantine');
    db.close();
    const said = (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
      && e.message === `The dataset at ${join(dir, DATASET_FILE)} has no quarantine, tool_calls tables (removed by hand?): move it aside and run hermetic backfill to build it again from Hermes's stores, which Hermetic never writes.`;
    assert.throws(() => openDataset(dir), said);
    assert.throws(() => openDatasetReadOnly(dir), said);
  } finally {
    cleanup();
  }
});

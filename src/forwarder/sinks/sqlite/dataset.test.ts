// The dataset as its openers find it: a table removed by hand is said as damage with what to do (HERMETIC_DATASET_OPEN),
// by the writer's opener and the read-only one alike, and never met later by a statement as a bug.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

test('a dataset in a folder this user may not write (read-only media, another user\'s) is read through a private copy, gone at close; nothing appears beside it', (t) => {
  const { dir, cleanup } = tempDir('hermetic-dataset-readonly-');
  const folder = join(dir, 'ro');
  const root = process.getuid?.() === 0;
  let mounted = false;
  try {
    const db = openDataset(dir);
    db.prepare("INSERT INTO dataset_meta (key, value) VALUES ('probe', 'written before')").run();
    db.close();
    mkdirSync(folder);
    // Root may write in any folder: only a read-only mount stops it. Anyone else: a folder without write permission.
    if (root) {
      if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', folder]).status !== 0) return t.skip('this system refused a tmpfs');
      mounted = true;
    }
    copyFileSync(join(dir, DATASET_FILE), join(folder, DATASET_FILE));
    if (root) assert.equal(spawnSync('mount', ['-o', 'remount,ro', folder]).status, 0);
    else chmodSync(folder, 0o555);
    const before = readdirSync(folder);
    const copies = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`hermetic-snapshot-${process.pid}-`));
    const ours = copies().length;
    const read = openDatasetReadOnly(folder);
    assert.equal(read.prepare("SELECT value FROM dataset_meta WHERE key = 'probe'").pluck().get(), 'written before');
    assert.equal(copies().length, ours + 1, 'read through a private copy');
    read.close();
    assert.equal(copies().length, ours, 'the copy goes with the connection');
    assert.equal(read.open, false);
    assert.deepEqual(readdirSync(folder), before, 'nothing beside the dataset');
  } finally {
    if (mounted) spawnSync('umount', ['-l', folder]);
    else if (existsSync(folder)) chmodSync(folder, 0o755);
    cleanup();
  }
});

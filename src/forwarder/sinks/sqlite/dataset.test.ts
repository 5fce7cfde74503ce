// The dataset as its openers find it: a table removed by hand is said as damage with what to do (HERMETIC_DATASET_OPEN),
// by the writer's opener and the read-only one alike, and never met later by a statement as a bug.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readOnlyFolder, smallDisk, type ReadOnlyFolder } from '../../../shared/testing/small-disks.js';
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

test('a dataset in a folder this user may not write (read-only media, another user\'s) is read through a private copy, gone at close; nothing appears beside it; writing it is refused in words', (t) => {
  const { dir, cleanup } = tempDir('hermetic-dataset-readonly-');
  const folder = join(dir, 'ro');
  let ro: ReadOnlyFolder | null = null;
  try {
    const db = openDataset(dir);
    db.prepare("INSERT INTO dataset_meta (key, value) VALUES ('probe', 'written before')").run();
    db.close();
    ro = readOnlyFolder(folder, (p) => copyFileSync(join(dir, DATASET_FILE), join(p, DATASET_FILE)));
    if (!ro) return t.skip('this system refused a tmpfs');
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
    const why = ro.why;
    assert.throws(() => openDataset(folder), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
      && e.message === `Cannot write the dataset at ${join(folder, DATASET_FILE)}: ${why} (report, query, status and web can still read it).`);
    assert.deepEqual(readdirSync(folder), before);
  } finally {
    ro?.release();
    cleanup();
  }
});

test('a new dataset whose tables do not fit on the disk is refused in words, as tables not created, not as an upgrade', (t) => {
  const { dir, cleanup } = tempDir('hermetic-dataset-full-');
  const disk = smallDisk(join(dir, 'full'), '64k');
  try {
    if (!disk) return t.skip('this system refused a tmpfs');
    const home = join(disk.path, 'home');
    assert.throws(() => openDataset(home), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
      && e.message === `Cannot create the dataset's tables at ${join(home, DATASET_FILE)}: the disk is full. Nothing of it was changed: make room and run this again.`);
  } finally {
    disk?.release();
    cleanup();
  }
});

test('a folder named hermetic.db is said as a folder, by both openers, not as SQLite\'s disk I/O error', () => {
  const { dir, cleanup } = tempDir('hermetic-dataset-folder-');
  try {
    const path = join(dir, DATASET_FILE);
    mkdirSync(path);
    const said = (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
      && e.message === `Cannot open the dataset at ${path}: it is a folder, not a dataset file; move it aside, and the next backfill or forward makes the dataset there.`;
    assert.throws(() => openDataset(dir), said);
    assert.throws(() => openDatasetReadOnly(dir), said);
    assert.deepEqual(readdirSync(path), [], 'nothing made inside it');
  } finally {
    cleanup();
  }
});

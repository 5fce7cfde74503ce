// What `hermetic status` says in words: how long changes have waited, and the row issues a store's sessions have.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { lagText, quarantineText, rowIssuesText, sinkLagText, sizeLine } from './status.js';
import { statusReport } from './status-report.js';

test('a lag reads in the two largest units a person needs', () => {
  assert.deepEqual([0, 42.4, 59.6, 60, 3599, 3600, 3659, 3660, 86399, 86400, 90000, 12 * 86400 + 3 * 3600 + 5].map(lagText),
    ['0 s', '42 s', '1 min', '1 min', '59 min', '1 h', '1 h', '1 h 1 min', '23 h 59 min', '1 d', '1 d 1 h', '12 d 3 h']);
  assert.equal(lagText(-5), '0 s');
});

test('the row-issues line counts values, messages and sessions in the singular when there is one', () => {
  assert.equal(rowIssuesText({ entries: 1, messages: 1, sessions: 1 }), 'row issues: 1 value changed or left out, in 1 message of 1 session (hermetic query "SELECT * FROM row_issues")');
  assert.equal(rowIssuesText({ entries: 1200, messages: 3, sessions: 2 }), 'row issues: 1,200 values changed or left out, in 3 messages of 2 sessions (hermetic query "SELECT * FROM row_issues")');
});

test('a sink behind: its first copy first (not sent yet, or where it is), then the changes made since', () => {
  const sink = { lag_rows: 0, lag_seconds: 0, snapshot: null } as unknown as Parameters<typeof sinkLagText>[0];
  assert.equal(sinkLagText({ ...sink, lag_rows: 1, lag_seconds: 4.6 }), '1 change behind, 5 s');
  assert.equal(sinkLagText({ ...sink, snapshot: { table: 'sessions', tables_done: 0, tables: 9, started: false }, lag_seconds: 60 }), 'first copy not sent yet (the whole dataset), 60 s');
  assert.equal(sinkLagText({ ...sink, snapshot: { table: 'parts', tables_done: 2, tables: 9, started: true }, lag_rows: 3 }), 'first copy under way (at parts, 2 of 9 tables sent), then 3 changes made since');
});

test('a quarantined session: when it is tried again; a retry time past any backoff (the clock set back) is the next pass', () => {
  const now = 1_800_000_000;
  const q = (retryAt: number) => ({ session_id: 's\n1', failures: 2, last_error: 'disk says no', retry_at: new Date(retryAt * 1000).toISOString() });
  assert.equal(quarantineText(q(now + 60), now), 'quarantined: s⏎1 (2 failures, retry after 2027-01-15T08:01:00.000Z): disk says no');
  assert.equal(quarantineText(q(now - 60), now), 'quarantined: s⏎1 (2 failures, retry after 2027-01-15T07:59:00.000Z): disk says no');
  assert.equal(quarantineText(q(now + 86_400), now), 'quarantined: s⏎1 (2 failures, retried by the next pass; the clock went back since its retry was set): disk says no');
});

test('the dataset\'s size; its free pages too, with how to give them back, when they are a quarter of it and 16 MB or more', () => {
  assert.equal(sizeLine({ bytes: 92_311_552, free_bytes: 0 }), 'size: 92.3 MB');
  assert.equal(sizeLine({ bytes: 100e6, free_bytes: 24e6 }), 'size: 100.0 MB');
  assert.equal(sizeLine({ bytes: 40e6, free_bytes: 15e6 }), 'size: 40.0 MB');
  assert.equal(sizeLine({ bytes: 797_319_168, free_bytes: 346_000_000 }),
    'size: 797.3 MB, of which 346.0 MB free pages SQLite reuses for later writes (VACUUM it with any SQLite client, while no forwarder runs, to give them back)');
});

test('a hermetic.db with no dataset in it yet (an empty file, another SQLite file) is said as not created, not as a bug', async () => {
  const { dir, cleanup } = tempDir('hermetic-status-empty-');
  try {
    const path = join(dir, 'hermetic.db');
    const none = join(dir, 'hermes');
    writeFileSync(path, '');
    const empty = (await statusReport(dir, [none])).report;
    assert.deepEqual([empty.dataset_exists, empty.dataset_size, Object.values(empty.rows).every((n) => n === 0)], [false, null, true]);
    assert.deepEqual(empty.stores.map((s) => [s.path, s.error_kind]), [[none, 'missing']]);
    const other = new Database(path);
    other.exec('CREATE TABLE t (x)');
    other.close();
    assert.equal((await statusReport(dir, [none])).report.dataset_exists, false);
  } finally {
    cleanup();
  }
});

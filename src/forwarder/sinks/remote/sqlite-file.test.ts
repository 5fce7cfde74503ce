// The sqlite:// remote sink passes the conformance suite: a real second SQLite file, "down" while another connection
// holds its write lock.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteSinkConformance, SHIP_CHILD } from './conformance.js';
import { builtModule } from '../../../../test/support/cli-build.js';
import { test } from 'node:test';
import { SinkError } from './contract.js';
import { sinkScheme } from './registry.js';
import { createSqliteFileSink, readSqliteSinkFile, sinkError } from './sqlite-file.js';
import { createWorld, expectedRows, heldRows } from './testing/world.js';
import { openDataset } from '../sqlite/dataset.js';

remoteSinkConformance('sqlite-file', {
  // The crash case's child from the tests' build of src/, as the bin's processes run (decision 0095).
  shipChild: () => builtModule(SHIP_CHILD),
  fresh: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermetic-sqlite-sink-'));
    const path = join(dir, 'copy.db');
    let lock: Database.Database | null = null;
    return {
      url: `sqlite://${path}?busy_timeout_ms=50`,
      read: async (origin) => readSqliteSinkFile(path, origin.machineId),
      down: async () => {
        lock = new Database(path);
        lock.exec('BEGIN EXCLUSIVE');
      },
      up: async () => {
        lock?.exec('ROLLBACK');
        lock?.close();
        lock = null;
      },
      cleanup: async () => {
        lock?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

test('a sink file in a folder that does not exist is waited for, never made (no folders from a typo); a folder URL is refused; the file is private', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-sqlite-sink-'));
  try {
    const missing = createSqliteFileSink(`sqlite://${join(dir, 'nope', 'deeper', 'copy.db')}`);
    await assert.rejects(missing.open(), (e: unknown) => e instanceof SinkError && e.code === 'HERMETIC_SINK_UNAVAILABLE' && e.retriable && /the folder .*nope\/deeper does not exist/.test(e.message));
    assert.equal(existsSync(join(dir, 'nope')), false);
    assert.throws(() => createSqliteFileSink(`sqlite://${dir}`), (e: unknown) => e instanceof SinkError && e.code === 'HERMETIC_SINK_URL' && !e.retriable);
    const sink = createSqliteFileSink(`sqlite://${join(dir, 'copy.db')}`);
    await sink.open();
    await sink.close();
    assert.equal(statSync(join(dir, 'copy.db')).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a copy made before the dataset gained a column gets it when the sink opens it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-sqlite-sink-'));
  try {
    const path = join(dir, 'copy.db');
    const first = createSqliteFileSink(`sqlite://${path}`);
    await first.open();
    await first.close();
    const old = new Database(path);
    old.exec('ALTER TABLE messages DROP COLUMN compacted');
    old.close();
    const again = createSqliteFileSink(`sqlite://${path}`);
    await again.open();
    await again.close();
    const db = new Database(path, { readonly: true });
    assert.ok((db.prepare('PRAGMA table_info(messages)').all() as { name: string }[]).some((c) => c.name === 'compacted'));
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sink caught up before row_issues was shipped gets the table and its rows once the dataset is upgraded, then its changes (decision 0092)', async () => {
  const world = createWorld('hermetic-sqlite-sink-upgrade-');
  try {
    const path = join(world.dir, 'copy.db');
    const url = `sqlite://${path}`;
    assert.equal((await world.ship(url)).state, 'caught-up');
    // As version 11 left both: no row_issues triggers in the dataset, no row_issues table in the copy.
    for (const op of ['insert', 'delete', 'update']) world.dataset.exec(`DROP TRIGGER change_log_row_issues_${op}`);
    world.dataset.pragma('user_version = 11');
    const copy = new Database(path);
    copy.exec('DROP TABLE row_issues');
    copy.close();
    openDataset(world.home).close();
    assert.equal((await world.ship(url)).state, 'caught-up');
    const held = () => readSqliteSinkFile(path, world.origin.machineId);
    assert.equal(held().row_issues!.length, 2, 'the rows the dataset held: the main session\'s and its delegation\'s');
    assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
    // From then on, the log: the delegation's repaired time goes once Hermes writes a real one.
    world.w.claimDelegationDelivery(world.delegations.main);
    world.tick();
    assert.equal((await world.ship(url)).state, 'caught-up');
    assert.deepEqual(held().row_issues!.map((r) => r.session_id), [world.sessions.main]);
    assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
  } finally {
    await world.cleanup();
  }
});

test('a file that cannot be written (a read-only mount) is retried and says what to do; a file that is not a database fails, and says so', async () => {
  const readOnly = sinkError('cannot write to /mnt/ro/copy.db', Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }));
  assert.deepEqual([readOnly.code, readOnly.retriable], ['HERMETIC_SINK_UNAVAILABLE', true]);
  assert.match(readOnly.message, /\(SQLITE_READONLY\); the file or its folder cannot be written \(make it writable, or remount its disk\); the sink catches up once it can$/);
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-sqlite-sink-notdb-'));
  try {
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'these are my notes, not a database '.repeat(200));
    const sink = createSqliteFileSink(`sqlite://${path}`);
    await assert.rejects(sink.open(), (e: unknown) => e instanceof SinkError && e.code === 'HERMETIC_SINK_FAILED' && !e.retriable
      && /not a database.*name another file with --sink \(a sink already fed is removed with "hermetic sinks remove URL"\)$/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sink URL with a blank in it (a config line run into the next) is refused; a space written %20 is a space in the path', () => {
  assert.throws(() => sinkScheme('sqlite:///tmp/copy.db - bad indent'), (e: unknown) => e instanceof SinkError && e.code === 'HERMETIC_SINK_URL' && /has a blank in it; a sink URL writes a space as %20/.test(e.message));
  assert.equal(sinkScheme('sqlite:///tmp/My%20Copies/copy.db'), 'sqlite');
  assert.equal(createSqliteFileSink('sqlite:///tmp/My%20Copies/copy.db').id, 'sqlite:///tmp/My Copies/copy.db');
});

// The sqlite:// remote sink passes the conformance suite: a real second SQLite file, "down" while another connection
// holds its write lock.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteSinkConformance } from './conformance.js';
import { test } from 'node:test';
import { SinkError } from './contract.js';
import { createSqliteFileSink, readSqliteSinkFile } from './sqlite-file.js';

remoteSinkConformance('sqlite-file', {
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

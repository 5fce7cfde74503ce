// The sqlite:// remote sink passes the conformance suite: a real second SQLite file, "down" while another connection
// holds its write lock.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remoteSinkConformance } from './conformance.js';
import { readSqliteSinkFile } from './sqlite-file.js';

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

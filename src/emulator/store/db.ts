// Opens the emulator's SQLite store and brings its schema up to date.
import { openReadWrite, type Db } from '../../shared/sqlite.js';
import { MIGRATIONS } from './migrations/index.js';

export function openEmulatorStore(path: string): Db {
  const db = openReadWrite(path);
  // The emulator's rows must survive a killed process (the OS keeps written pages), not a power cut: skipping the
  // fsyncs at checkpoints keeps keyed admission fast (decision 0005).
  db.pragma('synchronous = OFF');
  // Checkpoint less often (every ~40 MB of WAL instead of ~4 MB): fewer page copies under a burst of admissions.
  db.pragma('wal_autocheckpoint = 10000');
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let i = version; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i]!);
      db.pragma(`user_version = ${i + 1}`);
    }).immediate();
  }
  return db;
}

// Opens the emulator's SQLite store, brings its schema up to date, and puts a run table over it.
import { openReadWrite, PRIVATE_STORE, type Db } from '../../shared/sqlite.js';
import type { LockWait, RunTable, StoreUnavailable } from '../runs/run-table.js';
import { STATEMENT_BUSY_MS } from './busy.js';
import { FastRunTable } from './fast-run-table.js';
import { MIGRATIONS } from './migrations/index.js';
import { PlainRunTable } from './plain-run-table.js';

/** The pages a private store (a namespace's, or the default one's without --db) keeps in memory, in KiB. */
const PRIVATE_CACHE_KIB = 1024;

export function openEmulatorStore(path: string): Db {
  const db = openReadWrite(path);
  // A private store keeps 1 MiB of pages in memory and the rest in its temporary file: 10,000 namespaces stay bounded.
  if (path === PRIVATE_STORE) db.pragma(`cache_size = -${PRIVATE_CACHE_KIB}`);
  // The emulator's rows must survive a killed process (the OS keeps written pages), not a power cut: skipping the
  // fsyncs at checkpoints keeps keyed admission fast (decision 0005; coverage.md states the power-loss difference).
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
  // From here a statement blocks the event loop at most this long on another connection's lock; the run table
  // waits for the rest off the loop (store/busy.ts).
  db.pragma(`busy_timeout = ${STATEMENT_BUSY_MS}`);
  return db;
}

/** `fast`: the run table the emulator serves; `plain`: its obviously-correct twin (Hermes's own algorithm). */
export type RunTableKind = 'fast' | 'plain';

export interface RunTableOptions {
  kind: RunTableKind;
  lock: LockWait;
  /** Store failures no request will see (a background commit that failed and will be retried). */
  onBackgroundError: (error: StoreUnavailable) => void;
}

export function openRunTable(path: string, options: RunTableOptions): RunTable {
  const db = openEmulatorStore(path);
  return options.kind === 'plain' ? new PlainRunTable(db, options.lock) : new FastRunTable(db, options);
}

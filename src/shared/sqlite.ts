// better-sqlite3 openers: read-write stores with WAL and a busy timeout, and read-only readers for foreign stores.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { HermeticError, type ErrorCode } from './errors.js';

export type Db = Database.Database;

/** Opens (creating if needed) a store we own: WAL where the file supports it, 5 s busy timeout, file mode 0600. */
export function openReadWrite(path: string): Db {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const fresh = path === ':memory:' || !existsSync(path);
    const db = new Database(path);
    db.pragma('busy_timeout = 5000');
    if (path !== ':memory:') {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      if (fresh) chmodSync(path, 0o600);
    }
    return db;
  } catch (e) {
    throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot open the store at ${path}: ${(e as Error).message}.`);
  }
}

/** Opens a store strictly read-only (never creates, never writes, waits up to 5 s on a busy writer). */
export function openReadOnly(path: string, code: ErrorCode = 'HERMETIC_STORE_OPEN'): Db {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (e) {
    throw new HermeticError(code, `Cannot open ${path} read-only: ${(e as Error).message}.`);
  }
}

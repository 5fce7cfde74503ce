// A writable state.db and its -wal and -shm owner-only (0600) whatever the umask, as Hermes makes them on each of its
// writable opens (hermes_state.py, _secure_state_db_files; decision 0134). SQLite gives a new -wal or -shm the main
// file's mode, so a main file made 0600 keeps its sidecars private; an existing loose one is tightened in place.
import { chmodSync, closeSync, constants, lstatSync, openSync } from 'node:fs';

/**
 * Before SQLite opens `path` (`createMain`: a missing main file is made 0600 first, never following a link) and again
 * after (the sidecars WAL setup made visible): each of the three files that is a regular file becomes 0600. A link or
 * anything else is left alone, as Hermes leaves it; nothing is done on Windows.
 * @example securePrivateFiles('/tmp/state.db', { createMain: true }); const db = new Database('/tmp/state.db');
 */
export function securePrivateFiles(path: string, options: { createMain?: boolean } = {}): void {
  if (process.platform === 'win32' || path === ':memory:') return;
  if (options.createMain) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Already there (tightened below), or a folder: SQLite says what is wrong with that.
      if (code !== 'EEXIST' && code !== 'EISDIR') throw e;
    }
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    let stat;
    try {
      stat = lstatSync(file);
    } catch {
      continue;
    }
    // chmod on the path, never an open and close: a close would drop this process's locks on the file.
    if (stat.isFile() && (stat.mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  }
}

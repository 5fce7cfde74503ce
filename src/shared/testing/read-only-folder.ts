// A folder this user cannot write in, for the tests of stores and datasets kept there (read-only media, a backup,
// another user's folder): as root a tmpfs remounted read-only (root writes in any folder its permissions forbid),
// otherwise a folder without write permission. Linux; where the system refuses the tmpfs, null and the test skips.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';

export interface ReadOnlyFolder {
  /** Why nothing can be written there, as folderNotWritable (src/shared/sqlite.ts) says it. */
  readonly why: string;
  /** Makes it writable again (unmounts the tmpfs), so the test's temporary folder can be removed. */
  release(): void;
}

/**
 * Makes `path` (which must not exist), lets `fill` write into it, then makes it read-only.
 * @example const ro = readOnlyFolder(join(dir, 'ro'), (p) => copyFileSync(db, join(p, 'x.db'))); if (!ro) return t.skip('…');
 */
export function readOnlyFolder(path: string, fill: (path: string) => void = () => {}): ReadOnlyFolder | null {
  mkdirSync(path);
  if (process.getuid?.() !== 0) {
    fill(path);
    chmodSync(path, 0o555);
    return { why: `this user may not write in the folder ${path}`, release: () => existsSync(path) && chmodSync(path, 0o755) };
  }
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', path]).status !== 0) return null;
  const release = () => void spawnSync('umount', ['-l', path]);
  try {
    fill(path);
    if (spawnSync('mount', ['-o', 'remount,ro', path]).status !== 0) throw new Error(`could not remount ${path} read-only`);
  } catch (e) {
    release();
    throw e;
  }
  return { why: `the folder ${path} is on a read-only file system`, release };
}

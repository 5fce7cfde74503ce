// Real small file systems for the tests of what a full or read-only disk does to a store or a dataset: a tmpfs of a
// few MB (Linux, as root; `mountable` says whether to try), and a folder this user cannot write in (a tmpfs remounted
// read-only as root, who writes in any folder its permissions forbid; otherwise a folder without write permission).
// Where the system refuses a tmpfs, the helpers give null and the test skips.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';

/** Whether tests may mount a tmpfs here (Linux, as root): the reason to skip them otherwise. */
export const mountable: string | false = process.platform === 'linux' && process.getuid?.() === 0 ? false : 'mounting a small tmpfs needs root on Linux';

export interface SmallDisk {
  readonly path: string;
  /** Gives it more room (mount's units: 64m). */
  grow(size: string): void;
  /** Unmounts it, so the test's temporary folder can be removed. */
  release(): void;
}

/**
 * A tmpfs of `size` (mount's units: 1m) at `path`, made for it; null when the system refuses one.
 * @example const disk = smallDisk(join(dir, 'full'), '2m'); if (!disk) return t.skip('…'); try { … } finally { disk.release(); }
 */
export function smallDisk(path: string, size: string): SmallDisk | null {
  mkdirSync(path);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]).status !== 0) return null;
  return {
    path,
    grow(more) {
      if (spawnSync('mount', ['-o', `remount,size=${more}`, path]).status !== 0) throw new Error(`could not grow ${path} to ${more}`);
    },
    release: () => void spawnSync('umount', ['-l', path]),
  };
}

export interface ReadOnlyFolder {
  /** Why nothing can be written there, as folderNotWritable (src/shared/sqlite.ts) says it. */
  readonly why: string;
  /** Makes it writable again (unmounts the tmpfs), so the test's temporary folder can be removed. */
  release(): void;
}

/**
 * Makes `path` (which must not exist), lets `fill` write into it, then makes it read-only; null when the system
 * refuses the tmpfs root needs.
 * @example const ro = readOnlyFolder(join(dir, 'ro'), (p) => copyFileSync(db, join(p, 'x.db'))); if (!ro) return t.skip('…');
 */
export function readOnlyFolder(path: string, fill: (path: string) => void = () => {}): ReadOnlyFolder | null {
  if (process.getuid?.() !== 0) {
    mkdirSync(path);
    fill(path);
    chmodSync(path, 0o555);
    return { why: `this user may not write in the folder ${path}`, release: () => existsSync(path) && chmodSync(path, 0o755) };
  }
  const disk = smallDisk(path, '16m');
  if (!disk) return null;
  try {
    fill(path);
    if (spawnSync('mount', ['-o', 'remount,ro', path]).status !== 0) throw new Error(`could not remount ${path} read-only`);
  } catch (e) {
    disk.release();
    throw e;
  }
  return { why: `the folder ${path} is on a read-only file system`, release: disk.release };
}

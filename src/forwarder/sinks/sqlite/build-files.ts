// The files a first dataset is built in before it is published (first-build.ts, decision 0058):
// `<home>/hermetic.db.build-<pid>-<n>`, one per build (two forwarders of one process may build in one home at once).
// Here so that both the builder and the read-only opener (which says "a first backfill is writing it" instead of
// "there is no dataset") know them without importing each other.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'hermetic.db.build-';
/** A build file's name, or one of SQLite's companions of it (journal, WAL, shared memory). */
const NAME = /^hermetic\.db\.build-(\d+)-\d+(-journal|-wal|-shm)?$/;
let builds = 0;

/** A new file for this process to build the first dataset of `home` in. */
export const buildFile = (home: string): string => join(home, `${PREFIX}${process.pid}-${++builds}`);

/** Whether process `pid` is running (one that exists but is not ours to signal counts as running). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Build {
  pid: number;
  path: string;
  /** Bytes written so far. */
  bytes: number;
}

/** The builds under way in `home`: of other processes that are running (this one's own counts when `own`). */
export function liveBuilds(home: string, own = false): Build[] {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  const out: Build[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || m[2] !== undefined) continue;
    const pid = Number(m[1]);
    if ((pid === process.pid && !own) || !alive(pid)) continue;
    try {
      out.push({ pid, path: join(home, name), bytes: statSync(join(home, name)).size });
    } catch { /* published or dropped meanwhile */ }
  }
  return out;
}

/**
 * Removes the build files (and their companions) of processes that are gone: a build killed before it was published
 * is dropped whole, and the next pass starts over (nothing of it was acknowledged).
 */
export function sweepBuilds(home: string): void {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid !== process.pid && !alive(pid)) rmSync(join(home, name), { force: true });
  }
}

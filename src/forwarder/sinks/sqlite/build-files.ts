// The files a first dataset is built in before it is published (first-build.ts, decision 0058):
// `<home>/hermetic.db.build-<pid>-<n>`, one per build (two forwarders of one process may build in one home at once).
// Here so that both the builder and the read-only opener (which says "a first pass is writing it" instead of
// "there is no dataset") know them without importing each other.
import { readdirSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { isLockedOut } from '../../../shared/sqlite.js';

const PREFIX = 'hermetic.db.build-';
/** A build file's name, or one of SQLite's companions of it (journal, WAL, shared memory). */
const NAME = /^hermetic\.db\.build-(\d+)-\d+(-journal|-wal|-shm)?$/;
let builds = 0;

/** A new file for this process to build the first dataset of `home` in. */
export const buildFile = (home: string): string => join(home, `${PREFIX}${process.pid}-${++builds}`);

/**
 * Whether a build file is being written: its builder holds SQLite's exclusive lock on it from its first write to its
 * close (first-build.ts opens it with `locking_mode = EXCLUSIVE`). A lock, not a pid, so a builder in another PID
 * namespace sharing the folder is seen too; a file that is not a database is nobody's.
 */
function held(path: string): boolean {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 0 });
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return false;
  } catch (e) {
    return isLockedOut(e);
  } finally {
    db?.close();
  }
}

export interface Build {
  pid: number;
  path: string;
  /** Bytes written so far. */
  bytes: number;
}

/** The builds under way in `home` (this process's own count only when `own`). */
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
    const path = join(home, name);
    if ((pid === process.pid && !own) || !held(path)) continue;
    try {
      out.push({ pid, path, bytes: statSync(path).size });
    } catch { /* published or dropped meanwhile */ }
  }
  return out;
}

/**
 * Removes the build files nobody writes (with SQLite's companions of them): a build killed before it was published is
 * dropped whole, and the next pass starts over (nothing of it was acknowledged).
 */
export function sweepBuilds(home: string): void {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return;
  }
  const have = new Set(names);
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const main = m[2] === undefined ? name : name.slice(0, -m[2].length);
    // A companion goes with its file; one whose file is gone is nobody's.
    if (m[2] !== undefined ? have.has(main) : held(join(home, name))) continue;
    rmSync(join(home, name), { force: true });
  }
}

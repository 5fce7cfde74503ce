// Where an export's files live (decision 0037), and the rule that keeps every row in exactly one file:
//   <out>/<table>/data.parquet                     the whole table, rewritten by every export
//   <out>/<table>/day=YYYY-MM-DD/data.parquet      messages and parts: one file per UTC day of created_at,
//                                                  rewritten whole whenever an export's window touches that day
//   <out>/manifest.json                            what is there (manifest.ts)
// A file is replaced by a rename (write-file.ts); a day left with no rows loses its file. Only these names are ever
// written or removed: anything else in <out> is left alone.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import { createDirs } from '../../../shared/dirs.js';

export const DATA_FILE = 'data.parquet';
export const MANIFEST_FILE = 'manifest.json';
const LOCK_FILE = '.hermetic-export.lock';
const DAY_DIR = /^day=(\d{4}-\d{2}-\d{2})$/;
const TEMPORARY = /^\.data\.parquet\.\d+-\d+\.tmp$|^\.manifest\.json\.\d+-\d+\.tmp$/;

export const tableFile = (out: string, table: string) => join(out, table, DATA_FILE);
export const dayDir = (out: string, table: string, day: string) => join(out, table, `day=${day}`);
export const dayFile = (out: string, table: string, day: string) => join(dayDir(out, table, day), DATA_FILE);

/** The days that have a file under `<out>/<table>/`, sorted. */
export function listDays(out: string, table: string): string[] {
  const dir = join(out, table);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => DAY_DIR.exec(name)?.[1])
    .filter((day): day is string => day !== undefined && existsSync(dayFile(out, table, day)))
    .sort();
}

/** Removes a day's file, and its folder when nothing else is in it. */
export function removeDay(out: string, table: string, day: string): void {
  rmSync(dayFile(out, table, day), { force: true });
  try {
    rmdirSync(dayDir(out, table, day));
  } catch {
    // not empty (something not ours is in it) or already gone
  }
}

/** Temporary files an interrupted export left behind (ours only, by their names). */
export function removeLeftovers(out: string, tables: readonly string[]): void {
  const sweep = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) if (TEMPORARY.test(name)) rmSync(join(dir, name), { force: true });
  };
  sweep(out);
  for (const table of tables) {
    sweep(join(out, table));
    for (const day of existsSync(join(out, table)) ? readdirSync(join(out, table)) : []) if (DAY_DIR.test(day)) sweep(join(out, table, day));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Why a folder cannot be written, in words. */
export function outError(out: string, e: unknown): HermeticError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOTDIR' || code === 'EEXIST' ? 'a file is in the way of a folder'
    : code === 'EISDIR' || code === 'ERR_FS_EISDIR' || code === 'ENOTEMPTY' ? 'a folder is in the way of a file'
    : code === 'EROFS' ? 'the file system is read-only'
    : code === 'ENOSPC' ? 'the disk is full'
    : (e as Error)?.message ?? String(e);
  return new HermeticError('HERMETIC_EXPORT_OUT', `Cannot write the export to ${out}: ${why}. Nothing there was changed but the files already replaced, each whole.`);
}

/** Whether an error is the file system's (an errno code, or Node's ERR_FS_*), not SQLite's or a bug. */
export function isFileSystemError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && (/^E[A-Z]+$/.test(code) || code.startsWith('ERR_FS_'));
}

/**
 * Creates `out` when missing and takes its lock (one export at a time per folder; a lock whose process is gone is
 * taken over). Returns the release.
 */
export function lockOut(out: string): () => void {
  try {
    createDirs(out);
  } catch (e) {
    throw outError(out, e);
  }
  const path = join(out, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw outError(out, e);
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new HermeticError('HERMETIC_EXPORT_BUSY', `Another export (process ${holder}) is writing to ${out}; wait for it to finish, or choose another --out.`);
      }
      rmSync(path, { force: true }); // left by an export that is no longer running
    }
  }
  throw new HermeticError('HERMETIC_EXPORT_BUSY', `Another export keeps taking the lock of ${out}; wait for it to finish, or choose another --out.`);
}

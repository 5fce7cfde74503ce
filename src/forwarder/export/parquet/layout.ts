// Where an export's files live (decision 0037), and the rule that keeps every row in exactly one file:
//   <out>/<table>/data.parquet                     the whole table, rewritten by every export
//   <out>/<table>/day=YYYY-MM-DD/data.parquet      messages and parts: one file per UTC day of created_at,
//                                                  rewritten whole whenever an export's window touches that day
//   <out>/manifest.json                            what is there (manifest.ts)
//   <out>/.hermetic-export.lock                    empty; an export holds SQLite's write lock on it (lockOut)
// A file is replaced by a rename (write-file.ts); a day left with no rows loses its file. Only these names are ever
// written or removed: anything else in <out> is left alone.
import { closeSync, existsSync, openSync, readdirSync, rmdirSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isLockedOut, primaryCode } from '../../../shared/sqlite-errors.js';
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
 * Creates `out` when missing and takes its lock: one export at a time per folder. The lock is SQLite's write lock on
 * `<out>/.hermetic-export.lock`, an empty file kept there, which the kernel drops when the process ends however it ends
 * (decision 0084). A pid written in a file outlived a kill -9, and a reused pid then kept every later export out; a
 * lock held by a process is also seen from another PID namespace sharing the folder. Returns the release.
 */
export function lockOut(out: string): () => void {
  const path = join(out, LOCK_FILE);
  try {
    createDirs(out);
    closeSync(openSync(path, 'a')); // made here, so the file system's refusals keep their errno
  } catch (e) {
    throw outError(out, e);
  }
  for (let attempt = 0; ; attempt++) {
    let db: Database.Database | null = null;
    try {
      db = new Database(path, { fileMustExist: true, timeout: 0 });
      db.exec('BEGIN IMMEDIATE');
      const held = db;
      return () => {
        held.exec('ROLLBACK');
        held.close();
      };
    } catch (e) {
      db?.close();
      if (isLockedOut(e)) {
        throw new HermeticError('HERMETIC_EXPORT_BUSY', `Another export is writing to ${out} now (it holds ${LOCK_FILE}); wait for it to finish, or choose another --out.`);
      }
      // What an export before this lock left there (its pid as text), or anything else: the file's content means
      // nothing, only the lock on it does. Emptied in place, never replaced, so every exporter locks the same file.
      if (primaryCode(e) === 'SQLITE_NOTADB' && attempt === 0) {
        truncateSync(path, 0);
        continue;
      }
      throw isFileSystemError(e) ? outError(out, e) : new HermeticError('HERMETIC_EXPORT_OUT', `Cannot lock ${path} for the export: ${(e as Error).message}. Nothing in ${out} was changed.`);
    }
  }
}

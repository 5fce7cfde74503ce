// The machine-local usage-policy list <state>/usage-policy/local-only.json: reading it (fail closed) and matching a dir.
import { isAbsolute, join, resolve } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { isPolicyClass, isStricter, type PolicyClass } from './classes.js';
import { describeReadError, errorCode, readTextFile, type ReadTextFile } from './io.js';

export interface ListEntry {
  /** The folder as written in the file (shown to people). */
  written: string;
  /** The same folder, normalized (no trailing slash, no `.` or `..`); used for matching. */
  dir: string;
  class: PolicyClass;
}

export interface LocalList {
  /** The file the entries came from. */
  file: string;
  entries: readonly ListEntry[];
}

/** Where the list lives under a state folder. */
export function localListPath(stateDir: string): string {
  return join(stateDir, 'usage-policy', 'local-only.json');
}

/**
 * Reads the list: a missing file means no entries; anything else wrong throws HERMETIC_POLICY_LIST (fail closed).
 * @example readLocalList('/home/u/.hermetic').entries // [{ written: '/home/u/secret', dir: '/home/u/secret', class: 'local-only' }]
 */
export function readLocalList(stateDir: string, readFile: ReadTextFile = readTextFile): LocalList {
  const file = localListPath(stateDir);
  let text: string;
  try {
    text = readFile(file);
  } catch (e) {
    const code = errorCode(e);
    // Missing, or cannot be there (a part of its path is a file: the home itself is wrong, which opening it says).
    if (code === 'ENOENT' || code === 'ENOTDIR') return { file, entries: [] };
    // Denied, it may not even exist: a folder above it may be what this user cannot enter.
    if (code === 'EACCES') throw listError(file, 'cannot be read: permission denied (on the file, or on a folder above it)');
    throw listError(file, `exists but cannot be read (${describeReadError(e)})`);
  }
  return parseLocalList(text, file);
}

/** Parses the list's JSON text; `file` only names it in error messages. */
export function parseLocalList(text: string, file: string): LocalList {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw listError(file, 'is not valid JSON');
  }
  if (!isRecord(data)) throw listError(file, 'is not a JSON object with a "version" field');
  if (data.version === 1) {
    const dirs = data.dirs;
    if (!Array.isArray(dirs)) throw listError(file, 'is version 1 but has no "dirs" array');
    return { file, entries: dirs.map((d, i) => entry(file, `dirs[${i}]`, d, 'local-only')) };
  }
  if (data.version === 2) {
    const entries = data.entries;
    if (!Array.isArray(entries)) throw listError(file, 'is version 2 but has no "entries" array');
    return {
      file,
      entries: entries.map((e, i) => {
        if (!isRecord(e)) throw listError(file, `has entries[${i}] that is not a {dir, class} object`);
        if (!isPolicyClass(e.class)) {
          throw badField(file, `entries[${i}].class`, e.class, 'ignore, local-only or full');
        }
        return entry(file, `entries[${i}].dir`, e.dir, e.class);
      }),
    };
  }
  if (data.version === undefined) throw listError(file, 'has no "version" field');
  throw listError(file, `has version ${JSON.stringify(data.version)}, but only versions 1 and 2 are known`);
}

function entry(file: string, where: string, dir: unknown, cls: PolicyClass): ListEntry {
  if (typeof dir !== 'string' || !isAbsolute(dir)) {
    throw badField(file, where, dir, 'an absolute path');
  }
  return { written: dir, dir: resolve(dir), class: cls };
}

/** True when `dir` is `base` or lies under it by whole path segments (`/a/bc` is not under `/a/b`). */
export function isWithin(dir: string, base: string): boolean {
  if (dir === base) return true;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return dir.startsWith(prefix);
}

/**
 * The entry that governs `dir` (normalized, absolute): the deepest containing entry; a tie goes to the stricter class.
 * @example matchLocalList(list, '/a/b/c') // the '/a/b' entry rather than '/a'
 */
export function matchLocalList(entries: readonly ListEntry[], dir: string): ListEntry | null {
  let best: ListEntry | null = null;
  for (const e of entries) {
    if (!isWithin(dir, e.dir)) continue;
    // Every match is an ancestor-or-self of `dir`, so the longer path is the deeper folder.
    if (!best || e.dir.length > best.dir.length || (e.dir.length === best.dir.length && isStricter(e.class, best.class))) {
      best = e;
    }
  }
  return best;
}

function listError(file: string, what: string): HermeticError {
  return new HermeticError('HERMETIC_POLICY_LIST', `The usage-policy list ${file} ${what}.`);
}

function badField(file: string, where: string, value: unknown, need: string): HermeticError {
  if (value === undefined) return listError(file, `has no ${where} (it must be ${need})`);
  return listError(file, `has ${where} = ${JSON.stringify(value)}, but it must be ${need}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

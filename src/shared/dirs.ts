// Creating a folder and its missing parents without `mkdirSync(path, { recursive: true })`, which on Node 20 loops
// forever at full CPU under /proc (mkdir answers ENOENT for the child and EEXIST for /proc itself, so it retries the
// parent, then the child, then the parent…) and so never lets Ctrl-C in. Here the walk is bounded by the path's depth.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, parse, resolve } from 'node:path';
import { HermeticError, type ErrorCode } from './errors.js';

/** A folder that could not be created: the errno `code` of the failure, the level it failed at, and why, in words. */
export class DirsError extends Error {
  readonly code: string;
  /** The folder (a level of the path, or an ancestor in the way) the failure is about. */
  readonly path: string;
  constructor(code: string, path: string, reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'DirsError';
    this.code = code;
    this.path = path;
  }
}

const errnoOf = (e: unknown): string => String((e as NodeJS.ErrnoException)?.code ?? 'EIO');

/** Why `mkdir(dir)` failed, in words (without the errno code). */
function reason(code: string, dir: string, e: unknown): string {
  const parent = dirname(dir);
  switch (code) {
    case 'ENOENT':
      // The parent exists (the walk saw it), yet the kernel says there is nothing there: /proc, /sys, a folder removed
      // meanwhile.
      return `the folder ${parent} does not accept new folders`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied in the folder ${parent}`;
    case 'EROFS':
      return `the folder ${parent} is on a read-only file system`;
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'EMLINK':
      return `the folder ${parent} holds as many folders as it can`;
    default:
      return (e as Error)?.message ?? String(e);
  }
}

/** Whether `path` is a folder now (following links), or null when nothing is there. */
function kind(path: string): 'folder' | 'other' | null {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (e) {
    const code = errnoOf(e);
    // ENOTDIR: an ancestor is a file; the walk goes on up and finds it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new DirsError(code, path, code === 'EACCES' || code === 'EPERM' ? `permission denied reading ${path}` : (e as Error).message, { cause: e });
  }
}

/**
 * `path` itself, or the nearest folder or file above it, that exists (following links), with its kind; null when not
 * even the root does. At most one step per level of the path. Throws a `DirsError` for one it may not look at.
 * @example nearestExisting('/etc/passwd/x/y') // { path: '/etc/passwd', kind: 'other' }
 */
export function nearestExisting(path: string): { path: string; kind: 'folder' | 'other' } | null {
  for (let at = resolve(path); ; at = dirname(at)) {
    const found = kind(at);
    if (found !== null) return { path: at, kind: found };
    if (dirname(at) === at) return null;
  }
}

/**
 * Creates `path` and each missing folder above it (each new level with `mode`), or throws a `DirsError` with the
 * errno code and a reason in words: for callers that turn errno codes into their own errors. A path that is already a
 * folder is fine; one that is a file fails with EEXIST, a file above it with ENOTDIR (as `mkdirSync` would).
 * @example createDirs('/home/u/.hermetic/mirrors', 0o700)
 */
export function createDirs(path: string, mode?: number): void {
  const target = resolve(path);
  const found = nearestExisting(target);
  if (found === null) throw new DirsError('ENOENT', parse(target).root, `${parse(target).root} does not exist`);
  const at = found.path;
  if (found.kind !== 'folder') {
    throw at === target
      ? new DirsError('EEXIST', at, `${at} is a file, not a folder`)
      : new DirsError('ENOTDIR', at, `${at} is a file, not a folder`);
  }
  const missing: string[] = [];
  for (let dir = target; dir !== at; dir = dirname(dir)) missing.push(dir);
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
    } catch (e) {
      const code = errnoOf(e);
      // Made by another process meanwhile: as good as made here.
      if (code === 'EEXIST' && kind(dir) === 'folder') continue;
      throw new DirsError(code, dir, code === 'EEXIST' ? `${dir} is a file, not a folder` : reason(code, dir, e), { cause: e });
    }
  }
}

/**
 * Creates `path` and each missing folder above it (each new level with `mode`); any failure is a HermeticError with
 * the caller's `code` and one sentence naming the folder and the reason.
 * @example makeDirs('/proc/nope', 'HERMETIC_DATASET_OPEN') // throws: Cannot create /proc/nope: the folder /proc does not accept new folders (ENOENT).
 */
export function makeDirs(path: string, code: ErrorCode, mode?: number): void {
  try {
    createDirs(path, mode);
  } catch (e) {
    const err = e as DirsError;
    throw new HermeticError(code, `Cannot create ${path}: ${err.message} (${err.code}).`);
  }
}

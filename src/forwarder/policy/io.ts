// Synchronous file reading for the policy files, with the errors a person needs told apart.
import { lstatSync, readFileSync, realpathSync } from 'node:fs';

/** Reads a whole text file; throws a Node error with a `code` (ENOENT means "no such file"). */
export type ReadTextFile = (path: string) => string;

/** Resolves symbolic links of an existing path; throws when the path does not exist. */
export type RealPath = (path: string) => string;

/**
 * The errno-like code `readTextFile` throws for a symbolic link whose target is missing (the link exists, so it is not
 * "absent"); internal, like ENOENT: `describeReadError` turns it into words, never a HERMETIC_* code a user sees.
 */
export const DANGLING_LINK = 'EDANGLINGLINK';

export const readTextFile: ReadTextFile = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (errorCode(e) === 'ENOENT' && existsAsLink(path)) {
      throw Object.assign(new Error(`${path} is a symbolic link whose target is missing`), { code: DANGLING_LINK });
    }
    throw e;
  }
};

export const realPath: RealPath = (path) => realpathSync.native(path);

function existsAsLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when a read failed because nothing is there (as opposed to something there that cannot be read). */
export function isAbsent(e: unknown): boolean {
  const code = errorCode(e);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A few words on why a read failed, for messages: "permission denied", "it is a folder", … */
export function describeReadError(e: unknown): string {
  switch (errorCode(e)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
      return 'a part of its path is not a folder';
    case DANGLING_LINK:
      return 'it is a symbolic link whose target is missing';
    case 'ELOOP':
      return 'it is a loop of symbolic links';
    default:
      return errorCode(e) ?? (e instanceof Error ? e.message : String(e));
  }
}

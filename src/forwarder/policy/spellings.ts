// The spellings of one folder the policy compares: as given, symlink-resolved, and NFC-folded (spec forwarding §4).
import { dirname, join, relative, resolve } from 'node:path';
import type { RealPath } from './io.js';

/** `dir` and every folder above it, nearest first, ending at the filesystem root. */
export function ancestors(dir: string): string[] {
  const out = [dir];
  for (let d = dir, up = dirname(d); up !== d; d = up, up = dirname(d)) out.push(up);
  return out;
}

/**
 * The symlink-resolved spelling of an absolute folder that need not exist: the nearest existing ancestor is
 * resolved and the rest re-appended. Falls back to the normalized path when nothing resolves.
 * @example resolvedSpelling('/home/u/link/not-yet', realPath) // '/srv/real/not-yet'
 */
export function resolvedSpelling(dir: string, realpath: RealPath): string {
  const normalized = resolve(dir);
  try {
    return realpath(dir); // the kernel's reading of `..` after a link, when the folder exists
  } catch {
    // fall through to the nearest existing ancestor
  }
  for (const a of ancestors(normalized)) {
    try {
      return join(realpath(a), relative(a, normalized));
    } catch {
      continue;
    }
  }
  return normalized;
}

/** The distinct spellings of an absolute folder: normalized as given, then symlink-resolved. */
export function spellings(dir: string, realpath: RealPath): string[] {
  return distinct([resolve(dir), resolvedSpelling(dir, realpath)]);
}

/** The spellings plus their Unicode NFC forms (list membership only); folding adds comparisons, never removes one. */
export function withFolded(paths: readonly string[]): string[] {
  return distinct([...paths, ...paths.map((p) => p.normalize('NFC'))]);
}

function distinct(items: readonly string[]): string[] {
  return [...new Set(items)];
}

// The `.hypignore` file: its text format and what an unreadable one means (spec forwarding §4).
import { join } from 'node:path';
import { isAbsent, readTextFile, type ReadTextFile } from './io.js';

export const DOTFILE_NAME = '.hypignore';

/** The class tokens a `.hypignore` may declare; `full` is deliberately not one (a dotfile can only restrict). */
const TOKENS = ['ignore', 'local-only'] as const;

export interface DotfileVerdict {
  /** What the file means; a dotfile never yields `full`. */
  class: 'ignore' | 'local-only';
  /** The class token as written, or null for an empty or comment-only file (and for an unreadable one). */
  declared: string | null;
  /** True when a fail-safe turned the file into `ignore`: an unknown token, or a file that cannot be read. */
  clamped: boolean;
}

/**
 * Reads a `.hypignore` text: `#` starts a comment anywhere on a line, blank lines are skipped, and the first
 * token of the first meaningful line is the class. Later lines (reserved path patterns) are ignored.
 * @example parseDotfile('# private notes\nlocal-only  # synced elsewhere\n') // { class: 'local-only', declared: 'local-only', clamped: false }
 */
export function parseDotfile(text: string): DotfileVerdict {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const line of body.split(/\r\n|\r|\n/)) {
    const hash = line.indexOf('#');
    const token = (hash === -1 ? line : line.slice(0, hash)).trim().split(/\s+/)[0];
    if (!token) continue;
    if ((TOKENS as readonly string[]).includes(token)) {
      return { class: token as DotfileVerdict['class'], declared: token, clamped: false };
    }
    return { class: 'ignore', declared: token, clamped: true };
  }
  return { class: 'ignore', declared: null, clamped: false };
}

/** What an existing `.hypignore` that cannot be read means: `ignore`, flagged so it is logged as a warning. */
export const UNREADABLE_DOTFILE: DotfileVerdict = Object.freeze({ class: 'ignore', declared: null, clamped: true });

/**
 * The verdict of the `.hypignore` in `dir`, or null when there is none.
 * @example readDotfile('/home/u/project') // null, or { class: 'ignore', declared: null, clamped: false }
 */
export function readDotfile(dir: string, readFile: ReadTextFile = readTextFile): DotfileVerdict | null {
  let text: string;
  try {
    text = readFile(join(dir, DOTFILE_NAME));
  } catch (e) {
    return isAbsent(e) ? null : UNREADABLE_DOTFILE;
  }
  return parseDotfile(text);
}

// The `.hypignore` file: its text format and what an unreadable one means (spec forwarding §4).
import { join } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { errorCode, isAbsent, readTextFile, type ReadTextFile } from './io.js';

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
    if (isAbsent(e)) return null;
    // This process could not look (out of descriptors or memory): that says nothing of a file. The session waits in
    // quarantine and is judged again, rather than taken as ignored (decision 0126).
    const short = COULD_NOT_LOOK[errorCode(e) ?? ''];
    if (short) throw new HermeticError('HERMETIC_POLICY_UNREAD', `Cannot look for ${join(dir, DOTFILE_NAME)}: ${short}; the session is judged again later, not taken as ignored.`);
    return UNREADABLE_DOTFILE;
  }
  return parseDotfile(text);
}

/** Failures of the looking, not of a file: this process, or the system, out of a resource for a moment. */
const COULD_NOT_LOOK: Record<string, string> = {
  EMFILE: 'this process has too many files open (EMFILE)',
  ENFILE: 'the system has too many files open (ENFILE)',
  ENOMEM: 'out of memory (ENOMEM)',
};

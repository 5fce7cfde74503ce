// Where a path really is, for telling two spellings of one file or folder apart: symbolic links followed, or, when it
// cannot be resolved (it is not there, or not a path at all), the path made absolute as written.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** @example realPathOf('/home/u/hermes-link/state.db') // '/home/u/.hermes/state.db' */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

// Where Hermetic keeps the forwarder's dataset, policy list and state: one small module, so commands that only read
// the dataset (report, query, status) need not load the pipeline.
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { nearestExisting } from '../shared/dirs.js';
import { HermeticError } from '../shared/errors.js';

/**
 * Hermetic's home: the option, else HERMETIC_HOME, else ~/.hermetic. It need not exist yet (the first write makes
 * it), but what is there must be a folder: a file or a broken link is refused with a sentence saying so, before any
 * command reads a list or a dataset under it.
 */
export function hermeticHome(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const home = option ?? env.HERMETIC_HOME ?? join(homedir(), '.hermetic');
  const how = option !== undefined ? '--home' : env.HERMETIC_HOME !== undefined ? 'HERMETIC_HOME' : 'the default home';
  let link: string | null = null;
  try {
    if (lstatSync(home).isSymbolicLink()) link = readlinkSync(home);
  } catch (e) {
    // Not there yet; but under a file it never can be: said now, not as "not created yet".
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new HermeticError('HERMETIC_DATASET_OPEN', `${how} ${resolve(home)} cannot be a folder: ${fileAbove(resolve(home))} is a file; give --home a folder.`);
    }
    return home;
  }
  try {
    if (!statSync(home).isDirectory()) throw new HermeticError('HERMETIC_DATASET_OPEN', `${how} ${resolve(home)} is a file, not a folder; Hermetic keeps its dataset and state in a folder (give --home a folder).`);
  } catch (e) {
    if (e instanceof HermeticError) throw e;
    throw new HermeticError('HERMETIC_DATASET_OPEN', `${how} ${resolve(home)} is a link to ${link ?? '?'}, which does not exist; create that folder or give --home another.`);
  }
  return home;
}

/** The nearest path above `path` that exists and is not a folder (the reason ENOTDIR was given). */
function fileAbove(path: string): string {
  try {
    const found = nearestExisting(dirname(path));
    if (found?.kind === 'other') return found.path;
  } catch { /* a level that cannot be looked at: the folder above is named */ }
  return dirname(path);
}

// Where shipped rows come from (contract.ts Origin): a machine id made once and kept in the Hermetic home (so a
// dataset deleted and rebuilt is still the same machine), and the host name.
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createIdSource, type IdSource } from '../../../shared/ids.js';
import type { Origin } from './contract.js';
import { makeDirs } from '../../../shared/dirs.js';

export const MACHINE_ID_FILE = 'machine-id';
const ID = /^[0-9a-f]{32}$/;

/** The id the file holds, or null (no file, or not an id). */
function readId(path: string): string | null {
  try {
    const id = readFileSync(path, 'utf8').trim();
    return ID.test(id) ? id : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Writes `id` as the home's machine id unless another process got there first, and returns the id that stands. The
 * file appears whole or not at all (written aside, then linked into place: the first link wins, so two forwarders
 * starting on a new home at once agree on one id); a file that holds no id is replaced.
 */
function claimId(path: string, id: string): string {
  const aside = `${path}.${process.pid}.${id}`;
  writeFileSync(aside, `${id}\n`, { mode: 0o644 });
  try {
    linkSync(aside, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      const theirs = readId(path);
      if (theirs !== null) return theirs;
      renameSync(aside, path);
    } else if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') {
      // A file system without hard links: an exclusive create, which a racer may read before it is written.
      try {
        writeFileSync(path, `${id}\n`, { mode: 0o644, flag: 'wx' });
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code !== 'EEXIST') throw e2;
      }
    } else throw e;
  } finally {
    rmSync(aside, { force: true });
  }
  return readId(path) ?? id;
}

/**
 * The origin of this Hermetic home, its machine id created on first use.
 * @example machineOrigin('/home/u/.hermetic') // { machineId: '3f2a…', hostname: 'laptop' }
 */
export function machineOrigin(home: string, options: { ids?: IdSource; hostname?: string } = {}): Origin {
  const path = join(home, MACHINE_ID_FILE);
  let id = readId(path);
  if (id === null) {
    makeDirs(home, 'HERMETIC_DATASET_OPEN', 0o700);
    id = claimId(path, (options.ids ?? createIdSource()).uuid4Hex());
  }
  return { machineId: id, hostname: options.hostname ?? hostname() };
}

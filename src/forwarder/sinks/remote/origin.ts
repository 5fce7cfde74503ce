// Who is shipping rows (decision 0036): a machine id kept in the Hermetic home (`<home>/machine-id`, a random id made
// once, then read back) and the host name. Not /etc/machine-id: containers and cloned images share theirs, and many
// hosts have none; a Hermetic home belongs to one forwarder. Several processes starting at once agree on one id.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import { createIdSource, type IdSource } from '../../../shared/ids.js';
import type { Origin } from './contract.js';

const FILE = 'machine-id';
const VALID = /^[0-9a-f]{32}$/;

/**
 * The machine id of this Hermetic home: read from `<home>/machine-id`, or made (32 hex digits) and written there
 * atomically; when two processes race, both end up with the one written first.
 * @example machineId('/home/me/.hermetic') // '3f0c…'
 */
export function machineId(home: string, ids: IdSource = createIdSource()): string {
  const path = join(home, FILE);
  const read = (): string | null => {
    try {
      const text = readFileSync(path, 'utf8').trim();
      return VALID.test(text) ? text : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  };
  const have = read();
  if (have !== null) return have;
  mkdirSync(home, { recursive: true });
  const id = ids.uuid4Hex();
  // Written to a private file, then linked into place: link fails if another process got there first.
  const tmp = `${path}.${process.pid}.${id}`;
  writeFileSync(tmp, `${id}\n`, { mode: 0o644 });
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // A file that exists but holds no valid id (damaged) is replaced.
    if (read() === null) writeFileSync(path, `${id}\n`);
  } finally {
    rmSync(tmp, { force: true });
  }
  return read() ?? id;
}

/** The origin of this forwarder's rows: its home's machine id and the host name. */
export function localOrigin(home: string, options: { ids?: IdSource; hostname?: string } = {}): Origin {
  return { machineId: machineId(home, options.ids), hostname: options.hostname ?? osHostname() };
}

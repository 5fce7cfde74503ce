// Where shipped rows come from (contract.ts Origin): a machine id made once and kept in the Hermetic home (so a
// dataset deleted and rebuilt is still the same machine), and the host name.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createIdSource, type IdSource } from '../../../shared/ids.js';
import type { Origin } from './contract.js';

export const MACHINE_ID_FILE = 'machine-id';

/**
 * The origin of this Hermetic home, its machine id created on first use.
 * @example machineOrigin('/home/u/.hermetic') // { machineId: '3f2a…', hostname: 'laptop' }
 */
export function machineOrigin(home: string, options: { ids?: IdSource; hostname?: string } = {}): Origin {
  const path = join(home, MACHINE_ID_FILE);
  let id = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  if (!/^[0-9a-f]{32}$/.test(id)) {
    id = (options.ids ?? createIdSource()).uuid4Hex();
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${id}\n`, { mode: 0o644 });
  }
  return { machineId: id, hostname: options.hostname ?? hostname() };
}

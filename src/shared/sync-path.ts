// Flushing a file or a folder to disk by its path: what makes a rename or a link durable through a power loss.
import { closeSync, fsyncSync, openSync } from 'node:fs';

/**
 * Flushes a file (its bytes) or a folder (the names in it) to disk.
 * @example syncPath(tmp); renameSync(tmp, path); syncPath(dirname(path));
 */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

// A home's first dataset is built aside (decision 0058). The first pass that writes into a home with no dataset
// writes a new file of its own (build-files.ts) with its rollback journal in memory and no syncs: each page is written
// once, not to a write-ahead log and then again into the file, and no checkpoint thread competes with the reading one.
// At the end of the pass, or once BUILD_ASIDE_MESSAGES messages are in (whichever is first), the build is published
// whole: switched to WAL, closed, synced and linked into place as hermetic.db. What comes after is written in place.
// Until then nobody sees it, and nothing of it was acknowledged: a process killed before leaves a build file that the
// next process that writes removes (lazy.ts), and the next pass starts over. When another process created the
// dataset meanwhile, the link fails, the build is dropped, and the pass that built it runs again over the dataset that
// is there (pipeline/passes.ts).
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import { buildFile } from './build-files.js';
import type { FinalSync } from './build-sync.js';
import { DATASET_FILE, openDatasetFile, type DatasetOptions } from './dataset.js';
import { SqliteSink } from './sink.js';
import { syncPath } from '../../../shared/sync-path.js';

/** Messages a build takes before it is published mid-pass: a kill -9 never costs more than this much work again. */
export const BUILD_ASIDE_MESSAGES = 250_000;

/** A new dataset being built aside in `home`. */
export function startBuild(home: string, options: DatasetOptions = {}): SqliteSink {
  return new SqliteSink(openDatasetFile(home, buildFile(home), 'aside', options), options);
}

/**
 * Publishes a build as `<home>/hermetic.db` and closes it. False when a dataset is already there (another process
 * created one while this one built): the build is dropped, and its writes must be made again.
 */
export function publishBuild(build: SqliteSink, home: string, sync: FinalSync | null = null): boolean {
  const path = build.db.name;
  const target = join(home, DATASET_FILE);
  try {
    // WAL is written into the file's header: every later connection opens it as the dataset always is. The build's
    // exclusive lock is held until it is in place: another process's sweep (build-files.ts) removes a build whose lock
    // it can take, and would take this one between a close and the link. A process opening the dataset meanwhile
    // waits for the lock as for any writer's.
    build.db.pragma('journal_mode = WAL');
    if (sync) sync.final();
    else syncPath(path);
    try {
      linkSync(path, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // A file system without hard links: renamed into place, whole (a dataset created in the instant between the
      // look and the rename would be replaced: the one race the link closes that this cannot).
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
      if (existsSync(target)) return false;
      renameSync(path, target);
    }
    build.close();
    syncPath(home);
    return true;
  } catch (e) {
    throw new HermeticError('HERMETIC_DATASET_WRITE', `Cannot publish the new dataset at ${target}: ${(e as Error).message}.`);
  } finally {
    sync?.close();
    if (build.db.open) build.close();
    rmSync(path, { force: true });
  }
}

// The dataset file `hermetic web` reads, followed by its path: a running dashboard holds its connection for hours, while
// the file can be moved aside and built again (what a damaged dataset's message says to do) or deleted. Each request
// first looks at the path (one stat): the same file is read as it is; another file is opened in its place, and the old
// connection closed (it held the moved file, and its -wal and -shm, which are the new file's names now); no file is
// refused by the opener (HERMETIC_DATASET_OPEN) and tried again at the next request.
import { statSync } from 'node:fs';
import type { Db } from '../../../shared/sqlite.js';
import type { UsageSource } from './source.js';

/** Which file is at a path: its device and inode (null when there is none). */
function identity(path: string): string | null {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}` : null;
}

/**
 * A UsageSource over the dataset at `path`, opened by `open` (read-only) and made a source by `source`.
 * @example datasetFileSource(join(home, 'hermetic.db'), () => openForReport(home), (db) => sqliteSource(db))
 */
export function datasetFileSource(path: string, open: () => Db, source: (db: Db) => UsageSource): UsageSource {
  let current: { id: string | null; source: UsageSource; opening: number } | null = null;
  let openings = 0;
  const opened = () => {
    // Looked at before opening: a file replaced in between is seen as replaced at the next request.
    const id = identity(path);
    if (current !== null && current.id === id) return current.source;
    const old = current;
    current = null;
    void old?.source.close();
    const next = source(open());
    current = { id, source: next, opening: ++openings };
    return next;
  };
  opened(); // opened at once: no dataset is one line before the server listens, not a page of errors
  return {
    fleet: false,
    zone: () => opened().zone(),
    report: async (request) => opened().report(request),
    // Which opening, and the file's identity too: a dataset built again in its place starts its own count, and a file
    // made just after a delete may be given the freed inode (ext4 does) while the new connection counts from 1 again.
    version: async () => {
      const source = opened();
      const at = current!; // the opening asked, whatever another request opens meanwhile
      const inner = await source.version();
      return inner === null ? null : `${at.opening}:${at.id}:${inner}`;
    },
    values: async (request, column, limit) => opened().values(request, column, limit),
    session: async (key, page) => opened().session(key, page),
    messageText: async (key, seq, field) => opened().messageText(key, seq, field),
    sessionText: async (key, field) => opened().sessionText(key, field),
    slowestCalls: async (request, limit) => opened().slowestCalls(request, limit),
    rowIssues: async (request) => opened().rowIssues(request),
    uncosted: async (request) => opened().uncosted(request),
    unread: async (request) => opened().unread(request),
    close: async () => {
      await current?.source.close();
      current = null;
    },
  };
}

// Writing a batch: the sink applies it whole, then the cached cursors follow; a batch that fails for one session's
// rows is split so the others land and that one is quarantined.
import { HermeticError } from '../../shared/errors.js';
import { primaryCode } from '../../shared/sqlite.js';
import { isLockedOut } from '../../shared/sqlite-errors.js';
import type { CursorCache } from '../checkpoint/cursors.js';
import { CursorMoved, NOTHING_WRITTEN, type Batch, type SessionWrite, type Sink, type Written } from '../sinks/sink.js';
import { backoffSeconds } from './quarantine.js';

const LOCKED_BY = 'Another process kept the dataset locked longer than this one waits';

/**
 * Commits batches to the sink. A SQLite failure, or a session another process wrote meanwhile, is
 * HERMETIC_DATASET_WRITE (the dataset's, not the store's); anything else is a bug and is thrown as it is. `origin`
 * words a lock's message: a forward's next pass reads the batch again, a backfill has none and is run again.
 */
export function batchCommitter(sink: Sink, cache: CursorCache | undefined, origin: 'backfill' | 'forward'): (batch: Batch) => Written {
  return (batch) => {
    let written: Written;
    try {
      written = sink.write(batch);
    } catch (e) {
      if (e instanceof HermeticError || (primaryCode(e) === null && !(e instanceof CursorMoved))) throw e;
      // A lock held past the wait is another process's write (a `forget --store` of a big store takes seconds): said
      // as such, not as SQLite's "database is locked". The SQLite code stays readable for writeIsolated.
      const message = !isLockedOut(e) ? `Cannot write to the dataset: ${(e as Error).message}.`
        : origin === 'forward' ? `${LOCKED_BY} (a forget, a backfill or another forward writing to it): nothing of this batch was written, and the next pass reads it again.`
        : `${LOCKED_BY} (a forget, a forward or another backfill writing to it): nothing of this batch was written (what was written before it stays): run hermetic backfill again, and it goes on from there.`;
      throw Object.assign(new HermeticError('HERMETIC_DATASET_WRITE', message), { sqliteCode: (e as { code?: unknown }).code, cause: e });
    }
    cache?.committed(batch);
    return written;
  };
}

export interface Isolated {
  /** The writes that landed, and what they added and removed. */
  landed: SessionWrite[];
  written: Written;
  /** Sessions whose rows could not be written: quarantined. */
  quarantined: string[];
  /** Sessions another process wrote since they were read: left to it (the next pass compares them again). */
  raced: string[];
}

const add = (a: Written, b: Written): Written => ({
  messagesAdded: a.messagesAdded + b.messagesAdded, messagesRemoved: a.messagesRemoved + b.messagesRemoved, messagesRewritten: a.messagesRewritten + b.messagesRewritten,
  partsAdded: a.partsAdded + b.partsAdded, partsRemoved: a.partsRemoved + b.partsRemoved, partsRewritten: a.partsRewritten + b.partsRewritten,
  delegationsWritten: a.delegationsWritten + b.delegationsWritten, delegationsRemoved: a.delegationsRemoved + b.delegationsRemoved,
});

/**
 * Writes the batch; when it fails for something other than the dataset itself (busy, full, unreadable), writes its
 * sessions one by one and quarantines each that fails, so one session's rows never stop the others.
 */
export function writeIsolated(write: (b: Batch) => Written, batch: Batch, failuresOf: (id: string) => number, now: number): Isolated {
  try {
    return { landed: batch.writes, written: write(batch), quarantined: [], raced: [] };
  } catch (e) {
    // Only a failed write is split; a bug (anything but HERMETIC_DATASET_WRITE) surfaces as it is.
    if (!(e instanceof HermeticError) || e.code !== 'HERMETIC_DATASET_WRITE') throw e;
    const code = (e as { sqliteCode?: unknown }).sqliteCode;
    if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/.test(code)) throw e;
    if (batch.writes.length === 0) throw e;
  }
  const none = { failed: [], cleared: [] };
  let written = write({ ...batch, writes: [] });
  const landed: SessionWrite[] = [];
  const quarantined: string[] = [];
  const raced: string[] = [];
  for (const w of batch.writes) {
    try {
      written = add(written, write({ store: batch.store, reset: false, removed: [], writes: [w], quarantine: none }));
      landed.push(w);
    } catch (e) {
      // Another process wrote the session since it was read (a backfill beside a running forward): nothing failed,
      // its rows are that process's; the next pass compares it again. Not quarantined, not counted as unwritten.
      if ((e as { cause?: unknown }).cause instanceof CursorMoved) {
        raced.push(w.sessionId);
        continue;
      }
      const failures = failuresOf(w.sessionId);
      write({ store: batch.store, reset: false, removed: [], writes: [], quarantine: { failed: [{ sessionId: w.sessionId, error: `writing its rows failed: ${(e as Error).message}`, failures, retryAt: now + backoffSeconds(failures) }], cleared: [] } });
      quarantined.push(w.sessionId);
    }
  }
  return { landed, written: written ?? NOTHING_WRITTEN, quarantined, raced };
}

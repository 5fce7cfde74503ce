// Writing a batch: the sink applies it whole, then the cached cursors follow; a batch that fails for one session's
// rows is split so the others land and that one is quarantined.
import { HermeticError } from '../../shared/errors.js';
import type { CursorCache } from '../checkpoint/cursors.js';
import type { Batch, SessionWrite, Sink } from '../sinks/sink.js';
import { backoffSeconds } from './quarantine.js';
import type { StepResult } from './step.js';

/** Commits batches to the sink; a failure is HERMETIC_DATASET_WRITE (the dataset's, not the store's). */
export function batchCommitter(sink: Sink, cache: CursorCache | undefined): (batch: Batch) => void {
  return (batch) => {
    try {
      sink.write(batch);
    } catch (e) {
      if (e instanceof HermeticError) throw e;
      // The SQLite code stays readable for writeIsolated.
      throw Object.assign(new HermeticError('HERMETIC_DATASET_WRITE', `Cannot write to the dataset: ${(e as Error).message}.`), { sqliteCode: (e as { code?: unknown }).code });
    }
    cache?.committed(batch);
  };
}

/**
 * Writes the batch; when it fails for something other than a busy dataset, writes its sessions one by one and
 * quarantines each that fails, so one session's rows never stop the others. Returns the writes that landed.
 */
export function writeIsolated(write: (b: Batch) => void, batch: Batch, failuresOf: (id: string) => number, now: number, result: StepResult): SessionWrite[] {
  try {
    write(batch);
    return batch.writes;
  } catch (e) {
    const code = (e as { sqliteCode?: unknown }).sqliteCode;
    if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/.test(code)) throw e;
    if (batch.writes.length === 0) throw e;
  }
  const none = { failed: [], cleared: [] };
  write({ ...batch, writes: [] });
  const landed: SessionWrite[] = [];
  for (const w of batch.writes) {
    try {
      write({ store: batch.store, reset: false, removed: [], writes: [w], quarantine: none });
      landed.push(w);
    } catch (e) {
      const failures = failuresOf(w.sessionId);
      write({ store: batch.store, reset: false, removed: [], writes: [], quarantine: { failed: [{ sessionId: w.sessionId, error: `writing its rows failed: ${(e as Error).message}`, failures, retryAt: now + backoffSeconds(failures) }], cleared: [] } });
      result.sessionsQuarantined++;
    }
  }
  return landed;
}

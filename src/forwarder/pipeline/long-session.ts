// A session longer than a chunk, written by its pass (step.ts writePass): read a chunk at a time (chunks.ts), each
// chunk judged by the usage policy and committed as a batch of its own, its cursor PARTIAL until the last (decision
// 0055). Counts what it wrote into the pass's StepResult, as step.ts does for the other sessions.
import type { RecordOf } from '../dataset/columns.js';
import type { SessionDelta } from '../dataset/delta.js';
import type { StoreRef } from '../reader/discover.js';
import type { SessionMark, StoreReader } from '../reader/index.js';
import type { Batch, CursorBase, Written } from '../sinks/sink.js';
import { readInChunks } from './chunks.js';
import { PARTIAL } from './cursor-marks.js';
import type { ChunkSize } from './chunk-size.js';
import type { Prior } from './read-session.js';
import { judge } from './project.js';
import { backoffSeconds } from './quarantine.js';
import { countSession, countWritten, type StepResult } from './result.js';
import type { StepOptions } from './step.js';
import { writeIsolated } from './write.js';

/** What writing a long session needs from its pass (writePass). */
export interface LongContext {
  reader: StoreReader;
  ref: StoreRef;
  options: StepOptions;
  result: StepResult;
  commit: (b: Batch) => Written;
  now: number;
  redact: boolean;
  chunk: ChunkSize;
  midRow: () => RecordOf;
  failuresOf: (id: string) => number;
  priorOf: (id: string) => Prior | null;
  baseOf: (id: string) => CursorBase | null;
  /** Whether the dataset holds the session's rows (an ignored one's are then removed). */
  heldOf: (id: string) => boolean;
}

/**
 * A session longer than a chunk (decision 0055): read and written a chunk at a time, each chunk a batch of its own
 * committed before the next is read, pausing after each as after any batch (`keepGoing` is asked there). Until the
 * last, its cursor's fingerprint is PARTIAL, so a pass stopped half-way leaves it to be read again, and the next goes
 * on from the tail written. False when `keepGoing` stopped it.
 */
export function* writeLong(mark: SessionMark, c: LongContext): Generator<void, boolean> {
  const { options, result, now } = c;
  const id = mark.id;
  let base = c.baseOf(id);
  const held = c.heldOf(id);
  const fresh = base === null;
  let kind: SessionDelta['kind'] | null = null;
  let issues = 0;
  const quarantine = (error: string) => {
    const failures = c.failuresOf(id);
    const batch: Batch = { store: c.midRow(), reset: false, writes: [], removed: [], quarantine: { failed: [{ sessionId: id, error, failures, retryAt: now + backoffSeconds(failures) }], cleared: [] } };
    options.beforeWrite?.(batch);
    c.commit(batch);
    result.sessionsQuarantined++;
  };
  const ctx = { ref: c.ref, redact: c.redact, origin: options.origin, chunk: c.chunk };
  const outcome = yield* readInChunks(c.reader, id, c.priorOf(id), ctx, (p, last) => {
    const judged = judge(id, last ? mark.fingerprint : `${PARTIAL}${mark.fingerprint}`, p, options.policy, base);
    if ('error' in judged) {
      quarantine(judged.error);
      return false;
    }
    const batch: Batch = { store: c.midRow(), reset: false, writes: [judged.write], removed: [], quarantine: { failed: [], cleared: [] }, redacted: c.redact };
    options.beforeWrite?.(batch);
    const out = writeIsolated(c.commit, batch, c.failuresOf, now);
    countWritten(result, [], out.written);
    if (out.quarantined.length > 0) {
      result.sessionsQuarantined++;
      return false;
    }
    if (judged.drop) {
      result.policyDrops.push(held ? { ...judged.drop, removed: true } : judged.drop);
      result.sessionsIgnored++;
      return false;
    }
    kind ??= p.delta.kind;
    issues += p.issues.length;
    base = { fingerprint: judged.write.fingerprint, maxMessageId: judged.write.maxMessageId };
    if (last) countSession(result, kind, issues, fresh);
    return true;
  }, () => options.keepGoing?.() !== false);
  if (typeof outcome === 'object') quarantine(outcome.error);
  if (outcome === 'interrupted' && kind !== null) {
    // Stopped after some chunks were committed: they are in the dataset (with their row issues), the session is not done.
    result.sessionsPartial++;
    result.rowIssues += issues;
  }
  return outcome !== 'interrupted';
}

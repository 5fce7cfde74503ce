// The read worker (decision 0027): in a worker thread, reads and projects sessions of the job's list while the
// writing thread writes them, and posts each one with its messages and parts packed (dataset/packed.ts). It takes
// indexes from the shared control array as the writing thread does, and never runs more than the job's window ahead.
// Started by read-ahead.ts, once per process; it writes nothing anywhere.
import { MESSAGES, PARTS } from '../dataset/columns.js';
import { packedSize, packTables, toWireAll } from '../dataset/packed.js';
import { readStore, storeFailure, StoreReader } from '../reader/index.js';
import type { MessagePort } from 'node:worker_threads';
import { roomAhead, SLOT, STATE, type JobMessage, type ReadWindow, type WorkerMessage } from './read-protocol.js';
import { readSession } from './read-session.js';

/** Serves the jobs the writing thread posts on `port`, one at a time (read-ahead.ts starts this thread). */
export function serveReadJobs(port: MessagePort): void {
  port.on('message', (m: JobMessage) => runJob(m, port));
}

/** Runs one job to its end; every outcome, failures included, is posted. */
function runJob({ id, job, control }: JobMessage, port: MessagePort): void {
  const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []) => {
    port.postMessage(m, transfer);
    Atomics.add(control, SLOT.posted, 1);
    Atomics.notify(control, SLOT.posted);
  };
  // The writing thread may have read every session itself before this thread got to the job: nothing to do then.
  if (Atomics.compareExchange(control, SLOT.state, STATE.idle, STATE.running) !== STATE.idle) return;
  try {
    let pending: number | null = null;
    readStore(job.file, (db) => {
      const reader = new StoreReader(db, job.ref.path, new Map([[job.ref.path, job.schema]]));
      const ctx = { ref: job.ref, redact: job.redact, origin: job.origin, chunk: job.chunk };
      for (;;) {
        if (!waitForRoom(control, job.window)) return;
        // A session taken before a failed attempt (the reader retries on a busy store) is read again first.
        const index = pending ?? Atomics.add(control, SLOT.next, 1);
        if (index >= job.ids.length) return;
        pending = index;
        const read = readSession(reader, job.ids[index]!, job.priors[index] ?? null, ctx);
        pending = null;
        if (read === null || 'error' in read || 'long' in read) {
          Atomics.add(control, SLOT.postedSessions, 1);
          post({ kind: 'session', job: id, index, read });
          continue;
        }
        // One text for both: a message's content and its text part's cross once (decision 0169).
        const packed = packTables([[MESSAGES, read.messages], [PARTS, read.parts]]);
        const chars = packedSize(packed[0]!);
        const { rows: [messages, parts], transfer } = toWireAll(packed);
        Atomics.add(control, SLOT.postedSessions, 1);
        Atomics.add(control, SLOT.postedMessages, read.messages.length);
        Atomics.add(control, SLOT.postedChars, chars);
        post({ kind: 'session', job: id, index, read: { ...read, messages, parts }, chars }, transfer);
      }
    });
    post({ kind: 'done', job: id });
  } catch (e) {
    const err = storeFailure(job.file, e);
    // Said of the store, as the writing thread says it, also when this thread read its private copy.
    if (err) post({ kind: 'fatal', job: id, code: err.code, message: err.message.split(job.file).join(job.ref.path) });
    else post({ kind: 'bug', job: id, message: (e as Error)?.message ?? String(e), stack: (e as Error)?.stack ?? String(e) });
  }
}

/** Sleeps while the worker is a window ahead of the writing thread; false when it was told to stop. */
function waitForRoom(control: Int32Array, window: ReadWindow): boolean {
  for (;;) {
    if (Atomics.load(control, SLOT.abort) !== 0) return false;
    const taken = Atomics.load(control, SLOT.taken);
    if (roomAhead(control, window)) return true;
    Atomics.wait(control, SLOT.taken, taken, 1000);
  }
}

// Whether a worker thread still runs, told without the event loop (decision 0129). A thread's 'exit' event reaches only
// the event loop, which a synchronous wait on a shared flag does not turn; on Linux a thread's task leaves /proc as it
// ends. The thread stores its task id as it starts (TASK_ID_BOOT, in its boot code); a waiter looks for it (taskGone).
// Its declarations import nothing: StepOptions names WorkerWhere, and the public types must reach no SQLite declaration.
import { existsSync } from 'node:fs';

/** Where a worker thread's module is, as its boot code loads it (`tsx`: the loader a TypeScript module needs). */
export interface WorkerWhere {
  entry: string;
  tsx: string | null;
}

/**
 * Boot-code statements for a worker whose `workerData.tid` is an Int32Array of one slot: stores the thread's task id
 * there (Linux; elsewhere, or when /proc cannot be read, it stays 0 and nothing is told).
 */
export const TASK_ID_BOOT = `try {
  const task = /\\/task\\/(\\d+)$/.exec(require('node:fs').readlinkSync('/proc/thread-self'));
  if (task) Atomics.store(workerData.tid, 0, Number(task[1]));
} catch {}`;

/** A slot for TASK_ID_BOOT to fill, to pass as `workerData.tid`. */
export const taskSlot = (): Int32Array => new Int32Array(new SharedArrayBuffer(4));

/** What is known of a thread seen gone before its 'exit' event says why. */
export const THREAD_ENDED = 'its thread ended: out of memory, or a crash';

/** True once the thread that filled `tid` has ended; false while it runs, or when that cannot be told. */
export function taskGone(tid: Int32Array): boolean {
  const id = Atomics.load(tid, 0);
  return id > 0 && !existsSync(`/proc/self/task/${id}`);
}

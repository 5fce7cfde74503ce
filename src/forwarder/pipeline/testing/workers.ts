// Read worker modules for tests that need one to misbehave (decision 0129): given to a pass through
// StepOptions.readWorkerModule or FeedOptions.worker, each loads on a thread of its own from a data: URL.
import type { WorkerWhere } from '../../../shared/thread-task.js';
import { SLOT, STATE } from '../read-protocol.js';

/**
 * A worker that, on its first job, starts it and takes `take` sessions from the shared counter, then runs `then`
 * (JavaScript with `port`, `id`, `control` and `first`, the first index it took, in scope). `hideTask`: it hides its
 * thread's task id, as a platform without /proc would, so only its 'exit' event can tell it has ended.
 * @example fakeWorker({ take: 2, then: 'process.exit(9);' })
 */
export function fakeWorker(o: { take: number; then: string; hideTask?: boolean }): WorkerWhere {
  const source = `import { workerData } from 'node:worker_threads';
export function serveReadJobs(port) {
  ${o.hideTask ? 'Atomics.store(workerData.tid, 0, 0);' : ''}
  port.on('message', ({ id, control }) => {
    Atomics.store(control, ${SLOT.state}, ${STATE.running});
    const first = Atomics.add(control, ${SLOT.next}, ${o.take});
    ${o.then}
  });
}`;
  return { entry: `data:text/javascript,${encodeURIComponent(source)}`, tsx: null };
}

/** Statements for `then` that post the session at `first` as deleted since it was listed (read: null). */
export const POST_FIRST_AS_GONE = `port.postMessage({ kind: 'session', job: id, index: first, read: null });
    Atomics.add(control, ${SLOT.posted}, 1);
    Atomics.notify(control, ${SLOT.posted});`;

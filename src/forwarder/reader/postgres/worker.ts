// The mirror thread's side (decision 0038): serves refresh jobs one at a time. Each answer is posted, then the job's
// flag is set and notified, so the pass waiting on it (thread.ts) can take the answer without an event loop turn.
import type { MessagePort } from 'node:worker_threads';
import { HermeticError } from '../../../shared/errors.js';
import { refreshMirror, type MirrorJob } from './mirror.js';

export interface MirrorRequest { job: MirrorJob; flag: SharedArrayBuffer }
export type MirrorAnswer =
  | { kind: 'ok'; result: Awaited<ReturnType<typeof refreshMirror>> }
  | { kind: 'error'; code: string; message: string }
  | { kind: 'bug'; message: string };

/** Answers `flag`'s waiter: the answer first, then the flag. */
export function answer(port: MessagePort, flag: SharedArrayBuffer, a: MirrorAnswer): void {
  port.postMessage(a);
  const view = new Int32Array(flag);
  Atomics.store(view, 0, 1);
  Atomics.notify(view, 0);
}

export function serveMirrorJobs(port: MessagePort): void {
  let queue = Promise.resolve();
  port.on('message', (req: MirrorRequest) => {
    queue = queue.then(async () => {
      try {
        answer(port, req.flag, { kind: 'ok', result: await refreshMirror(req.job) });
      } catch (e) {
        answer(port, req.flag, e instanceof HermeticError ? { kind: 'error', code: e.code, message: e.message } : { kind: 'bug', message: (e as Error)?.stack ?? String(e) });
      }
    });
  });
}

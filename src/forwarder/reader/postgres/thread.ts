// The pass's side of the mirror thread (decision 0038): a pass is synchronous over better-sqlite3, and pg is
// asynchronous, so the refresh runs in a worker thread while the pass waits on a shared flag (Atomics.wait) and then
// takes the answer from the port (receiveMessageOnPort). One thread per process, started by the first PostgreSQL
// store, never keeping the process alive. The worker is worker.ts's `serveMirrorJobs`, loaded from the file
// beside this one (worker.js from the build; worker.ts through tsx from the sources). A thread that ends while a pass
// waits for its answer (out of memory, a crash) is told within a second where its task can be looked for (Linux:
// shared/thread-task.ts), not after the whole timeout, and said as itself, not as PostgreSQL's silence.
import { extname } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { HermeticError, type ErrorCode } from '../../../shared/errors.js';
import type { MirrorResult } from './mirror.js';
import type { MirrorJob } from './settings.js';
import type { MirrorAnswer } from './worker.js';
import { taskGone, taskSlot, TASK_ID_BOOT, THREAD_ENDED, type WorkerWhere } from '../../../shared/thread-task.js';
import { workerFlags } from '../../../shared/worker-flags.js';

const BOOT = `
const { workerData } = require('node:worker_threads');
${TASK_ID_BOOT}
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  return import(workerData.entry);
})().then(
  (m) => m.serveMirrorJobs(workerData.port),
  (e) => workerData.port.on('message', (req) => {
    workerData.port.postMessage({ kind: 'bug', message: 'the mirror thread could not load: ' + String((e && e.message) || e) });
    const v = new Int32Array(req.flag); Atomics.store(v, 0, 1); Atomics.notify(v, 0);
  }),
);
`;

interface MirrorThread { worker: Worker; port: MessagePort; tid: Int32Array }

let thread: MirrorThread | null = null;
/** The module the thread serves jobs from: worker.ts's, or a test's (mirrorThreadModule). */
let given: WorkerWhere | null = null;

/** Tests: the next mirror thread loads `where` instead of worker.ts (null: worker.ts again); ends the current one. */
export function mirrorThreadModule(where: WorkerWhere | null): void {
  given = where;
  stopMirrorThread();
}

function start(): MirrorThread {
  const ext = extname(new URL(import.meta.url).pathname);
  const entry = given?.entry ?? new URL(`./worker${ext}`, import.meta.url).href;
  const tsx = given ? given.tsx : ext === '.ts' ? import.meta.resolve('tsx/esm/api') : null;
  const { port1, port2 } = new MessageChannel();
  const tid = taskSlot();
  const worker = new Worker(BOOT, { eval: true, workerData: { port: port2, entry, tsx, tid }, transferList: [port2], execArgv: workerFlags(process.execArgv) });
  worker.on('exit', () => { if (thread?.worker === worker) thread = null; });
  worker.on('error', () => { if (thread?.worker === worker) thread = null; });
  worker.unref();
  port1.unref();
  return { worker, port: port1, tid };
}

/** Ends the mirror thread (tests; a stuck refresh). The next refresh starts another. */
export function stopMirrorThread(): void {
  const t = thread;
  thread = null;
  if (t) { t.port.close(); void t.worker.terminate().catch(() => {}); }
}

/**
 * Refreshes a PostgreSQL store's mirror and waits for it (reader/postgres/mirror.ts). Throws its HermeticError
 * (HERMETIC_READER_PG_*, HERMETIC_DATASET_WRITE), HERMETIC_READER_PG_CONNECT when no answer comes in `timeoutMs`,
 * HERMETIC_INTERNAL when the thread ended before it answered.
 * @example const r = refreshMirrorSync({ url, schema, identity, display, file }); // r.changed
 */
export function refreshMirrorSync(job: MirrorJob, timeoutMs = 180_000): MirrorResult {
  // One that ended since the last job (its 'exit' event not run yet: no event loop turned in between) is not reused.
  if (thread && taskGone(thread.tid)) stopMirrorThread();
  thread ??= start();
  const t = thread;
  const flag = new SharedArrayBuffer(4);
  t.port.postMessage({ job, flag });
  // In slices of a second, looking between them whether the thread has ended (it would never set the flag).
  const until = performance.now() + timeoutMs;
  for (;;) {
    const left = until - performance.now();
    if (Atomics.wait(new Int32Array(flag), 0, 0, Math.max(0, Math.min(1000, left))) !== 'timed-out') break;
    if (taskGone(t.tid)) {
      stopMirrorThread();
      throw new HermeticError('HERMETIC_INTERNAL', `The PostgreSQL mirror thread stopped while it read ${job.display} (schema ${job.schema}): ${THREAD_ENDED}; nothing was read this time, and the next pass tries again.`);
    }
    if (left <= 1000) {
      stopMirrorThread();
      throw new HermeticError('HERMETIC_READER_PG_CONNECT', `PostgreSQL at ${job.display} (schema ${job.schema}) gave no answer within ${Math.round(timeoutMs / 1000)} s; nothing was read this time, and the next pass tries again.`);
    }
  }
  const got = receiveMessageOnPort(t.port)?.message as MirrorAnswer | undefined;
  if (!got) throw new HermeticError('HERMETIC_INTERNAL', 'The mirror thread set its flag without an answer.');
  if (got.kind === 'ok') return got.result;
  if (got.kind === 'error') throw new HermeticError(got.code as ErrorCode, got.message);
  stopMirrorThread();
  throw new Error(`The PostgreSQL mirror failed: ${got.message}`);
}

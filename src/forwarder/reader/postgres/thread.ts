// The pass's side of the mirror thread (decision 0038): a pass is synchronous over better-sqlite3, and pg is
// asynchronous, so the refresh runs in a worker thread while the pass waits on a shared flag (Atomics.wait) and then
// takes the answer from the port (receiveMessageOnPort). One thread per process, started by the first PostgreSQL
// store, never keeping the process alive. The worker is worker.ts's `serveMirrorJobs`, loaded from the file
// beside this one (worker.js from the build; worker.ts through tsx from the sources).
import { extname } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { HermeticError, type ErrorCode } from '../../../shared/errors.js';
import type { MirrorResult } from './mirror.js';
import type { MirrorJob } from './settings.js';
import type { MirrorAnswer } from './worker.js';
import { workerFlags } from '../../../shared/worker-flags.js';

const BOOT = `
const { workerData } = require('node:worker_threads');
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

let thread: { worker: Worker; port: MessagePort } | null = null;

function start(): { worker: Worker; port: MessagePort } {
  const ext = extname(new URL(import.meta.url).pathname);
  const entry = new URL(`./worker${ext}`, import.meta.url).href;
  const tsx = ext === '.ts' ? import.meta.resolve('tsx/esm/api') : null;
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(BOOT, { eval: true, workerData: { port: port2, entry, tsx }, transferList: [port2], execArgv: workerFlags(process.execArgv) });
  worker.on('exit', () => { if (thread?.worker === worker) thread = null; });
  worker.on('error', () => { if (thread?.worker === worker) thread = null; });
  worker.unref();
  port1.unref();
  return { worker, port: port1 };
}

/** Ends the mirror thread (tests; a stuck refresh). The next refresh starts another. */
export function stopMirrorThread(): void {
  const t = thread;
  thread = null;
  if (t) { t.port.close(); void t.worker.terminate().catch(() => {}); }
}

/**
 * Refreshes a PostgreSQL store's mirror and waits for it (reader/postgres/mirror.ts). Throws its HermeticError
 * (HERMETIC_READER_PG_*, HERMETIC_DATASET_WRITE), HERMETIC_READER_PG_CONNECT when no answer comes in `timeoutMs`.
 * @example const r = refreshMirrorSync({ url, schema, identity, display, file }); // r.changed
 */
export function refreshMirrorSync(job: MirrorJob, timeoutMs = 180_000): MirrorResult {
  thread ??= start();
  const t = thread;
  const flag = new SharedArrayBuffer(4);
  t.port.postMessage({ job, flag });
  if (Atomics.wait(new Int32Array(flag), 0, 0, timeoutMs) === 'timed-out') {
    stopMirrorThread();
    throw new HermeticError('HERMETIC_READER_PG_CONNECT', `PostgreSQL at ${job.display} (schema ${job.schema}) gave no answer within ${Math.round(timeoutMs / 1000)} s; nothing was read this time, and the next pass tries again.`);
  }
  const got = receiveMessageOnPort(t.port)?.message as MirrorAnswer | undefined;
  if (!got) throw new HermeticError('HERMETIC_INTERNAL', 'The mirror thread set its flag without an answer.');
  if (got.kind === 'ok') return got.result;
  if (got.kind === 'error') throw new HermeticError(got.code as ErrorCode, got.message);
  stopMirrorThread();
  throw new Error(`The PostgreSQL mirror failed: ${got.message}`);
}

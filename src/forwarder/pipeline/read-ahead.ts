// The writing thread's side of the read worker (decision 0027): one worker thread per process, started by the first
// pass that wants it and kept for the next ones (it ends after a minute without work, and never keeps the process
// alive). A pass hands it a job, takes what it posts without yielding to the event loop (a pass is synchronous), and
// lets it go. The worker is loaded from the file beside this one: read-worker.js when running from the build (its
// bundle, when there is one: workerEntry), read-worker.ts through tsx when running from the sources.
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { fromWire, type PackedRows } from '../dataset/packed.js';
import { SLOT, SLOTS, STATE, type JobMessage, type ReadJob, type WorkerMessage } from './read-protocol.js';
import { workerFlags } from '../../shared/worker-flags.js';

/**
 * Runs in the new thread as plain CommonJS, so it loads anywhere: registers tsx when the worker is TypeScript, then
 * imports the worker and serves jobs. A module that cannot be loaded, or that cannot serve (no serveReadJobs: a broken
 * bundle), is said, not thrown: a worker that died silently would leave a pass in `only` mode waiting for it forever.
 */
export const WORKER_BOOT = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const m = await import(workerData.entry);
  m.serveReadJobs(workerData.port);
})().catch((e) => workerData.port.postMessage({ kind: 'boot-failed', job: 0, message: String((e && e.message) || e) }));
`;

/** A worker left without work this long ends (the next pass that wants one starts another). */
const IDLE_MS = 60_000;

/**
 * Where the worker module is, and the tsx loader it needs when it is TypeScript (null when it cannot be found). From
 * the build, the worker bundled beside the CLI (dist/bundle/read-worker.js, decision 0128) when it was made from that
 * build (not older than it, the rule bin/hermetic.js applies to the CLI's bundle): its thread then loads a dozen files
 * instead of about 70 modules, about 60 ms less.
 */
export function workerEntry(): { entry: string; tsx: string | null } | null {
  const ext = extname(new URL(import.meta.url).pathname);
  const entry = new URL(`./read-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return { entry: bundledWorker(entry).href, tsx: null };
  try {
    return { entry: entry.href, tsx: import.meta.resolve('tsx/esm/api') };
  } catch {
    return null;
  }
}

/**
 * The bundled worker (from dist/forwarder/pipeline/, two folders up) when it is not older than `perFile`, else `perFile`.
 * @example bundledWorker(new URL('file:///p/dist/forwarder/pipeline/read-worker.js')) // file:///p/dist/bundle/read-worker.js
 */
export function bundledWorker(perFile: URL): URL {
  const bundled = new URL('../../bundle/read-worker.js', perFile);
  try {
    return statSync(bundled).mtimeMs >= statSync(perFile).mtimeMs ? bundled : perFile;
  } catch {
    return perFile;
  }
}

/** The process's worker thread and the port it answers on. */
interface Thread {
  worker: Worker;
  port: MessagePort;
  /** Its modules failed to load: no job will ever run on it. */
  broken: string | null;
  idle: NodeJS.Timeout | null;
}

let thread: Thread | null = null;
let jobs = 0;

function startThread(): Thread | null {
  const where = workerEntry();
  if (!where) return null;
  const { port1, port2 } = new MessageChannel();
  // A small young generation: each session's garbage dies there, and the old generation stays small and flat
  // (with V8's default the worker's heap grew with the store; decision 0027).
  const options = { eval: true, workerData: { port: port2, ...where }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: 8 } };
  let worker: Worker;
  try {
    worker = new Worker(WORKER_BOOT, { ...options, execArgv: workerFlags(process.execArgv) });
  } catch {
    try {
      worker = new Worker(WORKER_BOOT, { ...options, execArgv: [] });
    } catch {
      port1.close();
      return null;
    }
  }
  const t: Thread = { worker, port: port1, broken: null, idle: null };
  // Failures arrive as messages; an 'error' event nobody listens to would end the process.
  worker.on('error', () => {});
  worker.on('exit', () => {
    if (thread === t) thread = null;
    port1.close();
  });
  worker.unref();
  return t;
}

/** One pass's use of the worker: its job, and what the worker posts for it. */
export class ReadAhead {
  readonly control: Int32Array;
  readonly #t: Thread;
  readonly #job: number;
  #seen = 0;
  #finished = false;

  private constructor(t: Thread, job: number, control: Int32Array) {
    this.#t = t;
    this.#job = job;
    this.control = control;
  }

  /** Hands the job to the worker (started here when the process has none); null when no worker can run here. */
  static start(job: ReadJob, control: Int32Array): ReadAhead | null {
    if (thread?.broken) return null;
    thread ??= startThread();
    const t = thread;
    if (!t) return null;
    if (t.idle) clearTimeout(t.idle);
    t.idle = null;
    const id = ++jobs;
    const message: JobMessage = { id, job, control };
    t.port.postMessage(message);
    return new ReadAhead(t, id, control);
  }

  /** True once the worker said it has posted everything it read for this job. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Why the worker cannot run (its modules did not load), once it said so. */
  get broken(): string | null {
    return this.#t.broken;
  }

  /** The worker's next message for this job, if one is waiting; taking a session makes room for it to read on. */
  take(): WorkerMessage | null {
    for (;;) {
      this.#seen = Atomics.load(this.control, SLOT.posted);
      const got = receiveMessageOnPort(this.#t.port);
      if (!got) return null;
      const m = got.message as WorkerMessage;
      if (m.kind === 'boot-failed') {
        this.#t.broken = m.message;
        this.#finished = true;
        return m;
      }
      if (m.job !== this.#job) continue; // the rest of a job an earlier pass let go
      if (m.kind === 'session') {
        const read = m.read;
        Atomics.add(this.control, SLOT.taken, 1);
        if (read === null || 'error' in read || 'long' in read) Atomics.notify(this.control, SLOT.taken);
        else {
          Atomics.add(this.control, SLOT.takenMessages, read.messages.length);
          Atomics.notify(this.control, SLOT.taken);
          return { ...m, read: { ...read, messages: fromWire(read.messages as PackedRows), parts: fromWire(read.parts as PackedRows) } };
        }
      } else this.#finished = true;
      return m;
    }
  }

  /** Whether the worker is reading for this job (it has started it and not yet said it is done). */
  get running(): boolean {
    return !this.#finished && Atomics.load(this.control, SLOT.state) === STATE.running;
  }

  /** Sleeps until the worker posts again, or `ms` have passed (a worker that failed to load cannot wake us). */
  wait(ms = 1000): void {
    Atomics.wait(this.control, SLOT.posted, this.#seen, ms);
  }

  /**
   * Whether the worker has not started this job and now never will (this thread read every session itself): then
   * there is nothing to wait for.
   */
  closeIfIdle(): boolean {
    return Atomics.compareExchange(this.control, SLOT.state, STATE.idle, STATE.closed) === STATE.idle;
  }

  /** Ends the job (the worker stops at its next session if it is still reading) and keeps the worker for a while. */
  release(): void {
    Atomics.store(this.control, SLOT.abort, 1);
    Atomics.notify(this.control, SLOT.taken);
    const t = this.#t;
    if (t.broken) {
      if (thread === t) thread = null;
      void t.worker.terminate().catch(() => {});
      return;
    }
    t.idle = setTimeout(() => {
      if (thread === t) thread = null;
      void t.worker.terminate().catch(() => {});
    }, IDLE_MS);
    t.idle.unref();
  }
}

/** A fresh control array for one pass. */
export const newControl = (): Int32Array => new Int32Array(new SharedArrayBuffer(SLOTS * 4));

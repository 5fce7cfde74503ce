// The writing thread's side of the read worker (decision 0027): one worker thread per process, started by the first
// pass that wants it and kept for the next ones (it ends after a minute without work, and never keeps the process
// alive). A pass hands it a job, takes what it posts without yielding to the event loop (a pass is synchronous), and
// lets it go. The worker is loaded from the file beside this one: read-worker.js when running from the build (its
// bundle, when there is one: workerEntry), read-worker.ts through tsx when running from the sources. A thread that
// ends while a pass waits for it (out of memory, a crash) is noticed without the event loop (stoppedWhy) and said by
// take() as a `stopped` message (decision 0129).
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { fromWireAll, type PackedRows } from '../dataset/packed.js';
import { SLOT, SLOTS, STATE, type JobMessage, type ReadJob, type WorkerMessage } from './read-protocol.js';
import { taskGone, taskSlot, TASK_ID_BOOT, THREAD_ENDED, type WorkerWhere } from '../../shared/thread-task.js';
import { workerFlags } from '../../shared/worker-flags.js';

/**
 * Runs in the new thread as plain CommonJS, so it loads anywhere: says which thread it is (Linux: its task id, which
 * the writing thread looks for to tell the thread still runs), registers tsx when the worker is TypeScript, then
 * imports the worker and serves jobs. A module that cannot be loaded, or that cannot serve (no serveReadJobs: a broken
 * bundle), is said, not thrown: a worker that died silently would leave a pass in `only` mode waiting for it forever.
 */
export const WORKER_BOOT = `
const { workerData } = require('node:worker_threads');
${TASK_ID_BOOT}
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
export function workerEntry(): WorkerWhere | null {
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
  /** Why it ended, once its 'exit' event ran (its 'error' first, when it had one: ERR_WORKER_OUT_OF_MEMORY). */
  ended: string | null;
  error: string | null;
  /** Started on a module the caller named (a test's): for one pass, never kept for the next. */
  own: boolean;
  /** Its task id, written by the thread as it starts (Linux; 0 elsewhere, or before then). */
  tid: Int32Array;
}

let thread: Thread | null = null;
let jobs = 0;

/**
 * Why the thread ended, or null while it runs (as far as can be told). Its 'exit' event runs only on the event loop,
 * which a pass waiting for the worker does not turn while it waits; on Linux its task is gone from /proc as soon as the
 * thread has ended, which a synchronous wait can look at. Elsewhere the async passes turn the event loop while the
 * worker is quiet (SessionFeed.next's WorkerQuiet).
 */
function stoppedWhy(t: Thread): string | null {
  if (t.ended !== null) return t.ended;
  return taskGone(t.tid) ? THREAD_ENDED : null;
}

function startThread(given?: WorkerWhere): Thread | null {
  const where = given ?? workerEntry();
  if (!where) return null;
  const { port1, port2 } = new MessageChannel();
  // A small young generation: each session's garbage dies there, and the old generation stays small and flat
  // (with V8's default the worker's heap grew with the store; decision 0027).
  const tid = taskSlot();
  const options = { eval: true, workerData: { port: port2, tid, ...where }, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: 8 } };
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
  const t: Thread = { worker, port: port1, broken: null, idle: null, ended: null, error: null, own: given !== undefined, tid };
  // Failures arrive as messages; an 'error' event nobody listens to would end the process. One that ends the thread
  // (out of memory, an exception outside a job) is kept to say why it ended.
  worker.on('error', (e) => {
    t.error = e instanceof Error ? e.message : String(e);
  });
  worker.on('exit', (code) => {
    t.ended = t.error ?? `its thread exited with code ${code}`;
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
  /** Why the thread ended, once a wait saw it had: take() says it after what the thread posted before. */
  #stopped: string | null = null;

  private constructor(t: Thread, job: number, control: Int32Array) {
    this.#t = t;
    this.#job = job;
    this.control = control;
  }

  /**
   * Hands the job to the worker (started here when the process has none); null when no worker can run here. `where`:
   * a module of the caller's instead (a test's), on a thread of its own for this job.
   */
  static start(job: ReadJob, control: Int32Array, where?: WorkerWhere): ReadAhead | null {
    let t: Thread | null;
    if (where) t = startThread(where);
    else {
      if (thread?.broken) return null;
      thread ??= startThread();
      t = thread;
    }
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

  /** Why its thread ended, once a wait saw it had: its 'error' or exit code once the event loop has told them. */
  get stoppedWhy(): string | null {
    return this.#stopped === null ? null : this.#t.ended ?? this.#stopped;
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
      if (!got) {
        if (this.#stopped === null || this.#finished) return null;
        // Everything it posted before it ended has been taken: what it took and did not post is the caller's.
        this.#finished = true;
        if (thread === this.#t) thread = null;
        return { kind: 'stopped', job: this.#job, message: this.#stopped };
      }
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
          Atomics.add(this.control, SLOT.takenChars, m.chars ?? 0);
          Atomics.notify(this.control, SLOT.taken);
          const [messages, parts] = fromWireAll([read.messages as PackedRows, read.parts as PackedRows]);
          return { ...m, read: { ...read, messages, parts } };
        }
      } else this.#finished = true;
      return m;
    }
  }

  /**
   * Sleeps until the worker posts again, or a second has passed (a worker that failed to load cannot wake us), and
   * looks whether its thread has ended (the next take() then says so). True when it stayed quiet and, as far as can be
   * told, runs: a caller that can turn the event loop should, so a thread's end is told on every platform.
   */
  wait(ms = 1000): boolean {
    if (this.#finished) return false;
    this.#stopped ??= this.#t.ended;
    if (this.#stopped !== null || Atomics.wait(this.control, SLOT.posted, this.#seen, ms) !== 'timed-out') return false;
    this.#stopped = stoppedWhy(this.#t);
    return this.#stopped === null;
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
    if (t.broken || t.own || this.#stopped !== null) {
      if (thread === t) thread = null;
      void t.worker.terminate().catch(() => {});
      return;
    }
    endWhenIdle(t);
  }
}

/** The thread ends after IDLE_MS unless a pass takes it first (ReadAhead.start clears the timer). */
function endWhenIdle(t: Thread): void {
  t.idle = setTimeout(() => {
    if (thread === t) thread = null;
    void t.worker.terminate().catch(() => {});
  }, IDLE_MS);
  t.idle.unref();
}

/**
 * Starts the process's worker thread ahead of a pass that will likely hand it a job (feed.ts warmIfWorth), so its
 * ~100 ms of loading runs beside the pass's planning instead of after it. Whether it then reads is still the pass's
 * choice (a free core, enough sessions); a thread no pass takes ends after IDLE_MS, as one a pass let go. Returns the
 * thread's id (the one the next pass gets), or null where no worker can run.
 */
export function warmReadWorker(): number | null {
  if (!thread) {
    thread = startThread();
    if (thread) endWhenIdle(thread);
  }
  return thread?.worker.threadId ?? null;
}

/** A fresh control array for one pass. */
export const newControl = (): Int32Array => new Int32Array(new SharedArrayBuffer(SLOTS * 4));

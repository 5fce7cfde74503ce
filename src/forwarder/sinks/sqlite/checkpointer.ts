// The dataset's WAL checkpointed on a thread of its own (decision 0027): a long backfill writes tens of MB, and each
// checkpoint (copying the WAL into the file, with its fsyncs) would otherwise stop the writing thread for a tenth of a
// second or more. The sink nudges this thread when enough frames wait; its own autocheckpoint stays as a safety net.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Slots: nudges (bumped by the sink), stop (set by the sink), busy (set by the thread while it checkpoints), closed. */
const NUDGES = 0;
const STOP = 1;
const BUSY = 2;
const CLOSED = 3;

/** Plain CommonJS, so it runs from the build and from the sources alike (it needs better-sqlite3 only). */
const THREAD = `
const { workerData } = require('node:worker_threads');
const { control, file, sqlite } = workerData;
let db = null;
try {
  db = new (require(sqlite))(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  for (;;) {
    const seen = Atomics.load(control, ${NUDGES});
    if (Atomics.load(control, ${STOP}) !== 0) break;
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* the writer's own autocheckpoint is the safety net */ }
    Atomics.store(control, ${BUSY}, 0);
    Atomics.wait(control, ${NUDGES}, seen);
  }
} catch { /* nothing to do: the writer checkpoints itself */ }
try { db && db.close(); } catch {}
Atomics.store(control, ${CLOSED}, 1);
Atomics.notify(control, ${CLOSED});
`;

export class Checkpointer {
  readonly #control: Int32Array;
  readonly #worker: Worker;

  private constructor(control: Int32Array, worker: Worker) {
    this.#control = control;
    this.#worker = worker;
  }

  /** A checkpoint thread on the dataset file, or null when no thread can be started here. */
  static start(file: string): Checkpointer | null {
    const control = new Int32Array(new SharedArrayBuffer(16));
    Atomics.store(control, BUSY, 1);
    try {
      const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
      const worker = new Worker(THREAD, { eval: true, execArgv: [], workerData: { control, file, sqlite }, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
      worker.on('error', () => {});
      worker.unref();
      return new Checkpointer(control, worker);
    } catch {
      return null;
    }
  }

  /** False once the thread ended (it could not open the dataset): the writer then checkpoints itself again. */
  get alive(): boolean {
    return Atomics.load(this.#control, CLOSED) === 0;
  }

  /** Asks for a checkpoint, unless one is under way. */
  nudge(): void {
    if (Atomics.compareExchange(this.#control, BUSY, 0, 1) !== 0) return;
    Atomics.add(this.#control, NUDGES, 1);
    Atomics.notify(this.#control, NUDGES);
  }

  /** Stops the thread and waits (a few seconds at most) until it has closed its connection to the dataset. */
  stop(): void {
    Atomics.store(this.#control, STOP, 1);
    Atomics.add(this.#control, NUDGES, 1);
    Atomics.notify(this.#control, NUDGES);
    Atomics.wait(this.#control, CLOSED, 0, 5000);
    void this.#worker.terminate().catch(() => {});
  }
}

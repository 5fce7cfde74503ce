// `hermetic serve`'s console line per answered request (unless --quiet): what, how it ended, how long, where.
// Built from the same metadata the journal keeps (journal/traffic.ts), so it never shows bodies, queries or headers.
import type { RequestRecord } from '../journal/traffic.js';

/**
 * @example requestLine({ namespace: 'default', method: 'GET', path: '/v1/runs/run_1', status: 200, durationMs: 0.42,
 *   operation: 'get', runId: 'run_1', replayed: null, faultId: null })
 *   // 'GET /v1/runs/run_1 200 0.4ms ns=default op=get'
 */
export function requestLine(r: RequestRecord): string {
  const status = r.status === 0 ? 'dropped' : String(r.status);
  const ms = r.durationMs < 10 ? r.durationMs.toFixed(1) : Math.round(r.durationMs).toString();
  let line = `${r.method} ${r.path} ${status} ${ms}ms ns=${r.namespace} op=${r.operation}`;
  // The run a submit was answered with (other routes name it in the path already).
  if (r.operation === 'submit' && r.runId) line += ` run=${r.runId}`;
  if (r.replayed) line += ' replayed';
  if (r.faultId) line += ` fault=${r.faultId}`;
  return line;
}

/** Bytes a batch may hold before it is written at once rather than when its interval ends. */
const BATCH_BYTES = 64 * 1024;
/** How long a line may wait for the lines after it (ms): too short for a person to notice. */
const BATCH_MS = 20;

/** When a batch is written: after `ms` (a timer that does not keep the process alive), or as a test says. */
export type Later = (ms: number, fn: () => void) => void;
const timer: Later = (ms, fn) => void setTimeout(fn, ms).unref();

/**
 * Lines written in batches: at most one write per 20 ms (or per 64 KiB), never one per line, so a request costs an
 * array push, not a console.log and a synchronous write to stdout (synchronous on Linux for files, pipes and TTYs).
 * A batch per event-loop turn still cost GET about 15% (~3.5 µs a request) under load. `flush()` writes what is
 * waiting now (before the process stops). Nothing is lost unless the process is killed.
 */
export class LineBatch {
  #lines: string[] = [];
  #bytes = 0;
  #scheduled = false;

  /** `write` gets one text of whole lines joined by "\n", without the last newline (console.log adds it). */
  constructor(
    private readonly write: (text: string) => void,
    private readonly later: Later = timer,
  ) {}

  push(line: string): void {
    this.#lines.push(line);
    this.#bytes += line.length + 1;
    if (this.#bytes >= BATCH_BYTES) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      this.later(BATCH_MS, () => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#lines.length === 0) return;
    const lines = this.#lines;
    this.#lines = [];
    this.#bytes = 0;
    this.write(lines.join('\n'));
  }
}

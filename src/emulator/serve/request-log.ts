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

/** Bytes a batch may hold before it is written at once rather than at the end of the event-loop turn. */
const BATCH_BYTES = 64 * 1024;

/**
 * Lines written in batches: at most one write per event-loop turn (or per 64 KiB), never one per line, so a request
 * costs an array push, not a synchronous write to stdout (stdout is synchronous on Linux for files, pipes and TTYs).
 * `flush()` writes what is waiting now (before the process stops). Nothing is lost unless the process is killed.
 */
export class LineBatch {
  #lines: string[] = [];
  #bytes = 0;
  #scheduled = false;

  /** `write` gets one text of whole lines joined by "\n", without the last newline (console.log adds it). */
  constructor(private readonly write: (text: string) => void) {}

  push(line: string): void {
    this.#lines.push(line);
    this.#bytes += line.length + 1;
    if (this.#bytes >= BATCH_BYTES) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
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

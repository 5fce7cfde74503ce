// Stores opened on first real use. A namespace that has only answered reads (a 404, an empty list) holds no SQLite
// handle: what it would read from a new, empty store is answered without one; the first write opens it. `discard()`
// closes the handle and forgets the rows (a namespace reset or eviction gives the memory back: decision 0028).
import type { SessionOps, SessionsSnapshot, SessionTable } from '../sessions/table.js';
import type { AdmitRequest, Admission, IdempotencyRow, RunTable } from '../runs/run-table.js';

/** What both lazy tables share: the store opened by `openStore` on first use, closed and forgotten by `discard()`. */
abstract class LazyStore<T extends { close(): void }> {
  #table: T | null = null;

  constructor(private readonly openStore: () => T) {}

  /** Whether a store is open (tests and metrics read this). */
  get opened(): boolean {
    return this.#table !== null;
  }

  /** The open store, or null while nothing has needed one. */
  protected get table(): T | null {
    return this.#table;
  }

  /** The store, opened now if it is not yet. */
  protected open(): T {
    return (this.#table ??= this.openStore());
  }

  /** Closes the store and forgets what it held; the next write opens a new, empty one. */
  discard(): void {
    this.close();
  }

  close(): void {
    const table = this.#table;
    this.#table = null;
    table?.close();
  }
}

export class LazyRunTable extends LazyStore<RunTable> implements RunTable {
  admit(request: AdmitRequest): Promise<Admission> {
    return this.open().admit(request);
  }

  lookup(scope: string, key: string, now: number): IdempotencyRow | undefined {
    return this.table?.lookup(scope, key, now);
  }

  writeStatus(runId: string, statusJson: string, now: number): void {
    this.open().writeStatus(runId, statusJson, now);
  }

  hasPending(runId?: string): boolean {
    return this.table?.hasPending(runId) ?? false;
  }

  pendingCount(): number {
    return this.table?.pendingCount() ?? 0;
  }

  commit(): void {
    this.table?.commit();
  }

  findRun(scope: string, runId: string): IdempotencyRow | undefined {
    return this.table?.findRun(scope, runId);
  }

  hasRun(runId: string): boolean {
    return this.table?.hasRun(runId) ?? false;
  }

  rows(): IdempotencyRow[] {
    return this.table?.rows() ?? [];
  }

  replaceAll(rows: readonly IdempotencyRow[]): void {
    if (this.table === null && rows.length === 0) return;
    this.open().replaceAll(rows);
  }
}

/** What a new, empty session store answers; it is never asked to change anything (writes open the real one). */
const EMPTY_SESSIONS: SessionOps = {
  get: () => undefined,
  byTitle: () => undefined,
  titleHolder: () => undefined,
  list: () => [],
  messages: () => [],
  lineageTitles: () => [],
  snapshot: (): SessionsSnapshot => ({ sessions: [], messages: [], messageSeqs: {} }),
  create: readOnly,
  ensure: readOnly,
  update: readOnly,
  end: readOnly,
  append: readOnly,
  touch: readOnly,
  replaceMessages: readOnly,
  delete: readOnly,
  replaceAll: readOnly,
};

function readOnly(): never {
  throw new Error('A read of the session store tried to change it.');
}

export class LazySessionTable extends LazyStore<SessionTable> implements SessionTable {
  read<T>(what: string, fn: (ops: SessionOps) => T): Promise<T> {
    const table = this.table;
    if (table === null) {
      try {
        return Promise.resolve(fn(EMPTY_SESSIONS));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return table.read(what, fn);
  }

  write<T>(what: string, fn: (ops: SessionOps) => T): Promise<T> {
    return this.open().write(what, fn);
  }

  writeNow<T>(what: string, fn: (ops: SessionOps) => T): T {
    return this.open().writeNow(what, fn);
  }
}

// One short-lived read of a Hermes state.db per tick (spec forwarding §6.3 items 19–20): read-only in place when
// SQLite needs to create nothing beside the store, else a private copy (decision 0013, 0017); a 5 s busy timeout
// like Hermes's own readers (a pass that may be stopped waits in short slices: decision 0104); transient SQLITE_IOERR (a WAL checkpoint seen by a read-only reader) and lock errors
// retried a few times, classified by the low byte of the result code.
import { HermeticError } from '../../shared/errors.js';
import { isStoreCondition, openSnapshot, primaryCode, readSnapshot, type Db, type ReadHow, type SnapshotCodes } from '../../shared/sqlite.js';

export type { ReadHow };

/** A lock or I/O error worth another try; a HermeticError so the snapshot reader passes it through untouched. */
class Transient extends HermeticError {
  readonly kind: 'busy' | 'ioerr';
  constructor(kind: 'busy' | 'ioerr', message: string) {
    super(kind === 'busy' ? 'HERMETIC_READER_BUSY' : 'HERMETIC_READER_OPEN', message);
    this.kind = kind;
  }
}

export { primaryCode };

/**
 * The store's failure in words, when `e` is one: a HermeticError as it is, a SQLite error that describes the file
 * (locked, damaged, unreadable: shared/sqlite.ts isStoreCondition) as HERMETIC_READER_BUSY or _OPEN. Null for anything
 * else — a bug of ours (a TypeError, SQL that cannot run), which must surface with its stack, not as the store's.
 */
export function storeFailure(path: string, e: unknown): HermeticError | null {
  if (e instanceof HermeticError) return e;
  if (!isStoreCondition(e)) return null;
  const primary = primaryCode(e);
  if (primary === 'SQLITE_BUSY' || primary === 'SQLITE_LOCKED') return new HermeticError('HERMETIC_READER_BUSY', `${path} stayed locked by a Hermes writer: ${(e as Error).message}.`);
  return new HermeticError('HERMETIC_READER_OPEN', `Cannot read ${path}: ${(e as Error).message}.`);
}

function classify(path: string, e: unknown): unknown {
  // A lock met while opening, said by openSnapshot (CODES.busy): tried again like one met while reading.
  if (e instanceof HermeticError && !(e instanceof Transient) && e.code === 'HERMETIC_READER_BUSY') return new Transient('busy', e.message);
  const primary = primaryCode(e);
  if (primary === 'SQLITE_BUSY' || primary === 'SQLITE_LOCKED') return new Transient('busy', `${path} stayed locked by a Hermes writer: ${(e as Error).message}.`);
  if (primary === 'SQLITE_IOERR') return new Transient('ioerr', `Cannot read ${path}: ${(e as Error).message}.`);
  return e;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleepSync = (ms: number) => { Atomics.wait(sleeper, 0, 0, ms); };

export interface ReadOptions {
  attempts?: number;
  backoffMs?: number;
  sleep?: (ms: number) => void;
  /** The connection's busy timeout (default BUSY_TIMEOUT_MS); openStore only. */
  busyMs?: number;
}

/** How long a read waits on a writer's lock, as Hermes's own readers do; tried three times (`retrying`): ~15 s in all. */
export const BUSY_TIMEOUT_MS = 5000;
/**
 * A pass that may be stopped waits for a locked store in slices this long, each a synchronous wait no signal handler
 * interrupts, with a turn of the event loop between them; LOCK_PATIENCE_MS in all, as three busy timeouts were
 * (decision 0104).
 */
export const LOCK_SLICE_MS = 200;
export const LOCK_PATIENCE_MS = 3 * BUSY_TIMEOUT_MS;

/** Whether `e` is a writer's lock outlasting a busy timeout: SQLite's own, or the reader's HERMETIC_READER_BUSY. */
export function isLock(e: unknown): boolean {
  if (e instanceof HermeticError) return e.code === 'HERMETIC_READER_BUSY';
  const primary = primaryCode(e);
  return primary === 'SQLITE_BUSY' || primary === 'SQLITE_LOCKED';
}

const CODES: SnapshotCodes = { open: 'HERMETIC_READER_OPEN', notSqlite: 'HERMETIC_READER_OPEN', busy: 'HERMETIC_READER_BUSY', isStore: isStoreCondition };

/** `fn`, tried again on a lock or transient I/O error (with backoff), then said as the store's failure. */
export function retrying<T>(path: string, fn: () => T, options: ReadOptions = {}): T {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? sleepSync;
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      const c = classify(path, e);
      if (!(c instanceof Transient)) throw e;
      if (attempt >= attempts) throw new HermeticError(c.code, c.message);
      sleep((options.backoffMs ?? 50) * attempt);
    }
  }
}

/** A store open for reads spread over a pass (a read transaction each: StoreReader.snapshot), closed by `close()`. */
export interface StoreConnection {
  db: Db;
  how: ReadHow;
  close(): void;
}

/**
 * Opens the store read-only (in place, or through a private copy) for a pass whose reads are spread over time; the
 * open is retried on a lock. Throws HERMETIC_READER_OPEN or _BUSY. Reads on it go through StoreReader.snapshot.
 * @example const c = openStore(path); try { new StoreReader(c.db, path).marks(); } finally { c.close(); }
 */
export function openStore(path: string, options: ReadOptions = {}): StoreConnection {
  return retrying(path, () => {
    const snap = openSnapshot(path, CODES, options.busyMs ?? BUSY_TIMEOUT_MS);
    return { db: snap.db, how: snap.how, close: () => snap.close() };
  }, options);
}

/**
 * Runs `fn` on a fresh read-only view of the store and closes it. Never creates or changes anything in the store's
 * folder. Throws HERMETIC_READER_OPEN (missing, not SQLite, damaged) or HERMETIC_READER_BUSY (locked through every
 * retry); anything else `fn` throws (a bug) is thrown as it is.
 * @example const n = readStore('/home/u/.hermes/state.db', (db) => db.prepare('SELECT COUNT(*) FROM sessions').pluck().get());
 */
export function readStore<T>(path: string, fn: (db: Db, how: ReadHow) => T, options: ReadOptions = {}): T {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? sleepSync;
  for (let attempt = 1; ; attempt++) {
    try {
      return readSnapshot(path, (db, how) => {
        try {
          return fn(db, how);
        } catch (e) {
          throw classify(path, e);
        }
      }, CODES);
    } catch (e) {
      if (!(e instanceof Transient) || attempt >= attempts) throw e instanceof Transient ? new HermeticError(e.code, e.message) : e;
      sleep((options.backoffMs ?? 50) * attempt);
    }
  }
}

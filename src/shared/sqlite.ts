// better-sqlite3 openers: read-write stores with WAL and a busy timeout, read-only readers for foreign stores, and a
// snapshot reader that leaves a store's folder exactly as it found it (decision 0013).
import Database from 'better-sqlite3';
import { accessSync, chmodSync, closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { byteSize } from './byte-size.js';
import { HermeticError, type ErrorCode } from './errors.js';

export type Db = Database.Database;

function statOf(path: string): { isDirectory(): boolean; size: number; mtimeMs: number } | NodeJS.ErrnoException {
  try {
    return statSync(path);
  } catch (e) {
    return e as NodeJS.ErrnoException;
  }
}

const reason = (e: NodeJS.ErrnoException) =>
  e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.code === 'ENOENT' ? 'the file does not exist' : e.message;

/**
 * SQLite's empty file name: a private store of this connection on disk, in a temporary file deleted as soon as it is
 * made (SQLITE_TMPDIR, TMPDIR or /var/tmp). Its pages past the cache spill to that file, so a store every client can
 * fill (a namespace's runs and sessions) grows the disk, as Hermes's state.db does, not the process (decision 0136).
 */
export const PRIVATE_STORE = '';

/** Whether `path` names no file of the user's: SQLite's in-memory store or a private one. */
export const isPrivateStore = (path: string): boolean => path === ':memory:' || path === PRIVATE_STORE;

/**
 * Why no store file can be opened or created at `path`, in words ("the folder /x does not exist"), or null when
 * SQLite may try. Hermetic never creates a folder the user named: a typo should fail, not grow a tree.
 * @example storePathProblem('/etc/passwd/s.db') // '/etc/passwd is not a folder'
 */
export function storePathProblem(path: string): string | null {
  if (isPrivateStore(path)) return null;
  const own = statOf(path);
  if (!(own instanceof Error)) return own.isDirectory() ? 'it is a folder, not a file' : null;
  const dir = dirname(path);
  const parent = statOf(dir);
  if (parent instanceof Error) {
    return parent.code === 'ENOENT' || parent.code === 'ENOTDIR' ? `the folder ${dir} does not exist` : `${dir}: ${reason(parent)}`;
  }
  return parent.isDirectory() ? folderNotWritable(dir) : `${dir} is not a folder`;
}

/**
 * Why this user cannot make files in `dir` (a read-only file system, no permission), or null when it can. SQLite
 * makes a WAL file's -wal and -shm beside it, so a store in such a folder cannot be written even when it exists.
 * @example folderNotWritable('/mnt/backup') // 'the folder /mnt/backup is on a read-only file system'
 */
export function folderNotWritable(dir: string): string | null {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `the folder ${dir} is on a read-only file system`;
    if (code === 'EACCES' || code === 'EPERM') return `this user may not write in the folder ${dir}`;
    return null;
  }
}

/**
 * Opens (creating the file if needed, never its folder) a store we own: WAL where the file supports it, 5 s busy
 * timeout, file mode 0600 for a new file. A caller that picks a default location creates that folder itself.
 * @example const db = openReadWrite('/tmp/hermetic/runs.db');
 */
export function openReadWrite(path: string): Db {
  const problem = storePathProblem(path);
  if (problem) throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot open the store at ${path}: ${problem}.`);
  try {
    const fresh = isPrivateStore(path) || !existsSync(path);
    const db = new Database(path);
    db.pragma('busy_timeout = 5000');
    if (!isPrivateStore(path)) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      if (fresh) chmodSync(path, 0o600);
    }
    return db;
  } catch (e) {
    // An existing store in a folder this user cannot write: SQLite's "unable to open database file" said as the folder's.
    const why = isPrivateStore(path) ? null : folderNotWritable(dirname(path));
    throw new HermeticError('HERMETIC_STORE_OPEN', `Cannot open the store at ${path}: ${why ?? (e as Error).message}.`);
  }
}

/** Opens a store strictly read-only (never creates, never writes, waits up to 5 s on a busy writer). */
export function openReadOnly(path: string, code: ErrorCode = 'HERMETIC_STORE_OPEN'): Db {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (e) {
    throw new HermeticError(code, `Cannot open ${path} read-only: ${(e as Error).message}.`);
  }
}

/** How readSnapshot reached the rows: a read-only connection on the store, or a private copy of it. */
export type ReadHow = 'in-place' | 'copy';

export interface SnapshotCodes {
  /** Missing file, a folder, unreadable, damaged. */
  open: ErrorCode;
  /** Empty, or not starting with SQLite's header. */
  notSqlite: ErrorCode;
  /**
   * A lock that outlasted the busy timeout while opening (a writer holding the store exclusively): said with this code
   * when given, so a caller that retries locks can tell it from a store it cannot read (default: `open`).
   */
  busy?: ErrorCode;
  /**
   * Which errors thrown while reading are the store's, said as `open` (default: any SQLite error). The rest — a
   * TypeError, or what `isStore` turns down — are bugs of the reader and are thrown as they are, stack included.
   */
  isStore?: (e: unknown) => boolean;
}

export { primaryCode, damagedFile, isLockedOut } from './sqlite-errors.js';

/** Whether the database has a table of that name (a dataset or store older than the table has none). */
export function hasTable(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
import { primaryCode } from './sqlite-errors.js';

/** Primary codes that describe a database file's state (locked, damaged, unreadable), not the statement run on it. */
const STORE_CONDITIONS = new Set([
  'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_READONLY',
  'SQLITE_FULL', 'SQLITE_PERM', 'SQLITE_AUTH', 'SQLITE_PROTOCOL', 'SQLITE_SCHEMA', 'SQLITE_FORMAT', 'SQLITE_NOLFS',
  'SQLITE_EMPTY', 'SQLITE_NOMEM',
]);

/**
 * Whether an error is the state of a database file (SQLITE_BUSY, _CORRUPT, _IOERR, _NOTADB, …) rather than a
 * statement that cannot run (SQLITE_ERROR: a syntax error, no such column; _MISUSE, _RANGE): the former is the
 * store's, the latter a bug of the SQL that ran.
 */
export function isStoreCondition(e: unknown): boolean {
  const p = primaryCode(e);
  return p !== null && STORE_CONDITIONS.has(p);
}

/** Any SQLite error (the default of SnapshotCodes.isStore). */
const isSqliteError = (e: unknown): boolean => primaryCode(e) !== null;

const COMPANIONS = ['-wal', '-shm', '-journal'] as const;
const SQLITE_HEADER = 'SQLite format 3\0';

/** An existing file's first 100 bytes (SQLite's database header), or why they cannot be read. */
function headerOf(path: string): Buffer | { open: string } | { notSqlite: 'empty' | 'other' } {
  const st = statOf(path);
  if (st instanceof Error) return { open: reason(st) };
  if (st.isDirectory()) return { open: 'it is a folder, not a file' };
  if (st.size === 0) return { notSqlite: 'empty' };
  const header = Buffer.alloc(100);
  let n: number;
  try {
    const fd = openSync(path, 'r');
    try {
      n = readSync(fd, header, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return { open: reason(e as NodeJS.ErrnoException) };
  }
  return n === 100 && header.toString('latin1', 0, 16) === SQLITE_HEADER ? header : { notSqlite: 'other' };
}

/**
 * Why an existing file is not a SQLite database, in words, or null (also null for a missing file or a folder).
 * @example sqliteFileProblem('notes.txt') // "it is not a SQLite database (it does not start with SQLite's header)"
 */
export function sqliteFileProblem(path: string): string | null {
  const h = headerOf(path);
  return 'notSqlite' in h ? `it is ${NOT_SQLITE[h.notSqlite]}` : null;
}

const NOT_SQLITE = {
  empty: 'empty, so it is not a SQLite database',
  other: "not a SQLite database (it does not start with SQLite's header)",
} as const;

/** The header, after the checks a person needs in words. */
function readHeader(path: string, codes: SnapshotCodes): Buffer {
  const h = headerOf(path);
  if ('open' in h) throw new HermeticError(codes.open, `Cannot open ${path} read-only: ${h.open}.`);
  if ('notSqlite' in h) throw new HermeticError(codes.notSqlite, `${path} is ${NOT_SQLITE[h.notSqlite]}.`);
  return h;
}

/**
 * Sizes and times of the store and its companions: equal before and after a copy means the copy is one moment.
 * Also what a reader that must copy compares between reads: nothing wrote to the store while it is unchanged.
 */
export function fileSignature(path: string): string {
  const st = statOf(path);
  return `${st instanceof Error ? '-' : (st as { ino?: number }).ino ?? '?'} ${fingerprint(path)}`;
}

function fingerprint(path: string): string {
  return ['', ...COMPANIONS].map((s) => {
    const st = statOf(path + s);
    return st instanceof Error ? '-' : `${st.size}@${st.mtimeMs}`;
  }).join(' ');
}

const READONLY_REFUSALS = new Set(['SQLITE_READONLY_ROLLBACK', 'SQLITE_READONLY_RECOVERY', 'SQLITE_READONLY_CANTINIT', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN']);

/** Whether readSnapshot would read a private copy of the store (SQLite would otherwise create files beside it). */
export function readsCopy(path: string): boolean {
  const h = headerOf(path);
  if (!Buffer.isBuffer(h)) return false;
  const has = (suffix: string) => existsSync(path + suffix);
  return !(has('-wal') ? has('-shm') : !(h[18] === 2 || h[19] === 2));
}

/**
 * Runs `read` on a connection that sees every committed row of the store at `path` — rows that live only in its
 * -wal included — and leaves the store's folder exactly as it found it: no -wal, -shm or -journal appears or goes.
 * It reads in place, read-only, when SQLite needs to create nothing there (a -wal with its -shm, or a rollback-journal
 * store without a -wal); otherwise it reads a private copy in a temporary folder (decision 0013).
 * @example const n = readSnapshot('state.db', (db) => db.prepare('SELECT COUNT(*) AS n FROM sessions').get());
 */
export function readSnapshot<T>(path: string, read: (db: Db, how: ReadHow) => T, codes: SnapshotCodes): T {
  const snap = openSnapshot(path, codes);
  try {
    return read(snap.db, snap.how);
  } catch (e) {
    return snap.failed(e);
  } finally {
    snap.close();
  }
}

/** An open read of a store (openSnapshot): its connection, how it reads, and the one way to let it go. */
export interface Snapshot {
  db: Db;
  how: ReadHow;
  /** Closes the connection, and removes the private copy when it read one. */
  close(): void;
  /** What an error thrown while reading is: the store's (said as `codes.open`), or a bug (thrown as it is). */
  failed(e: unknown): never;
}

/**
 * readSnapshot's connection, open until `close()`: for reads spread over time (a long pass that lets the event loop
 * run between its batches). A first read at once finds what a read-only connection cannot do (roll back a hot
 * journal, recover a WAL): such a store is read through a private copy. `busyMs`: how long a read in place waits on
 * a writer's lock (its busy timeout; a caller that waits in slices sets it short and later long again).
 * @example const s = openSnapshot('state.db', codes); try { s.db.prepare('SELECT 1').get(); } finally { s.close(); }
 */
export function openSnapshot(path: string, codes: SnapshotCodes, busyMs = 5000): Snapshot {
  const header = readHeader(path, codes);
  const has = (suffix: string) => existsSync(path + suffix);
  // Bytes 18 and 19 are 2 in a WAL store: a read-only connection would then create the -wal and -shm it lacks.
  const walHeader = header[18] === 2 || header[19] === 2;
  const inPlace = has('-wal') ? has('-shm') : !walHeader;
  if (inPlace) {
    const { fail, failedAs } = failures(path, codes);
    let db: Db | null = null;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyMs))}`);
      // The first read: a hot journal left by a crashed writer (a rollback a read-only connection may not do) or a
      // WAL to recover shows here, and the store is then read through a copy.
      db.pragma('schema_version');
      const open = db;
      return { db: open, how: 'in-place', close: () => open.close(), failed: failedAs('') };
    } catch (e) {
      db?.close();
      const primary = primaryCode(e);
      if (codes.busy && (primary === 'SQLITE_BUSY' || primary === 'SQLITE_LOCKED')) {
        throw new HermeticError(codes.busy, `${path} stayed locked by a Hermes writer: ${(e as Error).message}.`);
      }
      if (!READONLY_REFUSALS.has((e as { code?: string }).code ?? '')) fail(e, '');
    }
  }
  return openPrivateCopy(path, codes);
}

/**
 * A private copy of the SQLite file at `path` (with its -wal or -journal), read-write so SQLite can recover it there,
 * removed by `close()`: for a database this user can read but not open in place (decision 0013).
 */
export function openPrivateCopy(path: string, codes: SnapshotCodes): Snapshot {
  const { fail, failedAs } = failures(path, codes);
  return openCopy(path, codes, fail, failedAs(' (through a private copy)'));
}

/**
 * How a snapshot says a failure: `fail` turns an error into `codes.open` with the path; `failedAs` does so for what a
 * read throws when it is the store's, and lets anything else (a bug) through untouched, with its stack.
 */
function failures(path: string, codes: SnapshotCodes): { fail: (e: unknown, how: string) => never; failedAs: (how: string) => (e: unknown) => never } {
  const fail = (e: unknown, how: string): never => {
    if (e instanceof HermeticError) throw e;
    throw new HermeticError(codes.open, `Cannot read ${path}${how}: ${(e as Error).message}.`);
  };
  const isStore = codes.isStore ?? isSqliteError;
  const failedAs = (how: string) => (e: unknown): never => {
    if (e instanceof HermeticError || isStore(e)) fail(e, how);
    throw e;
  };
  return { fail, failedAs };
}

let swept = false;

/** A process's start time (clock ticks since boot, /proc/<pid>/stat field 22), or '' where /proc is not there. */
function startTime(pid: number | 'self'): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** The owner of a private copy, in its folder name: pid and start time (a pid alone may have been reused). */
const owner = `${process.pid}-${startTime('self') || '0'}`;

/**
 * Private copies left by a reader that was killed mid-read (SIGKILL skips its cleanup): removed once per process,
 * only those whose owner (the pid and start time in the name) is gone.
 */
function sweepDeadCopies(): void {
  if (swept) return;
  swept = true;
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^hermetic-snapshot-(\d+)-(\d+)-/.exec(name);
    if (!m || `${m[1]}-${m[2]}` === owner) continue;
    const pid = Number(m[1]);
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch (e) {
      alive = (e as NodeJS.ErrnoException).code !== 'ESRCH';
    }
    // A live pid with another start time is a new process that reused the number: the owner is gone.
    const now = alive ? startTime(pid) : '';
    if (!alive || (m[2] !== '0' && now !== '' && now !== m[2])) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** Why a store is copied at all, for the messages that say a copy failed (decision 0013). */
const WHY_COPY = 'A SQLite file that cannot be read in place without creating files beside it (in WAL mode with no -shm, as Hermes and the forwarder leave theirs when they stop, in a folder this user cannot write, or one to recover) is read through a private copy:';

/** The bytes a private copy of `path` takes: the store with its `-wal` and `-journal`. */
function copyBytes(path: string): number {
  let bytes = 0;
  for (const s of ['', '-wal', '-journal']) {
    const st = statOf(path + s);
    if (!(st instanceof Error)) bytes += st.size;
  }
  return bytes;
}

/**
 * Why the private copy of `path` could not be made, and what to do. It goes to TMPDIR, which is often a small tmpfs:
 * a full one names the room the copy needs (and what was free, when it was looked at before copying).
 * @example copyProblem('/home/u/.hermes/state.db', enospc) // 'Cannot copy … (1.2 GB) into /tmp to read it: no space left there. …'
 */
export function copyProblem(path: string, e: NodeJS.ErrnoException, tmp = tmpdir(), free: number | null = null, bytes = copyBytes(path)): string {
  if (e.code !== 'ENOSPC' && e.code !== 'EDQUOT') return `Cannot copy ${path} to read it: ${reason(e)}.`;
  const room = free === null ? 'no space left there' : `only ${byteSize(free)} free there`;
  return `Cannot copy ${path} (${byteSize(bytes)}) into ${tmp} to read it: ${room}. ${WHY_COPY} make room there, or set TMPDIR to a folder with room.`;
}

/**
 * Refuses a copy that cannot fit before writing any of it: filling a small /tmp, even for a moment, fails other
 * programs' writes too. Where the free space cannot be read, the copy is tried (its ENOSPC is then the answer).
 */
function checkRoom(path: string, dir: string, codes: SnapshotCodes): void {
  let free: number;
  try {
    const st = statfsSync(dir);
    free = st.bavail * st.bsize;
  } catch {
    return;
  }
  const bytes = copyBytes(path);
  if (free < bytes) throw new HermeticError(codes.open, copyProblem(path, Object.assign(new Error('no space'), { code: 'ENOSPC' }), dirname(dir), free, bytes));
}

function openCopy(path: string, codes: SnapshotCodes, fail: (e: unknown, how: string) => never, failed: (e: unknown) => never): Snapshot {
  let dir: string;
  try {
    sweepDeadCopies();
    dir = mkdtempSync(join(tmpdir(), `hermetic-snapshot-${owner}-`));
  } catch (e) {
    throw new HermeticError(codes.open, `Cannot make a temporary folder in ${tmpdir()} to read a copy of ${path}: ${reason(e as NodeJS.ErrnoException)}. ${WHY_COPY} set TMPDIR to a folder you may write.`);
  }
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  try {
    const copy = join(dir, 'store.db');
    checkRoom(path, dir, codes);
    for (let attempt = 1; ; attempt++) {
      const before = fingerprint(path);
      try {
        copyFileSync(path, copy, constants.COPYFILE_FICLONE);
        for (const s of ['-wal', '-journal']) if (existsSync(path + s)) copyFileSync(path + s, copy + s, constants.COPYFILE_FICLONE);
      } catch (e) {
        throw new HermeticError(codes.open, copyProblem(path, e as NodeJS.ErrnoException));
      }
      if (fingerprint(path) === before) break;
      if (attempt === 3) throw new HermeticError(codes.open, `Cannot read ${path}: it kept changing while it was copied.`);
      for (const s of ['', ...COMPANIONS]) rmSync(copy + s, { force: true });
    }
    let db: Db;
    try {
      // Read-write on the private copy, so SQLite can replay its -wal or roll back its hot journal there.
      db = new Database(copy, { fileMustExist: true });
    } catch (e) {
      return fail(e, ' (through a private copy)');
    }
    return {
      db, how: 'copy', failed,
      close: () => {
        try {
          db.close();
        } finally {
          removeDir();
        }
      },
    };
  } catch (e) {
    removeDir();
    throw e;
  }
}

// The embedded dataset: one SQLite file (default ~/.hermetic/hermetic.db) in WAL mode so queries run while the
// forwarder writes, its schema generated from dataset/columns.ts and versioned with `PRAGMA user_version`.
import Database from 'better-sqlite3';
import { accessSync, chmodSync, constants, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import { folderNotWritable, openPrivateCopy, type Db } from '../../../shared/sqlite.js';
import { isLockedOut, primaryCode } from '../../../shared/sqlite-errors.js';
import { DATASET_TABLES, DATASET_VERSION, type DatasetTable } from '../../dataset/columns.js';
import { ledgerTimeZone } from '../../ledger/zone.js';
import { ACTIVITY_TRIGGERS, DROPPED_INSERT_TRIGGERS, recomputeActivity } from './activity.js';
import { LedgerWriter } from './ledger.js';
import { recountRows, ROW_COUNT_TRIGGERS } from './row-counts.js';
import { keepBackfillUnread } from './backfill-unread.js';
import { recomputeToolCalls, TOOL_CALL_SCHEMA } from './tool-calls.js';
import { keepProgramsNamed, nameTerminalCalls, TERMINAL_INDEX, TERMINAL_INDEX_SQL } from './programs.js';
import { seedChangeLog, shipExistingTable, updateTriggers } from '../remote/changelog.js';
import { REMOVED } from '../sink.js';
import { makeDirs } from '../../../shared/dirs.js';
import { liveBuilds } from './build-files.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export const DATASET_FILE = 'hermetic.db';
/** Checkpoint every 32 MiB of WAL, not 4: fewer second writes in a backfill (see also sink.ts's checkpoint thread). */
export const AUTOCHECKPOINT_PAGES = 8192;
/**
 * The size a WAL is cut to when it starts over after a checkpoint. Without it the file keeps its largest size for good
 * (32 MiB and more beside a dataset of a few): room a small disk needs for data (decision 0101).
 */
export const WAL_KEPT_BYTES = 4 * 1024 * 1024;

export function createTableSql(t: DatasetTable): string {
  // AUTOINCREMENT can only be said on the column itself.
  const inline = t.autoincrement === true && t.primaryKey.length === 1 ? t.primaryKey[0]! : null;
  const cols = t.columns.map((c) => `${q(c.name)} ${c.type === 'JSON' ? 'TEXT' : c.type}${c.name === inline ? ' PRIMARY KEY AUTOINCREMENT' : c.notNull ? ' NOT NULL' : ''}`);
  const key = inline ? [] : [`PRIMARY KEY (${t.primaryKey.map(q).join(', ')})`];
  return `CREATE TABLE IF NOT EXISTS ${q(t.name)} (${[...cols, ...key].join(', ')})${t.withoutRowid ? ' WITHOUT ROWID' : ''}`;
}

function indexSql(t: DatasetTable): string[] {
  return (t.indexes ?? []).map((cols) => `CREATE INDEX IF NOT EXISTS ${q(`${t.name}_${cols.join('_')}`)} ON ${q(t.name)} (${cols.map(q).join(', ')})`);
}

/**
 * Every table, index and column of the definition that the file lacks, added (never changed or dropped): a migration
 * that only adds is this, whatever it adds. Columns added later must be nullable (SQLite adds them as NULL).
 */
function addMissing(db: Db): void {
  for (const t of DATASET_TABLES) {
    db.exec(createTableSql(t));
    addMissingColumns(db, t.name, t.columns);
    for (const s of indexSql(t)) db.exec(s);
  }
}

/** The columns of `columns` that table `name` lacks, added as nullable (a dataset, or a sqlite:// copy of one). */
export function addMissingColumns(db: Db, name: string, columns: DatasetTable['columns']): void {
  const have = new Set((db.prepare(`PRAGMA table_info(${q(name)})`).all() as { name: string }[]).map((c) => c.name));
  for (const c of columns) if (!have.has(c.name)) db.exec(`ALTER TABLE ${q(name)} ADD COLUMN ${q(c.name)} ${c.type === 'JSON' ? 'TEXT' : c.type}`);
}

/** Creates the tables (and their indexes) that dataset version `v` added. */
function createTables(db: Db, v: number): void {
  for (const t of DATASET_TABLES.filter((x) => (x.since ?? 1) === v)) {
    db.exec(createTableSql(t));
    for (const s of indexSql(t)) db.exec(s);
  }
}

export interface DatasetOptions {
  /** The usage ledger's time zone (default `HERMETIC_TZ`, else the one it was built in, else the machine's; decision 0031). */
  timeZone?: string;
  /** Called under the write lock before a dataset of an older version (not a new one) is upgraded to this one's. */
  onUpgrade?: (from: number, to: number, path: string) => void;
}

/** Migrations by version: index i brings the dataset from version i to i + 1. */
const MIGRATIONS: ((db: Db, options: DatasetOptions) => void)[] = [
  (db) => createTables(db, 1),
  // 2 (decision 0032): session_cursors.tail. Cursors without a tail replace their session's rows on its next write.
  addMissing,
  // 3: the usage ledger (decision 0031): its tables, the activity triggers, and the ledger of every session already here.
  (db, options) => {
    createTables(db, 3);
    for (const sql of ACTIVITY_TRIGGERS) db.exec(sql);
    recomputeActivity(db);
    new LedgerWriter(db, ledgerTimeZone(options.timeZone, null)).rebuildAll();
  },
  // 4 (decision 0035): remote sinks and the change log; no triggers until a sink is registered.
  (db) => {
    createTables(db, 4);
    seedChangeLog(db);
  },
  // 5 (decision 0040): rows the sink inserts are counted by the sink (activity.ts InsertedActivity), not per row.
  (db) => {
    for (const name of DROPPED_INSERT_TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  },
  // 6 (decision 0048): messages.compacted. A session with messages compaction summarized away is read again on the next
  // pass (its cursor's fingerprint no longer matches) and, without a tail, written whole: the history it lost comes back.
  (db) => {
    addMissing(db);
    db.exec(`UPDATE session_cursors SET fingerprint = '', tail = NULL WHERE fingerprint != '${REMOVED}' AND EXISTS (SELECT 1 FROM sessions s
      WHERE s.store = session_cursors.store AND s.session_id = session_cursors.session_id AND s.archived_messages > 0)`);
  },
  // 7 (decision 0050): sessions.attributes and messages.attributes, Hermes's fields the dataset had no column for. Every
  // session is read again on the next pass (its fingerprint now covers those fields) and written whole (the tail's
  // version changed), so the rows written before get them too.
  addMissing,
  // 8 (decision 0054): delegations, and stores.delegation_marks (NULL: every store's async_delegations is read on its
  // next pass). A dataset that feeds remote sinks logs the new table's changes from now on.
  (db) => {
    addMissing(db);
    updateTriggers(db);
  },
  // 9: stores.hermes_home (NULL until the store is read again), so `forget` judges every scope of a session.
  addMissing,
  // 10: stores.unread, what a windowed backfill left unread (NULL, not known, until the store's next pass).
  addMissing,
  // 11 (decision 0069): tool_calls (the dashboard's slowest calls) and row_counts (status), kept by the writer from
  // here on; filled once from the tables (about 2 s at 1M messages).
  (db) => {
    createTables(db, 11);
    for (const sql of [...TOOL_CALL_SCHEMA, ...ROW_COUNT_TRIGGERS]) db.exec(sql);
    recomputeToolCalls(db);
    recountRows(db);
  },
  // 12 (decision 0092): row_issues is shipped to remote sinks. A dataset that feeds sinks logs its changes from now on,
  // and each sink copies the rows it already holds.
  (db) => shipExistingTable(db, 'row_issues'),
  // 13 (decision 0102): backfill_unread, what windowed backfills left unread (kept from stores.unread by the sink),
  // filled now and shipped: each sink whose copy was done copies it.
  (db) => {
    createTables(db, 13);
    keepBackfillUnread(db);
    shipExistingTable(db, 'backfill_unread');
  },
  // 14 (decision 0112): call_usage, newer Hermes's per-call usage, kept with each session's daily_usage. A store that
  // has the per-call table marks its usage with it (normalize/usage-mark.ts CALLS_MARK), so its sessions with usage
  // are read again on its next pass (tails kept: only what changed is written) and get their rows.
  (db) => createTables(db, 14),
  // 15 (decision 0152): parts.program, each terminal call's program, and the index of the terminal tool's parts; every
  // call already here named now (a dataset that feeds remote sinks logs those rows: each sink receives their names).
  (db) => {
    addMissing(db);
    db.exec(TERMINAL_INDEX_SQL);
    nameTerminalCalls(db);
  },
  // 16 (decision 0172): messages and parts as rowid tables, their rows, indexes and triggers as they were; the index of
  // the terminal tool's parts made again with the key it no longer carries on its own.
  (db) => {
    db.exec(`DROP INDEX IF EXISTS ${TERMINAL_INDEX}`);
    for (const t of DATASET_TABLES) if (t.withoutRowid !== true) restoreRowid(db, t);
    db.exec(TERMINAL_INDEX_SQL);
  },
];

/**
 * Stores table `t` as its definition says, a rowid table, when the file keeps it WITHOUT ROWID: copied into a new
 * table in key order, which then takes the old one's name, indexes and triggers (SQLite's own recipe for a change
 * ALTER TABLE cannot make). Its rows, their values and every count kept of them are unchanged; no trigger fires.
 */
function restoreRowid(db: Db, t: DatasetTable): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(t.name) as string | undefined;
  if (sql === undefined || !/\)\s*WITHOUT\s+ROWID\s*$/i.test(sql)) return;
  const attached = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type = 'trigger', rowid").pluck().all(t.name) as string[];
  const aside = `${t.name}__rowid`;
  // Made from the file's own definition, WITHOUT ROWID left out, so a column a user added to the table (and its
  // default) is copied with the rest, not dropped. Made anew (no IF NOT EXISTS): a table of that name already there is
  // someone's, refused, never filled and renamed.
  const made = sql.replace(/\)\s*WITHOUT\s+ROWID\s*$/i, ')').replace(/^CREATE\s+TABLE\s+("(?:[^"]|"")*"|\S+?)\s*\(/i, `CREATE TABLE ${q(aside)} (`);
  if (!made.startsWith(`CREATE TABLE ${q(aside)} (`)) throw new Error(`restoreRowid: cannot read the definition of ${t.name}: ${sql}`);
  db.exec(made);
  const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t.name) as string[]).map(q).join(', ');
  db.exec(`INSERT INTO ${q(aside)} (${cols}) SELECT ${cols} FROM ${q(t.name)} ORDER BY ${t.primaryKey.map(q).join(', ')}`);
  db.exec(`DROP TABLE ${q(t.name)}`);
  // A user's view or trigger that names the table (a view over `messages`, a trigger of another table reading `parts`)
  // stays, and reads the new table by its name. Without the legacy rename SQLite checks the whole schema at RENAME
  // and refuses it while the name is missing, so the dataset could never be migrated (SQLite's recipe says the same).
  const legacy = db.pragma('legacy_alter_table', { simple: true }) as number;
  db.pragma('legacy_alter_table = ON');
  try {
    db.exec(`ALTER TABLE ${q(aside)} RENAME TO ${q(t.name)}`);
  } finally {
    db.pragma(`legacy_alter_table = ${legacy ? 'ON' : 'OFF'}`);
  }
  for (const s of attached) db.exec(s);
}

/**
 * A dataset of this version has every table of dataset/columns.ts: one removed by hand is said as damage, with what to
 * do, instead of being met by a later statement as a bug. One look at the schema, at open.
 */
function checkTables(db: Db, path: string): void {
  const have = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  const missing = DATASET_TABLES.map((t) => t.name).filter((name) => !have.has(name));
  if (missing.length === 0) return;
  throw new HermeticError('HERMETIC_DATASET_OPEN', `The dataset at ${path} has no ${missing.join(', ')} table${missing.length === 1 ? '' : 's'} (removed by hand?): move it aside and run hermetic backfill to build it again from Hermes's stores, which Hermetic never writes.`);
}

const newer = (path: string, version: number) =>
  new HermeticError('HERMETIC_DATASET_VERSION', `${path} is at dataset version ${version}, newer than this Hermetic's ${DATASET_VERSION}; upgrade Hermetic to use it.`);

function migrate(db: Db, path: string, options: DatasetOptions): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > DATASET_VERSION) throw newer(path, version);
  if (version < DATASET_VERSION) {
    try {
      db.transaction(() => {
        // Read again under the write lock: another process that opened the dataset at the same time may have migrated
        // it while this one waited for the lock, and its migrations are not run twice (decision 0172 addendum).
        const locked = db.pragma('user_version', { simple: true }) as number;
        if (locked > DATASET_VERSION) throw newer(path, locked);
        if (locked > 0 && locked < DATASET_VERSION) options.onUpgrade?.(locked, DATASET_VERSION, path);
        for (let v = locked; v < DATASET_VERSION; v++) MIGRATIONS[v]!(db, options);
        db.pragma(`user_version = ${DATASET_VERSION}`);
      }).immediate();
    } catch (e) {
      throw upgradeFailed(e, path, version);
    }
    return;
  }
  checkTables(db, path);
  // Programs named by other rules than this Hermetic's are named again (decision 0152).
  keepProgramsNamed(db);
}

/**
 * A migration that failed, in words: its one transaction rolled back, so the dataset is as it was. A lock held past the
 * wait is left to openDatasetFile's words (the same for any write at open); a file this user cannot write, to its
 * check of the folder.
 */
function upgradeFailed(e: unknown, path: string, version: number): unknown {
  const code = primaryCode(e);
  if (e instanceof HermeticError || code === null || isLockedOut(e) || code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN') return e;
  const full = code === 'SQLITE_FULL';
  const why = !full ? (e as Error).message
    : version === 0 ? 'the disk is full'
      : 'the disk is full (an upgrade may write the largest tables once more, about their size again, until it ends)';
  // Version 0 is a file just made: its tables were being created, not upgraded.
  const what = version === 0 ? `Cannot create the dataset's tables at ${path}` : `Cannot upgrade the dataset at ${path} from dataset version ${version} to ${DATASET_VERSION}`;
  return Object.assign(new HermeticError('HERMETIC_DATASET_OPEN', `${what}: ${why}. Nothing of it was changed${full ? ': make room and run this again' : ''}.`), { cause: e });
}

/**
 * Opens (creating the folder and file when missing) the dataset under `home`, migrated to this version.
 * @example const db = openDataset('/home/u/.hermetic');
 */
export function openDataset(home: string, options: DatasetOptions = {}): Db {
  return openDatasetFile(home, join(home, DATASET_FILE), 'wal', options);
}

/**
 * Opens the dataset file at `path` in `home`: `wal` is the dataset as every process uses it; `aside` a new file built
 * by one process alone (first-build.ts): its rollback journal in memory and no syncs, so each page is written once.
 */
export function openDatasetFile(home: string, path: string, journal: 'wal' | 'aside', options: DatasetOptions = {}): Db {
  let db: Db | null = null;
  try {
    makeDirs(home, 'HERMETIC_DATASET_OPEN', 0o700);
    refuseFolder(path);
    const fresh = !existsSync(path);
    db = new Database(path);
    db.pragma('busy_timeout = 5000');
    // A build holds its file's lock from its first write (the schema, below) to its close: build-files.ts tells a
    // build under way from one killed by it.
    if (journal === 'aside') db.pragma('locking_mode = EXCLUSIVE');
    db.pragma(journal === 'wal' ? 'journal_mode = WAL' : 'journal_mode = MEMORY');
    db.pragma(journal === 'wal' ? 'synchronous = NORMAL' : 'synchronous = OFF');
    db.pragma('cache_size = -8192'); // 8 MiB: enough for the pages a batch touches; more only grows memory with the store
    if (journal === 'wal') db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    if (journal === 'wal') db.pragma(`journal_size_limit = ${WAL_KEPT_BYTES}`);
    // Rows that INSERT OR REPLACE deletes fire delete triggers only with this on: the activity triggers count them.
    db.pragma('recursive_triggers = ON');
    if (fresh) chmodSync(path, 0o600);
    migrate(db, path, options);
    return db;
  } catch (e) {
    db?.close();
    // A build that failed to open is nobody's (its name is this process's): gone at once, not left to the next sweep.
    if (journal === 'aside') for (const s of ['', '-journal']) rmSync(path + s, { force: true });
    if (e instanceof HermeticError) throw e;
    if (isLockedOut(e)) {
      // Not SQLite's "database is locked": whose lock it may be, and that waiting for it is all it takes.
      throw Object.assign(new HermeticError('HERMETIC_DATASET_OPEN', `Another process kept the dataset at ${path} locked longer than this one waits (5 s): a backfill, a forward or a forget writing to it, or upgrading it to this version (once, seconds for a large dataset). Nothing was written: run this again when it is done.`), { cause: e });
    }
    // SQLite's "unable to open database file" for a folder this user cannot write in (a new file, or a WAL file's -shm):
    // said as the folder's problem, and of the dataset (not of the build file a first pass writes it as). The reading
    // commands read such a dataset all the same (openDatasetReadOnly).
    const dataset = join(home, DATASET_FILE);
    const why = folderNotWritable(home);
    if (why) {
      const there = existsSync(dataset);
      throw new HermeticError('HERMETIC_DATASET_OPEN', `Cannot ${there ? 'write' : 'create'} the dataset at ${dataset}: ${why}${there ? ' (report, query, status and web can still read it)' : ''}.`);
    }
    throw new HermeticError('HERMETIC_DATASET_OPEN', `Cannot open the dataset at ${journal === 'aside' ? `${dataset} (being built as ${path})` : path}: ${(e as Error).message}.`);
  }
}

/** A folder where the dataset file goes, said as one: SQLite says "disk I/O error" or "unable to open database file". */
function refuseFolder(path: string): void {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    // Not there, or not to be looked at: opening it says why.
  }
  if (folder) throw new HermeticError('HERMETIC_DATASET_OPEN', `Cannot open the dataset at ${path}: it is a folder, not a dataset file; move it aside, and the next backfill or forward makes the dataset there.`);
}

/**
 * Opens the dataset strictly read-only (`report`, `query`, `status`, `web`, `export`); it must exist. In a folder this
 * user may not write (read-only media, a backup, another user's dataset shared read-only) SQLite cannot make the
 * -shm a WAL file needs beside it when none is there: the dataset is then read through a private copy in TMPDIR,
 * removed when the connection closes (decision 0125).
 */
export function openDatasetReadOnly(home: string): Db {
  const path = join(home, DATASET_FILE);
  if (!existsSync(path)) {
    const building = liveBuilds(home)[0];
    if (building) throw new HermeticError('HERMETIC_DATASET_OPEN', `There is no dataset at ${path} yet: the first pass of a backfill or forward (process ${building.pid}) is writing it, and it appears when that pass ends; try again then.`);
    throw new HermeticError('HERMETIC_DATASET_OPEN', `There is no dataset at ${path} yet; run "hermetic backfill" first.`);
  }
  refuseFolder(path);
  try {
    return checkedReadOnly(path, new Database(path, { readonly: true, fileMustExist: true }));
  } catch (e) {
    if (e instanceof HermeticError) throw e;
    if (!(IN_PLACE_REFUSALS.has((e as { code?: string }).code ?? '') && folderNotWritable(home) !== null && readable(path))) {
      throw new HermeticError('HERMETIC_DATASET_OPEN', `Cannot open the dataset at ${path}: ${(e as Error).message}.`);
    }
  }
  const copy = openPrivateCopy(path, { open: 'HERMETIC_DATASET_OPEN', notSqlite: 'HERMETIC_DATASET_OPEN' });
  // The caller closes the connection as any other: closing it removes the copy too (copy.close closes the connection
  // with its own close, put back first).
  const close = copy.db.close;
  copy.db.close = () => {
    copy.db.close = close;
    copy.close();
    return copy.db;
  };
  try {
    return checkedReadOnly(path, copy.db);
  } catch (e) {
    if (e instanceof HermeticError) throw e;
    throw new HermeticError('HERMETIC_DATASET_OPEN', `Cannot open the dataset at ${path} (through a private copy): ${(e as Error).message}.`);
  }
}

/**
 * What SQLite says when a read-only connection cannot use a WAL file where it is: no -shm and no way to make one
 * (CANTOPEN as root on read-only media, READONLY_DIRECTORY for a folder without write permission), or a -wal to
 * recover without write access.
 */
const IN_PLACE_REFUSALS = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY_DIRECTORY', 'SQLITE_READONLY_CANTINIT', 'SQLITE_READONLY_RECOVERY']);

/** `db` once it is known to be a dataset this Hermetic can read (its version, its tables); closed when it is not. */
function checkedReadOnly(path: string, db: Db): Db {
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > DATASET_VERSION) {
      throw new HermeticError('HERMETIC_DATASET_VERSION', `${path} is at dataset version ${version}, newer than this Hermetic's ${DATASET_VERSION}; upgrade Hermetic to use it.`);
    }
    if (version === DATASET_VERSION) checkTables(db, path);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Whether this process may read the file at `path`. */
function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

// `--sink sqlite:///path/to/copy.db`: a remote sink that is another SQLite file (a copy on another disk, a file several
// machines' forwarders can share over a synchronised folder). Each shipped table keeps the dataset's columns with the
// origin's machine id and host name in front (the machine id leads the key, so several machines' rows coexist); each
// batch is one transaction that also records the batch's `toSeq` for its origin, so `applied` is exact.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Db } from '../../../shared/sqlite.js';
import type { RecordOf } from '../../dataset/columns.js';
import { addMissingColumns } from '../sqlite/dataset.js';
import { SHIPPED, SHIPPED_BY_NAME } from './changelog.js';
import { SinkError, type AppliedMark, type DeltaBatch, type Origin, type RemoteSink } from './contract.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/** The table of origins: each machine's last applied change-log number. */
export const ORIGINS_TABLE = 'hermetic_origins';

/**
 * SQLite's failures a person or time can mend (another writer, a disk gone for a moment, full, or mounted read-only)
 * are retried with backoff; the rest are not.
 */
const RETRIABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|PROTOCOL|READONLY)/;

/** What to do about a failure, by SQLite's code: said after its message. */
const ADVICE: [RegExp, string][] = [
  [/^SQLITE_READONLY/, 'the file or its folder cannot be written (make it writable, or remount its disk); the sink catches up once it can'],
  [/^SQLITE_CANTOPEN/, 'check that the path names a file in a folder this user can write; the sink catches up once it can'],
  [/^SQLITE_FULL/, 'the disk is full; the sink catches up once there is room'],
  [/^SQLITE_(NOTADB|CORRUPT)/, 'the file is not a SQLite database this sink can use: name another file with --sink (a sink already fed is removed with "hermetic sinks remove URL")'],
];

export function sinkError(what: string, e: unknown): SinkError {
  const code = String((e as { code?: string }).code ?? '');
  const retriable = RETRIABLE.test(code);
  const advice = ADVICE.find(([re]) => re.test(code))?.[1];
  return new SinkError(retriable ? 'HERMETIC_SINK_UNAVAILABLE' : 'HERMETIC_SINK_FAILED', `${what}: ${(e as Error).message}${code ? ` (${code})` : ''}${advice ? `; ${advice}` : ''}`, retriable, { cause: e });
}

/** The file a `sqlite://` URL names: `sqlite:///abs/path.db`, or `sqlite://relative/path.db` (from the working folder). */
export function sqliteUrlPath(url: string, cwd = process.cwd()): string {
  const m = /^sqlite:\/\/(.*)$/.exec(url);
  if (!m || m[1]!.split('?')[0] === '') {
    throw new SinkError('HERMETIC_SINK_URL', `"${url}" is not a SQLite sink URL; write sqlite:///absolute/path.db or sqlite://relative/path.db`, false);
  }
  return resolve(cwd, decodeURIComponent(m[1]!.split('?')[0]!));
}

export class SqliteFileSink implements RemoteSink {
  readonly id: string;
  readonly display: string;
  readonly leavesMachine: boolean = false;
  readonly path: string;
  readonly #busyMs: number;
  #db: Db | null = null;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    this.path = path;
    this.id = `sqlite://${path}`;
    this.display = this.id;
    this.#busyMs = options.busyTimeoutMs ?? 5000;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    // The folder must be there (as for `serve --db` and `statedb generate`): a typo is not made into folders, and a
    // disk that is not mounted now is waited for, not written beside.
    const folder = dirname(this.path);
    if (!existsSync(folder)) {
      throw new SinkError('HERMETIC_SINK_UNAVAILABLE', `cannot open ${this.path}: the folder ${folder} does not exist (create it, or mount its disk); the sink catches up once it does`, true);
    }
    try {
      const created = !existsSync(this.path);
      const db = new Database(this.path);
      // A copy of the dataset is as private as the dataset (hermetic.db is 0600).
      if (created) chmodSync(this.path, 0o600);
      try {
        db.pragma(`busy_timeout = ${this.#busyMs}`);
        db.pragma('journal_mode = WAL');
        db.transaction(() => {
          for (const t of SHIPPED) {
            const cols = ['"machine_id" TEXT NOT NULL', '"hostname" TEXT NOT NULL', ...t.columns.map((c) => `${q(c.name)} ${c.type === 'JSON' ? 'TEXT' : c.type}`)];
            db.exec(`CREATE TABLE IF NOT EXISTS ${q(t.name)} (${cols.join(', ')}, PRIMARY KEY (machine_id, ${t.primaryKey.map(q).join(', ')}))`);
            // A copy made by an older Hermetic gets the columns the dataset has since gained.
            addMissingColumns(db, t.name, t.columns);
          }
          db.exec(`CREATE TABLE IF NOT EXISTS ${ORIGINS_TABLE} (machine_id TEXT PRIMARY KEY, hostname TEXT NOT NULL, applied_seq INTEGER NOT NULL)`);
          // The log batch that brought applied_seq (added later: a copy made before has them NULL, trusted as before).
          addMissingColumns(db, ORIGINS_TABLE, [
            { name: 'applied_from', type: 'INTEGER', doc: '', notNull: false },
            { name: 'applied_digest', type: 'TEXT', doc: '', notNull: false },
          ]);
        }).immediate();
      } catch (e) {
        db.close();
        throw e;
      }
      this.#db = db;
    } catch (e) {
      throw sinkError(`cannot open ${this.path}`, e);
    }
  }

  #open(): Db {
    if (!this.#db) throw new SinkError('HERMETIC_SINK_FAILED', `${this.display} is not open`, false);
    return this.#db;
  }

  async applied(origin: Origin): Promise<AppliedMark | null> {
    try {
      const row = this.#open().prepare(`SELECT applied_seq, applied_from, applied_digest FROM ${ORIGINS_TABLE} WHERE machine_id = ?`).get(origin.machineId) as
        { applied_seq: number; applied_from: number | null; applied_digest: string | null } | undefined;
      return row ? { seq: row.applied_seq, from: row.applied_from, digest: row.applied_digest } : null;
    } catch (e) {
      throw sinkError(`cannot read ${this.path}`, e);
    }
  }

  async write(batch: DeltaBatch): Promise<void> {
    const db = this.#open();
    const { machineId, hostname } = batch.origin;
    try {
      db.transaction(() => {
        // A snapshot's first batch: this origin's rows from an earlier life of the sink go (contract.ts `first`).
        if (batch.first) for (const t of SHIPPED) db.prepare(`DELETE FROM ${q(t.name)} WHERE machine_id = ?`).run(machineId);
        for (const d of batch.deletes) {
          const t = SHIPPED_BY_NAME.get(d.table)!;
          const del = db.prepare(`DELETE FROM ${q(t.name)} WHERE machine_id = ? AND ${t.primaryKey.map((c) => `${q(c)} = ?`).join(' AND ')}`);
          for (const k of d.keys) del.run(machineId, ...t.primaryKey.map((c) => k[c] as unknown));
        }
        for (const u of batch.upserts) {
          const t = SHIPPED_BY_NAME.get(u.table)!;
          const names = t.columns.map((c) => c.name);
          const put = db.prepare(`INSERT OR REPLACE INTO ${q(t.name)} (machine_id, hostname, ${names.map(q).join(', ')}) VALUES (?, ?, ${names.map(() => '?').join(', ')})`);
          for (const r of u.rows) put.run(machineId, hostname, ...names.map((n) => valueOf(r, n)));
        }
        // The highest number applied, with the range and digest of the log batch that brought it (a snapshot keeps none).
        const log = batch.fromSeq < batch.toSeq && batch.logDigest !== undefined;
        db.prepare(`INSERT INTO ${ORIGINS_TABLE} AS o (machine_id, hostname, applied_seq, applied_from, applied_digest) VALUES (@machine, @hostname, @seq, @from, @digest)
          ON CONFLICT (machine_id) DO UPDATE SET hostname = excluded.hostname, applied_seq = CASE WHEN @first THEN excluded.applied_seq ELSE MAX(o.applied_seq, excluded.applied_seq) END,
            applied_from = CASE WHEN @first OR excluded.applied_seq > o.applied_seq THEN excluded.applied_from WHEN excluded.applied_seq = o.applied_seq THEN COALESCE(excluded.applied_from, o.applied_from) ELSE o.applied_from END,
            applied_digest = CASE WHEN @first OR excluded.applied_seq > o.applied_seq THEN excluded.applied_digest WHEN excluded.applied_seq = o.applied_seq THEN COALESCE(excluded.applied_digest, o.applied_digest) ELSE o.applied_digest END`)
          .run({ machine: machineId, hostname, seq: batch.toSeq, from: log ? batch.fromSeq : null, digest: log ? batch.logDigest : null, first: batch.first === true ? 1 : 0 });
      }).immediate();
    } catch (e) {
      throw sinkError(`cannot write to ${this.path}`, e);
    }
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = null;
  }
}

function valueOf(r: RecordOf, n: string): unknown {
  const v = r[n];
  return v === undefined ? null : v;
}

/** The `sqlite://` factory for the sink registry. */
export function createSqliteFileSink(url: string, options: { cwd?: string } = {}): RemoteSink {
  const busy = /[?&]busy_timeout_ms=(\d+)/.exec(url);
  const path = sqliteUrlPath(url, options.cwd);
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch { /* not there yet: the sink creates the file */ }
  if (folder) throw new SinkError('HERMETIC_SINK_URL', `"${url}" names the folder ${path}; name a file in it, e.g. sqlite://${path}/copy.db`, false);
  return new SqliteFileSink(path, busy ? { busyTimeoutMs: Number(busy[1]) } : {});
}

/** What a SQLite sink file holds for one machine: rows per shipped table, in the dataset's columns. */
export function readSqliteSinkFile(path: string, machineId: string): Record<string, RecordOf[]> {
  const db = new Database(path, { readonly: true });
  try {
    const out: Record<string, RecordOf[]> = {};
    for (const t of SHIPPED) {
      out[t.name] = db.prepare(`SELECT ${t.columns.map((c) => q(c.name)).join(', ')} FROM ${q(t.name)} WHERE machine_id = ? ORDER BY ${t.primaryKey.map(q).join(', ')}`).all(machineId) as RecordOf[];
    }
    return out;
  } finally {
    db.close();
  }
}

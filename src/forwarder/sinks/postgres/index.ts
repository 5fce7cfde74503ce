// The PostgreSQL fleet store as a remote sink (issue 17 §2, decision 0036): many forwarders, one database; each row
// carries its machine; a batch is one transaction that also moves the machine's `progress`, so `applied` tells a
// restarted forwarder what the database already holds.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { RecordOf } from '../../dataset/columns.js';
import { HermeticError } from '../../../shared/errors.js';
import { check, is, parseOptions, type OptionsInput, type OptionsOutput } from '../../../shared/options.js';
import { SinkError, type AppliedMark, type DeltaBatch, type Origin, type RemoteSink } from '../remote/contract.js';
import { isStatementTimeout, rowTimeout, toSinkError } from './errors.js';
import { createMissingTables, migrate } from './migrate.js';
import { createPool } from './pool.js';
import { nameFleetPrograms } from './programs.js';
import { PROGRAM_RULES } from '../../dataset/program.js';
import { SHIPPED } from './schema.js';
import { postgresTarget, type PostgresTarget } from './url.js';
import { deleteStatements, lastPerKey, upsertStatements, type Statement, type UpsertStrategy } from './write.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/**
 * A part of a batch that is sent as its own statements: a table's deletes or upserts, all of them or a piece of
 * `rows` of them (decision 0086). `fit`: the key of the size learned for it ('upsert messages'); none for statements
 * that carry no rows of the batch (a snapshot's first deletes).
 */
interface Piece { fit?: string; table?: string; rows: number; statements: Statement[] }

/** A piece PostgreSQL cancelled at statement_timeout (decision 0086): write() cuts it in halves and tries again. */
class PieceTimedOut extends Error {
  constructor(readonly piece: Piece, readonly error: unknown) { super('statement timeout'); }
}

function invalid(name: string, expected: string, value: unknown): never {
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be ${expected}; got ${JSON.stringify(value) ?? String(value)}.`);
}

const OPTIONS = {
  /** The schema (default: `?schema=` in the URL, else `hermetic`). */
  schema: is.nullable(is.string),
  /** Connections in the pool. */
  poolSize: check((v, name): number => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100 ? (v as number) : invalid(name, 'a whole number from 1 to 100', v))),
  /** Milliseconds to wait for a connection. */
  connectTimeoutMs: is.integer,
  /** How rows are sent: `copy` (COPY; the default, decision 0043), `unnest` (arrays per column) or `values` (a multi-row VALUES list). */
  strategy: check((v, name): UpsertStrategy => (v === 'copy' || v === 'unnest' || v === 'values' ? v : invalid(name, '"copy", "unnest" or "values"', v))),
};

/** What the sink registry passes (sinks/remote/registry.ts): the home and folder, and a config entry's settings. */
const FACTORY = {
  ...OPTIONS,
  home: is.string,
  cwd: is.string,
  /** A config file `sinks:` entry's settings besides its url: the options above, checked the same way. */
  settings: check((v, name): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : invalid(name, 'a mapping of sink settings', v))),
};

export type PostgresSinkOptions = OptionsInput<typeof FACTORY>;

export interface PostgresSink extends RemoteSink {
  readonly schema: string;
  /** The SQL a batch becomes, deletes first (for tests and the bench). */
  statements(batch: DeltaBatch): Statement[];
}

class Sink implements PostgresSink {
  readonly id: string;
  readonly display: string;
  readonly leavesMachine = true;
  readonly schema: string;
  readonly #target: PostgresTarget;
  readonly #options: OptionsOutput<typeof OPTIONS>;
  #pool: pg.Pool | null = null;
  /** The connections holding a batch now: abort() cuts them. */
  readonly #writing = new Set<pg.PoolClient>();
  readonly #cut = new WeakSet<pg.PoolClient>();
  /** The pool's connections still being made (pool.ts): abort() cuts them too. */
  readonly #connecting = new Set<pg.Client>();
  /** abort() calls so far: a write whose connect failed after one was cut short, not refused by the server. */
  #aborts = 0;
  /** Whether the role may make temporary tables (COPY's staging table); read at open. */
  #staging = true;
  /**
   * Rows per statement that PostgreSQL's statement_timeout let through, by table and kind ('upsert messages'), as
   * cancelled statements taught it: the half of the last piece cancelled, so later batches start there instead of
   * meeting the same cancels again (for this sink's life; a raised statement_timeout is used again after a restart).
   */
  readonly #fits = new Map<string, number>();

  constructor(target: PostgresTarget, options: OptionsOutput<typeof OPTIONS>) {
    this.#target = target;
    this.#options = options;
    this.id = target.id;
    this.display = target.display;
    this.schema = target.schema;
  }

  #fail(e: unknown): SinkError {
    return toSinkError(e, this.display, this.#target.secrets);
  }

  #poolOf(): pg.Pool {
    this.#pool ??= createPool(this.#target, { max: this.#options.poolSize, connectTimeoutMs: this.#options.connectTimeoutMs, connecting: this.#connecting });
    return this.#pool;
  }

  async open(): Promise<void> {
    try {
      const client = await this.#poolOf().connect();
      let broken: Error | undefined;
      const onError = (e: Error) => { broken = e; };
      client.on('error', onError);
      try {
        await migrate(client, this.schema);
        // The machines whose terminal programs are named by older rules, named again (decision 0152).
        await nameFleetPrograms(client, this.schema);
        this.#staging = (await client.query("SELECT has_database_privilege(current_database(), 'TEMPORARY') AS t")).rows[0].t === true;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    } catch (e) {
      throw this.#fail(e);
    }
  }

  async applied(origin: Origin): Promise<AppliedMark | null> {
    try {
      const r = await this.#poolOf().query(`SELECT applied_seq, applied_from, applied_digest FROM ${q(this.schema)}.progress WHERE machine_id = $1`, [origin.machineId]);
      if (r.rows.length === 0) return null;
      const row = r.rows[0];
      return { seq: Number(row.applied_seq), from: row.applied_from === null ? null : Number(row.applied_from), digest: row.applied_digest ?? null };
    } catch (e) {
      throw this.#fail(e);
    }
  }

  /** The statements of a batch, deletes first, cut into the pieces that fit (exported for the bench and tests). */
  statements(batch: DeltaBatch): Statement[] {
    return this.#pieces(batch).flatMap((p) => p.statements);
  }

  /** A batch as pieces, deletes first: each table's deletes, then its upserts, in pieces no larger than what fits. */
  #pieces(batch: DeltaBatch): Piece[] {
    const out: Piece[] = [];
    const cut = (fit: string, table: string, rows: readonly RecordOf[], make: (rows: readonly RecordOf[], several: boolean) => Statement[]) => {
      const per = this.#fits.get(fit) ?? rows.length;
      for (let i = 0; i < rows.length; i += per) {
        const piece = rows.slice(i, i + per);
        out.push({ fit, table, rows: piece.length, statements: make(piece, per < rows.length) });
      }
    };
    const table = (name: string) => {
      const t = SHIPPED.get(name as never);
      if (!t) throw new SinkError('HERMETIC_SINK_REJECTED', `The batch names a table the PostgreSQL sink does not hold: "${name}".`, false);
      return t;
    };
    // A snapshot's first batch: this machine's rows from an earlier life of the sink go (contract.ts `first`).
    if (batch.first) for (const t of SHIPPED.values()) out.push({ rows: 0, statements: [{ text: `DELETE FROM ${q(this.schema)}.${q(t.name)} WHERE machine_id = $1`, values: [batch.origin.machineId] }] });
    for (const d of batch.deletes) {
      if (d.keys.length > 0) cut(`delete ${d.table}`, d.table, d.keys, (keys) => deleteStatements(this.schema, table(d.table), batch.origin.machineId, keys));
    }
    // One upsert per table, its rows in the batch's order (the last row of a key wins, as it would one by one).
    const upserts = new Map<string, RecordOf[]>();
    for (const u of batch.upserts) if (u.rows.length > 0) upserts.set(u.table, [...(upserts.get(u.table) ?? []), ...u.rows]);
    // Rows cut into pieces: a key's last row is found first, so no two pieces hold one key (upsertStatements finds it
    // for the rows it is given).
    for (const [name, rows] of upserts) {
      const t = table(name);
      const fit = `upsert ${name}`;
      cut(fit, name, (this.#fits.get(fit) ?? Infinity) < rows.length ? lastPerKey(t, rows) : rows, (piece, several) => upsertStatements(this.schema, t, batch.origin, piece, this.#options.strategy, this.#staging, several));
    }
    return out;
  }

  async write(batch: DeltaBatch): Promise<void> {
    let pieces = this.#pieces(batch);
    const aborts = this.#aborts;
    let client: pg.PoolClient;
    try {
      client = await this.#poolOf().connect();
    } catch (e) {
      throw this.#aborts !== aborts ? this.#cutShort() : this.#fail(e);
    }
    let broken: Error | undefined;
    /** Why the server ended the connection, when it did so between two statements (a restart, a timeout). */
    let ended: Error | undefined;
    // A connection the server drops while this batch holds it says so here (and the query fails), not as a crash.
    const onError = (e: Error) => { broken = e; ended ??= e; };
    client.on('error', onError);
    this.#writing.add(client);
    try {
      // A piece cancelled at statement_timeout rolls the batch back, and it is sent again at once, in one transaction,
      // with that piece's rows in halves (decision 0086): at most log2(rows) times, once per size, since the size is kept.
      for (;;) {
        try {
          await this.#transaction(client, batch, pieces);
          return;
        } catch (e) {
          if (!(e instanceof PieceTimedOut) || ended !== undefined || this.#cut.has(client)) throw e;
          const { piece } = e;
          if (piece.rows < 2) throw rowTimeout(e.error, piece.table!, await timeoutSetting(client), this.display, this.#target.secrets);
          await client.query('ROLLBACK');
          this.#fits.set(piece.fit!, Math.min(this.#fits.get(piece.fit!) ?? Infinity, Math.ceil(piece.rows / 2)));
          pieces = this.#pieces(batch);
        }
      }
    } catch (e) {
      broken = e as Error;
      if (this.#cut.has(client)) throw this.#cutShort();
      await client.query('ROLLBACK').catch(() => undefined);
      // The next statement then only hears "not queryable": the server's own reason (57P01, 25P03…) says what happened.
      throw this.#fail(ended ?? (e instanceof PieceTimedOut ? e.error : e));
    } finally {
      // A connection that failed mid-batch is closed rather than handed to the next write.
      this.#writing.delete(client);
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** One try at a batch: its transaction, committed; a piece cancelled at statement_timeout throws PieceTimedOut. */
  async #transaction(client: pg.PoolClient, batch: DeltaBatch, pieces: readonly Piece[]): Promise<void> {
    await client.query('BEGIN');
    // Acknowledged means durable: a database, role or server whose synchronous_commit is off would answer COMMIT
    // before its WAL is flushed, and a crash would take back a batch the forwarder's cursor has moved past.
    await client.query("SELECT set_config('synchronous_commit', 'on', true) WHERE current_setting('synchronous_commit') = 'off'");
    // The machine's progress row, locked: two processes shipping for one machine take turns. A log batch the
    // database already holds (a replay after a crash between write and ack) changes nothing; snapshot pages
    // (fromSeq = toSeq) are upserts of rows as they are now, applied whatever the number.
    const seen = await client.query(`SELECT applied_seq FROM ${q(this.schema)}.progress WHERE machine_id = $1 FOR UPDATE`, [batch.origin.machineId]);
    if (batch.fromSeq < batch.toSeq && seen.rows.length > 0 && Number(seen.rows[0].applied_seq) >= batch.toSeq) {
      await client.query('COMMIT');
      return;
    }
    if (batch.first) await createMissingTables(client, this.schema);
    for (const piece of pieces) {
      try {
        await run(client, piece.statements);
      } catch (e) {
        throw piece.fit !== undefined && isStatementTimeout(e) ? new PieceTimedOut(piece, e) : e;
      }
    }
    // The highest number applied, with the range and digest of the log batch that brought it (a snapshot keeps none).
    const log = batch.fromSeq < batch.toSeq && batch.logDigest !== undefined;
    await client.query(
      `INSERT INTO ${q(this.schema)}.progress AS p (machine_id, hostname, applied_seq, applied_from, applied_digest, updated_at, program_rules) VALUES ($1, $2, $3, $4, $5, now(), $7)
       ON CONFLICT (machine_id) DO UPDATE SET hostname = EXCLUDED.hostname, program_rules = EXCLUDED.program_rules, applied_seq = CASE WHEN $6 THEN EXCLUDED.applied_seq ELSE GREATEST(p.applied_seq, EXCLUDED.applied_seq) END,
         applied_from = CASE WHEN $6 OR EXCLUDED.applied_seq > p.applied_seq THEN EXCLUDED.applied_from WHEN EXCLUDED.applied_seq = p.applied_seq THEN COALESCE(EXCLUDED.applied_from, p.applied_from) ELSE p.applied_from END,
         applied_digest = CASE WHEN $6 OR EXCLUDED.applied_seq > p.applied_seq THEN EXCLUDED.applied_digest WHEN EXCLUDED.applied_seq = p.applied_seq THEN COALESCE(EXCLUDED.applied_digest, p.applied_digest) ELSE p.applied_digest END,
         updated_at = EXCLUDED.updated_at`,
      // A snapshot's first batch starts the machine over: what it records replaces what any other copy recorded.
      // The rules its terminal programs are named by: the dataset's when the batch was read (another Hermetic may have
      // named it by its own since this one opened it; decision 0158), else this Hermetic's.
      [batch.origin.machineId, batch.origin.hostname, batch.toSeq, log ? batch.fromSeq : null, log ? batch.logDigest : null, batch.first === true, batch.programRules ?? PROGRAM_RULES],
    );
    await client.query('COMMIT');
  }

  #cutShort(): SinkError {
    return new SinkError('HERMETIC_SINK_UNAVAILABLE', `The batch being written to ${this.display} was cut short because the forwarder is stopping; nothing of it was applied, and it is sent again by the next run.`, true);
  }

  /**
   * The process is stopping: the connections holding a batch are cut, so their writes reject now (the server rolls
   * the transaction back; the batch, never acknowledged, is sent again by a later run), and so are the connections
   * still being made (their writes reject too, and close() has none to wait for). A write waiting on a lock, or on a
   * server that stopped answering before or after it connected, no longer holds the process.
   */
  abort(): void {
    this.#aborts++;
    for (const client of this.#connecting) cutConnection(client);
    this.#connecting.clear();
    for (const client of this.#writing) {
      this.#cut.add(client);
      cutConnection(client);
    }
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    await pool?.end().catch(() => undefined);
  }
}

/** The connection's statement_timeout and role, for the sentence of a row it cancelled; null when they cannot be read. */
async function timeoutSetting(client: pg.PoolClient): Promise<{ timeout: string; role: string } | null> {
  try {
    await client.query('ROLLBACK');
    const r = await client.query("SELECT current_setting('statement_timeout') AS timeout, current_user AS role");
    return { timeout: String(r.rows[0].timeout), role: String(r.rows[0].role) };
  } catch {
    return null;
  }
}

/**
 * Closes a client's socket at once. node-postgres has no public call for it: `end()` waits for the server to answer,
 * which is what a stopping process cannot wait for; the socket is `connection.stream` in every pg 8 release.
 */
function cutConnection(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy?: (e?: Error) => void } } }).connection?.stream;
  stream?.destroy?.(new Error('the forwarder is stopping: the batch under way was cut short'));
}

/** Runs statements in order: COPY's rows streamed as they are encoded; a key conflict runs the statement's `onConflict`. */
async function run(client: pg.PoolClient, statements: readonly Statement[]): Promise<void> {
  for (const s of statements) {
    try {
      if (s.copy === undefined) await client.query(s.text, s.values);
      else await pipeline(Readable.from(s.copy()), client.query(copyFrom(s.text)));
    } catch (e) {
      if (!s.onConflict || (e as { code?: string }).code !== '23505') throw e;
      await run(client, s.onConflict);
    }
  }
}

/**
 * A sink writing into PostgreSQL; nothing connects before `open()`.
 * @example const sink = createPostgresSink('postgres://me@db/fleet?sslmode=require'); await sink.open(); await sink.write(batch);
 */
export function createPostgresSink(url: string, options: PostgresSinkOptions = {}): PostgresSink {
  const defaults = { schema: null, poolSize: 4, connectTimeoutMs: 10_000, strategy: 'copy' as UpsertStrategy };
  const { settings } = parseOptions('PostgreSQL sink', options, FACTORY, { ...defaults, home: '', cwd: '', settings: {} });
  // A config file's settings, then options given in code (home and cwd are the registry's; this sink keeps no files).
  const given = Object.fromEntries(Object.entries(options).filter(([k]) => Object.hasOwn(OPTIONS, k)));
  const o = parseOptions('PostgreSQL sink', { ...settings, ...given }, OPTIONS, defaults);
  return new Sink(postgresTarget(url, o.schema ?? undefined), o);
}

export { postgresTarget, redactUrl } from './url.js';
export { SHIPPED_TABLES } from './schema.js';

// Turns a sink's cursor into its next DeltaBatch (decision 0035), read from the dataset in one read transaction:
// while its snapshot is under way, the next rows of the shipped tables in key order; then the change log after its
// cursor, each key once (its current row → an upsert; no row, or a row of a local-only session → a delete). A
// session that became local-only sends deletes for all its rows; one that became `full` again sends all of them.
// Batches are bounded by entries and by bytes. A delegation's row issues leave by the delegation's policy (decision 0092).
import type { Db } from '../../../shared/sqlite.js';
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { CHANGE_LOG } from '../../dataset/columns.js';
import { storedProgramRules } from '../sqlite/programs.js';
import { entriesDigest, logHead, SHIPPED, SHIPPED_BY_NAME, type SinkRow } from './changelog.js';
import type { DeltaBatch, Origin, ShippedTable } from './contract.js';
import { redactRow } from './redact-row.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export interface BatchLimits {
  /** Rows (snapshot) or log entries (log) per batch. */
  rows: number;
  /** Estimated bytes of the rows in a batch: a batch stops at the row that passes it. */
  bytes: number;
}

export const DEFAULT_LIMITS: BatchLimits = { rows: 2000, bytes: 4 * 1024 * 1024 };

/** Where a sink's cursor goes once the batch is acknowledged. */
export interface CursorAfter {
  ackedSeq: number;
  /** The snapshot's position (JSON), or null once the snapshot is done. */
  snapshot: string | null;
}

export interface NextBatch {
  kind: 'snapshot' | 'log';
  batch: DeltaBatch;
  /** Rows upserted plus keys deleted. */
  rows: number;
  after: CursorAfter;
  /** Whether the cursor, once moved, is at the head of the log with no snapshot left. */
  caughtUp: boolean;
}

interface SnapshotPosition {
  table: ShippedTable;
  after: unknown[] | null;
}

/** Shipped tables whose rows carry their own usage policy, and those whose rows are a session's (by `session_id`). */
const OWN_POLICY: ReadonlySet<DatasetTable> = new Set(SHIPPED.filter((t) => t.columns.some((c) => c.name === 'policy')));
const BY_SESSION: ReadonlySet<DatasetTable> = new Set(SHIPPED.filter((t) => t.columns.some((c) => c.name === 'session_id')));
/** Shipped tables of the machine as a whole, no session's (backfill_unread: numbers only, decision 0102): always shipped. */
const MACHINE_WIDE: ReadonlySet<DatasetTable> = new Set(SHIPPED.filter((t) => !OWN_POLICY.has(t) && !BY_SESSION.has(t)));

/** The range of `field`s a delegation's row issues have: `async_delegations.<column>` (decision 0054). */
const DELEGATION_FIELD = 'async_delegations.';
const DELEGATION_FIELD_END = 'async_delegations/';

/** A row issue of a delegation: `field` `async_delegations.<column>`, `session_id` the delegation's id (decision 0054). */
export const isDelegationIssue = (t: DatasetTable, row: RecordOf): boolean => t.name === 'row_issues' && String(row.field).startsWith(DELEGATION_FIELD);

/** Policy lookups for one batch, by (store, id): a session's, a delegation's. */
interface Policies {
  session(store: unknown, sessionId: unknown): string | null;
  delegation(store: unknown, delegationId: unknown): string | null;
}

type Stmt = { all(...params: unknown[]): unknown[]; get(...params: unknown[]): unknown; pluck(): Stmt };

/** A rough size of a row on the wire: text lengths plus 8 bytes for anything else. */
function sizeOf(row: RecordOf): number {
  let n = 0;
  for (const k in row) {
    const v = row[k];
    n += typeof v === 'string' ? v.length + 2 : 8;
  }
  return n;
}

export class DeltaReader {
  readonly #db: Db;
  readonly #origin: Origin;
  readonly #limits: BatchLimits;
  readonly #stmts = new Map<string, Stmt>();

  constructor(db: Db, origin: Origin, limits: Partial<BatchLimits> = {}) {
    this.#db = db;
    this.#origin = origin;
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
  }

  #stmt(sql: string): Stmt {
    let s = this.#stmts.get(sql);
    if (!s) this.#stmts.set(sql, (s = this.#db.prepare(sql) as unknown as Stmt));
    return s;
  }

  /** The sink's next batch, or null when it holds everything (`redact`: mask secrets in the rows). */
  next(row: SinkRow, redact: boolean): NextBatch | null {
    // One read transaction: the rows, the log and its head are seen as of one moment, and the naming rules with them.
    return this.#db.transaction(() => {
      const next = row.snapshot !== null ? this.#snapshot(row, JSON.parse(row.snapshot) as SnapshotPosition, redact) : this.#log(row, redact);
      // The rules the rows' terminal programs were named by (decision 0152), where the dataset records any.
      const rules = next === null ? null : storedProgramRules(this.#db);
      if (next !== null && rules !== null && Number.isInteger(rules)) next.batch.programRules = rules;
      return next;
    })();
  }

  /** Policy lookups per (store, session) and (store, delegation), cached for one batch: only `full` rows are shipped. */
  #policies(): Policies {
    const lookup = (sql: string) => {
      const cache = new Map<string, string | null>();
      const get = this.#stmt(sql).pluck();
      return (store: unknown, id: unknown) => {
        const k = `${String(store)}\0${String(id)}`;
        if (!cache.has(k)) cache.set(k, (get.get(store, id) as string | undefined) ?? null);
        return cache.get(k)!;
      };
    };
    return {
      session: lookup('SELECT policy FROM sessions WHERE store = ? AND session_id = ?'),
      delegation: lookup('SELECT policy FROM delegations WHERE store = ? AND delegation_id = ?'),
    };
  }

  /**
   * Whether a row may leave: a row with a policy of its own (a session, a delegation: decision 0054) by it, a
   * delegation's row issue by its delegation's (decision 0092), a row of the machine as a whole always (decision 0102),
   * any other by its session's.
   */
  #shippable(t: DatasetTable, row: RecordOf, policy: Policies): boolean {
    if (OWN_POLICY.has(t)) return row.policy === 'full';
    if (MACHINE_WIDE.has(t)) return true;
    return (isDelegationIssue(t, row) ? policy.delegation(row.store, row.session_id) : policy.session(row.store, row.session_id)) === 'full';
  }

  #snapshot(row: SinkRow, at: SnapshotPosition, redact: boolean): NextBatch {
    // The first chunk of a snapshot starts the log where the rows are read: every earlier change is in them.
    const first = at.after === null && at.table === SHIPPED[0]!.name;
    const ackedSeq = first ? logHead(this.#db) : row.acked_seq;
    const policy = this.#policies();
    const upserts: { table: ShippedTable; rows: RecordOf[] }[] = [];
    let index = SHIPPED.findIndex((t) => t.name === at.table);
    let after = at.after;
    let count = 0;
    let bytes = 0;
    while (index < SHIPPED.length && count < this.#limits.rows && bytes < this.#limits.bytes) {
      const t = SHIPPED[index]!;
      const keys = t.primaryKey.map(q).join(', ');
      const where = after === null ? '' : `WHERE (${keys}) > (${t.primaryKey.map(() => '?').join(', ')})`;
      const want = this.#limits.rows - count;
      const rows = this.#stmt(`SELECT * FROM ${q(t.name)} ${where} ORDER BY ${keys} LIMIT ?`).all(...(after ?? []), want) as RecordOf[];
      const out: RecordOf[] = [];
      let stopped = false;
      for (const r of rows) {
        after = t.primaryKey.map((c) => r[c]);
        count++;
        if (this.#shippable(t, r, policy)) {
          const shipped = redact ? redactRow(t, r) : r;
          out.push(shipped);
          bytes += sizeOf(shipped);
        }
        if (bytes >= this.#limits.bytes) {
          stopped = true;
          break;
        }
      }
      if (out.length > 0) upserts.push({ table: t.name, rows: out });
      if (!stopped && rows.length < want) {
        index++;
        after = null;
      }
    }
    const done = index >= SHIPPED.length;
    return {
      kind: 'snapshot',
      batch: { origin: this.#origin, fromSeq: ackedSeq, toSeq: ackedSeq, ...(first ? { first: true } : {}), upserts, deletes: [] },
      rows: upserts.reduce((n, u) => n + u.rows.length, 0),
      after: { ackedSeq, snapshot: done ? null : JSON.stringify({ table: SHIPPED[index]!.name, after }) },
      caughtUp: done && ackedSeq >= logHead(this.#db),
    };
  }

  #lookup(t: DatasetTable, key: unknown[]): RecordOf | null {
    const sql = `SELECT * FROM ${q(t.name)} WHERE ${t.primaryKey.map((c) => `${q(c)} = ?`).join(' AND ')}`;
    return (this.#stmt(sql).get(...key) as RecordOf | undefined) ?? null;
  }

  #log(row: SinkRow, redact: boolean): NextBatch | null {
    const entries = this.#stmt(`SELECT seq, tbl, key, note FROM ${CHANGE_LOG.name} WHERE seq > ? ORDER BY seq LIMIT ?`).all(row.acked_seq, this.#limits.rows) as { seq: number; tbl: string; key: string; note: string | null }[];
    if (entries.length === 0) return null;
    const policy = this.#policies();
    /** Per table, per key (its JSON): the current row to upsert, or null for a delete. */
    const decided = new Map<ShippedTable, Map<string, { key: RecordOf; row: RecordOf | null }>>();
    let bytes = 0;
    const decide = (t: DatasetTable & { name: ShippedTable }, keyJson: string, key: unknown[], current: RecordOf | null | undefined) => {
      let forTable = decided.get(t.name);
      if (!forTable) decided.set(t.name, (forTable = new Map()));
      const found = current === undefined ? this.#lookup(t, key) : current;
      const keyRecord = Object.fromEntries(t.primaryKey.map((c, i) => [c, key[i]]));
      const shipped = found !== null && this.#shippable(t, found, policy) ? (redact ? redactRow(t, found) : found) : null;
      const before = forTable.get(keyJson);
      if (before) bytes -= before.row ? sizeOf(before.row) : 16;
      forTable.set(keyJson, { key: keyRecord, row: shipped });
      bytes += shipped ? sizeOf(shipped) : 16;
    };
    /** Every row the dataset holds for a session, decided again (its policy changed); a delegation keeps its own. */
    const wholeSession = (store: unknown, sessionId: unknown) => {
      for (const t of SHIPPED) {
        if (!BY_SESSION.has(t)) continue;
        for (const r of this.#stmt(`SELECT * FROM ${q(t.name)} WHERE store = ? AND session_id = ?`).all(store, sessionId) as RecordOf[]) {
          const key = t.primaryKey.map((c) => r[c]);
          decide(t, JSON.stringify(key), key, r);
        }
      }
    };
    /**
     * A delegation's row issues, decided again with it: its policy moves with its session's (pipeline/policy-moves.ts)
     * without its issues being written again (decision 0092).
     */
    const issues = SHIPPED_BY_NAME.get('row_issues')!;
    const delegationIssues = (store: unknown, delegationId: unknown) => {
      for (const r of this.#stmt(`SELECT * FROM row_issues WHERE store = ? AND session_id = ? AND message_id = 0 AND field >= '${DELEGATION_FIELD}' AND field < '${DELEGATION_FIELD_END}'`).all(store, delegationId) as RecordOf[]) {
        const key = issues.primaryKey.map((c) => r[c]);
        decide(issues, JSON.stringify(key), key, r);
      }
    };
    const moved = new Set<string>();
    let toSeq = row.acked_seq;
    for (const e of entries) {
      const t = SHIPPED_BY_NAME.get(e.tbl);
      toSeq = e.seq;
      if (!t) continue;
      const key = JSON.parse(e.key) as unknown[];
      if (decided.get(t.name)?.has(e.key) !== true) {
        decide(t, e.key, key, undefined);
        if (t.name === 'delegations') delegationIssues(key[0], key[1]);
      }
      if (t.name === 'sessions') {
        // A change of policy moves the session's other rows too: they may not have been written again.
        const now = policy.session(key[0], key[1]);
        const k = `${String(key[0])}\0${String(key[1])}`;
        const became = (now === 'local-only' && e.note !== 'local-only') || (now === 'full' && e.note === 'local-only');
        if (became && !moved.has(k)) {
          moved.add(k);
          wholeSession(key[0], key[1]);
        }
      }
      if (bytes >= this.#limits.bytes) break;
    }
    const upserts: DeltaBatch['upserts'] = [];
    const deletes: DeltaBatch['deletes'] = [];
    let rows = 0;
    for (const t of SHIPPED) {
      const forTable = decided.get(t.name);
      if (!forTable) continue;
      const up: RecordOf[] = [];
      const del: RecordOf[] = [];
      for (const d of forTable.values()) (d.row ? up : del).push(d.row ?? d.key);
      if (up.length) upserts.push({ table: t.name, rows: up });
      if (del.length) deletes.push({ table: t.name, keys: del });
      rows += up.length + del.length;
    }
    return {
      kind: 'log',
      batch: { origin: this.#origin, fromSeq: row.acked_seq, toSeq, logDigest: entriesDigest(entries.filter((e) => e.seq <= toSeq)), upserts, deletes },
      rows,
      after: { ackedSeq: toSeq, snapshot: null },
      caughtUp: toSeq >= logHead(this.#db),
    };
  }
}

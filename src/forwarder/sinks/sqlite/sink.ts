// The embedded SQLite sink: applies a batch (rows, cursors, store health, quarantine) in one local transaction, so
// a crash anywhere leaves either the whole batch or none of it (issue 8 "in one local transaction").
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type { Db } from '../../../shared/sqlite.js';
import { KEEP_BACKFILL_UNREAD } from './backfill-unread.js';
import { CALL_USAGE, CURSORS, DAILY_USAGE, DATASET_META, DATASET_TABLES, DELEGATIONS, MESSAGES, MODEL_USAGE, PARTS, QUARANTINE, ROW_ISSUES, SESSION_ACTIVITY, SESSIONS, STORES, TOOL_ACTIVITY, TOOL_CALLS, USAGE_EVENTS, type DatasetTable, type RecordOf } from '../../dataset/columns.js';
import type { Ledger, Tail } from '../../projector/index.js';
import { ACTIVITY_DELETE_TRIGGERS, InsertedActivity } from './activity.js';
import { CursorMoved, NOTHING_WRITTEN, REMOVED, type Batch, type Cursors, type DelegationChanges, type Rows, type SessionCursor, type SessionWrite, type Sink, type Written } from '../sink.js';
import { Checkpointer } from './checkpointer.js';
import { rowInserter } from './insert.js';
import { RowCounts, rowCountTrigger } from './row-counts.js';
import { InsertedToolCalls, TOOL_CALLS_DELETE_TRIGGER } from './tool-calls.js';
import { withTriggersAside } from './triggers-aside.js';
import { AUTOCHECKPOINT_PAGES, openDataset, type DatasetOptions } from './dataset.js';
import { ledgerTimeZone } from '../../ledger/zone.js';
import { datasetSetting, LedgerWriter, setDatasetSetting } from './ledger.js';
import { nameTerminalCalls, PROGRAM_RULES_KEY } from './programs.js';
import { PROGRAM_RULES } from '../../dataset/program.js';
import { quoteName } from '../../../shared/sql-name.js';

type Stmt = { run(...params: unknown[]): { changes: number } };
type Tx = ReturnType<Db['transaction']>;

/** One record at a time (sessions, cursors, a store's row): the shared inserter with a row of one. */
function inserter(db: Db, t: DatasetTable, counts: RowCounts, verb = 'INSERT'): (r: RecordOf) => void {
  const put = rowInserter(db, t, counts, verb);
  return (r) => put([r]);
}

/** WAL frames waiting to be copied into the file at which the checkpoint thread is nudged (16 MiB of 4 KiB pages). */
const NUDGE_FRAMES = 4096;
const LE = endianness() === 'LE';

/**
 * Frames in the dataset's WAL not yet copied into the file, from the wal-index header at the start of its -shm
 * (mxFrame at byte 16, nBackfill at 96, in the machine's byte order): a hint, read without SQL.
 */
function pendingFrames(fd: number, buf: Buffer): number {
  if (readSync(fd, buf, 0, 100, 0) < 100) return 0;
  const mx = LE ? buf.readUInt32LE(16) : buf.readUInt32BE(16);
  const done = LE ? buf.readUInt32LE(96) : buf.readUInt32BE(96);
  return Math.max(0, mx - done);
}

/** The range of part ids that start with `prefix` (which ends in `-`): [prefix, prefix with `-` turned `.`). */
const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix.slice(0, -1)}.`];

/** The range of row_issues fields a delegation's issues have: `async_delegations.<column>`. */
const DELEGATION_FIELD = 'async_delegations.';
const DELEGATION_FIELD_END = 'async_delegations/';

/** Removed messages past which their parts are found by one scan of the session's parts, not a range each. */
const RANGE_DELETES = 256;

/** What `forgetStore` removed. */
export interface StoreForgotten { sessions: number; messagesRemoved: number; partsRemoved: number }

export class SqliteSink implements Sink {
  readonly db: Db;
  readonly #put: Record<string, (r: RecordOf) => void>;
  readonly #keepUnread: { run(): unknown };
  readonly #del: Record<string, Stmt>;
  readonly #bulk: { messages: (rows: Rows) => number; parts: (rows: Rows) => number };
  readonly #q: Record<'logicalFrom' | 'cursor', ReturnType<Db['prepare']>>;
  /** The stores it holds, asked by every pass (discover.ts spelledAsKnown): prepared once. */
  readonly #storeKeys: { all(): unknown[] };
  readonly #apply: Tx;
  /** The rules the dataset's stored programs are named by (`dataset_meta.program_rules`), as text. */
  readonly #programRules: { get(): unknown };
  #redacts = false;
  readonly #ledger: LedgerWriter;
  readonly #activity: InsertedActivity;
  readonly #toolCalls: InsertedToolCalls;
  /** Rows this sink's inserts added, flushed into `row_counts` at the end of each batch's transaction. */
  readonly #counts: RowCounts;
  #checkpointer: Checkpointer | null = null;
  #shm: { fd: number; buf: Buffer } | null | undefined;

  constructor(db: Db, options: DatasetOptions = {}) {
    this.db = db;
    // The usage ledger follows every batch; one built in another zone or with older rules is rebuilt first (decision 0031).
    this.#ledger = new LedgerWriter(db, ledgerTimeZone(options.timeZone, datasetSetting(db, 'ledger_time_zone')));
    if (this.#ledger.stale()) db.transaction(() => this.#ledger.rebuildAll()).immediate();
    const counts = this.#counts = new RowCounts(db);
    this.#put = {
      session: inserter(db, SESSIONS, counts, 'INSERT OR REPLACE'),
      usage: inserter(db, MODEL_USAGE, counts), issue: inserter(db, ROW_ISSUES, counts, 'INSERT OR REPLACE'), store: inserter(db, STORES, counts, 'INSERT OR REPLACE'),
      cursor: inserter(db, CURSORS, counts, 'INSERT OR REPLACE'), quarantine: inserter(db, QUARANTINE, counts, 'INSERT OR REPLACE'),
      event: inserter(db, USAGE_EVENTS, counts, 'INSERT OR IGNORE'), daily: inserter(db, DAILY_USAGE, counts), calls: inserter(db, CALL_USAGE, counts),
      delegation: inserter(db, DELEGATIONS, counts, 'INSERT OR REPLACE'),
    };
    this.#bulk = { messages: rowInserter(db, MESSAGES, counts), parts: rowInserter(db, PARTS, counts) };
    this.#activity = new InsertedActivity(db);
    this.#toolCalls = new InsertedToolCalls(db);
    this.#keepUnread = db.prepare(KEEP_BACKFILL_UNREAD);
    const del = (table: string) => db.prepare(`DELETE FROM ${quoteName(table)} WHERE store = ? AND session_id = ?`);
    this.#del = {
      messages: del('messages'), parts: del('parts'), usage: del('model_usage'), issues: del('row_issues'), daily: del('daily_usage'), calls: del('call_usage'),
      events: del('usage_events'),
      session: del('sessions'), cursor: del('session_cursors'), quarantine: del('quarantine'),
      removed: db.prepare('UPDATE sessions SET removed_from_store = 1 WHERE store = ? AND session_id = ?'),
      removedCursor: db.prepare(`UPDATE session_cursors SET fingerprint = '${REMOVED}' WHERE store = ? AND session_id = ?`),
      // A session removed before stays so: it is not in the new file either, or is read whole from it and written.
      resetCursors: db.prepare(`UPDATE session_cursors SET fingerprint = '' WHERE store = ? AND fingerprint <> '${REMOVED}'`),
      messagesFrom: db.prepare('DELETE FROM messages WHERE store = ? AND session_id = ? AND seq >= ?'),
      partRange: db.prepare('DELETE FROM parts WHERE store = ? AND session_id = ? AND part_id >= ? AND part_id < ?'),
      partsOfFrom: db.prepare('DELETE FROM parts WHERE store = ? AND session_id = ? AND message_id IN (SELECT message_id FROM messages WHERE store = ? AND session_id = ? AND seq >= ?)'),
      sessionIssues: db.prepare('DELETE FROM row_issues WHERE store = ? AND session_id = ? AND message_id = 0'),
      // A delegation's issues are keyed by its id, their fields `async_delegations.<column>` (decision 0054).
      delegationIssues: db.prepare(`DELETE FROM row_issues WHERE store = ? AND session_id = ? AND message_id = 0 AND field >= '${DELEGATION_FIELD}' AND field < '${DELEGATION_FIELD_END}'`),
      delegation: db.prepare('DELETE FROM delegations WHERE store = ? AND delegation_id = ?'),
      delegationRemoved: db.prepare('UPDATE delegations SET removed_from_store = 1 WHERE store = ? AND delegation_id = ? AND removed_from_store = 0'),
      sessionDelegationIssues: db.prepare(`DELETE FROM row_issues WHERE store = ? AND message_id = 0 AND field >= '${DELEGATION_FIELD}' AND field < '${DELEGATION_FIELD_END}'
        AND session_id IN (SELECT delegation_id FROM delegations WHERE store = ? AND parent_session_id = ?)`),
      sessionDelegations: db.prepare('DELETE FROM delegations WHERE store = ? AND parent_session_id = ?'),
    };
    this.#q = {
      logicalFrom: db.prepare('SELECT logical_id FROM messages WHERE store = ? AND session_id = ? AND seq >= ?').pluck(),
      cursor: db.prepare('SELECT fingerprint, max_message_id FROM session_cursors WHERE store = ? AND session_id = ?').raw(),
    };
    this.#storeKeys = db.prepare(`SELECT store FROM ${STORES.name}`).pluck();
    this.#programRules = db.prepare(`SELECT value FROM ${DATASET_META.name} WHERE key = ?`).pluck().bind(PROGRAM_RULES_KEY);
    this.#apply = db.transaction((batch: Batch) => this.#applyBatch(batch));
  }

  static open(home: string, options: DatasetOptions = {}): SqliteSink {
    return new SqliteSink(openDataset(home, options), options);
  }

  /** Whether the dataset keeps text redacted (`dataset_meta.redact`, set by the first redacted write). */
  redacts(): boolean {
    // Once on, always on; while off, asked again (another process may turn it on).
    if (!this.#redacts) this.#redacts = datasetSetting(this.db, 'redact') === 'on';
    return this.#redacts;
  }

  #applyBatch(batch: Batch): Written {
    // What an attempt that threw had inserted was rolled back with it: so is its tally.
    this.#counts.clear();
    // Another Hermetic, of other naming rules, may have named the dataset's programs since this one opened it (it
    // opened read-write beside this running forwarder): they are named by these rules again before this batch adds
    // names by them, so every stored name is by the rules `dataset_meta` records (decision 0158).
    if (this.#programRules.get() !== String(PROGRAM_RULES)) nameTerminalCalls(this.db);
    const written = this.#applyRows(batch);
    this.#toolCalls.settle();
    this.#counts.flush();
    return written;
  }

  #applyRows(batch: Batch): Written {
    const store = String(batch.store.store);
    if (batch.redacted && !this.redacts()) {
      setDatasetSetting(this.db, 'redact', 'on');
      this.#redacts = true;
    }
    const d = this.#del;
    const written: Written = { ...NOTHING_WRITTEN };
    if (batch.reset) d.resetCursors!.run(store);
    for (const w of batch.writes) {
      const [ma, mr, pa, pr] = [written.messagesAdded, written.messagesRemoved, written.partsAdded, written.partsRemoved];
      this.#applyWrite(store, w, written);
      // A session's rows removed and written again are rewritten, not new (what a tick says it did: forward.ts).
      written.messagesRewritten += Math.min(written.messagesAdded - ma, written.messagesRemoved - mr);
      written.partsRewritten += Math.min(written.partsAdded - pa, written.partsRemoved - pr);
      const tail = w.projection?.tail ?? null;
      this.#put.cursor!({ store, session_id: w.sessionId, fingerprint: w.fingerprint, max_message_id: w.maxMessageId, usage_mark: w.usageMark, ledger: w.ledger ? JSON.stringify(w.ledger) : null, tail: tail ? JSON.stringify(tail) : null });
      d.quarantine!.run(store, w.sessionId);
    }
    this.#ledger.rebuild(store, batch.writes.map((w) => w.sessionId));
    for (const id of batch.removed) {
      d.removed!.run(store, id);
      d.removedCursor!.run(store, id);
    }
    for (const q of batch.quarantine.failed) {
      this.#put.quarantine!({ store, session_id: q.sessionId, failures: q.failures, last_error: q.error, retry_at: q.retryAt });
    }
    for (const id of batch.quarantine.cleared) d.quarantine!.run(store, id);
    if (batch.delegations) this.#applyDelegations(store, batch.delegations, written);
    this.#put.store!(batch.store);
    // What windowed backfills left unread, as the row remote sinks receive (decision 0102): changed only when it differs.
    this.#keepUnread.run();
    return written;
  }

  /** The store's delegations that changed (decision 0054): upserted with their issues, dropped, or marked removed. */
  #applyDelegations(store: string, changes: DelegationChanges, written: Written): void {
    const d = this.#del;
    for (const id of changes.dropped) {
      d.delegationIssues!.run(store, id);
      d.delegation!.run(store, id);
    }
    for (const r of changes.rows) {
      d.delegationIssues!.run(store, r.delegation_id);
      this.#put.delegation!(r);
    }
    for (const i of changes.issues) this.#put.issue!(i);
    written.delegationsWritten += changes.rows.length;
    for (const id of changes.removed) written.delegationsRemoved += d.delegationRemoved!.run(store, id).changes;
  }

  /** One session's delta (dataset/delta.ts): what goes first, then the rows added or replaced. */
  #applyWrite(store: string, w: SessionWrite, written: Written): void {
    const key = [store, w.sessionId];
    const d = this.#del;
    const p = w.projection;
    if (p === null) {
      for (const t of ['messages', 'parts', 'usage', 'issues', 'daily', 'calls', 'session', 'events'] as const) {
        const n = d[t]!.run(key).changes;
        if (t === 'messages') written.messagesRemoved += n;
        if (t === 'parts') written.partsRemoved += n;
      }
      // Its delegations carry its text (their goal and summary): they go with it.
      d.sessionDelegationIssues!.run(store, store, w.sessionId);
      d.sessionDelegations!.run(key);
      return;
    }
    const delta = p.delta;
    if (w.base !== null) {
      const had = this.#q.cursor.get([store, w.sessionId]) as [string, number] | undefined;
      if (!had || had[0] !== w.base.fingerprint || had[1] !== w.base.maxMessageId) throw new CursorMoved(w.sessionId);
    }
    if (delta.kind === 'replace') {
      written.messagesRemoved += d.messages!.run(key).changes;
      written.partsRemoved += d.parts!.run(key).changes;
    } else {
      if (delta.fromSeq !== null) {
        // The parts of the messages that go: by their ids' prefix (hermes-<session>-<logical id>-), or, for many,
        // by one scan of the session's parts.
        const logical = this.#q.logicalFrom.all([store, w.sessionId, delta.fromSeq]) as number[];
        if (logical.length > RANGE_DELETES) written.partsRemoved += d.partsOfFrom!.run(store, w.sessionId, store, w.sessionId, delta.fromSeq).changes;
        else for (const l of logical) written.partsRemoved += d.partRange!.run(store, w.sessionId, ...prefixRange(`hermes-${w.sessionId}-${l}-`)).changes;
        written.messagesRemoved += d.messagesFrom!.run(store, w.sessionId, delta.fromSeq).changes;
      }
      if (delta.replaceEnd) written.partsRemoved += d.partRange!.run(store, w.sessionId, ...prefixRange(`hermes-${w.sessionId}-session_end-`)).changes;
    }
    if (delta.usage) d.usage!.run(key);
    if (delta.daily) {
      d.daily!.run(key);
      d.calls!.run(key);
    }
    if (delta.issues === 'all') d.issues!.run(key);
    else if (delta.issues === 'session') d.sessionIssues!.run(key);
    this.#put.session!({ ...p.session, policy: w.policy });
    written.messagesAdded += this.#bulk.messages(p.messages);
    written.partsAdded += this.#bulk.parts(p.parts);
    // What was inserted, counted in the activity tables: the whole session when it was replaced, else the new rows.
    const whole = delta.kind === 'replace';
    if (p.messages.length > 0) this.#activity.messages(store, w.sessionId, p.messages, whole);
    if (p.parts.length > 0) this.#activity.parts(store, w.sessionId, p.parts, whole);
    if (p.parts.length > 0) this.#toolCalls.parts(store, w.sessionId, p.parts);
    if (delta.usage) for (const u of p.modelUsage) this.#put.usage!(u);
    for (const i of p.issues) this.#put.issue!(i);
    if (delta.daily) for (const x of p.dailyUsage) this.#put.daily!(x);
    if (delta.daily) for (const x of p.usageCalls ?? []) this.#put.calls!(x);
    if (p.usageEvent) this.#put.event!(p.usageEvent);
  }

  /**
   * Removes every row read from `store` (`hermetic forget --store`): its sessions and all they hold, its cursors,
   * quarantine, unread windows and its row of `stores`, in one transaction. Remote sinks receive the deletes through
   * the change log's triggers, as any other. Returns what went.
   */
  forgetStore(store: string): StoreForgotten {
    const gone = this.db.transaction((): StoreForgotten => {
      const sessions = this.db.prepare(`SELECT COUNT(*) FROM ${SESSIONS.name} WHERE store = ?`).pluck().get(store) as number;
      const tables = DATASET_TABLES.filter((t) => t.columns.some((c) => c.name === 'store'));
      // The counts kept from the transcript go first, so the transcript's own delete triggers would find nothing to
      // take back; those triggers and each table's row-count trigger are set aside for the deletes (each fires once a
      // row: ~10 s at a million messages) and the counts taken off here. The change log's triggers stay: a remote
      // sink learns of each row removed (decision 0157 addendum).
      const derived = [SESSION_ACTIVITY, TOOL_ACTIVITY, TOOL_CALLS];
      const setAside = [...ACTIVITY_DELETE_TRIGGERS, TOOL_CALLS_DELETE_TRIGGER, ...tables.map((t) => rowCountTrigger(t.name))];
      return withTriggersAside(this.db, setAside, (aside) => {
        this.#counts.clear();
        const remove = (t: DatasetTable) => {
          const n = this.db.prepare(`DELETE FROM ${quoteName(t.name)} WHERE store = ?`).run(store).changes;
          if (aside.has(rowCountTrigger(t.name))) this.#counts.add(t.name, -n);
          return n;
        };
        for (const t of derived) remove(t);
        const out = { sessions, messagesRemoved: remove(MESSAGES), partsRemoved: remove(PARTS) };
        for (const t of tables) if (t !== MESSAGES && t !== PARTS && !derived.includes(t)) remove(t);
        this.#counts.flush();
        // What windowed backfills left unread, over the stores left (its one row names none).
        this.#keepUnread.run();
        return out;
      });
    }).immediate();
    this.#afterCommit();
    return gone;
  }

  write(batch: Batch): Written {
    const written = this.#apply.immediate(batch) as Written;
    this.#afterCommit();
    return written;
  }

  /**
   * A WAL grown past NUDGE_FRAMES is checkpointed by a thread of its own (started the first time), and the
   * connection's own autocheckpoint moves four times further out, as a safety net (decision 0027).
   */
  #afterCommit(): void {
    if (this.#pending() < NUDGE_FRAMES) return;
    if (this.#checkpointer && !this.#checkpointer.alive) {
      this.#checkpointer = null;
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      this.#shm = null;
      return;
    }
    if (!this.#checkpointer) {
      this.#checkpointer = Checkpointer.start(this.db.name);
      if (!this.#checkpointer) {
        this.#shm = null;
        return;
      }
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES * 4}`);
    }
    this.#checkpointer.nudge();
  }

  /** Frames of the WAL not yet in the file (0 when the -shm cannot be read: then the autocheckpoint alone acts). */
  #pending(): number {
    if (this.#shm === undefined) {
      try {
        this.#shm = { fd: openSync(`${this.db.name}-shm`, 'r'), buf: Buffer.alloc(100) };
      } catch {
        this.#shm = null;
      }
    }
    return this.#shm ? pendingFrames(this.#shm.fd, this.#shm.buf) : 0;
  }

  /**
   * A forward loop gone quiet: the WAL's frames copied into the file now, waiting for no reader or writer (PASSIVE), so
   * the file alone is current while Hermes is idle, and the next write starts the WAL over, cut to WAL_KEPT_BYTES. A
   * busy loop keeps the pace of decision 0027.
   */
  quiet(): void {
    if (this.#pending() === 0) return;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch { /* busy or failing: the autocheckpoint and the next quiet pass are still there */ }
  }

  cursors(store: string): Cursors {
    return readCursors(this.db, store);
  }

  storeKeys(): string[] {
    return this.#storeKeys.all() as string[];
  }

  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  close(): void {
    this.#checkpointer?.stop();
    this.#checkpointer = null;
    if (this.#shm) closeSync(this.#shm.fd);
    this.#shm = null;
    if (this.db.open) this.db.close();
  }
}

/** A cursor body `readCursors` was told not to read. */
const UNREAD = Symbol('unread');

/**
 * A committed cursor whose ledger and tail (about 1.3 KB of JSON a session) are parsed when first asked for: a pass
 * needs them only for the sessions it writes, `status` only the tail at the newest id (at 20,000 sessions, 25 MB of
 * JSON: parsing it all took ~200 ms, and collecting what it made ~150 ms more).
 */
class StoredCursor implements SessionCursor {
  #ledger: Ledger | string | null | typeof UNREAD;
  #tail: Tail | string | null | typeof UNREAD;

  constructor(readonly fingerprint: string, readonly maxMessageId: number, readonly usageMark: string, ledger: string | null | typeof UNREAD, tail: Tail | string | null | typeof UNREAD) {
    this.#ledger = ledger;
    this.#tail = tail;
  }

  get ledger(): Ledger | null {
    if (this.#ledger === UNREAD) throw new Error('This cursor was read without its ledger (readCursors with bodies off).');
    if (typeof this.#ledger === 'string') this.#ledger = JSON.parse(this.#ledger) as Ledger;
    return this.#ledger;
  }

  get tail(): Tail | null {
    if (this.#tail === UNREAD) throw new Error('This cursor was read without its tail (readCursors with bodies off).');
    if (typeof this.#tail === 'string') this.#tail = JSON.parse(this.#tail) as Tail;
    return this.#tail;
  }
}

/**
 * The tail `status` reads, parsed now: one that is not JSON (a damaged page of the dataset) is taken as none. It then
 * tells nothing, and `status` still says the rest, as it did when it read no tail.
 */
function statusTail(text: string | null): Tail | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Tail;
  } catch {
    return null;
  }
}

/**
 * The cursors committed for a store (empty for a store never read), from any connection to the dataset. With `bodies`
 * off, their ledgers are not read at all (asking for one throws), nor are their tails but the tail of the session
 * holding the store's newest id read: what `status` plans with needs only that one (the time check of a file gone
 * back, pipeline/plan.ts `wentBack`). Its tail is read in the same walk, so this costs no lookup per session.
 */
export function readCursors(db: Db, store: string, bodies = true): Cursors {
  const row = db.prepare('SELECT * FROM stores WHERE store = ?').get(store) as (RecordOf & { identity: string | null; max_message_id: number; usage_stamp: string | null }) | undefined;
  const sessions = new Map<string, SessionCursor>();
  const newest = row?.max_message_id ?? 0;
  // A tail not read is UNREAD (asking throws); one read that is NULL is null (the cursor keeps none).
  const columns = bodies ? 'ledger, tail, 1' : 'NULL, CASE WHEN max_message_id = ? THEN tail END, max_message_id = ?';
  const params = bodies ? [store] : [newest, newest, store];
  for (const r of db.prepare(`SELECT session_id, fingerprint, max_message_id, usage_mark, ${columns} FROM session_cursors WHERE store = ?`).raw().iterate(...params) as Iterable<[string, string, number, string, string | null, string | null, number]>) {
    sessions.set(r[0], bodies ? new StoredCursor(r[1], r[2], r[3], r[4], r[5]) : new StoredCursor(r[1], r[2], r[3], UNREAD, newest > 0 && r[6] === 1 ? statusTail(r[5]) : UNREAD));
  }
  const quarantine = new Map<string, { failures: number; retryAt: number; lastError: string }>();
  for (const r of db.prepare('SELECT session_id, failures, retry_at, last_error FROM quarantine WHERE store = ?').raw().iterate(store) as Iterable<[string, number, number, string]>) {
    quarantine.set(r[0], { failures: r[1], retryAt: r[2], lastError: r[3] });
  }
  return { row: row ?? null, identity: row?.identity ?? null, maxMessageId: row?.max_message_id ?? 0, usageStamp: row?.usage_stamp ?? null, sessions, quarantine };
}

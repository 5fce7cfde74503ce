// Keeps `usage_ledger` and `tool_usage` (decision 0031): when a session is written, its rows are rebuilt in the
// same transaction from the dataset's own tables — its `sessions` row, `model_usage`, `daily_usage`, `call_usage` and the activity
// the triggers keep (activity.ts) — never from Hermes's store, so they stay exact however the session's messages got
// there. A change of the ledger's time zone (or of its rules) rebuilds every session's rows once.
import { hasTable, type Db } from '../../../shared/sqlite.js';
import { DATASET_META, TOOL_USAGE, USAGE_LEDGER, type RecordOf } from '../../dataset/columns.js';
import { allocateSession, type Activity, type LedgerCall, type LedgerDay, type LedgerRoute, type LedgerSession, type ToolActivity } from '../../ledger/allocate.js';
import { Zone } from '../../ledger/zone.js';
import { rowInserter } from './insert.js';
import { RowCounts } from './row-counts.js';

/** Bump when the attribution rules change: datasets built with older rules are rebuilt when next opened for writing. */
export const LEDGER_RULES = '6';

const COUNTER_COLUMNS = 'api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd';

type Stmt = { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };

/** A setting of `dataset_meta`, or null. */
export function datasetSetting(db: Db, key: string): string | null {
  if (!hasTable(db, DATASET_META.name)) return null;
  const row = db.prepare(`SELECT value FROM ${DATASET_META.name} WHERE key = ?`).get(key) as { value: string | null } | undefined;
  return row?.value ?? null;
}

/** Records a setting of `dataset_meta` (`datasetSetting` reads it). */
export function setDatasetSetting(db: Db, key: string, value: string): void {
  db.prepare(`INSERT OR REPLACE INTO ${DATASET_META.name} (key, value) VALUES (?, ?)`).run(key, value);
}

export class LedgerWriter {
  readonly db: Db;
  readonly zone: Zone;
  readonly #read: { session: Stmt; routes: Stmt; days: Stmt; calls: Stmt; activity: Stmt; tools: Stmt };
  readonly #drop: { usage: Stmt; tools: Stmt };
  readonly #put: { usage: (rows: readonly RecordOf[]) => void; tools: (rows: readonly RecordOf[]) => void };
  readonly #counts: RowCounts;

  /** @example new LedgerWriter(db, 'Europe/Berlin').rebuild('/home/u/.hermes/state.db', ['20260714_101503_a1b2c3']) */
  constructor(db: Db, timeZone: string) {
    this.db = db;
    this.zone = new Zone(timeZone);
    // A batch's sessions at once: the ids come as one JSON array (json_each), so one statement serves any batch.
    const where = 'WHERE store = ? AND session_id IN (SELECT value FROM json_each(?))';
    this.#read = {
      session: db.prepare(`SELECT store, session_id, profile, source, model, provider, billing_mode, cwd, git_repo_root, started_at, last_activity_at, ${COUNTER_COLUMNS} FROM sessions ${where}`),
      routes: db.prepare(`SELECT session_id, model, provider_key, provider, billing_mode, task, ${COUNTER_COLUMNS}, cost_status, first_seen, last_seen FROM model_usage ${where}`),
      days: db.prepare(`SELECT session_id, day, ${COUNTER_COLUMNS} FROM daily_usage ${where}`),
      calls: db.prepare(`SELECT session_id, quarter, model, provider_key, task, ${COUNTER_COLUMNS} FROM call_usage ${where}`),
      activity: db.prepare(`SELECT session_id, quarter, messages, assistant FROM session_activity ${where}`),
      tools: db.prepare(`SELECT session_id, quarter, tool_name, calls, errors FROM tool_activity ${where}`),
    };
    this.#drop = { usage: db.prepare(`DELETE FROM ${USAGE_LEDGER.name} ${where}`), tools: db.prepare(`DELETE FROM ${TOOL_USAGE.name} ${where}`) };
    this.#counts = new RowCounts(db);
    this.#put = { usage: rowInserter(db, USAGE_LEDGER, this.#counts), tools: rowInserter(db, TOOL_USAGE, this.#counts) };
  }

  /** Rebuilds the rows of these sessions (call it inside the transaction that wrote them); a session gone has none. */
  rebuild(store: string, sessionIds: Iterable<string>): void {
    const ids = JSON.stringify([...new Set(sessionIds)]);
    if (ids === '[]') return;
    this.#counts.clear();
    this.#drop.usage.run(store, ids);
    this.#drop.tools.run(store, ids);
    const bySession = <T extends { session_id: string }>(rows: T[]) => {
      const out = new Map<string, T[]>();
      for (const r of rows) {
        const list = out.get(r.session_id);
        if (list) list.push(r);
        else out.set(r.session_id, [r]);
      }
      return out;
    };
    const routes = bySession(this.#read.routes.all(store, ids) as (LedgerRoute & { session_id: string })[]);
    const days = bySession(this.#read.days.all(store, ids) as (LedgerDay & { session_id: string })[]);
    const calls = bySession(this.#read.calls.all(store, ids) as (LedgerCall & { session_id: string })[]);
    const activity = bySession(this.#read.activity.all(store, ids) as (Activity & { session_id: string })[]);
    const tools = bySession(this.#read.tools.all(store, ids) as (ToolActivity & { session_id: string })[]);
    const usage: RecordOf[] = [];
    const toolRows: RecordOf[] = [];
    for (const session of this.#read.session.all(store, ids) as LedgerSession[]) {
      const id = session.session_id;
      const out = allocateSession({
        session, zone: this.zone, routes: routes.get(id) ?? [], days: days.get(id) ?? [], calls: calls.get(id) ?? [], activity: activity.get(id) ?? [], tools: tools.get(id) ?? [],
      });
      usage.push(...out.usage);
      toolRows.push(...out.tools);
    }
    this.#put.usage(usage);
    this.#put.tools(toolRows);
    this.#counts.flush();
  }

  /** Rebuilds every session's rows and records the zone and rules they were built with. */
  rebuildAll(): void {
    this.db.exec(`DELETE FROM ${USAGE_LEDGER.name}; DELETE FROM ${TOOL_USAGE.name};`);
    const sessions = this.db.prepare('SELECT store, session_id FROM sessions ORDER BY store, session_id').raw().all() as [string, string][];
    for (let i = 0; i < sessions.length;) {
      const store = sessions[i]![0];
      const ids: string[] = [];
      for (; i < sessions.length && sessions[i]![0] === store && ids.length < 200; i++) ids.push(sessions[i]![1]);
      this.rebuild(store, ids);
    }
    setDatasetSetting(this.db, 'ledger_time_zone', this.zone.name);
    setDatasetSetting(this.db, 'ledger_rules', LEDGER_RULES);
  }

  /** Whether the ledger on disk was built in another zone or with other rules (then `rebuildAll` is due). */
  stale(): boolean {
    return datasetSetting(this.db, 'ledger_time_zone') !== this.zone.name || datasetSetting(this.db, 'ledger_rules') !== LEDGER_RULES;
  }
}

// Keeps `usage_ledger` and `tool_usage` (decision 0031): when a session is written, its rows are rebuilt in the
// same transaction from the dataset's own tables — its `sessions` row, `model_usage`, `daily_usage` and the activity
// the triggers keep (activity.ts) — never from Hermes's store, so they stay exact however the session's messages got
// there. A change of the ledger's time zone (or of its rules) rebuilds every session's rows once.
import type { Db } from '../../../shared/sqlite.js';
import { DATASET_META, TOOL_USAGE, USAGE_LEDGER, type DatasetTable, type RecordOf } from '../../dataset/columns.js';
import { allocateSession, type Activity, type LedgerDay, type LedgerRoute, type LedgerSession, type ToolActivity } from '../../ledger/allocate.js';
import { Zone } from '../../ledger/zone.js';

/** Bump when the attribution rules change: datasets built with older rules are rebuilt when next opened for writing. */
export const LEDGER_RULES = '1';

const COUNTER_COLUMNS = 'api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd';

type Stmt = { run(...params: unknown[]): unknown; get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };

function insertStmt(db: Db, t: DatasetTable): (r: RecordOf) => void {
  const names = t.columns.map((c) => c.name);
  const stmt = db.prepare(`INSERT INTO "${t.name}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
  return (r) => stmt.run(names.map((n) => (r[n] === undefined ? null : r[n])));
}

/** A setting of `dataset_meta`, or null. */
export function datasetSetting(db: Db, key: string): string | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(DATASET_META.name);
  if (!has) return null;
  const row = db.prepare(`SELECT value FROM ${DATASET_META.name} WHERE key = ?`).get(key) as { value: string | null } | undefined;
  return row?.value ?? null;
}

export class LedgerWriter {
  readonly db: Db;
  readonly zone: Zone;
  readonly #read: { session: Stmt; routes: Stmt; days: Stmt; activity: Stmt; tools: Stmt };
  readonly #drop: { usage: Stmt; tools: Stmt };
  readonly #put: { usage: (r: RecordOf) => void; tools: (r: RecordOf) => void };

  /** @example new LedgerWriter(db, 'Europe/Berlin').rebuild('/home/u/.hermes/state.db', ['20260714_101503_a1b2c3']) */
  constructor(db: Db, timeZone: string) {
    this.db = db;
    this.zone = new Zone(timeZone);
    const where = 'WHERE store = ? AND session_id = ?';
    this.#read = {
      session: db.prepare(`SELECT store, session_id, profile, source, model, provider, billing_mode, cwd, git_repo_root, started_at, last_activity_at, ${COUNTER_COLUMNS} FROM sessions ${where}`),
      routes: db.prepare(`SELECT model, provider_key, provider, billing_mode, task, ${COUNTER_COLUMNS}, cost_status, first_seen, last_seen FROM model_usage ${where}`),
      days: db.prepare(`SELECT day, ${COUNTER_COLUMNS} FROM daily_usage ${where}`),
      activity: db.prepare(`SELECT quarter, messages, assistant FROM session_activity ${where}`),
      tools: db.prepare(`SELECT quarter, tool_name, calls, errors FROM tool_activity ${where}`),
    };
    this.#drop = { usage: db.prepare(`DELETE FROM ${USAGE_LEDGER.name} ${where}`), tools: db.prepare(`DELETE FROM ${TOOL_USAGE.name} ${where}`) };
    this.#put = { usage: insertStmt(db, USAGE_LEDGER), tools: insertStmt(db, TOOL_USAGE) };
  }

  /** Rebuilds the rows of these sessions (call it inside the transaction that wrote them); a session gone has none. */
  rebuild(store: string, sessionIds: Iterable<string>): void {
    for (const id of sessionIds) {
      this.#drop.usage.run(store, id);
      this.#drop.tools.run(store, id);
      const session = this.#read.session.get(store, id) as LedgerSession | undefined;
      if (!session) continue;
      const { usage, tools } = allocateSession({
        session, zone: this.zone,
        routes: this.#read.routes.all(store, id) as LedgerRoute[],
        days: this.#read.days.all(store, id) as LedgerDay[],
        activity: this.#read.activity.all(store, id) as Activity[],
        tools: this.#read.tools.all(store, id) as ToolActivity[],
      });
      for (const r of usage) this.#put.usage(r);
      for (const r of tools) this.#put.tools(r);
    }
  }

  /** Rebuilds every session's rows and records the zone and rules they were built with. */
  rebuildAll(): void {
    this.db.exec(`DELETE FROM ${USAGE_LEDGER.name}; DELETE FROM ${TOOL_USAGE.name};`);
    const sessions = this.db.prepare('SELECT store, session_id FROM sessions ORDER BY store, session_id').raw().all() as [string, string][];
    for (const [store, id] of sessions) this.rebuild(store, [id]);
    const set = this.db.prepare(`INSERT OR REPLACE INTO ${DATASET_META.name} (key, value) VALUES (?, ?)`);
    set.run('ledger_time_zone', this.zone.name);
    set.run('ledger_rules', LEDGER_RULES);
  }

  /** Whether the ledger on disk was built in another zone or with other rules (then `rebuildAll` is due). */
  stale(): boolean {
    return datasetSetting(this.db, 'ledger_time_zone') !== this.zone.name || datasetSetting(this.db, 'ledger_rules') !== LEDGER_RULES;
  }
}

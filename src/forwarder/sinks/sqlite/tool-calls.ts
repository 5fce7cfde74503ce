// Each tool call id of each session with the time of its call and of its first result, kept in `tool_calls`
// (decision 0069), so the dashboard's slowest calls read one row per call of the window's sessions instead of grouping
// every tool part of every session (~0.85 s at 1M messages). Kept as the activity tables are (activity.ts): the parts
// the sink inserts are added from the rows in hand (`InsertedToolCalls`), parts deleted or changed by anyone are taken
// back by triggers. A minimum or maximum cannot be taken back: when a call id has other parts left and the deleted one
// may have held its earliest time or its tool name, the row is marked `stale`, and `InsertedToolCalls.settle` counts those
// sessions again from `parts` before the sink's transaction ends. The plain twin, `recomputeToolCalls`, is the
// grouping the dashboard ran before (web/data/rows.ts `slowestSql`); tests hold the two equal.
import type { Db } from '../../../shared/sqlite.js';
import { PARTS, TOOL_CALLS } from '../../dataset/columns.js';
import { isPacked, valueAt } from '../../dataset/packed.js';
import type { Rows } from '../sink.js';

/** A part's call id: its own for a call, the one it answers for a result (NULL for other parts). */
export const callIdSql = (p: string) => `CASE WHEN ${p}.part_type = 'tool_call' THEN ${p}.tool_call_id ELSE ${p}.tool_result_for END`;
/** The parts that belong to a call: calls and results with an id. */
const isToolPart = (p: string) => `${p}.part_type IN ('tool_call', 'tool_result') AND ${callIdSql(p)} IS NOT NULL`;

const T = TOOL_CALLS.name;
const COLUMNS = 'store, session_id, call_id, tool, called, answered, calls, results, stale';

/**
 * Rows added to what is there: counts add up, the tool is the greater name, the times the earlier (as MAX and MIN
 * would take them: NULL is no value). A stale row stays stale.
 */
const MERGE = `ON CONFLICT (store, session_id, call_id) DO UPDATE SET
  tool = CASE WHEN excluded.tool IS NULL THEN tool WHEN tool IS NULL OR excluded.tool > tool THEN excluded.tool ELSE tool END,
  called = CASE WHEN excluded.called IS NULL THEN called WHEN called IS NULL OR excluded.called < called THEN excluded.called ELSE called END,
  answered = CASE WHEN excluded.answered IS NULL THEN answered WHEN answered IS NULL OR excluded.answered < answered THEN excluded.answered ELSE answered END,
  calls = calls + excluded.calls, results = results + excluded.results`;

const addPart = `INSERT INTO ${T} (${COLUMNS}) VALUES (NEW.store, NEW.session_id, ${callIdSql('NEW')},
    CASE WHEN NEW.part_type = 'tool_call' THEN NEW.tool_name END, CASE WHEN NEW.part_type = 'tool_call' THEN NEW.created_at END,
    CASE WHEN NEW.part_type = 'tool_result' THEN NEW.created_at END, NEW.part_type = 'tool_call', NEW.part_type = 'tool_result', 0)
  ${MERGE};`;
// Every SET reads the row as it was: the last part of a kind takes its values with it; a deleted part that may have
// held the earliest time or the greatest name, with others of its kind left, makes the row stale.
const dropPart = `UPDATE ${T} SET
    calls = calls - (OLD.part_type = 'tool_call'), results = results - (OLD.part_type = 'tool_result'),
    tool = CASE WHEN OLD.part_type = 'tool_call' AND calls <= 1 THEN NULL ELSE tool END,
    called = CASE WHEN OLD.part_type = 'tool_call' AND calls <= 1 THEN NULL ELSE called END,
    answered = CASE WHEN OLD.part_type = 'tool_result' AND results <= 1 THEN NULL ELSE answered END,
    stale = CASE WHEN stale = 1 THEN 1
      WHEN OLD.part_type = 'tool_call' AND calls > 1 AND (OLD.created_at <= called OR OLD.tool_name >= tool) THEN 1
      WHEN OLD.part_type = 'tool_result' AND results > 1 AND OLD.created_at <= answered THEN 1
      ELSE 0 END
  WHERE store = OLD.store AND session_id = OLD.session_id AND call_id = ${callIdSql('OLD')};
  DELETE FROM ${T} WHERE store = OLD.store AND session_id = OLD.session_id AND call_id = ${callIdSql('OLD')} AND calls <= 0 AND results <= 0;`;

/** The delete trigger's name: `forgetStore` sets it aside once it has removed the store's calls itself. */
export const TOOL_CALLS_DELETE_TRIGGER = 'parts_tool_calls_delete';

/**
 * The index of stale calls and the triggers (created by the dataset's migration to version 11). No index by duration:
 * at 1M messages its inserts, each at a random place in a 24 MB index, cost a backfill half as much CPU again.
 */
export const TOOL_CALL_SCHEMA: readonly string[] = [
  `CREATE INDEX IF NOT EXISTS ${T}_stale ON ${T} (store, session_id) WHERE stale = 1`,
  `CREATE TRIGGER IF NOT EXISTS ${TOOL_CALLS_DELETE_TRIGGER} AFTER DELETE ON parts WHEN ${isToolPart('OLD')} BEGIN ${dropPart} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_tool_calls_update_old AFTER UPDATE OF store, session_id, part_type, tool_call_id, tool_result_for, tool_name, created_at ON parts WHEN ${isToolPart('OLD')} BEGIN ${dropPart} END`,
  `CREATE TRIGGER IF NOT EXISTS parts_tool_calls_update_new AFTER UPDATE OF store, session_id, part_type, tool_call_id, tool_result_for, tool_name, created_at ON parts WHEN ${isToolPart('NEW')} BEGIN ${addPart} END`,
];

/** The grouping the rows stand for, over `parts` (`where` narrows it; `p` is parts). */
export function toolCallsFromParts(where = '1 = 1'): string {
  return `SELECT p.store, p.session_id, ${callIdSql('p')} AS call_id,
      MAX(CASE WHEN p.part_type = 'tool_call' THEN p.tool_name END) AS tool,
      MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
      MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered,
      SUM(p.part_type = 'tool_call') AS calls, SUM(p.part_type = 'tool_result') AS results, 0 AS stale
    FROM parts p WHERE ${where} AND ${isToolPart('p')} GROUP BY p.store, p.session_id, ${callIdSql('p')}`;
}

/**
 * Counts the tool calls again from `parts` (one session, one store, or all), replacing what is kept: the migration
 * fills the table with it, stale sessions are settled with it, and tests compare it with what the sink kept.
 */
export function recomputeToolCalls(db: Db, scope: { store?: string; sessionId?: string } = {}): void {
  const where = [scope.store !== undefined ? 'store = @store' : null, scope.sessionId !== undefined ? 'session_id = @sessionId' : null].filter(Boolean);
  const params = { ...(scope.store !== undefined ? { store: scope.store } : {}), ...(scope.sessionId !== undefined ? { sessionId: scope.sessionId } : {}) };
  db.prepare(`DELETE FROM ${T}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`).run(params);
  db.prepare(`INSERT INTO ${T} (${COLUMNS}) ${toolCallsFromParts(where.length ? where.map((w) => `p.${w}`).join(' AND ') : '1 = 1')}`).run(params);
}

const at = (name: string) => PARTS.columns.findIndex((c) => c.name === name);
const [TYPE, CALL_ID, RESULT_FOR, NAME, TIME] = ['part_type', 'tool_call_id', 'tool_result_for', 'tool_name', 'created_at'].map(at) as [number, number, number, number, number];
const NAMES = PARTS.columns.map((c) => c.name);

/** Column `k` (of PARTS) of row `i`, records or packed. */
function columns(rows: Rows): (i: number, k: number) => unknown {
  if (isPacked(rows)) return (i, k) => valueAt(rows, i, k);
  return (i, k) => rows[i]![NAMES[k]!];
}

/** Rows per statement, largest first (as insert.ts). */
const SIZES = [32, 16, 8, 4, 2, 1];
const WIDTH = 8;

/**
 * Adds the parts the sink has just inserted (call it after they are in, in the same transaction) from the rows in
 * hand, never reading them back. Each call id with at most one call and one result among them is one row; the parts
 * of an id with more go one row each, and SQLite merges them (MERGE): no name or time is compared in JavaScript, and
 * every value is bound as it was bound into `parts`, so the column affinities store the same values.
 */
export class InsertedToolCalls {
  readonly #stmts: (ReturnType<Db['prepare']> | undefined)[] = SIZES.map(() => undefined);
  readonly #buffers = SIZES.map((n) => new Array<unknown>(WIDTH * n));
  readonly #db: Db;
  readonly #stale: { all(): unknown[] };

  constructor(db: Db) {
    this.#db = db;
    this.#stale = db.prepare(`SELECT DISTINCT store, session_id FROM ${T} WHERE stale = 1`).raw();
  }

  #statement(s: number) {
    const tuple = `(${Array.from({ length: WIDTH }, () => '?').join(', ')}, 0)`;
    return (this.#stmts[s] ??= this.#db.prepare(`INSERT INTO ${T} (${COLUMNS}) VALUES ${Array.from({ length: SIZES[s]! }, () => tuple).join(', ')} ${MERGE}`));
  }

  parts(store: string, sessionId: string, rows: Rows): void {
    const at = columns(rows);
    /** The part's call id, or undefined when it is no call or result with one. */
    const idOf = (i: number): unknown => {
      const type = at(i, TYPE);
      const id = type === 'tool_call' ? at(i, CALL_ID) : type === 'tool_result' ? at(i, RESULT_FOR) : null;
      return id === null || id === undefined ? undefined : id;
    };
    // Per text id: [calls, results, index of its call, index of its result]. An id that is not text (a number, bytes)
    // could equal another only once SQLite has stored it: its parts go one row each.
    const groups = new Map<string, [number, number, number, number]>();
    const single: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const id = idOf(i);
      if (id === undefined) continue;
      if (typeof id !== 'string') { single.push(i); continue; }
      const call = at(i, TYPE) === 'tool_call';
      const g = groups.get(id);
      if (!g) groups.set(id, call ? [1, 0, i, -1] : [0, 1, -1, i]);
      else if (call) { g[0]++; g[2] = i; } else { g[1]++; g[3] = i; }
    }
    if (groups.size === 0 && single.length === 0) return;
    const out: unknown[][] = [];
    const value = (i: number, col: number) => at(i, col) ?? null;
    const row = (id: unknown, c: number, r: number): unknown[] => [store, sessionId, id, c < 0 ? null : value(c, NAME),
      c < 0 ? null : value(c, TIME), r < 0 ? null : value(r, TIME), c < 0 ? 0 : 1, r < 0 ? 0 : 1];
    const part = (i: number) => (at(i, TYPE) === 'tool_call' ? row(idOf(i), i, -1) : row(idOf(i), -1, i));
    let repeated = false;
    for (const [id, [calls, results, c, r]] of groups) {
      if (calls <= 1 && results <= 1) out.push(row(id, c, r));
      else repeated = true;
    }
    if (repeated) {
      for (let i = 0; i < rows.length; i++) {
        const id = idOf(i);
        if (typeof id !== 'string') continue;
        const g = groups.get(id)!;
        if (g[0] > 1 || g[1] > 1) out.push(part(i));
      }
    }
    for (const i of single) out.push(part(i));
    this.#write(out);
  }

  #write(out: unknown[][]): void {
    let i = 0;
    for (let s = 0; s < SIZES.length; s++) {
      const size = SIZES[s]!;
      const values = this.#buffers[s]!;
      for (; i + size <= out.length; i += size) {
        let k = 0;
        for (let j = i; j < i + size; j++) for (const v of out[j]!) values[k++] = v;
        this.#statement(s).run(values);
      }
    }
  }

  /** Counts again every session a delete left stale (call it before the transaction ends). */
  settle(): void {
    for (const [store, sessionId] of this.#stale.all() as [string, string][]) recomputeToolCalls(this.#db, { store, sessionId });
  }
}

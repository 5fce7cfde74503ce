// Where the report's SQL differs between the embedded dataset (SQLite) and the fleet store (PostgreSQL): the week's
// Monday, how a session and a store are identified (the fleet adds the machine), how `--by machine` reads, the
// no-index hint, and parameters. Everything else in the report is one code path (plan.ts).

/** A report key: its name, its SQL on the ledger row `l`, and whether it is a number (else text, or NULL). */
export interface Key { name: string; sql: string; numeric?: boolean }
export type Params = Record<string, number | string | null>;

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Monday of the ISO week of a `YYYY-MM-DD` text, as `YYYY-MM-DD`. */
  week(day: string): string;
  /** The keys that tell sessions apart (the hidden ones first: they are kept aside, not shown). */
  readonly sessionKeys: readonly Key[];
  /** One expression naming a row's store (sessions are counted per store, then added up). */
  readonly storeKey: string;
  /** The keys of `--by machine`. */
  readonly machineKeys: readonly Key[];
  /** The distinct (…store, session) pairs of the ledger in a window, counted. */
  distinctSessions(where: string): string;
  /** A select-list expression the planner should not serve through an index (SQLite's unary +). */
  noIndex(sql: string): string;
  /** The sum of a counter or cost column over a group: NULL over no rows, never an overflow error. */
  sum(sql: string): string;
  /** A statement with `@name` parameters as the driver takes it. */
  bind(sql: string, params: Params): { sql: string; values: Params | unknown[] };
  /**
   * An ORDER BY term that orders as SQLite does in both dialects: NULL below every value (first going up, last going
   * down) and text by its bytes (code points), whatever the database's collation. A `--top` cut on rows of equal cost
   * (a model without prices) then keeps the same rows on the fleet store as on a machine's own dataset.
   */
  order(sql: string, how?: { numeric?: boolean | undefined; desc?: boolean }): string;
}

/**
 * The condition that rows `a` and `b` (table aliases) belong to the same session: each of the dialect's session keys
 * (written on the ledger alias `l`) equal on both.
 * @example sameSession(sqliteDialect(), 'u', 'l') // 'u.store = l.store AND u.session_id = l.session_id'
 */
export function sameSession(dialect: Dialect, a: string, b: string): string {
  const [left, right] = [sessionKeysOn(dialect, a), sessionKeysOn(dialect, b)];
  return left.map((k, i) => `${k} = ${right[i]}`).join(' AND ');
}

/**
 * The dialect's session keys written on table alias `alias` instead of the ledger's `l`.
 * @example sessionKeysOn(postgresDialect('hermetic'), 'r') // ['r.machine_id', 'r.store', 'r.session_id']
 */
export function sessionKeysOn(dialect: Dialect, alias: string): string[] {
  return dialect.sessionKeys.map((k) => k.sql.replace(/\bl\./g, `${alias}.`));
}

/** Keys a report row holds but does not show (they identify; the row shows the session id and title). */
export const HIDDEN_KEYS: ReadonlySet<string> = new Set(['store', 'machine_key']);

const literal = (v: string | null) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);

/** The embedded dataset: one machine, whose host name and id (when known) `--by machine` shows. */
export function sqliteDialect(machine: { hostname: string; machineId: string | null } = { hostname: 'localhost', machineId: null }): Dialect {
  return {
    name: 'sqlite',
    week: (day) => `date(${day}, '-6 days', 'weekday 1')`,
    sessionKeys: [{ name: 'store', sql: 'l.store' }, { name: 'session_id', sql: 'l.session_id' }],
    storeKey: 'l.store',
    machineKeys: [{ name: 'machine', sql: literal(machine.hostname) }, { name: 'machine_id', sql: literal(machine.machineId) }],
    // Distinct sessions from the per-session index alone (it holds each row's time too): no row is read.
    distinctSessions: (where) => `SELECT COUNT(*) AS n FROM (SELECT DISTINCT l.store, l.session_id FROM usage_ledger l INDEXED BY usage_ledger_store_session_id WHERE ${where})`,
    // A unary + (a no-op on any value) keeps SQLite to the time-clustered scan instead of a lookup per row.
    noIndex: (sql) => `+${sql}`,
    // SQLite's SUM of INTEGERs fails the whole statement with "integer overflow" past 2^63 (a store Hermes or a model
    // filled with counters near 2^53 gets there in ~1,000 rows); summed as REAL it is exact up to 2^53, as the
    // numbers JavaScript reads are, and beyond that rounds instead of failing. NULL over no rows, as SUM.
    sum: (sql) => `SUM(CAST(${sql} AS REAL))`,
    bind: (sql, params) => ({ sql, values: params }),
    // SQLite's own: NULL is the least value, text compares by BINARY (memcmp of UTF-8).
    order: (sql, how = {}) => `${sql}${how.desc ? ' DESC' : ''}`,
  };
}

/**
 * An ORDER BY term that orders in PostgreSQL as SQLite does (`Dialect.order`): text by its bytes (`COLLATE "C"`, on a
 * UTF-8 database the code points) whatever the database's collation (often a language's), and NULL below every value.
 */
export const postgresOrder = (sql: string, how: { numeric?: boolean | undefined; desc?: boolean } = {}): string =>
  `${sql}${how.numeric ? '' : ' COLLATE "C"'}${how.desc ? ' DESC NULLS LAST' : ' NULLS FIRST'}`;

/** The fleet store: every row carries its machine; `--by machine` is its host name and id. */
export function postgresDialect(schema: string): Dialect & { readonly schema: string } {
  return {
    name: 'postgres',
    schema,
    week: (day) => `to_char(date_trunc('week', (${day})::date), 'YYYY-MM-DD')`,
    sessionKeys: [{ name: 'machine_key', sql: 'l.machine_id' }, { name: 'store', sql: 'l.store' }, { name: 'session_id', sql: 'l.session_id' }],
    // A machine id is 32 hex digits: glued to the store path it stays unambiguous.
    storeKey: '(l.machine_id || l.store)',
    machineKeys: [{ name: 'machine', sql: 'l.hostname' }, { name: 'machine_id', sql: 'l.machine_id' }],
    distinctSessions: (where) => `SELECT COUNT(*) AS n FROM (SELECT DISTINCT l.machine_id, l.store, l.session_id FROM usage_ledger l WHERE ${where}) d`,
    noIndex: (sql) => sql,
    // SUM of a bigint is a numeric: it does not overflow.
    sum: (sql) => `SUM(${sql})`,
    order: postgresOrder,
    bind(sql, params) {
      const values: unknown[] = [];
      const index = new Map<string, number>();
      const text = sql.replace(/@([a-z_][a-z0-9_]*)/gi, (_m, name: string) => {
        if (!index.has(name)) index.set(name, values.push(params[name] ?? null));
        return `$${index.get(name)!}`;
      });
      return { sql: text, values };
    },
  };
}

// A better-sqlite3 connection that fails on purpose: the k-th execution of one of our statements throws, optionally
// after SQLite-style rolling back the whole open transaction (as it does for SQLITE_FULL or an I/O error). Used by the
// run-table conformance suite to check that a failed statement loses nothing acknowledged and leaves no trace.
import type Database from 'better-sqlite3';

export type FaultMode = 'statement' | 'rollback';

export interface Faults {
  /** Executions of our statements so far. */
  readonly count: number;
  /**
   * Fail the `nth` execution from now (1 = the next one) — of any of our statements, or only of those whose SQL
   * matches `sql`; null disarms.
   */
  arm(nth: number | null, mode?: FaultMode, sql?: RegExp): void;
  /** Whether an armed fault has fired since the last arm(). */
  readonly fired: boolean;
  /** Fail every execution for which `when(sql, args)` holds (a statement that keeps failing), until called with null. */
  always(when: ((sql: string, args: unknown[]) => boolean) | null): void;
}

const EXECUTE = new Set(['run', 'get', 'all', 'iterate']);
const CHAIN = new Set(['pluck', 'raw', 'expand', 'bind', 'safeIntegers']);

export function faultyDb(db: Database.Database): { db: Database.Database; faults: Faults } {
  let count = 0;
  let failAt: number | null = null;
  let mode: FaultMode = 'statement';
  let fired = false;
  let match: RegExp | null = null;
  let matched = 0;
  let persistent: ((sql: string, args: unknown[]) => boolean) | null = null;
  const maybeFail = (sql: string, args: unknown[] = []) => {
    count++;
    if (persistent?.(sql, args)) throw Object.assign(new Error('injected persistent fault'), { code: 'SQLITE_IOERR' });
    if (failAt === null) return;
    if (match ? !match.test(sql) || ++matched !== failAt : count !== failAt) return;
    failAt = null;
    fired = true;
    if (mode === 'rollback' && db.inTransaction) db.exec('ROLLBACK');
    throw Object.assign(new Error(`injected fault at statement ${count}`), { code: mode === 'rollback' ? 'SQLITE_FULL' : 'SQLITE_IOERR' });
  };
  const wrapStatement = (stmt: Database.Statement): Database.Statement => {
    const proxy: Database.Statement = new Proxy(stmt, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        if (EXECUTE.has(key as string)) {
          return (...args: unknown[]) => {
            maybeFail(target.source, args);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        if (CHAIN.has(key as string)) {
          return (...args: unknown[]) => {
            (value as (...a: unknown[]) => unknown).apply(target, args);
            return proxy;
          };
        }
        return value.bind(target);
      },
    });
    return proxy;
  };
  const proxy = new Proxy(db, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'prepare') return (sql: string) => wrapStatement(target.prepare(sql));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    db: proxy,
    faults: {
      get count() {
        return count;
      },
      get fired() {
        return fired;
      },
      always(when) {
        persistent = when;
      },
      arm(nth, m = 'statement', sql) {
        match = sql ?? null;
        matched = 0;
        failAt = nth === null ? null : sql ? nth : count + nth;
        mode = m;
        fired = false;
      },
    },
  };
}

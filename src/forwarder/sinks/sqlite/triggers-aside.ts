// Triggers set aside for a bulk statement and put back as they were, inside the caller's transaction. A trigger fires
// once a row, so deleting a million rows runs a million small programs; a caller that does their work itself in one
// statement does not need them (`forgetStore`, decision 0157 addendum). DDL is transactional in SQLite: when the work
// fails, its savepoint rolls back and the triggers come back with it (decision 0163).
import type { Db } from '../../../shared/sqlite.js';
import { quoteName } from '../../../shared/sql-name.js';

/**
 * Drops those of `names` the dataset has, runs `work` (told which were dropped: a dataset older than a trigger lacks
 * it, and its work is then no one's to do), creates them again from their own stored SQL, and returns what `work`
 * returned. Runs inside the caller's transaction, in a savepoint of its own: when `work` throws, the triggers are back
 * whatever the caller then does (a caller that catches the error and commits would otherwise commit them dropped).
 * @example withTriggersAside(db, ['row_counts_parts_delete'], (aside) => db.prepare('DELETE FROM parts').run());
 */
export function withTriggersAside<T>(db: Db, names: readonly string[], work: (aside: ReadonlySet<string>) => T): T {
  if (!db.inTransaction) throw new Error('withTriggersAside runs inside a transaction');
  return db.transaction((): T => {
    const stored = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each(?)) ORDER BY rowid")
      .raw().all(JSON.stringify(names)) as [string, string][];
    for (const [name] of stored) db.exec(`DROP TRIGGER ${quoteName(name)}`);
    const out = work(new Set(stored.map(([name]) => name)));
    for (const [, sql] of stored) db.exec(sql);
    return out;
  })();
}

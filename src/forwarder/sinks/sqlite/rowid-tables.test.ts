// `messages` and `parts` are rowid tables from dataset version 16 (decision 0172): a new dataset is made so, and a
// dataset of version 15, which kept them WITHOUT ROWID, is stored again by its migration with every row, index,
// trigger, count and change-log entry as it was, its triggers still working after and its reports the same.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { DATASET_TABLES, DATASET_VERSION } from '../../dataset/columns.js';
import { forwarderRig } from '../../testing/index.js';
import { registerSink } from '../remote/changelog.js';
import { usageReport, type ReportRequest } from '../../report/index.js';
import { planCommandSource } from '../../report/commands.js';
import { sqliteDialect } from '../../report/dialect.js';
import { createTableSql, openDataset, openDatasetReadOnly } from './dataset.js';
import { TERMINAL_INDEX, TERMINAL_INDEX_SQL } from './programs.js';

const TABLES = ['messages', 'parts'] as const;
let home: string;
let cleanup: () => void;

before(() => {
  const t = tempDir('hermetic-rowid-');
  cleanup = t.cleanup;
  const g = generatedStore({ out: join(t.dir, 'hermes', 'state.db'), sessions: 12, messages: 900, seed: 'rowid', end: 1_780_000_000, days: 5 });
  const rig = forwarderRig([g.path], { dir: t.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
});
after(() => cleanup());

const tableSql = (db: Database.Database, name: string) => db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name) as string;
const attached = (db: Database.Database) =>
  db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name IN ('messages', 'parts') AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name").all();
const rowsOf = (db: Database.Database, name: string) => {
  const t = DATASET_TABLES.find((x) => x.name === name)!;
  return db.prepare(`SELECT * FROM "${name}" ORDER BY ${t.primaryKey.map((k) => `"${k}"`).join(', ')}`).raw().all();
};
const counts = (db: Database.Database) => ({
  rowCounts: db.prepare('SELECT tbl, rows FROM row_counts ORDER BY tbl').all(),
  activity: db.prepare('SELECT * FROM session_activity ORDER BY 1, 2, 3').raw().all(),
  toolCalls: db.prepare('SELECT * FROM tool_calls ORDER BY 1, 2, 3').raw().all(),
  logged: db.prepare('SELECT COUNT(*) FROM change_log').pluck().get(),
});

const REPORTS: ReportRequest[] = [{ by: ['command'] }, { by: ['command', 'day'] }, { by: ['tool'] }];
const reports = (db: Database.Database) => REPORTS.map((r) => usageReport(db, r));
/** Whether `--by command` reads a gathered result's text by its rowid (planCommandSource, driven on `db`). */
function readsByRowid(db: Database.Database): boolean {
  const plan = planCommandSource(sqliteDialect());
  let step = plan.next();
  while (!step.done) step = plan.next(db.prepare(step.value.sql).all(step.value.params) as Record<string, unknown>[]);
  return step.value.rowids;
}

/** A copy of the backfilled dataset as version 15 left it: both tables WITHOUT ROWID, a remote sink registered. */
function version15(): { dir: string; done: () => void } {
  const t = tempDir('hermetic-rowid-copy-');
  const src = new Database(join(home, 'hermetic.db'), { readonly: true });
  src.exec(`VACUUM INTO '${join(t.dir, 'hermetic.db').replace(/'/g, "''")}'`);
  src.close();
  const db = new Database(join(t.dir, 'hermetic.db'));
  registerSink(db, { id: 'sqlite:///copy.db', display: 'sqlite:///copy.db' }, 1);
  db.transaction(() => {
    for (const name of TABLES) {
      const def = DATASET_TABLES.find((x) => x.name === name)!;
      const keep = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(name) as string[];
      db.exec(createTableSql({ ...def, name: `${name}_old`, withoutRowid: true }));
      db.exec(`INSERT INTO "${name}_old" SELECT * FROM "${name}"; DROP TABLE "${name}"; ALTER TABLE "${name}_old" RENAME TO "${name}"`);
      for (const s of keep) db.exec(s);
    }
    // Version 15's index of the terminal tool's parts: its entries carried the key, so it did not name `part_id`.
    db.exec("DROP INDEX parts_terminal; CREATE INDEX parts_terminal ON parts (store, session_id, part_type, created_at, tool_call_id, tool_result_for, program) WHERE tool_name = 'terminal'");
  })();
  db.pragma('user_version = 15');
  db.close();
  return { dir: t.dir, done: t.cleanup };
}

describe('messages and parts as rowid tables', () => {
  it('a new dataset makes them rowid tables; the tables of short rows stay WITHOUT ROWID', () => {
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    try {
      assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
      for (const name of TABLES) assert.doesNotMatch(tableSql(db, name), /WITHOUT ROWID/);
      assert.match(tableSql(db, 'usage_ledger'), /WITHOUT ROWID$/);
      assert.ok((db.prepare('SELECT COUNT(*) FROM parts').pluck().get() as number) > 900);
    } finally {
      db.close();
    }
  });

  it('the migration from version 15 stores them again with every row, index, trigger and count as it was', () => {
    const c = version15();
    try {
      const old = new Database(join(c.dir, 'hermetic.db'), { readonly: true });
      for (const name of TABLES) assert.match(tableSql(old, name), /WITHOUT ROWID$/);
      const rows = TABLES.map((n) => rowsOf(old, n));
      const shape = attached(old);
      const before = counts(old);
      old.close();
      // Read as it is by this Hermetic's read-only commands (the same columns): its reports are the migrated one's.
      const readOnly = openDatasetReadOnly(c.dir);
      const reported = reports(readOnly);
      assert.equal(readsByRowid(readOnly), false);
      readOnly.close();
      const failed = reported[0]!.rows.reduce((n, r) => n + Number(r.tool_errors ?? 0), 0);
      assert.ok(reported[0]!.rows.length > 3 && failed > 0, `terminal programs and failures to report: ${reported[0]!.rows.length}, ${failed}`);
      assert.ok(shape.length >= 10, `indexes and triggers of the two tables: ${shape.length}`);
      assert.ok(shape.some((s) => (s as { name: string }).name.startsWith('change_log_')), 'the change log triggers are there to keep');

      const db = openDataset(c.dir, { timeZone: 'UTC' });
      try {
        assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
        for (const name of TABLES) assert.doesNotMatch(tableSql(db, name), /WITHOUT ROWID/);
        assert.deepEqual(TABLES.map((n) => rowsOf(db, n)), rows);
        const index = (rows: unknown[]) => rows.filter((r) => (r as { name: string }).name !== TERMINAL_INDEX);
        assert.deepEqual(index(attached(db)), index(shape));
        assert.equal(db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(TERMINAL_INDEX), TERMINAL_INDEX_SQL.replace(' IF NOT EXISTS', ''));
        // No trigger fired: the counts and the change log are as they were, and nothing was left aside.
        assert.deepEqual(counts(db), before);
        assert.equal(readsByRowid(db), true);
        assert.deepEqual(reports(db), reported);
        assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%\\_\\_rowid' ESCAPE '\\'").pluck().get(), 0);
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
        // The triggers taken over work: a session's rows deleted take its activity and counts with them, logged.
        const [store, session] = db.prepare('SELECT store, session_id FROM messages LIMIT 1').raw().get() as [string, string];
        const gone = db.prepare('SELECT COUNT(*) FROM messages WHERE store = ? AND session_id = ?').pluck().get(store, session) as number;
        db.prepare('DELETE FROM parts WHERE store = ? AND session_id = ?').run(store, session);
        db.prepare('DELETE FROM messages WHERE store = ? AND session_id = ?').run(store, session);
        assert.equal(db.prepare('SELECT COUNT(*) FROM session_activity WHERE store = ? AND session_id = ?').pluck().get(store, session), 0);
        assert.equal(db.prepare("SELECT rows FROM row_counts WHERE tbl = 'messages'").pluck().get(), rows[0]!.length - gone);
        assert.ok((db.prepare('SELECT COUNT(*) FROM change_log').pluck().get() as number) > (before.logged as number));
      } finally {
        db.close();
      }
      // Opened again, nothing is stored again.
      const again = openDataset(c.dir, { timeZone: 'UTC' });
      again.close();
    } finally {
      c.done();
    }
  });
});

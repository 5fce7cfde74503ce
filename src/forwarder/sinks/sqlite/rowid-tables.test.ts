// `messages` and `parts` are rowid tables from dataset version 16 (decision 0172): a new dataset is made so, and a
// dataset of version 15, which kept them WITHOUT ROWID, is stored again by its migration with every row, index,
// trigger, count and change-log entry as it was, its triggers still working after and its reports the same. A user's
// views, triggers and columns survive it; a failed one changes nothing and says so; a process that waited
// for another's migration does not run it again, and one that waits too long says why in words.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openForReport } from '../../cli/report.js';
import { backfillCommand } from '../../cli/backfill.js';
import { forwardCommand } from '../../cli/forward.js';
import { statusCommand } from '../../cli/status.js';
import { printed } from '../../../shared/testing/console.js';
import { readOnlyFolder, type ReadOnlyFolder } from '../../../shared/testing/small-disks.js';
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

const require = createRequire(import.meta.url);
const TABLES = ['messages', 'parts'] as const;
let home: string;
let storePath: string;
let cleanup: () => void;

before(() => {
  const t = tempDir('hermetic-rowid-');
  cleanup = t.cleanup;
  const g = generatedStore({ out: join(t.dir, 'hermes', 'state.db'), sessions: 12, messages: 900, seed: 'rowid', end: 1_780_000_000, days: 5 });
  storePath = g.path;
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
  db.pragma('journal_mode = WAL'); // as every dataset is (VACUUM INTO makes a file of the rollback journal)
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

  it('report, export and web read a version-15 dataset as it is, without storing it again, also in a folder this user may not write; an older one there is refused in words', (t) => {
    const c = version15();
    let ro: ReadOnlyFolder | null = null;
    const said: unknown[] = [];
    const error = console.error;
    console.error = (...a: unknown[]) => void said.push(a);
    try {
      const old = new Database(join(c.dir, 'hermetic.db'), { readonly: true });
      const reported = reports(old);
      old.close();
      // Writable: the reader leaves the storing to the forwarder (decision 0172), and says nothing of an upgrade.
      const db = openForReport(c.dir);
      assert.equal(db.pragma('user_version', { simple: true }), 15);
      assert.deepEqual(reports(db), reported);
      db.close();
      const after = new Database(join(c.dir, 'hermetic.db'), { readonly: true });
      for (const name of TABLES) assert.match(tableSql(after, name), /WITHOUT ROWID$/);
      after.close();
      // A read-only backup of it (README: read through a private copy): read, not refused for want of an upgrade.
      const folder = join(c.dir, 'ro');
      ro = readOnlyFolder(folder, (p) => copyFileSync(join(c.dir, 'hermetic.db'), join(p, 'hermetic.db')));
      if (!ro) return t.skip('this system refused a tmpfs');
      const backup = openForReport(folder);
      assert.equal(backup.pragma('user_version', { simple: true }), 15);
      assert.deepEqual(reports(backup), reported);
      backup.close();
      assert.deepEqual(said, []);
      // One whose columns are older must be upgraded first, which a read-only folder refuses: said so, with what to do.
      ro.release();
      ro = null;
      const older = join(c.dir, 'ro14');
      const v14 = new Database(join(c.dir, 'hermetic.db'));
      v14.pragma('user_version = 14');
      v14.close();
      ro = readOnlyFolder(older, (p) => copyFileSync(join(c.dir, 'hermetic.db'), join(p, 'hermetic.db')));
      if (!ro) return t.skip('this system refused a tmpfs');
      const why = ro.why;
      assert.throws(() => openForReport(older), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
        && e.message === `The dataset at ${join(older, 'hermetic.db')} was written by an older Hermetic (dataset version 14) and is upgraded before this one reads it, but ${why}; run hermetic report once as a user who may write there, or copy the folder to one you may write and give --home the copy.`);
    } finally {
      console.error = error;
      ro?.release();
      c.done();
    }
  });
});

/** The state a failed or skipped migration must leave: version 15, both tables WITHOUT ROWID, the old index, the rows. */
function asVersion15(dir: string): { version: unknown; layouts: string[]; terminal: string; rows: number[] } {
  const db = new Database(join(dir, 'hermetic.db'), { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      layouts: TABLES.map((n) => (/WITHOUT ROWID$/.test(tableSql(db, n)) ? 'without rowid' : 'rowid')),
      terminal: db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(TERMINAL_INDEX) as string,
      rows: TABLES.map((n) => db.prepare(`SELECT COUNT(*) FROM "${n}"`).pluck().get() as number),
    };
  } finally {
    db.close();
  }
}

/**
 * Another process holding the dataset's write lock for `ms`, as a long migration does; `then` is run in its transaction
 * before it commits. Resolves once the lock is held; `exited` when the process is gone.
 */
async function holder(dir: string, ms: number, then = ''): Promise<{ exited: Promise<void> }> {
  const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new D(${JSON.stringify(join(dir, 'hermetic.db'))}); db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked');
    setTimeout(() => { db.exec(${JSON.stringify(then)}); db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
  });
  return { exited };
}

describe('migration 16 beside what else is in the dataset and who else opens it (decision 0172 addendum)', () => {
  it("a user's view over messages and trigger reading parts stay, and the migration runs (legacy rename)", () => {
    const c = version15();
    try {
      const user = new Database(join(c.dir, 'hermetic.db'));
      user.exec(`CREATE VIEW my_messages AS SELECT * FROM messages;
        CREATE TABLE my_notes (note TEXT); CREATE TRIGGER my_note AFTER INSERT ON my_notes BEGIN
          UPDATE my_notes SET note = note || (SELECT COUNT(*) FROM parts) WHERE rowid = new.rowid; END;
        CREATE TRIGGER my_parts AFTER DELETE ON parts BEGIN INSERT INTO my_notes VALUES ('gone:'); END`);
      const mine = user.prepare("SELECT name, sql FROM sqlite_master WHERE name LIKE 'my\\_%' ESCAPE '\\' ORDER BY name").all();
      user.close();
      const db = openDataset(c.dir, { timeZone: 'UTC' });
      try {
        assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
        for (const name of TABLES) assert.doesNotMatch(tableSql(db, name), /WITHOUT ROWID/);
        assert.deepEqual(db.prepare("SELECT name, sql FROM sqlite_master WHERE name LIKE 'my\\_%' ESCAPE '\\' ORDER BY name").all(), mine);
        assert.equal(db.pragma('legacy_alter_table', { simple: true }), 0, 'the connection is left as it was');
        // They read the new tables by their names.
        assert.equal(db.prepare('SELECT COUNT(*) FROM my_messages').pluck().get(), db.prepare('SELECT COUNT(*) FROM messages').pluck().get());
        const parts = db.prepare('SELECT COUNT(*) FROM parts').pluck().get() as number;
        db.prepare('DELETE FROM parts WHERE rowid = (SELECT MIN(rowid) FROM parts)').run();
        assert.equal(db.prepare('SELECT note FROM my_notes').pluck().get(), `gone:${parts - 1}`);
      } finally {
        db.close();
      }
    } finally {
      c.done();
    }
  });

  it("a column a user added to messages is copied with its values and default, not dropped", () => {
    const c = version15();
    try {
      const user = new Database(join(c.dir, 'hermetic.db'));
      user.exec("ALTER TABLE messages ADD COLUMN my_tag TEXT DEFAULT 'none'; UPDATE messages SET my_tag = 'mine' WHERE session_id = (SELECT MIN(session_id) FROM messages)");
      const tags = user.prepare('SELECT my_tag, COUNT(*) FROM messages GROUP BY 1 ORDER BY 1').raw().all();
      user.close();
      assert.equal(tags.length, 2);
      const db = openDataset(c.dir, { timeZone: 'UTC' });
      try {
        assert.doesNotMatch(tableSql(db, 'messages'), /WITHOUT ROWID/);
        assert.deepEqual(db.prepare('SELECT my_tag, COUNT(*) FROM messages GROUP BY 1 ORDER BY 1').raw().all(), tags);
        assert.equal((db.prepare("SELECT dflt_value FROM pragma_table_info('messages') WHERE name = 'my_tag'").pluck().get()), "'none'");
      } finally {
        db.close();
      }
    } finally {
      c.done();
    }
  });

  it('a table already named as the copy is refused, not filled: nothing changes, and the error says the upgrade failed', () => {
    const c = version15();
    try {
      // A table of parts' columns under the copy's name, holding a row of its own: it must not end up in `parts`.
      const user = new Database(join(c.dir, 'hermetic.db'));
      const def = DATASET_TABLES.find((x) => x.name === 'parts')!;
      user.exec(createTableSql({ ...def, name: 'parts__rowid', withoutRowid: false }));
      user.exec("INSERT INTO parts__rowid SELECT * FROM parts LIMIT 1; UPDATE parts__rowid SET part_id = 'not-hermetic'");
      user.close();
      const before = asVersion15(c.dir);
      assert.deepEqual(before.layouts, ['without rowid', 'without rowid']);
      assert.throws(() => openDataset(c.dir, { timeZone: 'UTC' }), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
        && e.message === `Cannot upgrade the dataset at ${join(c.dir, 'hermetic.db')} from dataset version 15 to 16: table "parts__rowid" already exists. Nothing of it was changed.`);
      // messages had been stored again before parts failed: rolled back with the rest, the old index back too.
      assert.deepEqual(asVersion15(c.dir), before);
    } finally {
      c.done();
    }
  });

  it('a migration another process finished while this one waited for the lock is not run again', async () => {
    const c = version15();
    try {
      // The other process says version 16 (its tables left WITHOUT ROWID as a mark) and commits a second after this one
      // read version 15 and started to wait; a stale version would run migration 16 again over its work.
      const other = await holder(c.dir, 1000, 'PRAGMA user_version = 16');
      const db = openDataset(c.dir, { timeZone: 'UTC' });
      db.close();
      await other.exited;
      const after = asVersion15(c.dir);
      assert.equal(after.version, 16);
      assert.deepEqual(after.layouts, ['without rowid', 'without rowid']);
    } finally {
      c.done();
    }
  });

  it('a lock held past the wait (another process migrating a large dataset) is said in words; nothing changes', async () => {
    const c = version15();
    try {
      const before = asVersion15(c.dir);
      const other = await holder(c.dir, 6000);
      assert.throws(() => openDataset(c.dir, { timeZone: 'UTC' }), (e: Error & { code?: string }) => e.code === 'HERMETIC_DATASET_OPEN'
        && e.message === `Another process kept the dataset at ${join(c.dir, 'hermetic.db')} locked longer than this one waits (5 s): a backfill, a forward or a forget writing to it, or upgrading it to this version (once, seconds for a large dataset). Nothing was written: run this again when it is done.`);
      await other.exited;
      assert.deepEqual(asVersion15(c.dir), before);
    } finally {
      c.done();
    }
  });

  it('backfill and forward say once, before it, that they upgrade an older dataset; not a new one, not again', async () => {
    const c = version15();
    const fresh = tempDir('hermetic-rowid-fresh-');
    try {
      const line = `hermetic: upgrading the dataset at ${join(c.dir, 'hermetic.db')} from version 15 to ${DATASET_VERSION} (once; a large dataset takes seconds)…`;
      const tz = process.env.HERMETIC_TZ;
      process.env.HERMETIC_TZ = 'UTC';
      try {
        const first = await printed(() => forwardCommand(['--once', '--state-db', storePath, '--home', c.dir]));
        assert.equal(first.value, 0);
        assert.deepEqual(first.err.filter((l) => l.includes('upgrading')), [line]);
        const again = await printed(() => backfillCommand(['--state-db', storePath, '--home', c.dir]));
        assert.deepEqual(again.err.filter((l) => l.includes('upgrading')), []);
        const made = await printed(() => backfillCommand(['--state-db', storePath, '--home', fresh.dir]));
        assert.equal(made.value, 0);
        assert.deepEqual(made.err.filter((l) => l.includes('upgrading')), []);
      } finally {
        if (tz === undefined) delete process.env.HERMETIC_TZ;
        else process.env.HERMETIC_TZ = tz;
      }
      const db = new Database(join(c.dir, 'hermetic.db'), { readonly: true });
      assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
      db.close();
      // status says the file's size and the free pages the old tables left (what a VACUUM would give back).
      const status = await printed(() => statusCommand(['--home', c.dir, '--state-db', storePath, '--json']));
      const size = (JSON.parse(status.out.join('\n')) as { dataset_size: { bytes: number; free_bytes: number } }).dataset_size;
      assert.equal(size.bytes, statSync(join(c.dir, 'hermetic.db')).size);
      assert.ok(size.free_bytes > 0 && size.free_bytes < size.bytes, `free pages after the upgrade: ${size.free_bytes} of ${size.bytes}`);
    } finally {
      fresh.cleanup();
      c.done();
    }
  });
});

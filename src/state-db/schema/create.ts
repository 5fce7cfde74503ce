// Creates a state.db at any schema level, fresh or "created at N, migrated to M", in WAL or DELETE journal mode,
// replaying Hermes's migrations (ALTER TABLE appends, the v22 usage-table rebuild, the v25 prompt dedupe).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { createIdSource, type IdSource } from '../../shared/ids.js';
import type { Db } from '../../shared/sqlite.js';
import { alterColumnSql, createTableSql } from './ddl.js';
import { dropFtsStatements, ftsLayout, ftsRebuildStatements, ftsStatements } from './fts.js';
import { INDEXES, TRIGGERS } from './indexes.js';
import { checkLevel, chronological, storedVersion } from './layout.js';
import { stampIdentity } from './identity.js';
import { securePrivateFiles } from './private-files.js';
import { TABLES } from './tables.js';
import type { Level } from './types.js';
import { createDirs } from '../../shared/dirs.js';

export type JournalMode = 'wal' | 'delete';

export interface CreateStoreOptions {
  /** File path, or ':memory:'. An existing file is replaced. */
  path: string;
  /** Target level (1..31; 31 = v30 with session_daily_usage). */
  level: Level;
  /** Level the store was first created at, before migrating to `level` (default: `level`, a fresh store). */
  createdAt?: Level;
  journal?: JournalMode;
  /** Build the FTS5 search tables and triggers (default true). */
  fts?: boolean;
  /**
   * state_meta.db_file_generation (level 28+), as given: a test's own name. Without it a uuid4 hex token is minted from
   * `ids`, as Hermes mints one; the application_id is derived from the token either way (decision 0134).
   */
  generation?: string;
  /** Where a minted token comes from (default: the OS's randomness, as Hermes's uuid.uuid4()); seeded, the same store. */
  ids?: IdSource;
}

/** Levels from which the application id and the file-generation key exist [I] (decision 0010). */
const STAMP_LEVEL = 28;

/**
 * Creates a store and returns the open connection (foreign_keys on).
 * @example const db = createStore({ path: '/tmp/state.db', level: 31, createdAt: 12, journal: 'wal' });
 */
export function createStore(options: CreateStoreOptions): Db {
  const { path, level, journal = 'wal', fts = true } = options;
  const createdAt = options.createdAt ?? level;
  checkLevel(level);
  checkLevel(createdAt);
  if (createdAt > level) throw new RangeError(`createdAt ${createdAt} is newer than level ${level}.`);
  if (path !== ':memory:') {
    createDirs(dirname(path));
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
  }
  // The token is drawn whatever the level, so a seeded caller's later draws do not depend on it.
  const generation = options.generation ?? (options.ids ?? createIdSource()).uuid4Hex();
  // Owner-only from the first byte, and the sidecars WAL setup makes (Hermes's _secure_state_db_files).
  securePrivateFiles(path, { createMain: true });
  const db = new Database(path);
  db.pragma(`journal_mode = ${journal === 'wal' ? 'WAL' : 'DELETE'}`);
  securePrivateFiles(path);
  db.pragma('foreign_keys = ON');
  db.transaction(() => {
    createFresh(db, createdAt, fts);
    if (createdAt >= STAMP_LEVEL) stampIdentity(db, generation);
    for (let l = createdAt + 1; l <= level; l++) migrateStep(db, l, createdAt, fts, generation);
  })();
  return db;
}

function createFresh(db: Db, level: Level, fts: boolean): void {
  for (const t of TABLES) if (t.since <= level) db.exec(createTableSql(t, level));
  for (const i of INDEXES) if (i.since <= level) db.exec(i.sql);
  for (const t of TRIGGERS) if (t.since <= level) db.exec(t.sql);
  if (fts) for (const s of ftsStatements(ftsLayout(level), level)) db.exec(s);
  db.prepare('INSERT INTO schema_version(version) VALUES (?)').run(storedVersion(level));
}

/** Applies the changes of exactly one level to a store at level - 1 (`generation`: the token a v28 store is stamped with). */
export function migrateStep(db: Db, level: Level, createdAt: Level, fts: boolean, generation?: string): void {
  for (const t of TABLES) {
    if (t.since === level) {
      db.exec(createTableSql(t, level));
      continue;
    }
    if (t.since > level) continue;
    if (t.rebuiltAt === level) {
      rebuildTable(db, t.name, level);
      continue;
    }
    for (const c of chronological(t)) {
      if (c.since !== level) continue;
      const def = c.alterAs ? { ...c, notNull: c.alterAs.notNull, default: c.alterAs.default } : c;
      db.exec(`ALTER TABLE ${t.name} ADD COLUMN ${alterColumnSql(def)}`);
    }
  }
  for (const i of INDEXES) if (i.since === level) db.exec(i.sql);
  for (const t of TRIGGERS) if (t.since === level) db.exec(t.sql);
  dataMigration(db, level);
  if (fts && (level === 10 || ftsLayout(level, createdAt) !== ftsLayout(level - 1, createdAt))) {
    for (const s of dropFtsStatements()) db.exec(s);
    const layout = ftsLayout(level, createdAt);
    for (const s of [...ftsStatements(layout, level), ...ftsRebuildStatements(layout, level)]) db.exec(s);
  }
  if (level === STAMP_LEVEL) stampIdentity(db, generation ?? createIdSource().uuid4Hex());
  db.prepare('UPDATE schema_version SET version = ?').run(storedVersion(level));
}

/** v22: session_model_usage is rebuilt so `task` joins the primary key (spec §9.2). */
function rebuildTable(db: Db, name: string, level: Level): void {
  const table = TABLES.find((t) => t.name === name)!;
  const old = (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((r) => r.name);
  const tmp = `${name}_rebuild`;
  db.exec(createTableSql({ ...table, name: tmp }, level));
  db.exec(`INSERT INTO ${tmp} (${old.join(', ')}) SELECT ${old.join(', ')} FROM ${name}`);
  db.exec(`DROP TABLE ${name}`);
  db.exec(`ALTER TABLE ${tmp} RENAME TO ${name}`);
  for (const i of INDEXES) if (i.since < level && i.sql.includes(` ON ${name}(`)) db.exec(i.sql);
}

function dataMigration(db: Db, level: Level): void {
  if (level === 16) {
    // Tag delegate subagents with their parent (orphans get a marker) so lineage survives (spec §9.2).
    db.exec(`UPDATE sessions SET model_config = json_set(
      CASE WHEN json_valid(model_config) THEN model_config ELSE '{}' END, '$._delegate_from',
      COALESCE(parent_session_id, '__orphaned__'))
      WHERE source = 'subagent' AND json_extract(CASE WHEN json_valid(model_config) THEN model_config ELSE '{}' END,
      '$._delegate_from') IS NULL`);
  }
  if (level === 25) {
    // Move inline prompts into the content-addressed table and clear the legacy column.
    const rows = db.prepare('SELECT id, system_prompt FROM sessions WHERE system_prompt IS NOT NULL').all() as
      { id: string; system_prompt: string }[];
    const put = db.prepare('INSERT OR IGNORE INTO system_prompts(hash, prompt) VALUES (?, ?)');
    const upd = db.prepare('UPDATE sessions SET system_prompt_hash = ?, system_prompt = NULL WHERE id = ?');
    for (const r of rows) {
      const hash = promptHash(r.system_prompt);
      put.run(hash, r.system_prompt);
      upd.run(hash, r.id);
    }
  }
}

/** Content address of a system prompt: SHA-256 hex of its UTF-8 text (matches the fixtures). */
export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

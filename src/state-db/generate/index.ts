// Deterministic synthetic state.db stores of any schema level and shape (`hermetic statedb generate`).
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { createStore, type JournalMode } from '../schema/create.js';
import { StateDbWriter } from '../writer/index.js';
import { PROFILES } from './profiles.js';
import { Rng } from './random.js';
import { runScenario } from './scenarios.js';
import { SCENARIOS, type GenContext, type Scenario } from './session.js';

export { PROFILES, profileNames } from './profiles.js';

export interface GenerateOptions {
  out: string;
  /** Schema level 1..31 (31 = v30 with session_daily_usage). Default 31, or the profile's. */
  level?: number;
  createdAt?: number;
  sessions?: number;
  /** Target message count across the store (about; default 20 per session). */
  messages?: number;
  seed?: string;
  journal?: JournalMode;
  profile?: string;
  fts?: boolean;
  walTail?: boolean;
}

export interface GenerateResult {
  path: string; level: number; createdAt: number; journal: JournalMode; sessions: number; messages: number;
  /** Sessions written after the last checkpoint (present only in the -wal file). */
  walOnlySessions: number;
}

/** 2026-07-14 10:15:03 UTC: the first session id reads 20260714_101503_... */
export const GENERATION_EPOCH = 1784024103;

/**
 * Writes a store. Same options → byte-identical SQL dump.
 * @example generate({ out: '/tmp/h/state.db', profile: 'mid', sessions: 50, seed: 'a' })
 */
export function generate(options: GenerateOptions): GenerateResult {
  const profile = options.profile === undefined ? undefined : PROFILES[options.profile];
  if (options.profile !== undefined && !profile) {
    throw new HermeticError('HERMETIC_STATEDB_PROFILE', `Unknown profile "${options.profile}"; known profiles: ${Object.keys(PROFILES).join(', ')}.`);
  }
  const level = options.level ?? profile?.level ?? 31;
  const createdAt = options.createdAt ?? profile?.createdAt ?? level;
  const journal = options.journal ?? profile?.journal ?? 'wal';
  const walTail = options.walTail ?? profile?.walTail ?? false;
  const sessions = options.sessions ?? 40;
  const messages = options.messages ?? sessions * 20;
  const seed = options.seed ?? 'hermetic';
  if (walTail && journal !== 'wal') throw new HermeticError('HERMETIC_CLI_USAGE', 'A -wal tail needs the WAL journal mode.');
  const r = new Rng(seed);
  const building = walTail ? `${options.out}.building` : options.out;
  const db = createStore({ path: building, level, createdAt, journal, fts: options.fts ?? true, generation: r.hex(32) });
  db.pragma('synchronous = OFF');
  const time = { t: GENERATION_EPOCH };
  const w = new StateDbWriter(db, { now: () => time.t, ids: r.idSource() });
  const ctx: GenContext = { w, r, time, level, seq: { title: 0 } };
  const tailFrom = walTail ? Math.max(1, Math.floor(sessions * 0.9)) : sessions;
  let written = 0;
  const maxRowid = db.prepare('SELECT MAX(rowid) AS n FROM sessions');
  const newMessages = db.prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE rowid > ?)');
  for (let i = 0; i < sessions; i++) {
    if (i === tailFrom) {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.pragma('wal_autocheckpoint = 0');
    }
    // The first sessions walk every scenario so even a small store has each shape; the rest are mostly plain.
    const scenario: Scenario = i < SCENARIOS.length ? SCENARIOS[(i + 1) % SCENARIOS.length]! : r.chance(0.7) ? 'plain' : r.pick(SCENARIOS);
    const left = messages - written;
    const budget = Math.max(2, Math.round(left / (sessions - i)) + r.int(-3, 3));
    // Count only this scenario's sessions (rowids grow), so the loop stays linear in the store size.
    const before = (maxRowid.get() as { n: number | null }).n ?? 0;
    w.tx(() => runScenario(ctx, scenario, budget));
    written += (newMessages.get(before) as { n: number }).n;
    time.t += r.int(60, 5400) + r.int(0, 999999) / 1e6;
  }
  if (profile?.activeNull && w.has('messages', 'active')) {
    const nullable = (db.prepare("SELECT \"notnull\" AS nn FROM pragma_table_info('messages') WHERE name = 'active'").get() as { nn: number }).nn === 0;
    if (nullable) db.exec('UPDATE messages SET active = NULL WHERE id IN (SELECT id FROM messages WHERE active = 1 ORDER BY id LIMIT 3)');
  }
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const result: GenerateResult = {
    path: options.out, level, createdAt, journal, sessions: count('SELECT COUNT(*) AS n FROM sessions'),
    messages: count('SELECT COUNT(*) AS n FROM messages'), walOnlySessions: walTail ? sessions - tailFrom : 0,
  };
  if (walTail) {
    // Copy the main file and its -wal while the writer is still open, so the copy keeps rows only in the -wal.
    for (const suffix of ['', '-wal', '-shm']) rmSync(options.out + suffix, { force: true });
    copyFileSync(building, options.out);
    copyFileSync(`${building}-wal`, `${options.out}-wal`);
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(building + suffix, { force: true });
  } else {
    db.close();
  }
  if (profile?.postgres) {
    writeFileSync(join(dirname(options.out), 'config.yaml'), 'database:\n  backend: postgres\n# connection comes from HERMES_DATABASE_URL\n');
  }
  return result;
}

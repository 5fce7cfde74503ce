// Deterministic synthetic state.db stores of any schema level and shape (`hermetic statedb generate`). The store is
// built under a hidden temporary name beside `out` and renamed into place only when complete. The work is a generator
// that pauses between batches: `generate` runs it straight through, `generateAsync` lets the event loop in at each
// pause, so a Ctrl-C can stop it there and leave nothing behind.
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { createStore, type JournalMode } from '../schema/create.js';
import { addUsageEvents } from '../schema/usage-events.js';
import { StateDbWriter } from '../writer/index.js';
import { PROFILES, type ProfileSettings } from './profiles.js';
import { Rng } from './random.js';
import { runScenario } from './scenarios.js';
import { SCENARIOS, SESSION_ROWS, WALK, type GenContext, type Scenario } from './session.js';

export { PROFILES, profileNames } from './profiles.js';

export interface GenerateOptions {
  /** The store's path. Its folder is created when missing (the CLI refuses a missing folder instead). */
  out: string;
  /**
   * Replace what is there: an existing store at `out` with its -wal/-shm/-journal, and the config.yaml beside it
   * for the postgres-stale profile. Default false: HERMETIC_STATEDB_EXISTS, nothing touched.
   */
  replace?: boolean;
  /** Schema level 1..31 (31 = v30 with session_daily_usage). Default 31, or the profile's. */
  level?: number;
  createdAt?: number;
  /** Session rows in the store (exactly: lineage children count, deleted sessions do not). Default 40. */
  sessions?: number;
  /** Target message count across the store (about; default 20 per session). */
  messages?: number;
  seed?: string;
  journal?: JournalMode;
  profile?: string;
  fts?: boolean;
  walTail?: boolean;
  /**
   * Spread the sessions over `days` days ending at `end` (epoch seconds), each in its own slot, so the history ends
   * then and every stretch of it has sessions. Giving either sets the layout: `days` defaults to 30, `end` to
   * `now()`. Without both, sessions follow each other from 2026-07-14 10:15:03 UTC at a natural pace.
   */
  end?: number;
  days?: number;
  /** Epoch milliseconds for the default `end` (injected by tests; default Date.now). */
  now?: () => number;
  /**
   * Add newer Hermes's per-call table, `session_model_usage_events` (decision 0112): every main-loop and auxiliary
   * call then has a row with its time. Default false: the store is as the pinned Hermes makes it.
   */
  usageEvents?: boolean;
}

export interface GenerateResult {
  path: string; level: number; createdAt: number; journal: JournalMode; sessions: number; messages: number;
  /** Sessions written after the last checkpoint (present only in the -wal file). */
  walOnlySessions: number;
}

/** 2026-07-14 10:15:03 UTC: the first session id reads 20260714_101503_... */
export const GENERATION_EPOCH = 1784024103;

/** The named profile's settings, or HERMETIC_STATEDB_PROFILE naming the known ones. */
export function profileSettings(name: string): ProfileSettings {
  const profile = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined;
  if (!profile) throw new HermeticError('HERMETIC_STATEDB_PROFILE', `Unknown profile "${name}"; known profiles: ${Object.keys(PROFILES).join(', ')}.`);
  return profile;
}

/** What generating at `out` would replace, in refusal order: the store, its companions, a profile's config.yaml. */
function existingFiles(out: string, postgres: boolean): string[] {
  const paths = [out, `${out}-wal`, `${out}-shm`, `${out}-journal`];
  if (postgres) paths.push(join(dirname(out), 'config.yaml'));
  return paths.filter((p) => existsSync(p));
}

let building = 0;

/** How long the generator works between pauses (ms): short enough for a prompt Ctrl-C, long enough to cost nothing. */
const SLICE_MS = 50;

/** Work in slices: each `yield` is a point where the store may be abandoned (nothing is in place before the last). */
type Steps<T> = Generator<void, T, void>;

/**
 * Writes a store. Same options → byte-identical SQL dump. Refuses to replace existing files unless `replace`; a
 * failure leaves no file behind (and a replaced store intact).
 * @example generate({ out: '/tmp/h/state.db', profile: 'mid', sessions: 50, seed: 'a' })
 */
export function generate(options: GenerateOptions): GenerateResult {
  const steps = generating(options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `generate`, letting the event loop run between batches (about every 50 ms). When `signal` aborts, the temporary
 * files are removed, nothing is placed at `out`, and the promise rejects with `signal.reason`.
 * @example const stop = new AbortController(); process.once('SIGINT', () => stop.abort()); await generateAsync({ out }, { signal: stop.signal });
 */
export async function generateAsync(options: GenerateOptions, { signal }: { signal?: AbortSignal } = {}): Promise<GenerateResult> {
  signal?.throwIfAborted();
  const steps = generating(options, signal);
  let step = steps.next();
  while (!step.done) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    step = signal?.aborted ? steps.throw(signal.reason) : steps.next();
  }
  return step.value;
}

/**
 * Temporary files beside `out` that a generate which no longer runs left behind (SIGKILL, a crash, a power cut): their
 * names carry its pid. Files of a live process, this one included, are left alone (a pid seen from another PID
 * namespace sharing the folder would look gone: such setups should give each generate its own --out).
 */
export function removeStaleTemporaries(out: string): string[] {
  const folder = dirname(out);
  const prefix = `.${basename(out)}.`;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return []; // no folder yet: nothing left behind
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-\d+\.tmp(?:\.src|\.config\.yaml)?(?:-wal|-shm|-journal)?$/.exec(name.slice(prefix.length));
    if (!m || alive(Number(m[1]))) continue;
    const path = join(folder, name);
    try {
      rmSync(path, { force: true });
      removed.push(path);
    } catch {
      // Not ours to fight over: a file that cannot be removed stays, and the new store uses another name anyway.
    }
  }
  return removed;
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true; // not a pid we understand: keep the file
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function* generating(options: GenerateOptions, signal?: AbortSignal): Steps<GenerateResult> {
  const profile = options.profile === undefined ? undefined : profileSettings(options.profile);
  const out = options.out;
  const writeError = (why: string) => new HermeticError('HERMETIC_STATEDB_WRITE', `Cannot write a state.db at ${out}: ${why}.`);
  if (existsSync(out) && statSync(out).isDirectory()) throw writeError('it is a folder, not a file');
  const postgres = profile?.postgres ?? false;
  const present = options.replace ? [] : existingFiles(out, postgres);
  if (present.length > 0) {
    const what = present[0] === out ? `${out} already exists` : `${present[0]} exists beside it`;
    throw new HermeticError('HERMETIC_STATEDB_EXISTS', `${what}; pass --force to replace it, or choose another --out.`);
  }
  removeStaleTemporaries(out);
  // Hidden, beside `out`: the final rename stays on one file system, so it is atomic.
  const tmp = join(dirname(out), `.${basename(out)}.${process.pid}-${++building}.tmp`);
  const scratch = [tmp, `${tmp}.src`, `${tmp}.config.yaml`].flatMap((p) => [p, `${p}-wal`, `${p}-shm`, `${p}-journal`]);
  try {
    const result = yield* build(options, profile, tmp);
    yield; // the last point to stop at: after it the store takes its place
    place(tmp, out, options.walTail ?? profile?.walTail ?? false, postgres, options.replace ?? false);
    return { ...result, path: out };
  } catch (e) {
    for (const p of scratch) rmSync(p, { force: true });
    if (isHermeticError(e) || (signal?.aborted && e === signal.reason)) throw e;
    const err = e as NodeJS.ErrnoException;
    throw writeError(err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied' : err.code === 'ENOSPC' ? 'the disk is full' : err.message);
  }
}

/** Moves the finished store (and its -wal, config.yaml) from `tmp` names to their places. */
function place(tmp: string, out: string, walTail: boolean, postgres: boolean, replace: boolean): void {
  const config = join(dirname(out), 'config.yaml');
  if (!replace) {
    const appeared = existingFiles(out, postgres);
    if (appeared.length > 0) throw new HermeticError('HERMETIC_STATEDB_EXISTS', `${appeared[0]} appeared while the store was being written; nothing was replaced.`);
  }
  // An old store's -wal must never meet the new file (SQLite would replay it into the new store).
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(out + suffix, { force: true });
  renameSync(tmp, out);
  if (walTail) renameSync(`${tmp}-wal`, `${out}-wal`);
  if (postgres) renameSync(`${tmp}.config.yaml`, config);
}

/** Generates the store at `path` (a temporary name); returns the result as if written at options.out. */
function* build(options: GenerateOptions, profile: ProfileSettings | undefined, path: string): Steps<GenerateResult> {
  const level = options.level ?? profile?.level ?? 31;
  const createdAt = options.createdAt ?? profile?.createdAt ?? level;
  const journal = options.journal ?? profile?.journal ?? 'wal';
  const walTail = options.walTail ?? profile?.walTail ?? false;
  const sessions = options.sessions ?? 40;
  const messages = options.messages ?? sessions * 20;
  const seed = options.seed ?? 'hermetic';
  if (walTail && journal !== 'wal') throw new HermeticError('HERMETIC_CLI_USAGE', 'A -wal tail needs the WAL journal mode.');
  const r = new Rng(seed);
  const building = walTail ? `${path}.src` : path;
  // The file's generation token, uuid4-shaped as Hermes mints it (the same four draws r.hex(32) made before it).
  const db = createStore({ path: building, level, createdAt, journal, fts: options.fts ?? true, ids: r.idSource() });
  if (options.usageEvents) addUsageEvents(db);
  let result: GenerateResult;
  try {
    db.pragma('synchronous = OFF');
    // Spread over --days ending at --end, or back to back from GENERATION_EPOCH.
    const planned = options.end !== undefined || options.days !== undefined;
    const span = (options.days ?? 30) * 86400;
    const end = options.end ?? (options.now ?? Date.now)() / 1000;
    const slot = span / sessions;
    const time = { t: planned ? end - span : GENERATION_EPOCH };
    const w = new StateDbWriter(db, { now: () => time.t, ids: r.idSource() });
    const ctx: GenContext = { w, r, time, level, seq: { title: 0 }, scale: 1, side: new Rng(`${seed}\0delegations`) };
    const tailFrom = walTail ? Math.max(1, Math.floor(sessions * 0.9)) : sessions;
    let written = 0;
    let rows = 0;
    let tailRows = sessions;
    const maxRowid = db.prepare('SELECT MAX(rowid) AS n FROM sessions');
    const newRows = db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE rowid > ?');
    const newMessages = db.prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE rowid > ?)');
    let pause = performance.now() + SLICE_MS;
    for (let i = 0; rows < sessions; i++) {
      // Between scenarios (each its own transaction): a pause every SLICE_MS, so one clock read per session at most.
      if (performance.now() >= pause) {
        yield;
        pause = performance.now() + SLICE_MS;
      }
      if (walTail && tailRows === sessions && rows >= tailFrom) {
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.pragma('wal_autocheckpoint = 0');
        tailRows = rows;
      }
      // The first sessions walk every scenario so even a small store has each shape; the rest are mostly plain. A
      // scenario that would leave more sessions than are left to make is played plain.
      let scenario: Scenario = i < WALK.length ? WALK[i]! : r.chance(0.7) ? 'plain' : r.pick(SCENARIOS);
      if (rows + SESSION_ROWS[scenario] > sessions) scenario = 'plain';
      const cost = Math.max(1, SESSION_ROWS[scenario]);
      const left = messages - written;
      const budget = Math.max(2, Math.round((left / (sessions - rows)) * cost) + r.int(-3, 3));
      if (planned) {
        // Each session gets its slot of the span; its pauses shrink so that it ends inside it (and never after `end`).
        time.t = Math.max(time.t, end - span + rows * slot + r.next() * 0.25 * slot * cost);
        const until = end - span + Math.min(sessions, rows + cost) * slot;
        const longest = (budget + 30) * 66 + 3600; // every pause at its longest: 6 s a message, 120 s a turn, a reopen
        ctx.scale = Math.min(1, (0.9 * Math.max(until - time.t, 1e-3)) / longest);
      }
      // Count only this scenario's sessions (rowids grow), so the loop stays linear in the store size.
      const before = (maxRowid.get() as { n: number | null }).n ?? 0;
      w.tx(() => runScenario(ctx, scenario, budget));
      written += (newMessages.get(before) as { n: number }).n;
      rows += (newRows.get(before) as { n: number }).n; // a scenario deletes only sessions it made
      if (!planned) time.t += r.int(60, 5400) + r.int(0, 999999) / 1e6;
    }
    if (profile?.activeNull && w.has('messages', 'active')) {
      const nullable = (db.prepare("SELECT \"notnull\" AS nn FROM pragma_table_info('messages') WHERE name = 'active'").get() as { nn: number }).nn === 0;
      if (nullable) db.exec('UPDATE messages SET active = NULL WHERE id IN (SELECT id FROM messages WHERE active = 1 ORDER BY id LIMIT 3)');
    }
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    result = {
      path, level, createdAt, journal, sessions: count('SELECT COUNT(*) AS n FROM sessions'),
      messages: count('SELECT COUNT(*) AS n FROM messages'), walOnlySessions: walTail ? sessions - tailRows : 0,
    };
    if (walTail) {
      // Copy the main file and its -wal while the writer is still open, so the copy keeps rows only in the -wal.
      try {
        copyFileSync(building, path);
        copyFileSync(`${building}-wal`, `${path}-wal`);
      } finally {
        db.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(building + suffix, { force: true });
      }
    } else {
      db.close();
    }
  } catch (e) {
    if (db.open) db.close();
    throw e;
  }
  if (profile?.postgres) {
    writeFileSync(`${path}.config.yaml`, 'database:\n  backend: postgres\n# connection comes from HERMES_DATABASE_URL\n');
  }
  return result;
}

// What the forwarder's end-to-end tests share: the real bin spawned as a process (optionally with the probe that
// tells where a SIGKILL landed), a Hermes-like writer process, and the dataset read back row by row to compare two
// homes and to count messages against the store's live rows.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readSnapshot } from '../../src/shared/sqlite.js';
import { DATASET_TABLES } from '../../src/forwarder/dataset/columns.js';
import { keptDifferences } from '../../src/forwarder/testing/index.js';
import { BIN_ARGS } from './process.js';
import type { WriterReport } from './forwarder-writer.js';

export type { WriterReport };

const PROBE = pathToFileURL(fileURLToPath(new URL('./forwarder-probe.mjs', import.meta.url))).href;
const WRITER = fileURLToPath(new URL('./forwarder-writer.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** A stack trace line, which no command may ever print. */
export const STACK_LINE = /^\s+at .+[:(]/m;

/**
 * An environment for child processes under `dir`: HOME there (no real ~/.hermes is found), no HERMES_HOME or
 * HERMETIC_HOME, and TMPDIR there too, so private store copies a SIGKILL leaves behind are removed with `dir` (tsx's
 * compile cache is linked in, so the Hermes-like writer, which runs through tsx, starts as fast as usual).
 */
export function childEnv(dir: string): NodeJS.ProcessEnv {
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const cache = `tsx-${process.geteuid ? process.geteuid() : 'user'}`;
  // This process may not run through tsx (the runner bundles the tests): the cache the children share is made here.
  mkdirSync(join(tmpdir(), cache), { recursive: true });
  try {
    symlinkSync(join(tmpdir(), cache), join(tmp, cache), 'dir');
  } catch { /* already linked */ }
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, TMPDIR: tmp };
  delete env.HERMES_HOME;
  delete env.HERMETIC_HOME;
  delete env.HERMETIC_PROBE_FD;
  return env;
}

/** Every process started here; any still running when the test process exits is killed with it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.on('close', () => running.delete(child));
  return child;
}

export interface ProbeEvent { at: number; kind: 'ready' | 'open' | 'begin' | 'commit'; writes: number; final: boolean }

export interface Hermetic {
  child: ChildProcess;
  /** performance.now() when it was spawned. */
  spawnedAt: number;
  stdout(): string;
  stderr(): string;
  /** Probe events so far (only with `probe: true`). */
  events: ProbeEvent[];
  /** The last probe event, or null before the first. */
  last(): ProbeEvent | null;
  /** Resolves with the first event (from now on or already seen) that `match` accepts; null when the process ends first. */
  next(match: (e: ProbeEvent) => boolean, includeSeen?: boolean): Promise<ProbeEvent | null>;
  /** Resolves with the first stderr line that matches; null when the process ends first. */
  line(re: RegExp): Promise<string | null>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** With `gate`: resolves once the modules are loaded (false if it ended first); go() then lets the bin run. */
  loaded(): Promise<boolean>;
  go(): void;
}

/**
 * Starts `hermetic ...args` as its own process (test/support/process.ts). `probe` loads test/support/forwarder-probe.mjs into it;
 * `gate` (with probe) loads the modules ahead and holds the command until go().
 */
export function spawnHermetic(args: string[], options: { env: NodeJS.ProcessEnv; probe?: boolean; gate?: boolean }): Hermetic {
  const spawnedAt = performance.now();
  const argv = options.probe ? [...BIN_ARGS.slice(0, -1), '--import', PROBE, BIN_ARGS.at(-1)!] : BIN_ARGS;
  const child = track(spawn(process.execPath, [...argv, ...args], {
    cwd: REPO,
    env: options.probe ? { ...options.env, HERMETIC_PROBE_FD: '3', HERMETIC_PROBE_GATE: options.gate ? '1' : '0' } : options.env,
    stdio: options.probe ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
  }));
  let out = '';
  let err = '';
  const events: ProbeEvent[] = [];
  const waiters = new Set<() => void>();
  const poke = () => { for (const w of [...waiters]) w(); };
  child.stdout!.setEncoding('utf8').on('data', (s: string) => { out += s; });
  child.stderr!.setEncoding('utf8').on('data', (s: string) => { err += s; poke(); });
  if (options.probe) {
    let partial = '';
    const probe = child.stdio[3] as NodeJS.ReadableStream;
    probe.setEncoding('utf8');
    probe.on('data', (s: string) => {
      const lines = (partial + s).split('\n');
      partial = lines.pop()!;
      for (const l of lines) {
        const [kind, writes, final] = l.split(' ');
        events.push({ at: performance.now(), kind: kind as ProbeEvent['kind'], writes: Number(writes ?? 0) || 0, final: final === '1' });
      }
      poke();
    });
  }
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => { ended = true; poke(); resolve({ code, signal }); });
  });
  const wait = <T>(check: () => T | null): Promise<T | null> => new Promise((resolve) => {
    const w = () => {
      const hit = check();
      if (hit !== null || ended) {
        waiters.delete(w);
        resolve(hit);
      }
    };
    waiters.add(w);
    w();
  });
  const h: Hermetic = {
    child, spawnedAt, events, exited,
    stdout: () => out,
    stderr: () => err,
    last: () => events.at(-1) ?? null,
    next: (match, includeSeen = false) => {
      const from = includeSeen ? 0 : events.length;
      return wait(() => events.slice(from).find(match) ?? null);
    },
    line: (re) => wait(() => err.split('\n').find((l) => re.test(l)) ?? null),
    loaded: async () => (await wait(() => events.find((e) => e.kind === 'ready') ?? null)) !== null,
    go: () => {
      // From here the command runs: its start-up is measured from now.
      h.spawnedAt = performance.now();
      child.kill('SIGUSR2');
    },
  };
  return h;
}

export interface WriterProcess {
  ready: Promise<{ baseMaxMessageId: number }>;
  /** SIGTERM, then its report once it has closed the store. */
  stop(): Promise<WriterReport>;
}

/**
 * Starts the Hermes-like writer (test/support/forwarder-writer.ts) on a WAL store: the run's bundle of it
 * (HERMETIC_TEST_WRITER, scripts/run-tests.mjs; about 0.8 s of CPU less to start, decision 0095), else through tsx.
 */
export function startWriter(store: string, options: { rate: number; seed: string; env: NodeJS.ProcessEnv; focus?: string }): WriterProcess {
  const bundled = process.env.HERMETIC_TEST_WRITER;
  const child = spawn(process.execPath, [...(bundled ? [bundled] : ['--import', 'tsx', WRITER]), store, '--rate', String(options.rate), '--seed', options.seed, ...(options.focus ? ['--focus', options.focus] : [])], {
    cwd: REPO, env: options.env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const ready = new Promise<{ baseMaxMessageId: number }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const first = out.split('\n')[0]!;
      if (out.includes('\n') && first.includes('"ready"')) resolve(JSON.parse(first) as { baseMaxMessageId: number });
    });
    void exited.then((code) => reject(new Error(`the writer exited (${code}) before it was ready: ${err}`)));
  });
  ready.catch(() => {});
  return {
    ready,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the writer exited with ${code}: ${err}`);
      const lines = out.trim().split('\n');
      return JSON.parse(lines.at(-1)!) as WriterReport;
    },
  };
}

/** The forwarded tables compared between two homes by default: the ones every pass rewrites whole per session. */
export const COMPARED_TABLES = ['sessions', 'messages', 'parts', 'model_usage', 'row_issues'] as const;

/** A table's columns without `origin` (the one column allowed to differ between homes), and its primary key. */
function tableShape(name: string): { columns: string[]; order: string[] } {
  const t = DATASET_TABLES.find((x) => x.name === name);
  if (!t) throw new Error(`the dataset has no table ${name}`);
  return { columns: t.columns.map((c) => c.name).filter((c) => c !== 'origin'), order: t.primaryKey };
}

export type DatasetRows = Record<string, unknown[][]>;

/** Every row of the given tables of the dataset under `home`, ordered by primary key, without `origin`. */
export function datasetRows(home: string, tables: readonly string[] = COMPARED_TABLES): DatasetRows {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(tables.map((name) => {
      const t = tableShape(name);
      return [name, db.prepare(`SELECT ${t.columns.map((c) => `"${c}"`).join(', ')} FROM "${name}" ORDER BY ${t.order.map((c) => `"${c}"`).join(', ')}`).raw().all() as unknown[][]];
    }));
  } finally {
    db.close();
  }
}

/**
 * The delegations of the dataset under `home` that Hermes still has (`removed` 0) or has deleted (1), without `origin`,
 * by key: a clean backfill holds the first, never the second.
 */
export function delegationRows(home: string, removed: 0 | 1): unknown[][] {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    const t = tableShape('delegations');
    return db.prepare(`SELECT ${t.columns.map((c) => `"${c}"`).join(', ')} FROM delegations WHERE removed_from_store = ? ORDER BY ${t.order.map((c) => `"${c}"`).join(', ')}`).raw().all(removed) as unknown[][];
  } finally {
    db.close();
  }
}

/** Rows in one table of the dataset under `home` (0 when there is no dataset yet). */
export function datasetCount(home: string, table: string): number {
  if (!existsSync(join(home, 'hermetic.db'))) return 0;
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number;
  } finally {
    db.close();
  }
}

/** How two datasets differ, in a few lines (empty when they hold the same rows). */
export function datasetDifferences(actual: DatasetRows, expected: DatasetRows): string[] {
  const out: string[] = [];
  for (const name of Object.keys(expected)) {
    const a = actual[name] ?? [];
    const e = expected[name]!;
    if (a.length !== e.length) out.push(`${name}: ${a.length} rows, expected ${e.length}`);
    const n = Math.max(a.length, e.length);
    let shown = 0;
    for (let i = 0; i < n && shown < 3; i++) {
      if (JSON.stringify(a[i]) !== JSON.stringify(e[i])) {
        out.push(`${name} row ${i}: ${JSON.stringify(a[i])?.slice(0, 400)} expected ${JSON.stringify(e[i])?.slice(0, 400)}`);
        shown++;
      }
    }
  }
  return out;
}

/** Per session, the store's live message rows (active, or from before the `active` column) — what `messages` must hold. */
export function storeLiveCounts(store: string): Map<string, number> {
  return readSnapshot(store, (db) => new Map(
    (db.prepare('SELECT session_id, COUNT(*) FROM messages WHERE active IS NULL OR active = 1 GROUP BY session_id').raw().all() as [string, number][]),
  ), { open: 'HERMETIC_READER_OPEN', notSqlite: 'HERMETIC_READER_OPEN' });
}

/**
 * Per session, the rows of the history Hermes shows (decision 0048): the live rows, and the rows compaction summarized
 * away that no live row repeats (Hermes's display identity).
 */
export function storeHistoryCounts(store: string): Map<string, number> {
  return readSnapshot(store, (db) => new Map(
    (db.prepare(`SELECT session_id, COUNT(*) FROM messages m WHERE m.active IS NULL OR m.active = 1 OR (m.compacted = 1 AND NOT EXISTS (
      SELECT 1 FROM messages l WHERE l.session_id = m.session_id AND (l.active IS NULL OR l.active = 1) AND l.role IS m.role AND l.content IS m.content
        AND l.timestamp IS m.timestamp AND l.tool_call_id IS m.tool_call_id AND l.tool_calls IS m.tool_calls AND l.tool_name IS m.tool_name))
      GROUP BY session_id`).raw().all() as [string, number][]),
  ), { open: 'HERMETIC_READER_OPEN', notSqlite: 'HERMETIC_READER_OPEN' });
}

/** One number from the store (read through a snapshot, never opened for writing). */
export function storeValue(store: string, sql: string): unknown {
  return readSnapshot(store, (db) => db.prepare(sql).pluck().get(), { open: 'HERMETIC_READER_OPEN', notSqlite: 'HERMETIC_READER_OPEN' });
}

/** Per session, the dataset's live rows and all its rows in `messages`, and how many (store, message_id) pairs appear more than once. */
export function datasetMessageCounts(home: string): { perSession: Map<string, number>; history: Map<string, number>; duplicates: number; liveColumn: Map<string, number> } {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    return {
      // The live transcript (compacted 0), and the whole history with what compaction summarized away.
      perSession: new Map(db.prepare('SELECT session_id, COUNT(*) FROM messages WHERE compacted IS NOT 1 GROUP BY session_id').raw().all() as [string, number][]),
      history: new Map(db.prepare('SELECT session_id, COUNT(*) FROM messages GROUP BY session_id').raw().all() as [string, number][]),
      duplicates: db.prepare('SELECT COUNT(*) FROM (SELECT store, message_id FROM messages GROUP BY store, message_id HAVING COUNT(*) > 1)').pluck().get() as number,
      liveColumn: new Map(db.prepare('SELECT session_id, live_messages FROM sessions WHERE live_messages > 0').raw().all() as [string, number][]),
    };
  } finally {
    db.close();
  }
}

/** Sessions whose counts differ between two maps (missing counts as 0), as "id: a vs b" lines. */
export function countDifferences(actual: Map<string, number>, expected: Map<string, number>): string[] {
  const ids = new Set([...actual.keys(), ...expected.keys()]);
  return [...ids].sort().filter((id) => (actual.get(id) ?? 0) !== (expected.get(id) ?? 0))
    .map((id) => `${id}: ${actual.get(id) ?? 0} vs ${expected.get(id) ?? 0}`);
}

/** A small seeded PRNG (mulberry32) for kill points. */
export { seeded } from './random.js';

const LEDGER = ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;

/**
 * Sessions whose usage ledger (`usage_events`, one row per observed change) does not add up to the session's own
 * counters — a change counted twice or lost. Sessions with a clamped event (a counter that went down) are skipped.
 */
/** Where the counts and calls the writer keeps (decision 0069) differ from the dataset's rows (none when exact). */
export function keptDifferencesIn(home: string): string[] {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    return keptDifferences({ query: <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[] });
  } finally {
    db.close();
  }
}

export function ledgerDifferences(home: string): string[] {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true, fileMustExist: true });
  try {
    const sums = LEDGER.map((c) => `COALESCE((SELECT SUM(e."${c}") FROM usage_events e WHERE e.store = s.store AND e.session_id = s.session_id), 0) AS "${c}"`);
    const rows = db.prepare(`SELECT s.session_id AS id, ${LEDGER.map((c) => `s."${c}" AS "s_${c}"`).join(', ')}, ${sums.join(', ')}
      FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM usage_events e WHERE e.store = s.store AND e.session_id = s.session_id AND e.clamped = 1)
      ORDER BY s.store, s.session_id`).all() as Record<string, number | string>[];
    return rows.flatMap((r) => {
      const off = LEDGER.filter((c) => r[c] !== r[`s_${c}`]);
      return off.length ? [`${r.id}: ${off.map((c) => `${c} ledger ${r[c]} vs session ${r[`s_${c}`]}`).join(', ')}`] : [];
    });
  } finally {
    db.close();
  }
}

// Benchmark: the forwarder (src/forwarder) reading a Hermes state.db into the embedded dataset, each figure against
// a baseline measured in the same run (the machine is shared and noisy; nothing here passes or fails, it prints).
//   F1  backfill of a ~100,000-message store (~2,000 sessions) in message rows/s, against a raw better-sqlite3 scan of
//       the same store's `messages` table (SELECT *, every row, every column touched); rounds interleaved, order
//       alternating, a fresh dataset home per backfill. Goal >= 0.5x. The forwarder's read worker (decision 0027)
//       is started by the warm-up pass and kept by the process; the sessions it read and each thread's CPU are shown.
//       Each read mode (BENCH_FWD_MODES, default auto,off: HERMETIC_READ_WORKER) is timed in every round.
//   F1p the same backfill as a whole process, as a user runs it (`node bin/hermetic.js backfill --json` on the build in
//       dist/, start-up and the final checkpoint included), per read mode, against a raw scan in a process of its
//       own (node, better-sqlite3, SELECT * FROM messages); best of BENCH_FWD_PROCESS_ROUNDS (3). Goal >= 0.5x. It
//       says what `auto` picked (the sessions the worker read).
//   F2  forwardOnce() with exactly one changed session (one message appended with Hermes's writer between ticks, on a
//       copy of the store) against an empty tick that queries the store: Hermes committed something that touches no
//       session (its gateway heartbeat row), so the commit stamp moved and the tick opens the store, scans the
//       sessions' marks and finds nothing to read. Goal <= 2x. The empty tick with nothing committed (the stamp is
//       unchanged: it opens nothing) is timed too. Goal <= 5 ms. The three kinds of tick are interleaved, order
//       rotating.
//       Then a long session: BENCH_FWD_LONG (30,000) messages in one session of the same store, 10 messages appended
//       between ticks, against the same empty tick that queries (issue 16 §3: a tick costs what changed). Goal <= 2x.
//   F3  peak RSS of a backfill in a child process per store size (bench/forwarder-child.ts): ~25k, 50k, 100k
//       messages. Goal <= 256 MB and flat as the store grows.
//   F3L the same for a store of one session of ~12.5k, 25k, 50k messages (BENCH_FWD_LONG_RSS_SIZES): a session longer
//       than a chunk is read and written 10,000 rows at a time (decision 0055). Goal <= 256 MB and flat as it grows.
// A Hermes writer connection stays open on every store while it is read (as when Hermes runs), so the store has its
// -wal and -shm and the forwarder reads it in place; F2 also shows the empty tick once that connection is closed
// (the forwarder then takes its copy path: a private copy of the store, see src/shared/sqlite.ts readSnapshot, or no
// read at all while the file looks unchanged, see src/forwarder/pipeline/step.ts).
// The forwarder is imported from src/ through tsx. Stores are generated once per run into a temporary folder.
//   npx tsx bench/forwarder.ts            (npm run bench runs it too; BENCH_ONLY=forwarder for it alone)
//   BENCH_FWD_MESSAGES=100000 BENCH_FWD_SESSIONS=2000 BENCH_FWD_ROUNDS=5 BENCH_FWD_TICKS=25
//       (BENCH_FWD_SESSIONS=5000: the generator's own default of 20 messages a session, where per-session costs show;
//       decision 0176)
//   BENCH_FWD_RSS_SIZES=25000,50000,100000 BENCH_FWD_LONG_RSS_SIZES=12500,25000,50000
//   BENCH_FWD_ONLY=f1,f1p,f2,f3,f3l BENCH_FWD_KEEP=1 (keep the temporary folder)
//   BENCH_FWD_MODES=auto,off BENCH_FWD_PROCESS_ROUNDS=3 BENCH_FWD_LONG=30000 BENCH_FWD_LONG_TICKS=10
//   BENCH_FWD_TEXT=kb: the F1/F2 store's texts made the size of a real transcript's (the generator writes a few dozen
//       characters a message; decision 0169): each message's text grows by a log-normal number of characters (median
//       ~150 for a user, ~600 for an assistant, ~1,500 for a tool result, at most 60,000), a tool result's JSON
//       carrying it as its `output`. About 1.5 KB a message on average; the per-byte costs then dominate.
// Every figure is printed with the machine's load (`uptime`) when it was taken.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createForwarder, type StepResult } from '../src/forwarder/index.js';
import type { ReadWorkerMode } from '../src/forwarder/pipeline/read-mode.js';
import { createIdSource } from '../src/shared/ids.js';
import { generate } from '../src/state-db/generate/index.js';
import { StateDbWriter } from '../src/state-db/writer/index.js';

const MESSAGES = Number(process.env.BENCH_FWD_MESSAGES ?? 100_000);
const SESSIONS = Number(process.env.BENCH_FWD_SESSIONS ?? Math.max(1, Math.round(MESSAGES / 50)));
const ROUNDS = Number(process.env.BENCH_FWD_ROUNDS ?? 5);
const TICKS = Number(process.env.BENCH_FWD_TICKS ?? 25);
const RSS_SIZES = (process.env.BENCH_FWD_RSS_SIZES ?? [MESSAGES / 4, MESSAGES / 2, MESSAGES].map(Math.round).join(','))
  .split(',').map((x) => Number(x.trim())).filter((x) => x > 0);
const LONG_RSS_SIZES = (process.env.BENCH_FWD_LONG_RSS_SIZES ?? [MESSAGES / 8, MESSAGES / 4, MESSAGES / 2].map(Math.round).join(','))
  .split(',').map((x) => Number(x.trim())).filter((x) => x > 0);
const MODES = (process.env.BENCH_FWD_MODES ?? 'auto,off').split(',').map((x) => x.trim()) as ReadWorkerMode[];
const PROCESS_ROUNDS = Number(process.env.BENCH_FWD_PROCESS_ROUNDS ?? 3);
const LONG = Number(process.env.BENCH_FWD_LONG ?? 30_000);
const LONG_TICKS = Number(process.env.BENCH_FWD_LONG_TICKS ?? 10);
const ONLY = new Set((process.env.BENCH_FWD_ONLY ?? 'f1,f1p,f2,f3,f3l').split(',').map((x) => x.trim().toLowerCase()));
const TEXT = process.env.BENCH_FWD_TEXT ?? 'generated';
if (TEXT !== 'generated' && TEXT !== 'kb') throw new Error(`BENCH_FWD_TEXT is generated or kb, not ${TEXT}`);
const GOALS = { backfill: 0.5, tick: 2, emptyMs: 5, rssMb: 256 };
const here = dirname(fileURLToPath(import.meta.url));

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const median = (xs: number[]) => quantile(xs, 0.5);
const spread = (xs: number[], d = 2) => `quartiles ${quantile(xs, 0.25).toFixed(d)}–${quantile(xs, 0.75).toFixed(d)}, range ${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');
/** The machine's load averages (1, 5, 15 min), as `uptime` prints them: printed beside every figure. */
const load = () => `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;

interface Store { path: string; sessions: number; messages: number; genMs: number }

/** A generated store (default profile, current schema), its WAL checkpointed away; texts of real size with BENCH_FWD_TEXT=kb. */
function makeStore(dir: string, name: string, messages: number, sessions: number, realText = false): Store {
  const t0 = performance.now();
  const r = generate({ out: join(dir, name, 'state.db'), sessions, messages, seed: 'bench-forwarder' });
  if (realText) growTexts(r.path);
  return { path: r.path, sessions: r.sessions, messages: r.messages, genMs: performance.now() - t0 };
}

/**
 * Each message's text grown to a real transcript's size (BENCH_FWD_TEXT=kb), deterministically: a log-normal length by
 * role (median 150 characters for a user, 600 for an assistant, 1,500 for a tool, 200 else; sigma 1.2; at most 60,000)
 * of words cut from one long text; a tool result's JSON carries it as `output`, structured content is left alone.
 */
function growTexts(path: string): void {
  let seed = 0x9e3779b9;
  const random = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const words = 'def class import return const function value path file error warning test build result output the a of to in is for on with src lib package json yaml config server client'.split(' ');
  const text = Array.from({ length: 60_000 }, () => words[Math.floor(random() * words.length)]).join(' ');
  const median: Record<string, number> = { user: 150, assistant: 600, tool: 1500 };
  const db = new Database(path);
  try {
    const rows = db.prepare('SELECT id, role, content FROM messages ORDER BY id').all() as { id: number; role: string; content: string | null }[];
    const set = db.prepare('UPDATE messages SET content = ? WHERE id = ?');
    db.transaction(() => {
      for (const r of rows) {
        if (r.content?.startsWith('\x00json:')) continue;
        const n = Math.min(60_000, Math.floor((median[r.role] ?? 200) * Math.exp(1.2 * normal())));
        const at = Math.floor(random() * (text.length - n - 1));
        const piece = text.slice(at, at + n);
        let grown = `${r.content ?? ''} ${piece}`;
        if (r.role === 'tool' && r.content?.startsWith('{')) {
          try {
            grown = JSON.stringify({ ...JSON.parse(r.content), output: piece });
          } catch {
            // Not JSON after all: the text grows as any other.
          }
        }
        set.run(grown, r.id);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** A connection held open on the store, like a running Hermes: the store keeps its -wal and -shm. */
function holdOpen(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.prepare('SELECT COUNT(*) FROM sessions').get();
  return db;
}

/** The result of a pass over the one store, or a thrown error when it failed. */
function only(results: StepResult[]): StepResult {
  if (results.length !== 1) throw new Error(`expected one store in the pass, got ${results.length}`);
  const r = results[0]!;
  if (r.error) throw new Error(`forwarder: ${r.error.code}: ${r.error.message}`);
  return r;
}

/** SELECT * FROM messages, every row, every column touched; returns [ms, rows]. */
function rawScan(path: string): [number, number] {
  const t0 = performance.now();
  const db = new Database(path, { readonly: true, fileMustExist: true });
  let rows = 0;
  let touched = 0;
  for (const row of db.prepare('SELECT * FROM messages').iterate() as Iterable<Record<string, unknown>>) {
    rows++;
    for (const key in row) {
      const v = row[key];
      touched += typeof v === 'string' ? v.length : v === null ? 0 : 1;
    }
  }
  db.close();
  const ms = performance.now() - t0;
  if (touched === 0) throw new Error('the raw scan read nothing');
  return [ms, rows];
}

/**
 * CPU milliseconds so far of this process's calling thread and of its other threads (the read worker, the dataset's
 * checkpoint thread, V8's helpers), from /proc/self/task (Linux); null elsewhere. On a shared machine a pass with a
 * worker is faster only when a second core is free: these say what each side cost whatever the wall clock did.
 */
function threadCpu(): { main: number; others: number } | null {
  try {
    const out = { main: 0, others: 0 };
    for (const task of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 1/100 s
      if (task === String(process.pid)) out.main += ms;
      else out.others += ms;
    }
    return out;
  } catch {
    return null;
  }
}

interface Backfilled { ms: number; result: StepResult; cpu: { main: number; others: number } | null }

/** One backfill into a fresh dataset home (removed afterwards), reading in `mode`. Only backfill() is timed. */
function backfillOnce(store: string, dir: string, mode: ReadWorkerMode): Backfilled {
  const home = mkdtempSync(join(dir, 'home-'));
  try {
    const f = createForwarder({ stateDbs: [store], home, userHome: home, readWorker: mode });
    try {
      const cpu0 = threadCpu();
      const t0 = performance.now();
      const results = f.backfill();
      const ms = performance.now() - t0;
      const cpu1 = threadCpu();
      return { ms, result: only(results), cpu: cpu0 && cpu1 ? { main: cpu1.main - cpu0.main, others: cpu1.others - cpu0.others } : null };
    } finally {
      f.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

interface F1Mode { storeMsgPerS: number[]; rawMsgPerS: number[]; ratios: number[]; cpuMain: number[]; cpuOthers: number[]; readByWorker: number[]; loads: string[] }
interface F1 { modes: Map<ReadWorkerMode, F1Mode>; result: StepResult | null; rows: number }

function f1(store: Store, dir: string): F1 {
  const hermes = holdOpen(store.path);
  const out: F1 = { modes: new Map(MODES.map((m) => [m, { storeMsgPerS: [], rawMsgPerS: [], ratios: [], cpuMain: [], cpuOthers: [], readByWorker: [], loads: [] }])), result: null, rows: 0 };
  try {
    // Warm-up, discarded: the first of each measures the JIT and a cold page cache (and starts the read worker,
    // which the process keeps for the passes after it).
    rawScan(store.path);
    for (const mode of MODES) {
      const { result: warm } = backfillOnce(store.path, dir, mode);
      if (warm.read !== 'in-place') console.log(`note: the forwarder read the store by ${warm.read}`);
      if (warm.sessionsWritten !== store.sessions) throw new Error(`backfill wrote ${warm.sessionsWritten} of ${store.sessions} sessions`);
      out.result = warm;
    }
    console.log(`${'round'.padEnd(7)}${'mode'.padEnd(6)}${'backfill ms'.padStart(12)}${'msg/s'.padStart(10)}${'raw ms'.padStart(9)}${'raw msg/s'.padStart(12)}${'ratio'.padStart(8)}${'worker read'.padStart(13)}${'CPU ms: calling, others'.padStart(25)}  load`);
    for (let round = 1; round <= ROUNDS; round++) {
      // Each mode beside its own raw scan, the order rotating from round to round.
      const modes = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
      for (const mode of modes) {
        let bf: Backfilled;
        let raw: [number, number];
        if (round % 2 === 1) {
          raw = rawScan(store.path);
          bf = backfillOnce(store.path, dir, mode);
        } else {
          bf = backfillOnce(store.path, dir, mode);
          raw = rawScan(store.path);
        }
        out.rows = raw[1];
        const m = out.modes.get(mode)!;
        // Both rates count the store's message rows, the work both sides do (the backfill writes fewer: see below).
        const bfRate = raw[1] / (bf.ms / 1000);
        const rawRate = raw[1] / (raw[0] / 1000);
        m.storeMsgPerS.push(bfRate);
        m.rawMsgPerS.push(rawRate);
        m.ratios.push(bfRate / rawRate);
        m.readByWorker.push(bf.result.readByWorker);
        if (bf.cpu) { m.cpuMain.push(bf.cpu.main); m.cpuOthers.push(bf.cpu.others); }
        const cpu = bf.cpu ? `${bf.cpu.main}, ${bf.cpu.others}` : '-';
        m.loads.push(load());
        console.log(`${String(round).padEnd(7)}${mode.padEnd(6)}${bf.ms.toFixed(0).padStart(12)}${int(bfRate).padStart(10)}${raw[0].toFixed(0).padStart(9)}${int(rawRate).padStart(12)}${(bfRate / rawRate).toFixed(3).padStart(8)}${`${bf.result.readByWorker}/${bf.result.sessionsWritten}`.padStart(13)}${cpu.padStart(25)}  ${load()}`);
      }
    }
  } finally {
    hermes.close();
  }
  return out;
}

/** The script a raw-scan process runs: open the store read-only, SELECT * FROM messages touching every value. */
const RAW_SCAN_SCRIPT = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1], { readonly: true, fileMustExist: true });
let rows = 0, touched = 0;
for (const row of db.prepare('SELECT * FROM messages').iterate()) {
  rows++;
  for (const k in row) { const v = row[k]; touched += typeof v === 'string' ? v.length : v === null ? 0 : 1; }
}
db.close();
if (touched === 0) process.exit(3);
console.log(rows);
`;

interface F1p { rawMs: number[]; modes: Map<ReadWorkerMode, { ms: number[]; readByWorker: number[]; sessions: number }>; loads: string[]; bin: string }

/**
 * Whole processes, as a user (and issue 16's external harness) runs them: `hermetic backfill` on the build, and a raw
 * scan in a node process of its own; each timed from spawn to exit, rounds interleaved, best of PROCESS_ROUNDS.
 */
function f1p(store: Store, dir: string): F1p | null {
  const bin = join(here, '..', 'bin', 'hermetic.js');
  if (!existsSync(join(here, '..', 'dist', 'cli', 'main.js'))) {
    console.log('F1p skipped: no build in dist/ (npm run build, or npm run bench, builds it)');
    return null;
  }
  const hermes = holdOpen(store.path);
  const out: F1p = { rawMs: [], modes: new Map(MODES.map((m) => [m, { ms: [], readByWorker: [], sessions: 0 }])), loads: [], bin };
  const env = { ...process.env };
  delete env.HERMETIC_HOME;
  delete env.HERMES_HOME;
  const timed = (args: string[], extra: NodeJS.ProcessEnv = {}): { ms: number; stdout: string } => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...env, ...extra }, cwd: join(here, '..'), maxBuffer: 1 << 26 });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
    return { ms, stdout: r.stdout };
  };
  try {
    console.log(`${'round'.padEnd(7)}${'what'.padEnd(14)}${'ms'.padStart(8)}${'worker read'.padStart(13)}  load`);
    for (let round = 1; round <= PROCESS_ROUNDS; round++) {
      const kinds: (ReadWorkerMode | 'raw')[] = ['raw', ...MODES];
      for (const kind of kinds.map((_, i) => kinds[(i + round) % kinds.length]!)) {
        if (kind === 'raw') {
          const r = timed(['-e', RAW_SCAN_SCRIPT, store.path]);
          out.rawMs.push(r.ms);
          console.log(`${String(round).padEnd(7)}${'raw scan'.padEnd(14)}${r.ms.toFixed(0).padStart(8)}${''.padStart(13)}  ${load()}`);
          continue;
        }
        const home = mkdtempSync(join(dir, 'home-p-'));
        try {
          const r = timed([bin, 'backfill', '--state-db', store.path, '--home', home, '--json'], { HERMETIC_READ_WORKER: kind });
          const j = JSON.parse(r.stdout) as { sessions: number; stores: { read_by_worker?: number }[] };
          const m = out.modes.get(kind)!;
          m.ms.push(r.ms);
          m.sessions = j.sessions;
          const worker = j.stores[0]?.read_by_worker;
          m.readByWorker.push(worker ?? NaN);
          console.log(`${String(round).padEnd(7)}${`backfill ${kind}`.padEnd(14)}${r.ms.toFixed(0).padStart(8)}${(worker === undefined ? '?' : `${worker}/${j.sessions}`).padStart(13)}  ${load()}`);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      }
      out.loads.push(load());
    }
  } finally {
    hermes.close();
  }
  return out;
}

interface F2 {
  changedMs: number[];
  /** Empty ticks that query: a commit touched no session (the stamp moved), so the store is opened and scanned. */
  queryMs: number[];
  /** Empty ticks with nothing committed: the stamp is unchanged and nothing is opened. */
  emptyMs: number[];
  /** Each round's changed tick against its empty tick that queries. */
  ratios: number[];
  copyEmptyMs: number[];
  session: string;
  sessionMessages: number;
  /** Ticks with LONG_TICK_MESSAGES appended to the LONG-message session, and the queried empty tick of each round. */
  longMs: number[];
  longQueryMs: number[];
  longRatios: number[];
  /** Message and part rows each long tick wrote (what it added). */
  longWrote: string;
  loads: string[];
}

const LONG_TICK_MESSAGES = 10;

function f2(store: Store, dir: string): F2 {
  const copy = join(dir, 'f2', 'state.db');
  rmSync(dirname(copy), { recursive: true, force: true });
  mkdirSync(dirname(copy), { recursive: true });
  copyFileSync(store.path, copy);
  const home = mkdtempSync(join(dir, 'home-f2-'));
  // Hermes's writer, open for the whole measurement (its clock moves on by a second per message).
  const hermesDb = new Database(copy);
  hermesDb.pragma('busy_timeout = 5000');
  // The newest plausible time (a generated store holds a few garbage ones, such as 5e+246, on purpose).
  let clock = (hermesDb.prepare('SELECT MAX(timestamp) FROM messages WHERE timestamp < 4102444800').pluck().get() as number) + 60;
  const writer = new StateDbWriter(hermesDb, { now: () => (clock += 1), ids: createIdSource('bench-f2') });
  // One session of about the median size, not a child of another (so one changed session is one session).
  const sizes = hermesDb.prepare('SELECT session_id AS id, COUNT(*) AS n FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE parent_session_id IS NULL) GROUP BY session_id ORDER BY n, session_id').all() as { id: string; n: number }[];
  const { id: session, n: sessionMessages } = sizes[Math.floor(sizes.length / 2)]!;
  const f = createForwarder({ stateDbs: [copy], home, userHome: home });
  const out: F2 = { changedMs: [], queryMs: [], emptyMs: [], ratios: [], copyEmptyMs: [], session, sessionMessages, longMs: [], longQueryMs: [], longRatios: [], longWrote: '', loads: [] };
  // The long session (issue 16 §3): LONG messages, user and assistant turns, written in one transaction.
  const long = LONG > 0 ? writer.createSession({ source: 'cli', model: 'bench-model', started_at: clock }) : null;
  if (long) {
    const turns = Array.from({ length: LONG }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `long session message ${i}: the quick brown fox jumps over the lazy dog`, ...(i % 2 === 1 ? { finish_reason: 'stop' } : {}) }));
    writer.appendMessages(long, turns);
  }
  let appended = 0;
  const append = () => writer.appendMessage(session, { role: appended++ % 2 === 0 ? 'user' : 'assistant', content: `bench tick message ${appended}: the quick brown fox jumps over the lazy dog`, ...(appended % 2 === 0 ? { finish_reason: 'stop' } : {}) });
  // A commit that touches no session: Hermes's gateway says it is alive (its row in gateway_heartbeats).
  const heartbeat = hermesDb.prepare("INSERT OR REPLACE INTO gateway_heartbeats (backend_id, pid, started_at, last_heartbeat, profile, host) VALUES ('bench', 1, 1, ?, 'default', 'bench')");
  const beat = () => heartbeat.run((clock += 1));
  /** One timed tick; `read`: it must open the store (something committed since the last tick). */
  const tick = (written: number, read: boolean): number => {
    const t0 = performance.now();
    const r = only(f.forwardOnce());
    const ms = performance.now() - t0;
    if (r.sessionsWritten !== written) throw new Error(`a forward tick wrote ${r.sessionsWritten} sessions, expected ${written}`);
    if (r.read !== (read ? 'in-place' : null)) throw new Error(`a forward tick read the store by ${r.read}, expected ${read ? 'in-place' : 'nothing'}`);
    return ms;
  };
  const kinds = {
    changed: () => { append(); out.changedMs.push(tick(1, true)); },
    query: () => { beat(); out.queryMs.push(tick(0, true)); },
    empty: () => { out.emptyMs.push(tick(0, false)); },
  };
  const orders = [['changed', 'query', 'empty'], ['query', 'empty', 'changed'], ['empty', 'changed', 'query']] as const;
  try {
    const initial = only(f.backfill());
    if (initial.sessionsWritten !== store.sessions + (long ? 1 : 0)) throw new Error(`the initial backfill wrote ${initial.sessionsWritten} of ${store.sessions} sessions`);
    // Warm-up, discarded: the first forward pass reads the store once to take its commit stamp, and the passes after it
    // look once at the sessions settled for a week, within their budget of rows (decision 0053), until none is owed.
    for (let k = 0; k < 100 && only(f.forwardOnce()).read !== null; k++);
    for (let k = 0; k < 3; k++) { tick(0, false); append(); tick(1, true); beat(); tick(0, true); }
    for (let round = 0; round < TICKS; round++) {
      for (const kind of orders[round % orders.length]!) kinds[kind]();
      out.ratios.push(out.changedMs[round]! / out.queryMs[round]!);
      out.loads.push(load());
    }
    if (long) {
      let n = 0;
      const appendLong = () => writer.appendMessages(long, Array.from({ length: LONG_TICK_MESSAGES }, () => ({ role: n++ % 2 === 0 ? 'user' : 'assistant', content: `long tick message ${n}: the quick brown fox` })));
      const longTick = () => {
        appendLong();
        const t0 = performance.now();
        const r = only(f.forwardOnce());
        const ms = performance.now() - t0;
        if (r.sessionsWritten !== 1) throw new Error(`a long tick wrote ${r.sessionsWritten} sessions`);
        out.longWrote = `${int(r.messages)} messages, ${int(r.parts)} parts`;
        return ms;
      };
      // Warm-up, discarded.
      longTick();
      for (let round = 0; round < LONG_TICKS; round++) {
        if (round % 2 === 0) { out.longMs.push(longTick()); beat(); out.longQueryMs.push(tick(0, true)); }
        else { beat(); out.longQueryMs.push(tick(0, true)); out.longMs.push(longTick()); }
        out.longRatios.push(out.longMs[round]! / out.longQueryMs[round]!);
        out.loads.push(load());
      }
    }
    // Hermes gone: its last connection closing removes the -wal, and each tick then reads a private copy.
    hermesDb.close();
    for (let k = 0; k < Math.min(5, TICKS); k++) {
      const t0 = performance.now();
      const r = only(f.forwardOnce());
      const ms = performance.now() - t0;
      if (r.sessionsWritten !== 0) throw new Error(`an empty tick wrote ${r.sessionsWritten} sessions`);
      if (k > 0) out.copyEmptyMs.push(ms);
      if (k === 0 && r.read !== 'copy') console.log(`note: with Hermes's connection closed the tick read the store ${r.read}`);
    }
  } finally {
    f.close();
    if (hermesDb.open) hermesDb.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(dirname(copy), { recursive: true, force: true });
  }
  return out;
}

interface Child { ms: number; read: string | null; sessionsWritten: number; messages: number; parts: number; error: { code: string; message: string } | null; rssBeforeMb: number; hwmBeforeMb: number | null; maxRssMb: number; hwmMb: number | null; heapTotalMb: number; heapUsedMb: number; externalMb: number }
interface F3 { size: number; store: Store; child: Child }

function f3(stores: Store[], dir: string): F3[] {
  const out: F3[] = [];
  for (const store of stores) {
    const hermes = holdOpen(store.path);
    const home = mkdtempSync(join(dir, 'home-f3-'));
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'forwarder-child.ts'), store.path, home], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      if (r.status !== 0) throw new Error(`bench/forwarder-child.ts exited with ${r.status ?? r.signal}`);
      const child = JSON.parse(r.stdout.trim().split('\n').pop()!) as Child;
      if (child.error) throw new Error(`child backfill: ${child.error.code}: ${child.error.message}`);
      out.push({ size: store.messages, store, child });
    } finally {
      hermes.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
  return out;
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-bench-forwarder-'));
  const started = performance.now();
  try {
    console.log(`forwarder bench: ${int(MESSAGES)} messages / ~${int(SESSIONS)} sessions${TEXT === 'kb' ? ', texts of real size (BENCH_FWD_TEXT=kb)' : ''}; F1 ${ROUNDS} rounds, F2 ${TICKS} tick pairs, F3 sizes ${RSS_SIZES.map(int).join(', ')} (node ${process.version})`);
    const stores = new Map<number, Store>();
    const need = new Set<number>();
    if (ONLY.has('f1') || ONLY.has('f1p') || ONLY.has('f2')) need.add(MESSAGES);
    if (ONLY.has('f3')) for (const s of RSS_SIZES) need.add(s);
    for (const size of sorted([...need])) {
      const s = makeStore(dir, `store-${size}`, size, size === MESSAGES ? SESSIONS : Math.max(1, Math.round(size / 50)), TEXT === 'kb' && size === MESSAGES);
      stores.set(size, s);
      console.log(`generated ${s.path}: ${int(s.sessions)} sessions / ${int(s.messages)} messages in ${(s.genMs / 1000).toFixed(1)} s`);
    }
    const big = stores.get(MESSAGES);
    let r1: F1 | null = null;
    let r2: F2 | null = null;
    let r3: F3[] | null = null;
    let r3l: F3[] | null = null;

    if (ONLY.has('f1') && big) {
      console.log(`\nF1: backfill of ${int(big.messages)} message rows (${int(big.sessions)} sessions), fresh dataset per round, against SELECT * FROM messages`);
      r1 = f1(big, dir);
      const w = r1.result!;
      console.log(`(the backfill writes ${int(w.messages)} messages, ${int(w.parts)} parts, ${int(w.sessionsWritten)} sessions; rates count the ${int(r1.rows)} message rows both sides read)`);
    }
    let r1p: F1p | null = null;
    if (ONLY.has('f1p') && big) {
      console.log(`\nF1p: whole processes: hermetic backfill (bin/hermetic.js on dist/) per read mode against a raw scan in a process of its own; best of ${PROCESS_ROUNDS}`);
      r1p = f1p(big, dir);
    }
    if (ONLY.has('f2') && big) {
      console.log(`\nF2: forward tick with one changed session of ${int(big.sessions)} (one message appended by Hermes's writer) against an empty tick that queries (Hermes's heartbeat committed, no session changed), and an empty tick with nothing committed; ${TICKS} rounds`);
      r2 = f2(big, dir);
      console.log(`changed session ${r2.session} (${r2.sessionMessages} messages before the bench)`);
      console.log(`${'round'.padEnd(7)}${'changed ms'.padStart(12)}${'queried ms'.padStart(12)}${'ratio'.padStart(8)}${'unopened ms'.padStart(13)}`);
      r2.changedMs.forEach((c, i) => console.log(`${String(i + 1).padEnd(7)}${c.toFixed(2).padStart(12)}${r2!.queryMs[i]!.toFixed(2).padStart(12)}${r2!.ratios[i]!.toFixed(2).padStart(8)}${r2!.emptyMs[i]!.toFixed(2).padStart(13)}  ${r2!.loads[i]}`));
      if (r2.longMs.length) {
        console.log(`long session: ${int(LONG)} messages, ${LONG_TICK_MESSAGES} appended before each tick (each wrote ${r2.longWrote})`);
        console.log(`${'round'.padEnd(7)}${'long ms'.padStart(12)}${'queried ms'.padStart(12)}${'ratio'.padStart(8)}`);
        r2.longMs.forEach((c, i) => console.log(`${String(i + 1).padEnd(7)}${c.toFixed(2).padStart(12)}${r2!.longQueryMs[i]!.toFixed(2).padStart(12)}${r2!.longRatios[i]!.toFixed(2).padStart(8)}  ${r2!.loads[r2!.changedMs.length + i]}`));
      }
    }
    if (ONLY.has('f3')) {
      console.log('\nF3: peak RSS of one backfill in a child process per store size (node --import tsx bench/forwarder-child.ts)');
      r3 = f3(RSS_SIZES.map((s) => stores.get(s)!), dir);
      console.log(`${'messages'.padStart(10)}${'sessions'.padStart(10)}${'backfill s'.padStart(12)}${'RSS before'.padStart(12)}${'peak RSS'.padStart(10)}${'VmHWM'.padStart(8)}${'peak - before'.padStart(15)}${'V8 heap'.padStart(10)}`);
      for (const { store, child } of r3) {
        console.log(`${int(store.messages).padStart(10)}${int(store.sessions).padStart(10)}${(child.ms / 1000).toFixed(1).padStart(12)}${child.rssBeforeMb.toFixed(0).padStart(9)} MB${child.maxRssMb.toFixed(0).padStart(7)} MB${(child.hwmMb ?? NaN).toFixed(0).padStart(5)} MB${(child.maxRssMb - child.rssBeforeMb).toFixed(0).padStart(12)} MB${child.heapTotalMb.toFixed(0).padStart(7)} MB`);
      }
    }
    if (ONLY.has('f3l')) {
      console.log('\nF3L: peak RSS of one backfill in a child process per length of a store\'s one session');
      const long = LONG_RSS_SIZES.map((size) => {
        const s = makeStore(dir, `long-${size}`, size, 1);
        console.log(`generated ${s.path}: 1 session / ${int(s.messages)} messages in ${(s.genMs / 1000).toFixed(1)} s`);
        return s;
      });
      r3l = f3(long, dir);
      for (const { store, child } of r3l) {
        console.log(`${int(store.messages).padStart(10)} messages in one session: backfill ${(child.ms / 1000).toFixed(1)} s, RSS before ${child.rssBeforeMb.toFixed(0)} MB, peak ${child.maxRssMb.toFixed(0)} MB, V8 heap ${child.heapTotalMb.toFixed(0)} MB`);
      }
    }

    // Summary, in the style of bench/run.ts: medians, each ratio against its own round's baseline.
    console.log(`\nforwarder summary (${((performance.now() - started) / 1000).toFixed(0)} s, store generation included):`);
    const meets = (ok: boolean, goal: string) => (ok ? `meets ${goal}` : `MISSES ${goal}`);
    if (r1) {
      for (const [mode, f] of r1.modes) {
        const m = median(f.ratios);
        console.log(`F1 backfill (${mode}) / raw messages scan: ${m.toFixed(3)}x  (${meets(m >= GOALS.backfill, `>= ${GOALS.backfill}x`)})  ${spread(f.ratios, 3)}; median ${int(median(f.storeMsgPerS))} msg/s against ${int(median(f.rawMsgPerS))} msg/s raw, ${ROUNDS} rounds; worker read ${median(f.readByWorker)} sessions; ${f.loads.at(-1)}`);
        if (f.cpuMain.length) console.log(`F1 backfill (${mode}) CPU, median:       calling thread ${median(f.cpuMain)} ms, other threads ${median(f.cpuOthers)} ms (the read worker, the checkpoint thread, V8's helpers)`);
      }
    }
    if (r1p) {
      const raw = Math.min(...r1p.rawMs);
      for (const [mode, f] of r1p.modes) {
        const best = Math.min(...f.ms);
        console.log(`F1p whole process (${mode}) / raw scan process: ${(raw / best).toFixed(3)}x  (${meets(raw / best >= GOALS.backfill, `>= ${GOALS.backfill}x`)})  best ${best.toFixed(0)} ms against ${raw.toFixed(0)} ms, all ${f.ms.map((x) => x.toFixed(0)).join(', ')} ms; worker read ${f.readByWorker.map((x) => (Number.isNaN(x) ? '?' : x)).join(', ')} of ${f.sessions} sessions; ${r1p.loads.at(-1)}`);
      }
    }
    if (r2) {
      const m = median(r2.ratios);
      const e = median(r2.emptyMs);
      const c = median(r2.changedMs);
      console.log(`F2 one-changed-session tick / queried:  ${m.toFixed(2)}x  (${meets(m <= GOALS.tick, `<= ${GOALS.tick}x`)})  ${spread(r2.ratios)}; median ${c.toFixed(2)} ms against ${median(r2.queryMs).toFixed(2)} ms (an empty tick that opens the store), ${TICKS} rounds`);
      console.log(`F2 empty tick, nothing committed:       ${e.toFixed(2)} ms  (${meets(e <= GOALS.emptyMs, `<= ${GOALS.emptyMs} ms`)})  ${spread(r2.emptyMs)}; it opens nothing (the changed tick is ${(c / e).toFixed(0)}x it, for reference)`);
      if (r2.longMs.length) {
        const l = median(r2.longRatios);
        console.log(`F2 ${LONG_TICK_MESSAGES} new in a ${int(LONG)}-message session / queried: ${l.toFixed(2)}x  (${meets(l <= GOALS.tick, `<= ${GOALS.tick}x`)})  ${spread(r2.longRatios)}; median ${median(r2.longMs).toFixed(2)} ms against ${median(r2.longQueryMs).toFixed(2)} ms; each wrote ${r2.longWrote}; ${r2.loads.at(-1)}`);
      }
      if (r2.copyEmptyMs.length) console.log(`F2 empty tick, Hermes not running:      ${median(r2.copyEmptyMs).toFixed(2)} ms  (for reference: the ${int(statSync(big!.path).size / 1024 / 1024)} MB store has no -wal then, so the forwarder takes its copy path)`);
    }
    if (r3 && r3.length) {
      const peaks = r3.map((x) => x.child.maxRssMb);
      const worst = Math.max(...peaks);
      const first = r3[0]!;
      const last = r3[r3.length - 1]!;
      const growth = (last.child.maxRssMb - last.child.rssBeforeMb) / Math.max(1, first.child.maxRssMb - first.child.rssBeforeMb);
      console.log(`F3 backfill peak RSS by store size:      ${r3.map((x) => `${int(x.size)}: ${x.child.maxRssMb.toFixed(0)} MB`).join(', ')}  (${meets(worst <= GOALS.rssMb, `<= ${GOALS.rssMb} MB`)})`);
      console.log(`F3 growth above the child's own start:   ${r3.map((x) => `${(x.child.maxRssMb - x.child.rssBeforeMb).toFixed(0)} MB`).join(', ')} (x${growth.toFixed(2)} from the smallest to the largest store; flat is ~x1; the child starts at ~${first.child.rssBeforeMb.toFixed(0)} MB after node, tsx and the imports)`);
    }
    if (r3l && r3l.length) {
      const worst = Math.max(...r3l.map((x) => x.child.maxRssMb));
      const first = r3l[0]!;
      const last = r3l[r3l.length - 1]!;
      const growth = (last.child.maxRssMb - last.child.rssBeforeMb) / Math.max(1, first.child.maxRssMb - first.child.rssBeforeMb);
      console.log(`F3L peak RSS by one session's length:    ${r3l.map((x) => `${int(x.size)}: ${x.child.maxRssMb.toFixed(0)} MB`).join(', ')}  (${meets(worst <= GOALS.rssMb, `<= ${GOALS.rssMb} MB`)}; growth above the child's start x${growth.toFixed(2)} from the shortest to the longest, flat is ~x1)`);
    }
  } finally {
    if (process.env.BENCH_FWD_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main();

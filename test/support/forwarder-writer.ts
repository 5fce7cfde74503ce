// A Hermes-like writer in a process of its own, for the forwarder's crash and live tests: it appends to a WAL
// state.db through StateDbWriter the way Hermes's SessionDB does — one BEGIN IMMEDIATE transaction per write, a 1 s
// busy timeout with a jittered retry on "locked" (Hermes: timeout=1.0, up to 15 retries 20–150 ms apart), WAL, and a
// PASSIVE checkpoint every 50 writes — at a steady rate, and times every write from asking for the lock to the commit.
//
//   node --import tsx test/support/forwarder-writer.ts <state.db> [--rate MESSAGES_PER_S] [--seed S] [--focus SESSION]
//
// Each write is one of: a message appended to an open session (about 85%; existing sessions of the store are resumed
// for it), a new session, the end of a session, a token-count update, a background delegation's step (dispatched by
// an open session, completed, its delivery claimed and done or released; Hermes prunes at each dispatch). With --focus, most messages go to that one
// (long) session, and about one write in 40 rewinds its last messages (soft-archived: a rewrite of its tail). It prints {"ready":…} once the store is open,
// and on SIGTERM or SIGINT it finishes the write in progress, closes the store (Hermes's last checkpoint) and prints
// one report line (WriterReport) before exiting 0.
import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIdSource } from '../../src/shared/ids.js';
import { Rng } from '../../src/state-db/generate/random.js';
import { StateDbWriter, type MessageInput } from '../../src/state-db/writer/index.js';

export interface WriterReport {
  /** Write transactions committed. */
  writes: number;
  /** Messages appended (without --focus every one of them stays live: the writer never rewinds or compacts). */
  messages: number;
  /** Rewinds of the focus session. */
  rewinds: number;
  /** Writes to async_delegations (a dispatch, a completion, a delivery). */
  delegations: number;
  sessionsCreated: number;
  sessionsEnded: number;
  /** Existing sessions of the store resumed and appended to. */
  sessionsResumed: number;
  /** Longest write: from asking for the write lock (BEGIN IMMEDIATE, retries included) to the end of its commit. */
  maxWaitMs: number;
  /** Longest wait for the write lock alone. */
  maxLockMs: number;
  /** 99th percentile of the writes' times. */
  p99WaitMs: number;
  /** Writes that took longer than 100 ms. */
  over100ms: number;
  /** Longest PASSIVE checkpoint (every 50 writes; Hermes's caller waits for it too). */
  maxCheckpointMs: number;
  /** SQLITE_BUSY answers to BEGIN IMMEDIATE that were retried. */
  busyRetries: number;
  errors: string[];
  seconds: number;
  messagesPerSecond: number;
  writesPerSecond: number;
  /** Highest message id when the writer started (every id above it is the writer's). */
  baseMaxMessageId: number;
}

function flag(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}

const [path, ...rest] = process.argv.slice(2);
if (!path) {
  console.error('usage: node --import tsx test/support/forwarder-writer.ts <state.db> [--rate N] [--seed S]');
  process.exit(2);
}
const rate = Number(flag(rest, 'rate', '200'));
const seed = flag(rest, 'seed', 'writer');
const focus = flag(rest, 'focus', '');
const r = new Rng(seed);

const db = new Database(path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
db.pragma('journal_mode = WAL');
const w = new StateDbWriter(db, { now: () => Date.now() / 1000, ids: createIdSource(seed), dayIn: 'utc' });
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');
const rollback = db.prepare('ROLLBACK');
const baseMaxMessageId = (db.prepare('SELECT MAX(id) FROM messages').pluck().get() as number | null) ?? 0;

/** Open sessions the writer appends to, with the number of messages it has given each. */
const open = new Map<string, number>();
const existing = db.prepare('SELECT id FROM sessions ORDER BY id').pluck().all() as string[];
const report: WriterReport = {
  writes: 0, messages: 0, rewinds: 0, delegations: 0, sessionsCreated: 0, sessionsEnded: 0, sessionsResumed: 0, maxWaitMs: 0, maxLockMs: 0, p99WaitMs: 0,
  over100ms: 0, maxCheckpointMs: 0, busyRetries: 0, errors: [], seconds: 0, messagesPerSecond: 0, writesPerSecond: 0, baseMaxMessageId,
};
const times: number[] = [];
const isBusy = (e: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((e as { code?: unknown }).code ?? ''));

/** One write transaction, timed like Hermes's `_execute_write`: lock (with jittered retries), work, commit. */
async function write(work: () => void): Promise<void> {
  const asked = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      begin.run();
      break;
    } catch (e) {
      if (!isBusy(e) || attempt >= 15) throw e;
      report.busyRetries++;
      await sleep(r.int(20, 150));
    }
  }
  const locked = performance.now();
  try {
    work();
    commit.run();
  } catch (e) {
    if (db.inTransaction) rollback.run();
    throw e;
  }
  report.writes++;
  if (report.writes % 50 === 0) {
    const t = performance.now();
    db.pragma('wal_checkpoint(PASSIVE)');
    report.maxCheckpointMs = Math.max(report.maxCheckpointMs, performance.now() - t);
  }
  const took = performance.now() - asked;
  times.push(took);
  report.maxWaitMs = Math.max(report.maxWaitMs, took);
  report.maxLockMs = Math.max(report.maxLockMs, locked - asked);
  if (took > 100) report.over100ms++;
}

function newSession(): void {
  const id = w.createSession({ source: r.pick(['cli', 'cli', 'telegram', 'cron']), model: r.pick(['gpt-5', 'claude-sonnet-4', 'gemini-2.5-pro']), cwd: '/home/user/project' });
  open.set(id, 0);
  report.sessionsCreated++;
}

const delegating = w.has('async_delegations');
const running = delegating ? db.prepare("SELECT delegation_id FROM async_delegations WHERE state = 'running' ORDER BY delegation_id").pluck() : null;
const undelivered = delegating ? db.prepare("SELECT delegation_id FROM async_delegations WHERE state <> 'running' AND delivery_state = 'pending' ORDER BY delegation_id").pluck() : null;

/** One step of Hermes's delegation tool: complete a running one, deliver (or fail to) a finished one, or dispatch. */
function delegationStep(): void {
  const inFlight = running!.all() as string[];
  const waiting = undelivered!.all() as string[];
  const roll = r.next();
  if (inFlight.length > 0 && roll < 0.4) {
    w.completeDelegation(r.pick(inFlight), r.chance(0.85) ? { summary: `found ${r.hex(12)}`, api_calls: r.int(1, 9) } : { status: 'error', error: `failed ${r.hex(8)}` });
  } else if (waiting.length > 0 && roll < 0.7) {
    const id = r.pick(waiting);
    w.claimDelegationDelivery(id);
    if (r.chance(0.8)) w.markDelegationDelivered(id);
    else w.releaseDelegationDelivery(id);
  } else {
    w.dispatchDelegation({ parent_session_id: r.pick([...open.keys()]), goals: [`look into ${r.hex(8)}`] });
  }
  report.delegations++;
}

/** The next message of a session: user, assistant (sometimes a tool call and its result), in turn. */
function nextMessages(id: string, n: number): MessageInput[] {
  const k = report.messages;
  if (n % 2 === 0) return [{ role: 'user', content: `question ${k} in ${id}: ${r.hex(24)}` }];
  if (r.chance(0.2)) {
    const call = { id: `call_${r.hex(24)}`, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path: `/tmp/f${k}.txt` }) } };
    return [
      { role: 'assistant', content: null, tool_calls: [call], finish_reason: 'tool_calls' },
      { role: 'tool', content: `contents of f${k}: ${r.hex(16)}`, tool_call_id: call.id, tool_name: 'read_file' },
    ];
  }
  return [{ role: 'assistant', content: `answer ${k}: ${r.hex(32)}`, finish_reason: 'stop' }];
}

let stopping = false;
process.on('SIGTERM', () => { stopping = true; });
process.on('SIGINT', () => { stopping = true; });
// A test that went away without stopping the writer takes it along.
const parent = process.ppid;
setInterval(() => {
  try {
    process.kill(parent, 0);
  } catch {
    stopping = true;
  }
}, 500).unref();

// Resume a few of the store's sessions (Hermes's /resume clears the end) and start a few new ones.
await write(() => {
  for (const id of existing.filter((_, i) => i % Math.max(1, Math.floor(existing.length / 6)) === 1).slice(0, 6)) {
    w.reopenSession(id);
    open.set(id, 0);
    report.sessionsResumed++;
  }
  for (let i = 0; i < 4; i++) newSession();
  if (focus) {
    w.reopenSession(focus);
    open.set(focus, 0);
  }
});
const lastLive = db.prepare('SELECT id FROM messages WHERE session_id = ? AND active = 1 ORDER BY id DESC LIMIT 1 OFFSET 2').pluck();
console.log(JSON.stringify({ ready: true, baseMaxMessageId, open: open.size }));

const started = performance.now();
while (!stopping) {
  // Paced by messages: the other writes come between them. Always through a timer, so a signal is seen even when
  // the writer is behind.
  await sleep(Math.max(0, started + (report.messages * 1000) / rate - performance.now()));
  if (stopping) break;
  const roll = r.next();
  try {
    if (focus && roll < 0.025) {
      const keep = lastLive.get(focus) as number | undefined;
      if (keep !== undefined) {
        await write(() => w.rewind(focus, keep));
        report.rewinds++;
      }
    } else if (roll < 0.04 || open.size < 3) {
      await write(newSession);
    } else if (roll < 0.07 && open.size > 6) {
      const id = r.pick([...open.keys()].filter((k) => k !== focus));
      await write(() => { w.endSession(id, r.pick(['user_exit', 'cli_close', 'session_reset'])); });
      open.delete(id);
      report.sessionsEnded++;
    } else if (roll < 0.12) {
      const id = r.pick([...open.keys()]);
      await write(() => w.updateTokenCounts(id, { input_tokens: r.int(100, 4000), output_tokens: r.int(10, 900), model: 'gpt-5', billing_provider: 'openai' }));
    } else if (roll < 0.135 && delegating) {
      await write(delegationStep);
    } else {
      const id = focus && r.chance(0.8) ? focus : r.pick([...open.keys()]);
      const batch = nextMessages(id, open.get(id)!);
      await write(() => { w.appendMessages(id, batch); });
      open.set(id, open.get(id)! + 1);
      report.messages += batch.length;
    }
  } catch (e) {
    report.errors.push(`${(e as { code?: string }).code ?? ''} ${(e as Error).message}`);
    if (report.errors.length > 20) break;
  }
}
report.seconds = (performance.now() - started) / 1000;
db.close();
times.sort((a, b) => a - b);
report.p99WaitMs = times.length ? times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! : 0;
report.messagesPerSecond = report.messages / report.seconds;
report.writesPerSecond = report.writes / report.seconds;
for (const k of ['maxWaitMs', 'maxLockMs', 'p99WaitMs', 'maxCheckpointMs', 'seconds', 'messagesPerSecond', 'writesPerSecond'] as const) {
  report[k] = Math.round(report[k] * 1000) / 1000;
}
console.log(JSON.stringify(report));

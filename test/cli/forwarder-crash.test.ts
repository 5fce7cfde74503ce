// The forwarder killed with SIGKILL at random points loses nothing and duplicates nothing: every batch of sessions
// is written with its cursors in one transaction, so a restarted `hermetic backfill` or `hermetic forward` picks up
// where the last commit left off, and the dataset ends row for row equal to one clean backfill of the same store.
// Kill points are seeded: each is a random delay after the process opened its dataset, spread over what is left of
// the run; every other kill then waits for the next batch write to begin, so some land inside a write transaction.
// A killed backfill's last batch waits inside its transaction for the kill, so no kill comes after the end, however
// the machine's load makes a pass faster or slower than the clean one the delays are drawn from.
// A probe loaded into each process (test/support/forwarder-probe.mjs) reports where every kill landed.
// The read worker (decision 0027) is crashed too: the killed processes read with it (HERMETIC_READ_WORKER `only`, or
// `auto` beside the calling thread), and the dataset they leave must equal the plain pass's (`off`) row for row.
// So are incremental ticks (decision 0032): forward killed while Hermes appends to one long session and now and then
// rewinds its tail, each tick writing a delta against the session's cursor — and the dataset still equals a clean
// backfill row for row.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createIdSource } from '../../src/shared/ids.js';
import { generatedStore } from '../../src/state-db/testing/generated.js';
import { StateDbWriter } from '../../src/state-db/writer/index.js';
import {
  childEnv, countDifferences, datasetCount, datasetDifferences, delegationRows, keptDifferencesIn, ledgerDifferences, datasetMessageCounts, datasetRows, seeded, spawnHermetic, STACK_LINE,
  startWriter, storeHistoryCounts, storeLiveCounts, storeValue, type Hermetic, type ProbeEvent, type WriterReport,
} from '../support/forwarder-harness.js';

/**
 * Kills of the backfill; each forward series (two of them, beside a writer) is killed half as often. Twelve land both
 * inside write transactions and while reading or projecting, six with each read-worker mode and build layout; the
 * assertions hold whatever the count. HERMETIC_CRASH_KILLS=N soaks with more (decision 0080).
 */
const KILLS = Number(process.env.HERMETIC_CRASH_KILLS ?? 12);
const FORWARD_KILLS = Math.max(2, Math.floor(KILLS / 2));
let dir: string;
let env: NodeJS.ProcessEnv;
before(() => {
  assert.ok(Number.isInteger(KILLS) && KILLS >= 4, 'HERMETIC_CRASH_KILLS is a whole number of kills, 4 or more');
  dir = mkdtempSync(join(tmpdir(), 'hermetic-forwarder-crash-'));
  env = childEnv(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const withWorker = (mode: string): NodeJS.ProcessEnv => ({ ...env, HERMETIC_READ_WORKER: mode });

/** Runs a command to its end; asserts it exits 0 without a stack trace, and returns its output. */
async function complete(args: string[], probe = false, readWorker = 'auto'): Promise<{ h: Hermetic; stdout: string; stderr: string }> {
  const h = spawnHermetic(args, { env: withWorker(readWorker), probe });
  const { code, signal } = await h.exited;
  assert.equal(code, 0, `${args.join(' ')} exited ${code ?? signal}: ${h.stderr()}`);
  assert.doesNotMatch(h.stderr(), STACK_LINE);
  return { h, stdout: h.stdout(), stderr: h.stderr() };
}

/** Milliseconds from the probe's `open` to the pass's final commit. */
function passMs(h: Hermetic): number {
  const open = h.events.find((e) => e.kind === 'open');
  const done = h.events.find((e) => e.kind === 'commit' && e.final);
  assert.ok(open && done, `the probe saw the pass: ${JSON.stringify(h.events.slice(0, 5))}`);
  return done.at - open.at;
}

interface Kill {
  /** Where it landed, from the probe's events at the moment of the kill. */
  landing: string;
  /** Killed while its pass was under way: after its dataset opened and before its last commit. */
  midRun: boolean;
  /** Milliseconds from the command being let go (its modules already loaded) to its dataset being open. */
  startupMs: number;
}

/**
 * Kills `h` at a seeded point: `delay` ms after its dataset opened, or — when `atWrite` — at the first batch write
 * that begins after that. A forward process never finishes its pass, so "after the last commit" there is between
 * ticks.
 */
async function killAt(h: Hermetic, delay: number, atWrite: boolean, forward = false): Promise<Kill> {
  const open = await h.next((e) => e.kind === 'open', true);
  const startupMs = open ? open.at - h.spawnedAt : NaN;
  const gone = (): Kill => ({ landing: 'after it exited', midRun: false, startupMs });
  if (open === null) return (await h.exited, gone());
  // A backfill's last batch waits in its transaction (HERMETIC_PROBE_HOLD_FINAL): when it begins before the delay is
  // up, the kill lands there, so a fast pass on a quiet machine is killed mid-run like a slow one.
  const final = (e: ProbeEvent) => e.kind === 'begin' && e.final && !forward;
  await Promise.race([sleep(Math.max(0, delay - (performance.now() - open.at)), null, { ref: false }), h.next(final, true)]);
  if (atWrite && !h.events.some(final)) await h.next((e) => e.kind === 'begin');
  if (h.child.exitCode !== null || h.child.signalCode !== null) return gone();
  const last: ProbeEvent = h.last()!;
  h.child.kill('SIGKILL');
  const { signal } = await h.exited;
  if (signal !== 'SIGKILL') return gone();
  if (last.kind === 'begin') return { landing: 'in a write transaction', midRun: true, startupMs };
  const finished = h.events.some((e) => e.kind === 'commit' && e.final && e.at <= last.at);
  if (forward) return { landing: finished ? 'between ticks or reading one' : 'reading its first pass', midRun: true, startupMs };
  return finished ? { landing: 'after the last commit', midRun: false, startupMs } : { landing: 'reading or projecting', midRun: true, startupMs };
}

/**
 * The processes of a kill series, each started ahead with its modules loaded while the one before it runs (the probe's
 * gate), so a restart follows a kill at once instead of after node's and tsx's start-up.
 */
function series(args: string[], envOf: (i: number) => NodeJS.ProcessEnv = () => env): { next(more: boolean): Promise<Hermetic>; close(): void } {
  let ahead: Hermetic | null = null;
  let started = 0;
  const start = () => spawnHermetic(args, { env: envOf(started++), probe: true, gate: true });
  return {
    async next(more) {
      const h = ahead ?? start();
      ahead = null;
      assert.ok(await h.loaded(), `the command loaded: ${h.stderr()}`);
      h.go();
      if (more) ahead = start();
      return h;
    },
    close() {
      ahead?.child.kill('SIGKILL');
    },
  };
}

/**
 * `forward` started FORWARD_KILLS times beside a Hermes writer, the read worker alternating between two modes, each
 * run SIGKILLed at a random moment of its first second; then the writer is stopped and says what it wrote.
 */
async function killForwardBeside(writer: { stop(): Promise<WriterReport> }, args: string[], seed: number, modes: [string, string]): Promise<{ kills: Kill[]; stderr: string[]; report: WriterReport }> {
  const random = seeded(seed);
  const kills: Kill[] = [];
  const stderr: string[] = [];
  const runs = series(args, (i) => withWorker(modes[i % 2]!));
  let report: WriterReport;
  try {
    for (let i = 0; i < FORWARD_KILLS; i++) {
      const h = await runs.next(i < FORWARD_KILLS - 1);
      kills.push(await killAt(h, random() * 1000, i % 2 === 1, true));
      stderr.push(h.stderr());
    }
  } finally {
    runs.close();
    // Stopped whatever happened: a failed kill must not leave the writer running.
    report = await writer.stop();
  }
  return { kills, stderr, report };
}

function tally(kills: Kill[]): string {
  const counts = new Map<string, number>();
  for (const k of kills) counts.set(k.landing, (counts.get(k.landing) ?? 0) + 1);
  const startup = kills.map((k) => k.startupMs).filter(Number.isFinite).sort((a, b) => a - b);
  return `${[...counts].map(([l, n]) => `${n} ${l}`).join(', ')}; from go to dataset open ${Math.round(startup[0] ?? 0)}–${Math.round(startup.at(-1) ?? 0)} ms`;
}

// The runs are independent (their own stores and homes); side by side they fit the time budget.
describe('the forwarder under SIGKILL', { concurrency: 2 }, () => {
  it(`backfill killed with SIGKILL at ${KILLS} random points, then run to the end, equals a clean backfill row for row`, async (t) => {
    const store = join(dir, 'backfill', 'state.db');
    const made = generatedStore({ out: store, sessions: 600, messages: 9_000, seed: 'forwarder-crash', journal: 'wal' });
    const before = sha(store);
    const args = (home: string) => ['backfill', '--state-db', store, '--home', home, '--json'];

    // The reference: one clean backfill into a fresh home, and a second one that finds nothing to do.
    const clean = join(dir, 'backfill', 'clean');
    const first = await complete(args(clean), true, 'off');
    const summary = JSON.parse(first.stdout) as { sessions: number; messages: number; seconds: number };
    assert.equal(summary.sessions, made.sessions);
    const second = await complete(args(clean), true, 'off');
    assert.equal((JSON.parse(second.stdout) as { wrote_nothing: boolean }).wrote_nothing, true);
    const full = passMs(first.h);
    const idle = passMs(second.h);

    const home = join(dir, 'backfill', 'killed');
    const random = seeded(20260714);
    const kills: Kill[] = [];
    let written = 0;
    const started = performance.now();
    // Every other run builds the first dataset aside for the whole pass (decision 0058: a kill drops the build), the
    // others publish it after 1,500 messages and go on in place (a kill keeps what was committed).
    const runs = series(args(home), (i) => ({ ...withWorker(i % 2 === 0 ? 'only' : 'auto'), HERMETIC_PROBE_HOLD_FINAL: '1', HERMETIC_BUILD_ASIDE: i % 2 === 0 ? '1500' : '' }));
    try {
      for (let i = 0; i < KILLS; i++) {
        // Spread over what is left of the run: the fixed part (copy, marks) plus the share of sessions not yet written.
        const left = Math.max(0, 1 - written / made.sessions);
        const delay = random() * (idle + (full - idle) * left);
        const h = await runs.next(i < KILLS - 1);
        kills.push(await killAt(h, delay, i % 2 === 1));
        written = datasetCount(home, 'sessions');
        assert.doesNotMatch(h.stderr(), STACK_LINE);
      }
    } finally {
      runs.close();
    }
    const killing = (performance.now() - started) / 1000;
    const committed = datasetCount(home, 'sessions');
    const last = await complete(args(home), false, 'only');
    const rewritten = (JSON.parse(last.stdout) as { sessions: number }).sessions - (made.sessions - committed);

    const midRun = kills.filter((k) => k.midRun).length;
    t.diagnostic(`store: ${made.sessions} sessions, ${made.messages} messages; clean backfill ${summary.seconds} s in process (${(full / 1000).toFixed(2)} s from dataset open to last commit), an idle pass ${(idle / 1000).toFixed(2)} s`);
    t.diagnostic(`${KILLS} kills in ${killing.toFixed(1)} s: ${midRun} landed mid-run (${tally(kills)}); sessions in the dataset before the final run: ${committed} of ${made.sessions}; the final run read ${rewritten} of those again`);
    // Only copies of dead processes count: the forward test beside this one may be reading its own copy right now.
    const dead = (name: string) => {
      try {
        process.kill(Number(/^hermetic-snapshot-(\d+)-/.exec(name)?.[1]), 0);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ESRCH';
      }
    };
    const leftovers = readdirSync(env.TMPDIR!).filter((n) => n.startsWith('hermetic-snapshot-') && dead(n));
    // A killed run cannot remove its private copy; the next run removes those of dead processes.
    assert.deepEqual(leftovers, []);
    // Nor can a killed build remove its file: the next run that writes removes those of dead processes.
    assert.deepEqual(readdirSync(home).filter((n) => n.startsWith('hermetic.db.build-')), []);

    assert.deepEqual(datasetDifferences(datasetRows(home), datasetRows(clean)), []);
    // The counts and tool calls kept beside the rows (decision 0069) are the rows', whatever the kills cut short.
    assert.deepEqual(keptDifferencesIn(home), []);
    // Beyond the five tables: the usage ledger and per-day usage, also written once per session by a backfill, and the
    // delegations, written with the store's cursor by the pass's last batch.
    assert.deepEqual(datasetDifferences(datasetRows(home, ['usage_events', 'daily_usage', 'delegations']), datasetRows(clean, ['usage_events', 'daily_usage', 'delegations'])), []);
    assert.ok(datasetCount(clean, 'delegations') > 0);
    assert.ok(midRun > KILLS / 2, `most kills landed mid-run: ${tally(kills)}`);
    // Strictly read-only: the store's bytes are untouched and nothing appeared beside it.
    assert.equal(sha(store), before);
    assert.deepEqual(['-wal', '-shm', '-journal'].filter((s) => existsSync(store + s)), []);
  });

  it(`forward killed with SIGKILL ${FORWARD_KILLS} times while Hermes writes, then run once, equals a clean backfill of the final store`, async (t) => {
    const store = join(dir, 'forward', 'state.db');
    generatedStore({ out: store, sessions: 120, messages: 2_000, seed: 'forwarder-crash-forward', journal: 'wal' });
    const writer = startWriter(store, { rate: 150, seed: 'forwarder-crash-writer', env });
    const { baseMaxMessageId } = await writer.ready;
    const home = join(dir, 'forward', 'killed');
    const args = ['forward', '--state-db', store, '--home', home, '--interval', '100ms'];
    const { kills, stderr, report } = await killForwardBeside(writer, args, 20260530, ['only', 'off']);
    const once = await complete(['forward', '--once', '--state-db', store, '--home', home], false, 'only');
    stderr.push(once.stderr);
    const clean = join(dir, 'forward', 'clean');
    await complete(['backfill', '--state-db', store, '--home', clean, '--json'], false, 'off');

    t.diagnostic(`writer: ${report.writes} writes, ${report.messages} messages (${report.messagesPerSecond}/s), ${report.sessionsCreated} sessions created, ${report.sessionsEnded} ended, ${report.sessionsResumed} resumed; longest write ${report.maxWaitMs} ms (lock ${report.maxLockMs} ms), p99 ${report.p99WaitMs} ms`);
    t.diagnostic(`${FORWARD_KILLS} kills: ${tally(kills)}`);
    assert.deepEqual(report.errors, []);
    assert.ok(kills.every((k) => k.midRun), `every kill found forward running: ${tally(kills)}`);

    // Nothing lost, nothing twice: per session the rows in `messages` are the store's live rows.
    const counts = datasetMessageCounts(home);
    assert.equal(counts.duplicates, 0);
    assert.deepEqual(countDifferences(counts.perSession, storeLiveCounts(store)), []);
    assert.deepEqual(countDifferences(counts.history, storeHistoryCounts(store)), []);
    assert.deepEqual(countDifferences(counts.liveColumn, counts.perSession), []);
    assert.equal(storeValue(store, `SELECT COUNT(*) FROM messages WHERE id > ${baseMaxMessageId}`), report.messages);
    assert.deepEqual(datasetDifferences(datasetRows(home), datasetRows(clean)), []);
    // The delegations Hermes still has are a clean backfill's; those it pruned meanwhile are kept, marked removed.
    assert.ok(report.delegations > 0, 'the writer changed delegations');
    assert.deepEqual(delegationRows(home, 0), delegationRows(clean, 0));
    const pruned = delegationRows(home, 1).map((r) => r[1] as string);
    assert.deepEqual(pruned.filter((id) => Number(storeValue(store, `SELECT COUNT(*) FROM async_delegations WHERE delegation_id = '${id}'`)) > 0), []);
    // The usage ledger (one row per observed change, so forward and backfill differ in rows) adds up exactly.
    assert.deepEqual(ledgerDifferences(home), []);
    assert.deepEqual(keptDifferencesIn(home), []);
    const all = stderr.join('');
    assert.doesNotMatch(all, STACK_LINE);
    assert.deepEqual(all.split('\n').filter((l) => l.startsWith('hermetic:')), []);
  });

  it(`forward killed with SIGKILL ${FORWARD_KILLS} times during incremental ticks of a long session (appends, rewinds), then run once, equals a clean backfill`, async (t) => {
    const store = join(dir, 'long', 'state.db');
    generatedStore({ out: store, sessions: 40, messages: 400, seed: 'forwarder-crash-long', journal: 'wal' });
    // The long session: 20,000 messages, written before forwarding starts.
    const db = new Database(store);
    let clock = 1_780_000_000;
    const w = new StateDbWriter(db, { now: () => (clock += 1), ids: createIdSource('crash-long') });
    const long = w.createSession({ source: 'cli', model: 'gpt-5', started_at: 1_780_000_000 });
    w.appendMessages(long, Array.from({ length: 20_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `long message ${i}` })));
    db.close();
    const home = join(dir, 'long', 'killed');
    // Forwarded once whole: every tick after is a delta against the long session's cursor.
    await complete(['forward', '--once', '--state-db', store, '--home', home], false, 'off');
    const writer = startWriter(store, { rate: 120, seed: 'forwarder-crash-long-writer', env, focus: long });
    await writer.ready;
    const args = ['forward', '--state-db', store, '--home', home, '--interval', '100ms'];
    const { kills, stderr, report } = await killForwardBeside(writer, args, 20260716, ['off', 'only']);
    const once = await complete(['forward', '--once', '--json', '--state-db', store, '--home', home], false, 'only');
    stderr.push(once.stderr);
    const clean = join(dir, 'long', 'clean');
    await complete(['backfill', '--state-db', store, '--home', clean, '--json'], false, 'off');

    const longNow = storeValue(store, `SELECT COUNT(*) FROM messages WHERE session_id = '${long}' AND active = 1`);
    t.diagnostic(`writer: ${report.writes} writes, ${report.messages} messages (${report.messagesPerSecond}/s) mostly to a session of 20,000, ${report.rewinds} rewinds of its tail; it ends with ${longNow} live messages`);
    t.diagnostic(`${FORWARD_KILLS} kills: ${tally(kills)}`);
    assert.deepEqual(report.errors, []);
    assert.ok(report.rewinds > 0, 'the long session was rewound');
    assert.ok(kills.every((k) => k.midRun), `every kill found forward running: ${tally(kills)}`);
    const counts = datasetMessageCounts(home);
    assert.equal(counts.duplicates, 0);
    assert.deepEqual(countDifferences(counts.perSession, storeLiveCounts(store)), []);
    assert.deepEqual(countDifferences(counts.history, storeHistoryCounts(store)), []);
    assert.deepEqual(datasetDifferences(datasetRows(home), datasetRows(clean)), []);
    assert.deepEqual(datasetDifferences(datasetRows(home, ['daily_usage']), datasetRows(clean, ['daily_usage'])), []);
    assert.deepEqual(ledgerDifferences(home), []);
    assert.deepEqual(keptDifferencesIn(home), []);
    const all = stderr.join('');
    assert.doesNotMatch(all, STACK_LINE);
    assert.deepEqual(all.split('\n').filter((l) => l.startsWith('hermetic:')), []);
  });
});

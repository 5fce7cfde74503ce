// `hermetic forward` against a live Hermes: while another process appends 200 messages a second to a WAL state.db
// through the Hermes-like writer (one BEGIN IMMEDIATE transaction per write, as Hermes's SessionDB), forward reads
// it every second for 30 s (HERMETIC_LIVE_SECONDS sets another length), then stops on SIGTERM. Every
// message the writer wrote ends up in `messages` exactly once, and no error is ever printed. How long the writer
// waited for its write transactions is reported (the goal is ≤ 100 ms), never asserted: timing depends on the machine.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, it } from 'node:test';
import Database from 'better-sqlite3';
import { generatedStore } from '../../src/state-db/testing/generated.js';
import {
  childEnv, countDifferences, datasetMessageCounts, ledgerDifferences, spawnHermetic, STACK_LINE, startWriter, storeHistoryCounts, storeLiveCounts, storeValue,
} from '../support/forwarder-harness.js';

const SECONDS = Number(process.env.HERMETIC_LIVE_SECONDS ?? 30);
const RATE = 200;

let dir: string;
let env: NodeJS.ProcessEnv;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-forwarder-live-'));
  env = childEnv(dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const errorLines = (text: string) => text.split('\n').filter((l) => l.startsWith('hermetic:') || /error|fail/i.test(l));

it(`forward --interval 1s keeps up with ${RATE} messages/s for ${SECONDS} s, then stops on SIGTERM with exit 0`, { timeout: (SECONDS + 180) * 1000 }, async (t) => {
  assert.ok(Number.isFinite(SECONDS) && SECONDS > 0, 'HERMETIC_LIVE_SECONDS is a number of seconds');
  const store = join(dir, 'state.db');
  generatedStore({ out: store, sessions: 30, messages: 400, seed: 'forwarder-live', journal: 'wal' });
  const home = join(dir, 'home');
  const writer = startWriter(store, { rate: RATE, seed: 'forwarder-live-writer', env });
  const { baseMaxMessageId } = await writer.ready;

  const fwd = spawnHermetic(['forward', '--state-db', store, '--home', home, '--interval', '1s'], { env });
  let report;
  let stoppedWith;
  try {
    await sleep(SECONDS * 1000);
    fwd.child.kill('SIGTERM');
    stoppedWith = await fwd.exited;
  } finally {
    fwd.child.kill('SIGKILL');
    report = await writer.stop();
  }
  assert.deepEqual(stoppedWith, { code: 0, signal: null }, fwd.stderr());
  const lines = fwd.stderr().trimEnd().split('\n');
  assert.equal(lines.at(-1), 'forward: stopped');
  assert.match(lines[0]!, /^forward: reading .* every 1s into .*; Ctrl-C stops$/);
  const ticks = lines.filter((l) => /^forward: default: \d+ sessions? written/.test(l)).length;
  // What forward had when it stopped, before the last read.
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  const forwardedLive = db.prepare('SELECT COUNT(*) FROM messages WHERE message_id > ?').pluck().get(baseMaxMessageId) as number;
  db.close();

  const once = spawnHermetic(['forward', '--once', '--state-db', store, '--home', home], { env });
  assert.equal((await once.exited).code, 0, once.stderr());

  t.diagnostic(`writer: ${report.writes} writes (${report.writesPerSecond}/s), ${report.messages} messages (${report.messagesPerSecond}/s) over ${report.seconds} s; ${report.sessionsCreated} sessions created, ${report.sessionsEnded} ended, ${report.sessionsResumed} resumed`);
  t.diagnostic(`writer's longest wait for a write transaction: ${report.maxWaitMs} ms (goal ≤ 100 ms; lock alone ${report.maxLockMs} ms, p99 ${report.p99WaitMs} ms, ${report.over100ms} writes over 100 ms, longest checkpoint ${report.maxCheckpointMs} ms, ${report.busyRetries} busy retries)`);
  t.diagnostic(`forward: ${ticks} ticks wrote something; it had ${forwardedLive} of the writer's ${report.messages} messages when it stopped`);

  const printed = fwd.stderr() + once.stderr();
  assert.doesNotMatch(printed, STACK_LINE);
  assert.deepEqual(errorLines(printed), []);
  assert.deepEqual(report.errors, []);
  assert.ok(ticks >= 1);

  // Every message the writer wrote is in `messages`, once: per session the store's live rows.
  const written = storeValue(store, `SELECT COUNT(*) FROM messages WHERE id > ${baseMaxMessageId}`);
  assert.equal(written, report.messages);
  const counts = datasetMessageCounts(home);
  assert.equal(counts.duplicates, 0);
  assert.deepEqual(countDifferences(counts.perSession, storeLiveCounts(store)), []);
    assert.deepEqual(countDifferences(counts.history, storeHistoryCounts(store)), []);
  const check = new Database(join(home, 'hermetic.db'), { readonly: true });
  assert.equal(check.prepare('SELECT COUNT(*) FROM messages WHERE message_id > ?').pluck().get(baseMaxMessageId), report.messages);
  check.close();
  assert.deepEqual(ledgerDifferences(home), []);
});

// The shipper over a real second SQLite file (the sqlite:// sink): snapshot then log, cursors and pruning, local-only
// sessions, redaction for sinks that leave the machine, retriable and fatal failures, one sink never holding another.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { logHead, pendingEntries, registerSink, removeSink, sinkRow, triggersOn } from './changelog.js';
import { DeltaReader } from './deltas.js';
import { PROGRAM_RULES } from '../../dataset/program.js';
import { Shipper } from './shipper.js';
import { sinkStatus } from './status.js';
import { readSqliteSinkFile, SqliteFileSink } from './sqlite-file.js';
import { startReceiver, type Receiver } from '../otlp/testing/receiver.js';
import { forgetSessions, forgetStores } from '../../pipeline/forget.js';
import { createPolicyResolver } from '../../policy/index.js';
import { SqliteSink } from '../sqlite/sink.js';
import { createWorld, expectedRows, heldRows, SECRET, type World } from './testing/world.js';
import type { RecordOf } from '../../dataset/columns.js';

/** The sqlite:// sink in the world's folder: its file, its URL, and what it holds of this machine. */
function copySink(world: World): { path: string; url: string; held: () => Record<string, RecordOf[]> } {
  const path = join(world.dir, 'copy.db');
  return { path, url: `sqlite://${path}`, held: () => readSqliteSinkFile(path, world.origin.machineId) };
}

/** A test's body run in a new world, cleaned up after whether it passed or not. */
function inWorld(body: (world: World) => Promise<void>): () => Promise<void> {
  return async () => {
    const world = createWorld();
    try {
      await body(world);
    } finally {
      await world.cleanup();
    }
  };
}

/** A shipper to `receiver` on a clock the test moves (no jitter), the receiver's next answer a 429 asking for 120 s. */
async function askedToWait(world: World, receiver: Receiver): Promise<{ clock: { ms: number }; shipper: Shipper }> {
  const clock = { ms: 1_800_000_000_000 };
  const shipper = await world.shipper([receiver.sinkUrl()], { now: () => clock.ms, random: () => 0, backoff: { baseMs: 1000, maxMs: 8000 } });
  receiver.plan({ status: 429, headers: { 'retry-after': '120' } });
  return { clock, shipper };
}

/** `fn` on the world's dataset opened as the forwarder's sink, closed after. */
function onDataset<T>(world: World, fn: (sink: SqliteSink) => T): T {
  const sink = SqliteSink.open(world.home);
  try {
    return fn(sink);
  } finally {
    sink.close();
  }
}

test('a new sink gets a snapshot of the dataset, then the log; the log is pruned once it acknowledged', inWorld(async (world) => {
  const { url, held } = copySink(world);
  assert.equal(triggersOn(world.dataset), false, 'no sink yet: no triggers');
  const first = await world.ship(url, { limits: { rows: 7 } });
  assert.equal(first.state, 'caught-up');
  assert.ok(first.batches > 3, `several bounded batches (${first.batches})`);
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
  assert.equal(triggersOn(world.dataset), true);
  const row = sinkRow(world.dataset, url)!;
  assert.equal(row.snapshot, null);
  world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'one more' }]);
  world.tick();
  assert.ok(pendingEntries(world.dataset, row.acked_seq) > 0, 'the tick logged its changes');
  const second = await world.ship(url);
  assert.equal(second.state, 'caught-up');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
  assert.equal(sinkRow(world.dataset, url)!.acked_seq, logHead(world.dataset));
  assert.equal(pendingEntries(world.dataset, 0), 0, 'every entry acknowledged is pruned');
}));

test('without a registered sink the dataset keeps no log; the last sink removed takes the triggers and the log away', inWorld(async (world) => {
  world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'no sink yet' }]);
  world.tick();
  assert.equal(triggersOn(world.dataset), false);
  assert.equal(world.dataset.prepare('SELECT COUNT(*) FROM change_log').pluck().get(), 0, 'a forwarder without sinks pays nothing');
  const url = `sqlite://${join(world.dir, 'a.db')}`;
  assert.equal((await world.ship(url)).state, 'caught-up');
  world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'a sink now' }]);
  // A write that fails leaves no entry: the log is written in the forwarder's own transaction.
  assert.throws(() => world.dataset.transaction(() => {
    world.dataset.prepare("UPDATE sessions SET title = 'x' WHERE session_id = ?").run(world.sessions.main);
    throw new Error('rolled back');
  })());
  assert.equal(pendingEntries(world.dataset, 0), 0);
  world.tick();
  assert.ok(pendingEntries(world.dataset, 0) > 0);
  assert.equal(removeSink(world.dataset, url), true);
  assert.equal(triggersOn(world.dataset), false);
  assert.equal(pendingEntries(world.dataset, 0), 0);
  assert.equal(removeSink(world.dataset, url), false);
}));

test('a session that becomes local-only is deleted at the sink, rows and all (its row issues too); full again, it is sent whole again', inWorld(async (world) => {
  const { url, held } = copySink(world);
  const rowsOf = (id: string) => Object.values(held()).flat().filter((r) => r.session_id === id).length;
  /** The main session's repaired values at the sink (decision 0092): it shares the second's folder. */
  const issuesOfMain = () => (held().row_issues ?? []).filter((r) => r.session_id === world.sessions.main).length;
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.ok(rowsOf(world.sessions.second) > 10);
  assert.equal(issuesOfMain(), 1);
  mkdirSync(join(world.dir, 'work'), { recursive: true });
  writeFileSync(join(world.dir, 'work', '.hypignore'), 'local-only\n');
  for (const id of [world.sessions.second, world.sessions.main]) world.w.appendMessages(id, [{ role: 'user', content: 'now private' }]);
  world.tick();
  assert.equal(world.dataset.prepare('SELECT policy FROM sessions WHERE session_id = ?').pluck().get(world.sessions.second), 'local-only');
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.equal(rowsOf(world.sessions.second), 0, 'nothing of it is left at the sink');
  assert.equal(issuesOfMain(), 0, 'nor the row issues of a session that became local-only');
  assert.equal(world.dataset.prepare('SELECT COUNT(*) FROM row_issues WHERE session_id = ?').pluck().get(world.sessions.main), 1, 'the dataset keeps them');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
  rmSync(join(world.dir, 'work', '.hypignore'));
  for (const id of [world.sessions.second, world.sessions.main]) world.w.appendMessages(id, [{ role: 'user', content: 'public again' }]);
  world.tick();
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.ok(rowsOf(world.sessions.second) > 10, 'all of it is back');
  assert.equal(issuesOfMain(), 1, 'its row issues too');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
}));

test('a policy move (a .hypignore written, nothing new in Hermes) takes a delegation\'s row issues with the delegation, and brings them back (decision 0092)', inWorld(async (world) => {
  const { url, held } = copySink(world);
  const issuesOf = (id: string) => (held().row_issues ?? []).filter((r) => r.session_id === id).length;
  const policyOf = () => world.dataset.prepare('SELECT policy FROM delegations WHERE delegation_id = ?').pluck().get(world.delegations.main);
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.deepEqual([issuesOf(world.sessions.main), issuesOf(world.delegations.main)], [1, 1]);
  mkdirSync(join(world.dir, 'work'), { recursive: true });
  writeFileSync(join(world.dir, 'work', '.hypignore'), 'local-only\n');
  world.tick();
  assert.equal(policyOf(), 'local-only', 'the delegation moved with its session');
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.deepEqual([issuesOf(world.sessions.main), issuesOf(world.delegations.main)], [0, 0], 'none of its row issues is left at the sink');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
  rmSync(join(world.dir, 'work', '.hypignore'));
  world.tick();
  assert.equal(policyOf(), 'full');
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.deepEqual([issuesOf(world.sessions.main), issuesOf(world.delegations.main)], [1, 1], 'all back');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
}));

test('hermetic forget: the forgotten session\'s rows, its row issues among them, are deleted at the sink (decision 0092)', inWorld(async (world) => {
  const { url, held } = copySink(world);
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.equal((held().row_issues ?? []).filter((r) => r.session_id === world.sessions.main).length, 1);
  mkdirSync(join(world.dir, 'work'), { recursive: true });
  writeFileSync(join(world.dir, 'work', '.hypignore'), 'ignore\n');
  const r = onDataset(world, (sink) => forgetSessions(sink, createPolicyResolver({ stateDir: world.home, now: Date.now }), { sessions: [world.sessions.main] }));
  assert.deepEqual(r.forgotten.map((f) => f.sessionId), [world.sessions.main]);
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.equal(Object.values(held()).flat().filter((r) => r.session_id === world.sessions.main).length, 0, 'nothing of it is left at the sink');
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
}));

test('hermetic forget --store: every row of the store is deleted at the sink (decision 0157)', inWorld(async (world) => {
  const { url, held } = copySink(world);
  assert.equal((await world.ship(url)).state, 'caught-up');
  assert.ok((held().messages ?? []).length > 0 && (held().usage_ledger ?? []).length > 0);
  const [r] = onDataset(world, (sink) => forgetStores(sink, [join(world.dir, 'hermes')], [], world.home));
  assert.equal(r!.sessions, 3);
  assert.equal((await world.ship(url)).state, 'caught-up');
  // What backfills left unread is one row over every store: none is left to hold any.
  const { backfill_unread: unread, ...rest } = held();
  assert.deepEqual(Object.entries(rest).filter(([, rows]) => rows.length > 0).map(([t]) => t), [], 'nothing of the store is left at the sink');
  assert.deepEqual(unread!.map((r) => r.stores), ['[]']);
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
}));

test('a batch carries the naming rules the dataset records when it is read, not the shipping process\'s (decision 0158)', inWorld(async (world) => {
  registerSink(world.dataset, { id: 'sqlite:x', display: 'sqlite:x' }, 1);
  const reader = new DeltaReader(world.dataset, world.origin);
  const rulesOf = () => reader.next(sinkRow(world.dataset, 'sqlite:x')!, false)!.batch.programRules;
  assert.equal(rulesOf(), PROGRAM_RULES);
  // Another Hermetic, of other rules, named the dataset since this process opened it.
  world.dataset.prepare("UPDATE dataset_meta SET value = ? WHERE key = 'program_rules'").run(String(PROGRAM_RULES + 1));
  assert.equal(rulesOf(), PROGRAM_RULES + 1);
  // A dataset that records none (before version 15): the batch says nothing, and the sink takes its own.
  world.dataset.prepare("DELETE FROM dataset_meta WHERE key = 'program_rules'").run();
  assert.equal(rulesOf(), undefined);
}));

/** A second SQLite file on another machine, as far as redaction goes (the same file sink, leavesMachine true). */
class FarFileSink extends SqliteFileSink {
  override readonly leavesMachine = true;
}

test('rows leaving the machine are redacted by default (keys never), and sent as they are with redact off', inWorld(async (world) => {
  const far = new FarFileSink(join(world.dir, 'far.db'));
  const shipper = new Shipper({ db: world.dataset, sinks: [far], origin: world.origin, now: () => 1.8e12 });
  assert.equal((await shipper.shipAll())[0]!.state, 'caught-up');
  await shipper.close();
  const held = readSqliteSinkFile(far.path, world.origin.machineId);
  assert.ok(!JSON.stringify(held).includes(SECRET));
  assert.deepEqual(heldRows(held), expectedRows(world.dataset, true));
  const first = held.messages!.find((m) => m.session_id === world.sessions.main && m.seq === 0)!;
  assert.match(String(first.content), /OPENAI_API_KEY=\*\*\*|sk-pro\.\.\./);
  const args = held.parts!.find((p) => p.part_type === 'tool_call')!;
  assert.equal(typeof JSON.parse(String(args.tool_args)).command, 'string', 'JSON stays JSON');
  const plain = new FarFileSink(join(world.dir, 'plain.db'));
  const raw = new Shipper({ db: world.dataset, sinks: [plain], origin: world.origin, redact: false });
  await raw.shipAll();
  await raw.close();
  assert.ok(JSON.stringify(readSqliteSinkFile(plain.path, world.origin.machineId)).includes(SECRET), '--no-redact');
}));

test('a fatal failure stops that sink with a clear message and the others go on; retriable ones back off with jitter', inWorld(async (world) => {
  const broken = join(world.dir, 'broken.db');
  writeFileSync(broken, 'this is not a database, and never will be'.repeat(100));
  const locked = join(world.dir, 'locked.db');
  const good = join(world.dir, 'good.db');
  const lines: string[] = [];
  const clock = { ms: 1_800_000_000_000 };
  let draws = 0;
  const shipper = await world.shipper([`sqlite://${broken}`, `sqlite://${locked}?busy_timeout_ms=20`, `sqlite://${good}`], {
    now: () => clock.ms, random: () => [0, 1, 0.5][draws++ % 3]!, say: (l) => lines.push(l), backoff: { baseMs: 1000, maxMs: 8000 },
  });
  const holder = new Database(locked);
  holder.exec('BEGIN EXCLUSIVE');
  try {
    const [fatal, retry, fine] = await shipper.shipAll();
    assert.equal(fatal!.state, 'stopped');
    assert.equal(fatal!.error!.retriable, false);
    assert.match(fatal!.error!.message, /^cannot open .*broken\.db: file is not a database \(SQLITE_NOTADB\); the file is not a SQLite database this sink can use: name another file with --sink/);
    // Refused at its first open: not kept as a sink (nor a change log grown for it); one down for now is kept.
    assert.equal(sinkRow(world.dataset, `sqlite://${broken}`), null);
    assert.notEqual(sinkRow(world.dataset, `sqlite://${locked}`), null);
    assert.equal(fine!.state, 'caught-up', 'the good sink is not held back');
    assert.deepEqual(heldRows(readSqliteSinkFile(good, world.origin.machineId)), expectedRows(world.dataset, false));
    assert.equal(retry!.state, 'retrying');
    // Backoff: half the delay plus a random half (random() = 0 → 500 ms after the first failure).
    assert.equal(retry!.retryAt, clock.ms / 1000 + 0.5);
    assert.equal((await shipper.shipAll())[0]!.state, 'stopped', 'a stopped sink is not tried again in this process');
    clock.ms += 600;
    const again = (await shipper.shipAll())[1]!;
    assert.equal(again.retryAt, clock.ms / 1000 + 2, 'second failure: 2 s, the random half whole (random() = 1)');
    const row = sinkRow(world.dataset, `sqlite://${locked}`)!;
    assert.equal(row.failures, 2);
    assert.match(row.last_error!, /database is locked \(SQLITE_BUSY\) \[HERMETIC_SINK_UNAVAILABLE\]$/);
    assert.ok(lines.some((l) => /sink sqlite:.*broken\.db stopped: .* \[HERMETIC_SINK_FAILED\]; it is not kept as a sink; the other sinks go on/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /sink sqlite:.*locked\.db failed \(.*\) \[HERMETIC_SINK_UNAVAILABLE\]; retrying in \d+ s$/.test(l)), lines.join('\n'));
    // One pass and done (backfill, forward --once): the next run tries it, not this one.
    const said: string[] = [];
    const once = await world.shipper([`sqlite://${locked}?busy_timeout_ms=20`], { say: (l) => said.push(l), once: true });
    assert.equal((await once.shipAll())[0]!.state, 'retrying');
    assert.match(said.join('\n'), /\[HERMETIC_SINK_UNAVAILABLE\]; the next run tries it again$/);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  clock.ms += 5000;
  lines.length = 0;
  const back = (await shipper.shipAll())[1]!;
  assert.equal(back.state, 'caught-up');
  assert.equal(sinkRow(world.dataset, `sqlite://${locked}`)!.last_error, null);
  // Back after an outage: said once, in those words.
  assert.deepEqual(lines, [`hermetic: sink sqlite://${locked} is reachable again (${back.rows.toLocaleString('en-US')} rows sent) and up to date`]);
  lines.length = 0;
  await shipper.shipAll();
  assert.deepEqual(lines, [], 'a sink that did not fail is not said to be back');
}));

test('a sink that ships again after a fatal failure (a schema fixed, then a new run) names what it failed with, not an outage', inWorld(async (world) => {
  const file = join(world.dir, 'fixed.db');
  const first = await world.shipper([`sqlite://${file}`]);
  assert.equal((await first.shipAll())[0]!.state, 'caught-up');
  // What a stopped run left: the failure recorded on the sink's row (as #failed writes it).
  world.dataset.prepare('UPDATE remote_sinks SET failures = 1, last_error = ? WHERE sink_id = ?').run('relation "sessions" does not exist [HERMETIC_SINK_SCHEMA]', `sqlite://${file}`);
  const lines: string[] = [];
  const later = await world.shipper([`sqlite://${file}`], { say: (l) => lines.push(l) });
  const r = (await later.shipAll())[0]!;
  assert.equal(r.state, 'caught-up');
  assert.deepEqual(lines, [`hermetic: sink sqlite://${file} ships again after HERMETIC_SINK_SCHEMA (${r.rows.toLocaleString('en-US')} ${r.rows === 1 ? 'row' : 'rows'} sent) and up to date`]);
  // Nothing was left to send: holding everything ends the failure all the same (status no longer says it fails), and
  // the next pass says nothing.
  assert.deepEqual([sinkRow(world.dataset, `sqlite://${file}`)!.failures, sinkRow(world.dataset, `sqlite://${file}`)!.last_error], [0, null]);
  lines.length = 0;
  await later.shipAll();
  assert.deepEqual(lines, []);
}));

test('a receiver that asks to be left alone (429 with Retry-After) is not sent to again before then; then the batch goes through', inWorld(async (world) => {
  const receiver = await startReceiver();
  try {
    const { clock, shipper } = await askedToWait(world, receiver);
    const first = (await shipper.shipAll())[0]!;
    assert.equal(first.state, 'retrying');
    assert.equal(first.retryAt, clock.ms / 1000 + 120, 'the receiver\'s 120 s, not the backoff\'s 0.5 s');
    clock.ms += 60_000;
    assert.equal((await shipper.shipAll())[0]!.state, 'waiting');
    assert.equal(receiver.requests.length, 1);
    clock.ms += 60_000;
    assert.equal((await shipper.shipAll())[0]!.state, 'caught-up');
  } finally {
    await receiver.close();
  }
}));

test('a clock set back while a sink waits for its retry: it is tried again now, not when the clock catches up', inWorld(async (world) => {
  const receiver = await startReceiver();
  try {
    const { clock, shipper } = await askedToWait(world, receiver);
    assert.equal((await shipper.shipAll())[0]!.state, 'retrying');
    clock.ms -= 86_400_000;
    assert.equal((await shipper.shipAll())[0]!.state, 'caught-up');
  } finally {
    await receiver.close();
  }
}));

test('one slow sink holds neither the local write nor another sink back', inWorld(async (world) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const slow = new (class extends SqliteFileSink {
    override async write(batch: Parameters<SqliteFileSink['write']>[0]): Promise<void> {
      await gate;
      return super.write(batch);
    }
  })(join(world.dir, 'slow.db'));
  const fast = new SqliteFileSink(join(world.dir, 'fast.db'));
  const shipper = new Shipper({ db: world.dataset, sinks: [slow, fast], origin: world.origin });
  shipper.kick();
  // The fast one finishes while the slow one waits; the forwarder writes meanwhile, and the fast one ships that too.
  await waitFor(() => sinkRow(world.dataset, fast.id)?.snapshot === null);
  world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'while one sink is slow' }]);
  world.tick();
  shipper.kick();
  await waitFor(() => sinkRow(world.dataset, fast.id)!.acked_seq === logHead(world.dataset));
  assert.deepEqual(heldRows(readSqliteSinkFile(fast.path, world.origin.machineId)), expectedRows(world.dataset, false));
  assert.notEqual(sinkRow(world.dataset, slow.id)!.snapshot, null, 'the slow one is still on its first batch');
  release();
  await shipper.idle();
  shipper.kick();
  await shipper.idle();
  assert.deepEqual(heldRows(readSqliteSinkFile(slow.path, world.origin.machineId)), expectedRows(world.dataset, false));
  await shipper.close();
}));

/** Waits (yielding to the event loop) until the condition holds. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 100_000) throw new Error('the condition never held');
    await new Promise((r) => setImmediate(r));
  }
}

test('status: a sink behind counts its changes and the seconds since it last held everything', inWorld(async (world) => {
  const url = `sqlite://${join(world.dir, 'copy.db')}`;
  assert.equal((await world.ship(url, { now: () => 1_800_000_000_000 })).state, 'caught-up');
  assert.deepEqual(sinkStatus(world.dataset, 1_800_000_100).map((s) => [s.display, s.lag_rows, s.lag_seconds, s.snapshot_pending]), [[url, 0, 0, false]]);
  world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'later' }]);
  world.tick();
  const [behind] = sinkStatus(world.dataset, 1_800_000_100);
  assert.ok(behind!.lag_rows > 0);
  assert.equal(behind!.lag_seconds, 100, 'since it was last caught up');
}));

test('status: a first copy never sent is not "under way", and one under way says the table it is at', inWorld(async (world) => {
  registerSink(world.dataset, { id: 'never', display: 'sqlite:///never.db' }, 1_800_000_000);
  const [never] = sinkStatus(world.dataset, 1_800_000_060);
  assert.deepEqual([never!.snapshot_pending, never!.snapshot, never!.lag_seconds], [true, { table: 'sessions', tables_done: 0, tables: 11, started: false }, 60]);
  world.dataset.prepare("UPDATE remote_sinks SET snapshot = ? WHERE sink_id = 'never'").run(JSON.stringify({ table: 'parts', after: ['s', 'x', 'p'] }));
  const [under] = sinkStatus(world.dataset, 1_800_000_060);
  assert.deepEqual(under!.snapshot, { table: 'parts', tables_done: 2, tables: 11, started: true });
}));

/** A file sink whose writes wait at a gate; with `abortable`, abort() makes the write under way reject. */
function gatedSink(path: string, abortable: boolean) {
  const state = { started: 0, release: () => {}, abort: (_e: Error) => {} };
  const sink = new (class extends SqliteFileSink {
    override async write(batch: Parameters<SqliteFileSink['write']>[0]): Promise<void> {
      state.started++;
      await new Promise<void>((resolve, reject) => { state.release = resolve; state.abort = reject; });
      return super.write(batch);
    }
  })(path);
  if (abortable) Object.assign(sink, { abort: () => state.abort(new Error('aborted by close')) });
  return { sink, state };
}

test('close: a pass ends after the batch under way (the rest goes next run), and that batch is acknowledged', inWorld(async (world) => {
  const { sink, state } = gatedSink(join(world.dir, 'gated.db'), false);
  const results: string[] = [];
  const shipper = new Shipper({ db: world.dataset, sinks: [sink], origin: world.origin, limits: { rows: 2 }, onShipped: (r) => results.push(`${r.state} ${r.batches}`) });
  shipper.kick();
  await waitFor(() => state.started === 1);
  const closed = shipper.close(60_000);
  state.release();
  await closed;
  assert.deepEqual(results, ['behind 1'], 'one batch sent, then the pass ended');
  const row = sinkRow(world.dataset, sink.id)!;
  assert.deepEqual([row.failures, row.last_error, row.shipped_rows], [0, null, 2]);
  assert.notEqual(row.snapshot, null, 'the first copy goes on next run');
}));

test('close: a write that outlasts the grace is cut short (RemoteSink.abort); not a failure, nothing acknowledged', inWorld(async (world) => {
  const { sink, state } = gatedSink(join(world.dir, 'stuck.db'), true);
  const results: string[] = [];
  const said: string[] = [];
  const shipper = new Shipper({ db: world.dataset, sinks: [sink], origin: world.origin, say: (l) => said.push(l), onShipped: (r) => results.push(`${r.state} ${r.batches}`) });
  const before = sinkRow(world.dataset, sink.id);
  shipper.kick();
  await waitFor(() => state.started === 1);
  await shipper.close(10);
  assert.deepEqual(results, ['behind 0']);
  assert.deepEqual(said, [], 'no failure said');
  const row = sinkRow(world.dataset, sink.id)!;
  assert.deepEqual([row.failures, row.last_error, row.shipped_rows, row.acked_seq], [0, null, 0, before?.acked_seq ?? row.acked_seq]);
  assert.deepEqual(JSON.parse(row.snapshot!), { table: 'sessions', after: null }, 'the cursor did not move');
  shipper.kick();
  assert.equal(state.started, 1, 'a closed shipper starts no pass');
}));

test('a destination holding changes this dataset did not send (a home restored from a backup, or copied) stops the sink before anything is skipped; a fresh copy then makes it whole', inWorld(async (world) => {
  const { path, url, held } = copySink(world);
  assert.equal((await world.ship(url)).state, 'caught-up');
  // A replay of this dataset's own batch after a crash is still skipped (the conformance suite's kill -9 test); here
  // another copy of the home, under the same machine id, sent its own changes 1 … 40 above this cursor first.
  const acked = sinkRow(world.dataset, url)!.acked_seq;
  world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'after the backup' }]);
  world.tick();
  const head = logHead(world.dataset);
  const copy = new Database(path);
  copy.prepare('UPDATE hermetic_origins SET applied_seq = ?, applied_from = ?, applied_digest = ? WHERE machine_id = ?').run(head, acked, 'another copy of this dataset', world.origin.machineId);
  copy.close();
  const lines: string[] = [];
  const stopped = await world.ship(url, { say: (l) => void lines.push(l) });
  assert.equal(stopped.state, 'stopped');
  assert.equal(stopped.error?.code, 'HERMETIC_SINK_DIVERGED');
  assert.match(stopped.error!.message, /restored from a backup, or copied from another machine/);
  assert.equal(sinkRow(world.dataset, url)!.acked_seq, acked, 'nothing acknowledged, nothing skipped');
  // The fresh copy the message asks for: the sink removed and added again holds the dataset whole, and the log
  // batches after it are sent, not skipped against the other copy's record.
  removeSink(world.dataset, url);
  assert.equal((await world.ship(url)).state, 'caught-up');
  world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'after the fresh copy' }]);
  world.tick();
  const after = await world.ship(url);
  assert.deepEqual([after.state, after.skipped], ['caught-up', 0]);
  assert.ok(after.batches >= 1);
  assert.deepEqual(heldRows(held()), expectedRows(world.dataset, false));
}));

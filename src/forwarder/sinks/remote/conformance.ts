// The conformance suite every remote sink passes (decision 0035; DESIGN habit 13). A sink's test file calls
// `remoteSinkConformance` with a factory of fresh destinations (a URL the sink registry turns into the sink, here and
// in a child process) and a reader of what a destination holds; the suite drives a real Hermes store, the forwarder
// and the shipper, and checks after each step that the destination holds exactly the dataset's shipped rows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { RecordOf } from '../../dataset/columns.js';
import { removeSink, sinkRow } from './changelog.js';
import type { Origin } from './contract.js';
import { DeltaReader } from './deltas.js';
import { createRemoteSink } from './registry.js';
import { createWorld, expectedRows, heldRows, SECRET, T0, type World } from './testing/world.js';

export interface ConformanceTarget {
  /** A fresh, empty destination's URL (`postgres://…/db_17`, `sqlite:///tmp/x/copy.db`); the registry makes the sink. */
  url: string;
  /** What the destination holds for one origin: rows per shipped table (extra columns such as machine_id are ignored). */
  read(origin: Origin): Promise<Record<string, readonly RecordOf[]>>;
  /** Makes the destination unreachable, so that writes fail with a retriable SinkError, until `up`. */
  down(): Promise<void>;
  up(): Promise<void>;
  cleanup?(): Promise<void>;
}

export interface ConformanceOptions {
  /** A fresh destination per test. */
  fresh: () => Promise<ConformanceTarget>;
  /**
   * The crash case's child as plain node runs it: a JavaScript build of SHIP_CHILD (test/support/cli-build.ts
   * `builtModule`, about 0.8 s of CPU less a start than tsx; decision 0095). Without it, SHIP_CHILD through tsx.
   */
  shipChild?: () => string;
}

/** The crash case's child shipper (TypeScript). */
export const SHIP_CHILD = join(dirname(fileURLToPath(import.meta.url)), 'testing', 'ship-child.ts');

async function check(world: World, target: ConformanceTarget, leavesMachine: boolean, label: string): Promise<void> {
  const held = heldRows(await target.read(world.origin));
  assert.deepEqual(held, expectedRows(world.dataset, leavesMachine), `${label}: the destination holds the dataset's shipped rows`);
}

/** Runs the child shipper until it says it wrote a batch, then kills it with SIGKILL; resolves with what it said. */
function crashAfterWrite(world: World, url: string, rows: number, shipChild?: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(shipChild ? [shipChild()] : ['--import', 'tsx', SHIP_CHILD]), world.home, url, world.dir, String(rows)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('WROTE ')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && out.includes('WROTE ')) resolve(out);
      else reject(new Error(`the child shipper ended (${code ?? signal}) without writing a batch: ${out}${err}`));
    });
  });
}

/**
 * Registers the suite's tests under `name`.
 * @example remoteSinkConformance('postgres', { fresh: async () => ({ url, read, down, up }) });
 */
export function remoteSinkConformance(name: string, options: ConformanceOptions): void {
  const scenario = (title: string, fn: (world: World, target: ConformanceTarget, leavesMachine: boolean) => Promise<void>) => {
    test(`${name} sink: ${title}`, async () => {
      const world = createWorld(`hermetic-conf-${name.replace(/\W+/g, '-')}-`);
      const target = await options.fresh();
      try {
        const probe = await createRemoteSink(target.url, { home: world.home, cwd: world.dir });
        await fn(world, target, probe.leavesMachine);
      } finally {
        await world.cleanup();
        await target.cleanup?.();
      }
    });
  };

  scenario('after a backfill the destination equals the dataset, local-only sessions left out, secrets redacted when it leaves the machine', async (world, target, leavesMachine) => {
    const r = await world.ship(target.url, { limits: { rows: 9 } });
    assert.equal(r.state, 'caught-up', r.error?.message);
    await check(world, target, leavesMachine, 'after the snapshot');
    const held = await target.read(world.origin);
    const all = JSON.stringify(held);
    assert.ok(!all.includes(world.sessions.private), 'nothing of the local-only session');
    assert.ok(all.includes(world.sessions.main));
    assert.equal(all.includes(SECRET), !leavesMachine, leavesMachine ? 'the secret is redacted' : 'a sink on this machine gets the text as it is');
    // The values the forwarder repaired (decision 0092): the main session's and its delegation's, not the local-only
    // session's or its delegation's; the problem that quotes a secret redacted like any text.
    const issues = held.row_issues ?? [];
    assert.deepEqual(issues.map((r) => [r.session_id, r.field]).sort(), [[world.delegations.main, 'async_delegations.updated_at'], [world.sessions.main, 'timestamp']].sort());
    assert.equal(JSON.stringify(issues).includes(SECRET), !leavesMachine, 'a problem quoting a secret');
  });

  scenario('the same batch applied twice (a replay) changes nothing', async (world, target, leavesMachine) => {
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'and now?' }, { role: 'assistant', content: 'done', finish_reason: 'stop' }]);
    world.w.replaceMessages(world.sessions.second, [{ role: 'user', content: 'question 0' }, { role: 'assistant', content: 'a new answer' }]);
    world.tick();
    const sink = await createRemoteSink(target.url, { home: world.home, cwd: world.dir });
    await sink.open();
    try {
      const next = new DeltaReader(world.dataset, world.origin).next(sinkRow(world.dataset, sink.id)!, leavesMachine)!;
      assert.ok(next.batch.deletes.length > 0 && next.batch.upserts.length > 0, 'the batch both upserts and deletes');
      await sink.write(next.batch);
      await sink.write(next.batch);
    } finally {
      await sink.close();
    }
    // The shipper then sends it (or skips it, where the destination recorded it) a third time.
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    await check(world, target, leavesMachine, 'after the replays');
  });

  scenario('kill -9 between the sink\'s write and the local acknowledgement loses and duplicates nothing', async (world, target, leavesMachine) => {
    // In the snapshot: the first chunk is at the destination, the dataset does not know it.
    const said = await crashAfterWrite(world, target.url, 5, options.shipChild);
    assert.match(said, /WROTE \d+ \d+/);
    assert.equal((await world.ship(target.url, { limits: { rows: 5 } })).state, 'caught-up');
    await check(world, target, leavesMachine, 'after a crash in the snapshot');
    // In the log: a batch of changes is at the destination, the cursor is before it.
    world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'after the crash' }, { role: 'assistant', content: 'still here', finish_reason: 'stop' }]);
    world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'more' }]);
    // A windowed backfill that reads the main session and leaves the second (started after the window) unread: its
    // count travels in the same log (backfill_unread, decision 0102).
    for (const r of world.forwarder.backfill({ until: T0 + 10 })) assert.equal(r.error, null, `the backfill failed: ${r.error?.message}`);
    const unread = JSON.parse(world.dataset.prepare("SELECT stores FROM backfill_unread WHERE scope = 'stores'").pluck().get() as string) as { sessions: number }[][];
    assert.deepEqual(unread.map((spans) => spans.map((u) => u.sessions)), [[1]], 'the second session left unread');
    const acked = sinkRow(world.dataset, (await createRemoteSink(target.url, { home: world.home, cwd: world.dir })).id)!.acked_seq;
    await crashAfterWrite(world, target.url, 3, options.shipChild);
    assert.equal(sinkRow(world.dataset, (await createRemoteSink(target.url, { home: world.home, cwd: world.dir })).id)!.acked_seq, acked, 'the local cursor did not move');
    const after = await world.ship(target.url, { limits: { rows: 3 } });
    assert.equal(after.state, 'caught-up');
    const probe = await createRemoteSink(target.url, { home: world.home, cwd: world.dir });
    await probe.open();
    const applied = ((await probe.applied(world.origin).finally(() => probe.close()))?.seq) ?? null;
    // A destination that records what it applied (in the batch's own transaction) is not sent that batch again.
    if (applied !== null) assert.ok(after.skipped >= 1, `the batch the destination already held was skipped (${JSON.stringify(after)})`);
    await check(world, target, leavesMachine, 'after a crash in the log');
    for (const rows of Object.values(await target.read(world.origin))) {
      const keys = rows.map((r) => JSON.stringify(r));
      assert.equal(new Set(keys).size, keys.length, 'no row twice');
    }
  });

  scenario('rows removed in Hermes (/retry rewrites the tail) are removed at the destination', async (world, target, leavesMachine) => {
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    const before = (await target.read(world.origin)).messages!.length;
    world.w.replaceMessages(world.sessions.second, [{ role: 'user', content: 'question 0' }, { role: 'assistant', content: 'answer 0' }, { role: 'user', content: 'question 1' }, { role: 'assistant', content: 'a better answer 1' }]);
    world.tick();
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    await check(world, target, leavesMachine, 'after /retry');
    assert.ok((await target.read(world.origin)).messages!.length < before, 'fewer messages than before the /retry');
  });

  scenario('a sink removed and added again gets a copy equal to the dataset: rows the dataset lost in between are gone from it', async (world, target, leavesMachine) => {
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    const before = (await target.read(world.origin)).messages!.length;
    // `hermetic sinks remove`: its cursor goes; the destination keeps what it had.
    const sink = await createRemoteSink(target.url, { home: world.home, cwd: world.dir });
    assert.ok(removeSink(world.dataset, sink.id));
    world.w.replaceMessages(world.sessions.second, [{ role: 'user', content: 'question 0' }, { role: 'assistant', content: 'a shorter story' }]);
    world.tick();
    // Added again: a snapshot, whose first batch leaves nothing of this machine's earlier rows behind.
    assert.equal((await world.ship(target.url, { limits: { rows: 7 } })).state, 'caught-up');
    await check(world, target, leavesMachine, 'after the sink was added again');
    assert.ok((await target.read(world.origin)).messages!.length < before, 'the rows the dataset lost are gone');
  });

  scenario('a delegation Hermes finishes, delivers and prunes is updated at the destination, kept and marked removed', async (world, target, leavesMachine) => {
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    const id = world.delegations.main;
    world.w.claimDelegationDelivery(id);
    world.w.markDelegationDelivered(id);
    world.tick();
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    await check(world, target, leavesMachine, 'after the delivery');
    const delivered = (await target.read(world.origin)).delegations!.find((r) => r.delegation_id === id);
    assert.equal(delivered?.delivery_state, 'delivered');
    // Its time is a time again: the value once repaired is no longer a row issue, at the destination either.
    assert.ok(!(await target.read(world.origin)).row_issues!.some((r) => r.session_id === id), 'its row issue is deleted');
    world.hermes.prepare('DELETE FROM async_delegations WHERE delegation_id = ?').run(id);
    world.tick();
    assert.equal((await world.ship(target.url)).state, 'caught-up');
    await check(world, target, leavesMachine, 'after Hermes pruned it');
    const kept = (await target.read(world.origin)).delegations!.find((r) => r.delegation_id === id);
    assert.equal(Number(kept?.removed_from_store), 1, 'kept at the destination, marked removed');
    assert.ok(!JSON.stringify((await target.read(world.origin)).delegations).includes(world.delegations.private), 'the local-only session\'s delegation never leaves');
  });

  scenario('a sink down for a while is retried with backoff and catches up when it is back', async (world, target, leavesMachine) => {
    const clock = { ms: 1_800_000_000_000 };
    const shipper = await world.shipper([target.url], { now: () => clock.ms, random: () => 0 });
    assert.equal((await shipper.shipAll())[0]!.state, 'caught-up');
    await target.down();
    world.w.appendMessages(world.sessions.main, [{ role: 'user', content: 'while it was down' }]);
    world.tick();
    const down = (await shipper.shipAll())[0]!;
    assert.equal(down.state, 'retrying', 'a retriable failure');
    assert.equal(down.error?.retriable, true);
    const row = sinkRow(world.dataset, shipper.sinks[0]!.id)!;
    assert.equal(row.failures, 1);
    assert.ok(row.last_error, 'the failure is recorded for status');
    assert.ok(row.retry_at !== null && row.retry_at > clock.ms / 1000, 'and when it is tried again');
    assert.equal((await shipper.shipAll())[0]!.state, 'waiting', 'not tried again before its time');
    world.w.appendMessages(world.sessions.second, [{ role: 'user', content: 'still down' }]);
    world.tick();
    await target.up();
    clock.ms = row.retry_at! * 1000 + 1;
    const back = (await shipper.shipAll())[0]!;
    assert.equal(back.state, 'caught-up', back.error?.message);
    await check(world, target, leavesMachine, 'after it came back');
    assert.equal(sinkRow(world.dataset, shipper.sinks[0]!.id)!.failures, 0);
  });
}

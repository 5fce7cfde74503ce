// A usage policy changed after sessions were forwarded moves them on the next pass, without waiting for them to change
// in Hermes: a channel folder that becomes local-only makes its sessions local-only (and the change log carries the move
// to remote sinks); full again, they are full again; `ignore` is left to `hermetic forget`; a pass that just wrote every
// session (a first backfill) does not judge them twice.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { forwarderRig, hermesStore } from '../testing/index.js';

test('a folder that becomes local-only moves the sessions forwarded before; full again, they move back', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-policy-moves-', 'moves');
  const telegram = w.createSession({ source: 'telegram' });
  const cron = w.createSession({ source: 'cron' });
  for (const id of [telegram, cron]) w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  db.close();
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => clock });
  const policies = () => Object.fromEntries(rig.query<{ session_id: string; policy: string }>('SELECT session_id, policy FROM sessions').map((r) => [r.session_id, r.policy]));
  const channel = join(dir, 'hermes', 'channels', 'telegram');
  try {
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'local-only\n');
    // The policy's cache and the moves' pace are a few seconds: the next pass after them moves the session.
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'local-only', [cron]: 'full' });
    rmSync(join(channel, '.hypignore'));
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
    // `ignore` is forget's to apply: the rows stay as they were until then.
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('the full look at every session comes each minute, and at once after the clock was set back (not a day later)', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-policy-moves-clock-', 'clock');
  const telegram = w.createSession({ source: 'telegram' });
  w.appendMessages(telegram, [{ role: 'user', content: 'hi' }]);
  db.close();
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => clock });
  const policy = () => rig.query<{ policy: string }>('SELECT policy FROM sessions')[0]!.policy;
  // A row's class changed behind the scopes' back (by hand, or by a Hermetic of other rules): only a full look sees it.
  const setBehind = () => {
    const edit = new Database(join(rig.home, 'hermetic.db'));
    edit.prepare("UPDATE sessions SET policy = 'local-only'").run();
    edit.close();
  };
  try {
    rig.forwarder.backfill();
    clock += 10_000;
    rig.forwarder.forwardOnce(); // the first look at a dataset that was there: a full one
    setBehind();
    clock += 10_000;
    rig.forwarder.forwardOnce();
    assert.equal(policy(), 'local-only', 'within the minute only the scopes are judged again, and none changed class');
    clock += 60_000;
    rig.forwarder.forwardOnce();
    assert.equal(policy(), 'full', 'a minute on, the full look puts the row back in its class');
    setBehind();
    clock -= 86_400_000;
    rig.forwarder.forwardOnce();
    assert.equal(policy(), 'full', 'the clock set back a day: the full look is due at once');
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a pass counts the sessions it moved in its store\'s result, each way, and none when nothing moved (decision 0143)', async () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-policy-moves-said-', 'said');
  const telegram = [w.createSession({ source: 'telegram' }), w.createSession({ source: 'telegram' })];
  const cron = w.createSession({ source: 'cron' });
  for (const id of [...telegram, cron]) w.appendMessages(id, [{ role: 'user', content: 'hi' }]);
  db.close();
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => clock });
  const moved = (rs: { sessionsToLocalOnly: number; sessionsToFull: number; sessionsWritten: number }[]) => rs.map((r) => [r.sessionsToLocalOnly, r.sessionsToFull, r.sessionsWritten]);
  const channel = join(dir, 'hermes', 'channels', 'telegram');
  try {
    assert.deepEqual(moved(rig.forwarder.backfill()), [[0, 0, 3]]);
    clock += 10_000;
    assert.deepEqual(moved(rig.forwarder.forwardOnce()), [[0, 0, 0]]);
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'local-only\n');
    clock += 10_000;
    assert.deepEqual(moved(rig.forwarder.forwardOnce()), [[2, 0, 0]]);
    // Judged again with nothing changed: nothing moved, nothing counted.
    clock += 10_000;
    assert.deepEqual(moved(await rig.forwarder.forwardOnceAsync()), [[0, 0, 0]]);
    rmSync(join(channel, '.hypignore'));
    clock += 10_000;
    assert.deepEqual(moved(await rig.forwarder.backfillAsync()), [[0, 2, 0]]);
    // `ignore` moves nothing here (forget's to apply): nothing counted.
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    clock += 10_000;
    assert.deepEqual(moved(rig.forwarder.backfill()), [[0, 0, 0]]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('the moves of a store the pass did not read go to onOtherMoves, per store (decision 0143)', () => {
  const a = hermesStore('hermetic-policy-moves-other-a-', 'other-a');
  const b = hermesStore('hermetic-policy-moves-other-b-', 'other-b');
  for (const s of [a, b]) {
    s.w.appendMessages(s.w.createSession({ source: 'cli', cwd: join(a.dir, 'project') }), [{ role: 'user', content: 'hi' }]);
    s.db.close();
  }
  mkdirSync(join(a.dir, 'project'), { recursive: true });
  let clock = 1_800_000_000_000;
  const home = join(a.dir, 'hermetic-home');
  const both = forwarderRig([a.path, b.path], { dir: a.dir, home, now: () => clock });
  const one = forwarderRig([a.path], { dir: a.dir, home, now: () => clock });
  try {
    both.forwarder.backfill();
    writeFileSync(join(a.dir, 'project', '.hypignore'), 'local-only\n');
    clock += 10_000;
    const others: unknown[] = [];
    const results = one.forwarder.forwardOnce({ onOtherMoves: (m) => others.push(...m) });
    assert.deepEqual(results.map((r) => [r.store, r.sessionsToLocalOnly, r.sessionsToFull]), [[a.path, 1, 0]]);
    assert.deepEqual(others, [{ store: b.path, toLocalOnly: 1, toFull: 0 }]);
  } finally {
    one.cleanup();
    both.cleanup();
    a.cleanup();
    b.cleanup();
  }
});

test('a session forwarded before its folder became ignore stays until it changes; then its removal is said as such (decision 0143)', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-policy-moves-ignore-', 'ignore');
  const telegram = w.createSession({ source: 'telegram' });
  w.appendMessages(telegram, [{ role: 'user', content: 'hi' }]);
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => clock });
  const channel = join(dir, 'hermes', 'channels', 'telegram');
  try {
    rig.forwarder.backfill();
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    clock += 10_000;
    const [kept] = rig.forwarder.forwardOnce();
    assert.deepEqual([kept!.sessionsIgnored, kept!.sessionsToLocalOnly, kept!.policyDrops], [0, 0, []]);
    // Changed in Hermes: read again, ignored now, its rows removed; a session new to the dataset is only not recorded.
    w.appendMessages(telegram, [{ role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
    const fresh = w.createSession({ source: 'telegram' });
    w.appendMessages(fresh, [{ role: 'user', content: 'first' }]);
    clock += 10_000;
    const [r] = rig.forwarder.forwardOnce();
    assert.equal(r!.sessionsIgnored, 2);
    assert.deepEqual(r!.policyDrops.map((d) => [d.sessionId, d.removed]).sort(), [[fresh, undefined], [telegram, true]].sort());
    assert.deepEqual(rig.query('SELECT session_id FROM sessions'), []);
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
});

// forget judges a session as a pass judges it, and never by a scope it cannot rebuild: a PostgreSQL store's key is no
// folder, so until its row names its Hermes home a session of it is judged by the scope the dataset recorded. What it
// removed comes back, as an ignored session does, once the policy no longer ignores it.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter, type MessageInput } from '../../state-db/writer/index.js';
import { createPolicyResolver } from '../policy/index.js';
import { readCursors, SqliteSink } from '../sinks/sqlite/sink.js';
import { forwarderRig } from '../testing/index.js';
import { forgetSessions } from './forget.js';
import { pendingOf } from './pending.js';
import { stillIgnored } from './project.js';

/** A Hermes home in a temp folder whose store holds a telegram session and a cron one, each with `messages`. */
function twoSessions(seed: string, messages: MessageInput[]) {
  const { dir, cleanup } = tempDir('hermetic-forget-');
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'), { recursive: true });
  const db = createStore({ path, level: 31, journal: 'delete', fts: false });
  const w = new StateDbWriter(db, { now: () => 1_780_000_000, ids: createIdSource(seed) });
  const ids = [w.createSession({ source: 'telegram' }), w.createSession({ source: 'cron' })];
  for (const id of ids) w.appendMessages(id, messages);
  db.close();
  return { dir, cleanup, path, ids };
}

test('a session of a store keyed by a URL, with no Hermes home recorded, is judged by its recorded scope: kept when that is full', () => {
  const { dir, cleanup, path, ids } = twoSessions('forget-pg', [{ role: 'user', content: 'hi' }]);
  const rig = forwarderRig([path], { dir });
  try {
    rig.forwarder.backfill();
    rig.forwarder.close();
    // As a PostgreSQL profile's rows are keyed, and as a dataset from before version 9 holds them (no hermes_home).
    const key = 'postgres://hermes@db.internal:5432/hermes#public';
    const sink = SqliteSink.open(rig.home);
    try {
      sink.db.prepare('UPDATE sessions SET store = ?').run(key);
      sink.db.prepare('UPDATE stores SET store = ?, hermes_home = NULL').run(key);
      const policy = createPolicyResolver({ stateDir: rig.home, now: Date.now });
      const r = forgetSessions(sink, policy, { sessions: ids });
      assert.deepEqual(r.forgotten, []);
      assert.deepEqual(r.kept.map((k) => [k.sessionId, k.scope, /: full$/.test(k.reason)]), [
        [ids[0], join(dir, 'hermes', 'channels', 'telegram'), true],
        [ids[1], join(dir, 'hermes', 'sources', 'cron'), true],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    } finally {
      sink.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a forgotten session comes back once its folder is no longer ignored: pending in status, read by the next pass', () => {
  const { dir, cleanup, path, ids: [chat] } = twoSessions('forget-back', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]);
  const rig = forwarderRig([path], { dir });
  const count = () => rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?', chat)[0]!.n;
  const pending = () => {
    const sink = SqliteSink.open(rig.home);
    try {
      return pendingOf(path, readCursors(sink.db, path, false), 1_800_000_000, new Map(), stillIgnored(createPolicyResolver({ stateDir: rig.home, now: Date.now }))).sessions;
    } finally {
      sink.close();
    }
  };
  try {
    rig.forwarder.backfill();
    rig.forwarder.close();
    assert.equal(count(), 2);
    const channel = join(dir, 'hermes', 'channels', 'telegram');
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    const sink = SqliteSink.open(rig.home);
    try {
      const r = forgetSessions(sink, createPolicyResolver({ stateDir: rig.home, now: Date.now }), { scope: channel });
      assert.deepEqual(r.forgotten.map((f) => f.sessionId), [chat]);
    } finally {
      sink.close();
    }
    assert.equal(count(), 0);
    // Still ignored: nothing to read, and a pass writes nothing.
    assert.equal(pending(), 0);
    const again = forwarderRig([path], { dir, home: rig.home });
    again.forwarder.backfill();
    again.forwarder.close();
    assert.equal(count(), 0);
    // Lifted: pending, then read again whole.
    rmSync(join(channel, '.hypignore'));
    assert.equal(pending(), 1);
    const back = forwarderRig([path], { dir, home: rig.home });
    back.forwarder.backfill();
    back.forwarder.close();
    assert.equal(count(), 2);
    assert.equal(pending(), 0);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('forget --scope matches a folder by every spelling the policy judges it by: a symlink to it, or the folder a session reached through one', () => {
  const { dir, cleanup } = tempDir('hermetic-forget-link-');
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'), { recursive: true });
  const real = join(dir, 'real');
  mkdirSync(join(real, 'a'), { recursive: true });
  mkdirSync(join(dir, 'realbc'), { recursive: true });
  symlinkSync(real, join(dir, 'link'));
  const db = createStore({ path, level: 31, journal: 'delete', fts: false });
  const w = new StateDbWriter(db, { now: () => 1_780_000_000, ids: createIdSource('forget-link') });
  // One session ran in the real folder, one reached it through the link, one in a folder whose name only starts alike.
  const direct = w.createSession({ source: 'cli', cwd: join(real, 'a') });
  const viaLink = w.createSession({ source: 'cli', cwd: join(dir, 'link', 'a') });
  const alike = w.createSession({ source: 'cli', cwd: join(dir, 'realbc') });
  for (const id of [direct, viaLink, alike]) w.appendMessages(id, [{ role: 'user', content: 'hi' }]);
  db.close();
  const rig = forwarderRig([path], { dir });
  try {
    rig.forwarder.backfill();
    rig.forwarder.close();
    writeFileSync(join(real, '.hypignore'), 'ignore\n');
    writeFileSync(join(dir, 'realbc', '.hypignore'), 'ignore\n');
    const sink = SqliteSink.open(rig.home);
    try {
      const policy = createPolicyResolver({ stateDir: rig.home, now: Date.now });
      // Asked by the link's name: both sessions under the real folder go, the look-alike stays.
      const r = forgetSessions(sink, policy, { scope: join(dir, 'link') });
      assert.deepEqual(r.forgotten.map((f) => f.sessionId).sort(), [direct, viaLink].sort());
    } finally {
      sink.close();
    }
    assert.deepEqual(rig.query<{ session_id: string }>('SELECT DISTINCT session_id FROM messages').map((r) => r.session_id), [alike]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a forget beside a running forward stays forgotten: the forward reads the policy again once another process wrote the dataset', () => {
  const { dir, cleanup } = tempDir('hermetic-forget-running-');
  const path = join(dir, 'hermes', 'state.db');
  const project = join(dir, 'project');
  mkdirSync(join(dir, 'hermes'), { recursive: true });
  mkdirSync(project);
  const db = createStore({ path, level: 31, journal: 'delete', fts: false });
  const w = new StateDbWriter(db, { now: () => 1_780_000_000, ids: createIdSource('forget-running') });
  const id = w.createSession({ source: 'cli', cwd: project });
  w.appendMessages(id, [{ role: 'user', content: 'a secret' }]);
  db.close();
  // The running forward's clock: its policy answers are kept 5 s on it.
  const clock = { ms: 1_800_000_000_000 };
  const rig = forwarderRig([path], { dir, now: () => clock.ms });
  const count = () => rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages')[0]!.n;
  try {
    rig.forwarder.forwardOnce();
    assert.equal(count(), 1);
    writeFileSync(join(project, '.hypignore'), 'ignore\n');
    const sink = SqliteSink.open(rig.home);
    try {
      assert.equal(forgetSessions(sink, createPolicyResolver({ stateDir: rig.home, now: Date.now }), { scope: project }).forgotten.length, 1);
    } finally {
      sink.close();
    }
    clock.ms += 1000;
    rig.forwarder.forwardOnce();
    assert.equal(count(), 0, 'the next tick, within the policy cache, does not bring it back');
    clock.ms += 120_000;
    rig.forwarder.forwardOnce();
    assert.equal(count(), 0);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

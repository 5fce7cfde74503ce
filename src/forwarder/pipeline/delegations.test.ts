// Hermes's async_delegations in the dataset (decision 0054): a backfill holds every row as the store has it, forward
// ticks write only the rows that changed (and nothing while nothing did), a row Hermes prunes stays marked
// removed_from_store, a store without the table has none, garbage values are said in row_issues, a redacted dataset
// holds no secret of a goal or a summary, and each row is judged by its delegating session's usage policy.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import type { Db } from '../../shared/sqlite.js';
import { createDirs } from '../../shared/dirs.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { createPolicyResolver } from '../policy/index.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { assertCleanBackfill, forwarderRig, type Rig } from '../testing/index.js';
import { forgetSessions } from './forget.js';
import type { StepResult } from './step.js';

const T0 = 1784000000;
const SECRET = 'sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789';
type Row = Record<string, unknown>;

interface Store {
  dir: string;
  path: string;
  db: Db;
  w: StateDbWriter;
  clock: { t: number };
  cleanup(): void;
}

/** A store a Hermes-like writer keeps open, as a running Hermes does. */
function store(level = 31, prefix = 'hermetic-delegations-'): Store {
  const { dir, cleanup } = tempDir(prefix);
  const path = join(dir, 'hermes', 'state.db');
  const db = createStore({ path, level, journal: 'wal', fts: false, generation: 'gen-a' });
  const clock = { t: T0 };
  const w = new StateDbWriter(db, { now: () => (clock.t += 1), ids: createIdSource('delegations') });
  return { dir, path, db, w, clock, cleanup: () => { if (db.open) db.close(); cleanup(); } };
}

const delegationsOf = (rig: Pick<Rig, 'query'>) => rig.query<Row>('SELECT * FROM delegations ORDER BY delegation_id');
const tick = (rig: Rig): StepResult => {
  const [r] = rig.forwarder.forwardOnce();
  assert.equal(r!.error, null, r!.error?.message);
  return r!;
};

/** The dataset equals a clean backfill of the store as it is now (rows Hermes deleted aside: a backfill never saw them). */
const equalsBackfill = (s: Store, rig: Rig, label: string) => assertCleanBackfill(rig, s.path, label);

test('a backfill holds every delegation of a generated store, each value as the store has it', () => {
  const { dir, cleanup } = tempDir('hermetic-delegations-gen-');
  try {
    const g = generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: 120, seed: 'delegations' });
    const rig = forwarderRig([g.path], { dir });
    try {
      const [r] = rig.forwarder.backfill();
      assert.equal(r!.error, null);
      const ref = new Database(g.path, { readonly: true });
      const stored = ref.prepare('SELECT * FROM async_delegations ORDER BY delegation_id').all() as Row[];
      ref.close();
      assert.ok(stored.length >= 2, 'the generator wrote delegations');
      assert.equal(r!.delegationsWritten, stored.length);
      const held = delegationsOf(rig);
      assert.deepEqual(held.map((d) => d.delegation_id), stored.map((d) => d.delegation_id));
      for (const [i, d] of held.entries()) {
        const s = stored[i]!;
        for (const c of ['parent_session_id', 'state', 'delivery_state', 'delivery_attempts', 'dispatched_at', 'completed_at', 'updated_at', 'delivered_at']) {
          assert.equal(d[c], s[c], `${String(s.delegation_id)}.${c}`);
        }
        const task = JSON.parse(s.task_json as string) as { goals: string[] };
        const event = JSON.parse(s.event_json as string) as { summary: string | null; results?: { summary: string | null }[] };
        assert.equal(d.goal, task.goals.join('\n'));
        assert.equal(d.summary, event.summary ?? (event.results?.map((c) => c.summary).filter((x) => x).join('\n\n') || null));
        assert.equal(d.duration_seconds, Math.round(((s.completed_at as number) - (s.dispatched_at as number)) * 1e6) / 1e6);
        assert.equal(d.removed_from_store, 0);
        assert.equal(d.origin, 'backfill');
        // The session that delegated is in the dataset, and the delegation has its policy.
        assert.deepEqual(rig.query('SELECT policy FROM sessions WHERE session_id = ?', d.parent_session_id), [{ policy: d.policy }]);
        // Where the result was routed and who owned the work stay in the store.
        for (const c of ['origin_session', 'owner_pid', 'owner_started_at', 'delivery_claim']) assert.equal(c in d, false);
      }
      // A second pass over the unchanged store writes nothing.
      assert.equal(rig.forwarder.backfill()[0]!.delegationsWritten, 0);
    } finally {
      rig.cleanup();
    }
  } finally {
    cleanup();
  }
});

test('forward ticks write each change Hermes makes, only the rows it touched, and a pruned row stays marked removed', () => {
  const s = store();
  const rig = forwarderRig([s.path], { dir: s.dir });
  try {
    const parent = s.w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0, cwd: join(s.dir, 'work') });
    s.w.appendMessages(parent, [{ role: 'user', content: 'research two libraries' }, { role: 'assistant', content: 'dispatching', finish_reason: 'stop' }]);
    const a = s.w.dispatchDelegation({ parent_session_id: parent, goals: ['research lib a'], context: 'json layer' });
    const b = s.w.dispatchDelegation({ parent_session_id: parent, goals: ['research lib b', 'check its licence'] });
    assert.equal(tick(rig).delegationsWritten, 2);
    assert.deepEqual(delegationsOf(rig).map((d) => [d.delegation_id, d.state, d.delivery_state, d.goal]),
      [[a, 'running', 'pending', 'research lib a'], [b, 'running', 'pending', 'research lib b\ncheck its licence']].sort());
    equalsBackfill(s, rig, 'the dispatch');

    // Nothing committed: the store is skipped. A message committed: the table is stamped, no row read or written.
    assert.equal(tick(rig).delegationsWritten, 0);
    s.w.appendMessages(parent, [{ role: 'user', content: 'any news?' }]);
    assert.deepEqual([tick(rig).delegationsWritten, rig.query<Row>('SELECT COUNT(*) AS n FROM messages')[0]!.n], [0, 3]);

    s.w.completeDelegation(a, { summary: 'fast-json wins', api_calls: 3 });
    assert.equal(tick(rig).delegationsWritten, 1, 'only the row that changed');
    equalsBackfill(s, rig, 'the completion');
    s.w.completeDelegation(b, { status: 'error', results: [{ status: 'completed', summary: 'lib b is fine' }, { status: 'error', error: 'licence page 404' }] });
    const claim = s.w.claimDelegationDelivery(a);
    assert.ok(claim);
    assert.equal(tick(rig).delegationsWritten, 2);
    const [da, db] = delegationsOf(rig).sort((x, y) => (x.delegation_id === a ? -1 : y.delegation_id === a ? 1 : 0));
    assert.deepEqual([da!.state, da!.delivery_attempts, da!.summary], ['completed', 1, 'fast-json wins']);
    assert.deepEqual([db!.state, db!.summary, db!.error], ['error', 'lib b is fine', 'licence page 404']);
    assert.deepEqual(JSON.parse(db!.attributes as string).results, [
      { task_index: 0, status: 'completed', exit_reason: 'completed', api_calls: 0, duration_seconds: 3 },
      { task_index: 1, status: 'error', exit_reason: 'completed', api_calls: 0, duration_seconds: 3 },
    ]);
    equalsBackfill(s, rig, 'a claim');

    // Hermes's release moves no time: the stamp still sees it. Past 8 attempts the result is dropped.
    s.w.releaseDelegationDelivery(a);
    for (let i = 0; i < 7; i++) {
      s.w.claimDelegationDelivery(a);
      s.w.releaseDelegationDelivery(a);
    }
    tick(rig);
    assert.deepEqual(rig.query('SELECT delivery_state, delivery_attempts FROM delegations WHERE delegation_id = ?', a), [{ delivery_state: 'dropped', delivery_attempts: 8 }]);
    s.w.claimDelegationDelivery(b);
    s.w.markDelegationDelivered(b);
    tick(rig);
    equalsBackfill(s, rig, 'the delivery');

    // A week on, the next dispatch prunes the delivered row: the dataset keeps it, marked removed.
    s.clock.t += 8 * 86400;
    const c = s.w.dispatchDelegation({ parent_session_id: parent, goals: ['one more'] });
    assert.deepEqual(s.db.prepare('SELECT delegation_id FROM async_delegations ORDER BY delegation_id').pluck().all(), [a, c].sort());
    const r = tick(rig);
    assert.deepEqual([r.delegationsWritten, r.delegationsRemoved], [1, 1]);
    assert.deepEqual(rig.query('SELECT delegation_id, removed_from_store FROM delegations ORDER BY delegation_id'),
      [{ delegation_id: a, removed_from_store: 0 }, { delegation_id: b, removed_from_store: 1 }, { delegation_id: c, removed_from_store: 0 }].sort((x, y) => (x.delegation_id < y.delegation_id ? -1 : 1)));
    assert.equal(rig.query<Row>('SELECT summary FROM delegations WHERE delegation_id = ?', b)[0]!.summary, 'lib b is fine', 'its history kept');
    assert.equal(tick(rig).delegationsRemoved, 0, 'said once');
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a store without async_delegations (before schema 24) has none and no error; one at 24 lacks origin_session_id and reads', () => {
  for (const level of [23, 24]) {
    const s = store(level);
    const rig = forwarderRig([s.path], { dir: s.dir });
    try {
      const parent = s.w.createSession({ source: 'cli', started_at: T0 });
      s.w.appendMessages(parent, [{ role: 'user', content: 'hi' }]);
      if (level >= 24) s.w.dispatchDelegation({ parent_session_id: parent, goals: ['a task'] });
      const r = tick(rig);
      assert.deepEqual([r.delegationsWritten, r.sessionsWritten], [level >= 24 ? 1 : 0, 1]);
      assert.equal(delegationsOf(rig).length, level >= 24 ? 1 : 0);
      assert.equal(tick(rig).delegationsWritten, 0);
    } finally {
      rig.cleanup();
      s.cleanup();
    }
  }
});

test('garbage in a delegation row is kept as far as it can be and every change is a row issue (a number in a TEXT column is its text)', () => {
  const s = store();
  const rig = forwarderRig([s.path], { dir: s.dir });
  try {
    const parent = s.w.createSession({ source: 'cli', started_at: T0 });
    const id = s.w.dispatchDelegation({ parent_session_id: parent, goals: ['a task'] });
    s.w.completeDelegation(id, { summary: 'done' });
    s.db.prepare(`UPDATE async_delegations SET completed_at = 5e246, delivered_at = 'soon', delivery_attempts = 2.5, state = 7,
      result_json = '{not json', task_json = CAST('{"goal": "from a blob"}' AS BLOB) WHERE delegation_id = ?`).run(id);
    tick(rig);
    const [d] = delegationsOf(rig);
    assert.deepEqual([d!.completed_at, d!.delivered_at, d!.duration_seconds, d!.delivery_attempts, d!.state, d!.goal, d!.summary],
      [null, null, null, 3, '7', 'from a blob', 'done']);
    assert.deepEqual(rig.query('SELECT session_id, message_id, field, problem FROM row_issues ORDER BY field'), [
      { session_id: id, message_id: 0, field: 'async_delegations.completed_at', problem: 'completed_at 5e+246 is not a plausible time; NULL is kept' },
      { session_id: id, message_id: 0, field: 'async_delegations.delivered_at', problem: 'delivered_at "soon" is not a plausible time; NULL is kept' },
      { session_id: id, message_id: 0, field: 'async_delegations.delivery_attempts', problem: 'delivery_attempts is 2.5, not a whole number; 3 is kept' },
      { session_id: id, message_id: 0, field: 'async_delegations.result_json', problem: 'result_json is not JSON; what it holds is left out' },
      { session_id: id, message_id: 0, field: 'async_delegations.task_json', problem: 'stored as a 23-byte BLOB, not text; decoded as UTF-8' },
    ]);
    // Repaired by Hermes: the row is written again and its issues go.
    s.db.prepare("UPDATE async_delegations SET completed_at = updated_at, delivered_at = NULL, delivery_attempts = 1, state = 'completed', result_json = NULL, task_json = '{\"goal\": \"a task\"}' WHERE delegation_id = ?").run(id);
    tick(rig);
    assert.deepEqual(rig.query('SELECT field FROM row_issues'), []);
    assert.equal(delegationsOf(rig)[0]!.state, 'completed');
    equalsBackfill(s, rig, 'the repair');
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a redacted dataset holds no secret of a goal, a context, a summary or an error', () => {
  const s = store();
  const rig = forwarderRig([s.path], { dir: s.dir, redact: true });
  try {
    const parent = s.w.createSession({ source: 'cli', started_at: T0 });
    const id = s.w.dispatchDelegation({ parent_session_id: parent, goals: [`deploy with GITHUB_TOKEN=${SECRET}`], context: `the key is ${SECRET}` });
    s.w.completeDelegation(id, { status: 'error', summary: `used OPENAI_API_KEY=${SECRET}`, error: `401 for Authorization: Bearer ${SECRET}` });
    tick(rig);
    const [d] = delegationsOf(rig);
    assert.ok(!JSON.stringify(d).includes(SECRET.slice(8)), JSON.stringify(d));
    assert.match(String(d!.goal), /^deploy with GITHUB_TOKEN=/);
    assert.ok(d!.summary && d!.error && JSON.parse(d!.attributes as string).context, 'the texts are there, masked');
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a delegation is judged by its delegating session\'s scopes: local-only kept here, ignore never written, no parent kept here', () => {
  const s = store();
  const rig = forwarderRig([s.path], { dir: s.dir });
  try {
    const dirs = { open: join(s.dir, 'open'), local: join(s.dir, 'local'), ignored: join(s.dir, 'ignored') };
    for (const d of Object.values(dirs)) createDirs(d);
    writeFileSync(join(dirs.local, '.hypignore'), 'local-only\n');
    writeFileSync(join(dirs.ignored, '.hypignore'), 'ignore\n');
    const session = (cwd: string) => s.w.createSession({ source: 'cli', started_at: T0, cwd });
    const open = s.w.dispatchDelegation({ parent_session_id: session(dirs.open), goals: ['open'] });
    const local = s.w.dispatchDelegation({ parent_session_id: session(dirs.local), goals: ['local'] });
    const ignored = s.w.dispatchDelegation({ parent_session_id: session(dirs.ignored), goals: ['ignored'] });
    const orphan = s.w.dispatchDelegation({ parent_session_id: 'gone-session', goals: ['orphan'] });
    const none = s.w.dispatchDelegation({ goals: ['no parent'] });
    tick(rig);
    assert.deepEqual(rig.query('SELECT delegation_id, policy FROM delegations ORDER BY delegation_id'),
      [{ delegation_id: open, policy: 'full' }, { delegation_id: local, policy: 'local-only' }, { delegation_id: orphan, policy: 'local-only' }, { delegation_id: none, policy: 'local-only' }]
        .sort((x, y) => (x.delegation_id < y.delegation_id ? -1 : 1)));
    assert.equal(rig.query('SELECT 1 FROM delegations WHERE delegation_id = ?', ignored).length, 0);
    // Changes of an ignored scope's delegation are never written either.
    s.w.completeDelegation(ignored, { summary: 'secret work' });
    tick(rig);
    assert.equal(rig.query('SELECT 1 FROM delegations WHERE delegation_id = ?', ignored).length, 0);
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a session moved to local-only by the pass that rewrites it takes its delegations, unchanged in Hermes, with it', () => {
  const s = store();
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([s.path], { dir: s.dir, now: () => clock });
  try {
    const project = join(s.dir, 'project');
    createDirs(project);
    const parent = s.w.createSession({ source: 'cli', started_at: T0, cwd: project });
    s.w.appendMessages(parent, [{ role: 'user', content: 'hi' }]);
    const delegation = s.w.dispatchDelegation({ parent_session_id: parent, goals: ['work'] });
    tick(rig);
    const classes = () => [rig.query<{ policy: string }>('SELECT policy FROM sessions')[0]!.policy, rig.query<{ policy: string }>('SELECT policy FROM delegations WHERE delegation_id = ?', delegation)[0]!.policy];
    assert.deepEqual(classes(), ['full', 'full']);
    // Something new in the session and a .hypignore at once: the pass itself writes the session local-only.
    writeFileSync(join(project, '.hypignore'), 'local-only\n');
    s.w.appendMessages(parent, [{ role: 'assistant', content: 'more', finish_reason: 'stop' }]);
    clock += 10_000;
    assert.equal(tick(rig).sessionsWritten, 1);
    assert.deepEqual(classes(), ['local-only', 'local-only']);
    // And back, the same way.
    rmSync(join(project, '.hypignore'));
    s.w.appendMessages(parent, [{ role: 'user', content: 'again' }]);
    clock += 10_000;
    tick(rig);
    assert.deepEqual(classes(), ['full', 'full']);
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a session forgotten for an ignore scope takes its delegations with it', () => {
  const s = store();
  const rig = forwarderRig([s.path], { dir: s.dir });
  try {
    const secret = join(s.dir, 'secret');
    createDirs(secret);
    const parent = s.w.createSession({ source: 'cli', started_at: T0, cwd: secret });
    s.w.appendMessages(parent, [{ role: 'user', content: 'hi' }]);
    s.w.dispatchDelegation({ parent_session_id: parent, goals: ['private errand'] });
    tick(rig);
    assert.equal(delegationsOf(rig).length, 1);
    writeFileSync(join(secret, '.hypignore'), 'ignore\n');
    const sink = SqliteSink.open(rig.home);
    try {
      assert.equal(forgetSessions(sink, createPolicyResolver({ stateDir: rig.home, now: Date.now }), { scope: secret }).forgotten.length, 1);
    } finally {
      sink.close();
    }
    assert.deepEqual([delegationsOf(rig).length, rig.query('SELECT * FROM sessions').length], [0, 0]);
  } finally {
    rig.cleanup();
    s.cleanup();
  }
});

test('a dataset from before version 8 gains the delegations table and every store\'s delegations on the next pass', () => {
  const s = store();
  const home = join(s.dir, 'home');
  try {
    const parent = s.w.createSession({ source: 'cli', started_at: T0 });
    s.w.appendMessages(parent, [{ role: 'user', content: 'hi' }]);
    s.w.dispatchDelegation({ parent_session_id: parent, goals: ['a task'] });
    const first = forwarderRig([s.path], { dir: s.dir, home });
    first.forwarder.forwardOnce();
    first.cleanup();
    // As version 7 left it: no delegations table, no marks on the stores row.
    const old = new Database(join(home, 'hermetic.db'));
    old.exec('DROP TABLE delegations; ALTER TABLE stores DROP COLUMN delegation_marks');
    old.pragma('user_version = 7');
    old.close();
    const second = forwarderRig([s.path], { dir: s.dir, home });
    try {
      const r = second.forwarder.forwardOnce()[0]!;
      assert.deepEqual([r.sessionsWritten, r.delegationsWritten], [0, 1]);
      assert.equal(delegationsOf(second).length, 1);
    } finally {
      second.cleanup();
    }
  } finally {
    s.cleanup();
  }
});

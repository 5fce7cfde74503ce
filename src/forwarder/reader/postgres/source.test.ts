// Hermes's PostgreSQL backend as a source, against a real PostgreSQL server (decision 0038): the same history in a
// state.db and in PostgreSQL gives the same dataset, row for row (the store's name aside), tick after tick — new
// messages, a /retry, a rewind, a deleted session — and a tick with nothing new writes nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { createIdSource } from '../../../shared/ids.js';
import { sharedPostgres } from '../../../shared/testing/postgres.js';
import { StateDbWriter } from '../../../state-db/writer/index.js';
import { completeDelegation, dispatchDelegation } from '../../../state-db/writer/delegations.js';
import { setMessageReaction, stampDisplayKind } from '../../../state-db/writer/edits.js';
import { copyFixture, tempDir } from '../../../state-db/testing/fixtures.js';
import { DATASET_TABLES } from '../../dataset/columns.js';
import { forgetStores } from '../../pipeline/forget.js';
import { SqliteSink } from '../../sinks/sqlite/sink.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import { mirrorFile } from './settings.js';
import { stopMirrorThread } from './thread.js';
import { hermesPgSchema, loadStateDb } from './testing.js';

const cluster = await sharedPostgres();
// One database for the file, a schema per test (as Hermes keeps one per profile).
const url = cluster.createDatabase();
const dbName = new URL(url).pathname.slice(1);
let schemas = 0;
after(() => stopMirrorThread());

/**
 * The dataset's tables people read, each row without its `store` (the one column that names where it came from),
 * and the Hermes home (scopes of channel sessions are folders under it) said as `<home>`.
 */
function dataset(rig: Rig, home: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of DATASET_TABLES.filter((x) => !x.internal)) {
    const cols = t.columns.map((c) => c.name).filter((c) => c !== 'store');
    out[t.name] = rig.query(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${t.name}" ORDER BY ${cols.map((c) => `"${c}"`).join(', ')}`);
  }
  return JSON.parse(JSON.stringify(out).split(home).join('<home>')) as Record<string, unknown[]>;
}

/**
 * A fixture as both sources hold it: a state.db (the columns and tables Hermes's PostgreSQL schema lacks dropped, so
 * both hold the same history), and a Hermes home on the PostgreSQL backend whose schema was loaded from it.
 */
async function twin(fixture: string) {
  const { dir, cleanup } = tempDir('hermetic-pgsrc-');
  let changes = 0;
  mkdirSync(join(dir, 'sqlite'));
  const statePath = join(dir, 'sqlite', 'state.db');
  const copy = copyFixture(fixture, dir);
  const db = new Database(copy);
  db.pragma('journal_mode = DELETE');
  for (const c of ['created_source', 'compression_overload_streak']) {
    if ((db.prepare('SELECT COUNT(*) FROM pragma_table_info(\'sessions\') WHERE name = ?').pluck().get(c) as number) > 0) db.exec(`ALTER TABLE sessions DROP COLUMN ${c}`);
  }
  db.exec('DROP TABLE IF EXISTS session_daily_usage');
  db.close();
  const src = new Database(copy, { readonly: true });
  await src.backup(statePath);
  src.close();
  const schema = `hermes_default_${String(++schemas).padStart(12, '0')}`;
  cluster.psql(hermesPgSchema(schema), dbName);
  await loadStateDb(url, schema, statePath);
  const pgHome = join(dir, 'pg');
  mkdirSync(pgHome);
  writeFileSync(join(pgHome, 'config.yaml'), `database:\n  backend: postgres\n  schema: ${schema}\n`);
  writeFileSync(join(pgHome, '.env'), `HERMES_DATABASE_URL=${url}\n`);
  // One clock for both forwarders (epoch seconds): the pace of the looks for edits in place follows it.
  const clock = { t: 1_800_000_000 };
  const a = forwarderRig([statePath], { dir: join(dir, 'a'), now: () => clock.t * 1000 });
  const b = forwarderRig([pgHome], { dir: join(dir, 'b'), now: () => clock.t * 1000 });
  return {
    dir, url, schema, statePath, pgHome, sqliteHome: join(dir, 'sqlite'), a, b, clock,
    /** Writes to the state.db with a Hermes-like writer, then makes PostgreSQL hold the same. */
    async change<T>(fn: (w: StateDbWriter) => T): Promise<T> {
      const wdb = new Database(statePath);
      let t = 1_800_000_100;
      const out = fn(new StateDbWriter(wdb, { now: () => (t += 1.25), ids: createIdSource(`pg-source-${++changes}`) }));
      wdb.close();
      await loadStateDb(url, schema, statePath);
      return out;
    },
    cleanup: () => { a.cleanup(); b.cleanup(); cleanup(); },
  };
}

// `channels` through the synchronous pass (the mirror thread), `usage` through the asynchronous one (in this thread).
for (const [fixture, sync] of [['channels', true], ['usage', false]] as const) {
  test(`${fixture}: a PostgreSQL profile gives the dataset its state.db twin gives, row for row (${sync ? 'synchronous' : 'asynchronous'} pass)`, async () => {
    const t = await twin(fixture);
    try {
      const [ra] = t.a.forwarder.backfill();
      const [rb] = sync ? t.b.forwarder.backfill() : await t.b.forwarder.backfillAsync();
      assert.equal(ra!.error, null);
      assert.equal(rb!.error, null);
      assert.equal(rb!.backend, 'postgres');
      assert.equal(rb!.store, `postgres://${cluster.user}@127.0.0.1:${cluster.port}/${dbName}#${t.schema}`);
      assert.equal(rb!.schemaVersion, ra!.schemaVersion);
      assert.ok(ra!.sessionsWritten > 0);
      assert.equal(rb!.sessionsWritten, ra!.sessionsWritten);
      assert.deepEqual(dataset(t.b, t.pgHome), dataset(t.a, t.sqliteHome));
      // The store is named by its source, never by the mirror file or with the password.
      const stores = t.b.query<{ store: string }>('SELECT DISTINCT store FROM sessions');
      assert.deepEqual(stores.map((s) => s.store), [rb!.store]);
      assert.ok(!JSON.stringify(dataset(t.b, t.pgHome)).includes(cluster.password));
    } finally {
      t.cleanup();
    }
  });
}

test('forget --store of a PostgreSQL profile removes its rows and deletes its local mirror, a copy of its sessions (decision 0157)', async () => {
  const t = await twin('channels');
  try {
    const [rb] = t.b.forwarder.backfill();
    t.b.forwarder.close();
    const mirror = mirrorFile(t.b.home, { identity: rb!.store });
    assert.ok(existsSync(mirror), 'the pass read the profile through its mirror');
    const sink = SqliteSink.open(t.b.home);
    try {
      const [r] = forgetStores(sink, [rb!.store], [], t.b.home);
      assert.deepEqual([r!.store, r!.sessions, r!.mirror], [rb!.store, rb!.sessionsWritten, mirror]);
      assert.equal(sink.db.prepare('SELECT COUNT(*) FROM sessions').pluck().get(), 0);
    } finally {
      sink.close();
    }
    assert.deepEqual(readdirSync(join(t.b.home, 'mirrors')).filter((f) => f.startsWith(basename(mirror))), [], 'nothing of the mirror is left');
  } finally {
    t.cleanup();
  }
});

test('ticks: new messages, a /retry, a rewind, a deleted session and a new one reach the dataset as they do from the state.db; an idle tick writes nothing; a schema made again is read whole', async () => {
  const t = await twin('basic');
  try {
    t.a.forwarder.forwardOnce();
    await t.b.forwarder.forwardOnceAsync();
    assert.deepEqual(dataset(t.b, t.pgHome), dataset(t.a, t.sqliteHome));
    const ids = new Database(t.statePath, { readonly: true });
    const sessions = ids.prepare('SELECT id FROM sessions WHERE parent_session_id IS NULL ORDER BY id').pluck().all() as string[];
    const [s1, s2] = sessions;
    const firstOfS2 = ids.prepare('SELECT MIN(id) FROM messages WHERE session_id = ?').pluck().get(s2!) as number;
    ids.close();

    const steps: [string, (w: StateDbWriter) => void][] = [
      ['new messages', (w) => { w.appendMessages(s1!, [{ role: 'user', content: 'and now?' }, { role: 'assistant', content: [{ type: 'text', text: 'structured reply' }], finish_reason: 'stop' }]); }],
      ['a /retry (the session\'s rows replaced, new ids)', (w) => { w.replaceMessages(s1!, [{ role: 'user', content: 'and now?' }, { role: 'assistant', content: 'a better answer\u0000with a NUL', finish_reason: 'stop' }]); }],
      ['a rewind (rows made inactive in place)', (w) => { w.rewind(s2!, firstOfS2); }],
      ['a deleted session (the one holding the newest ids)', (w) => { w.deleteSession(s1!); }],
      ['a new session', (w) => { const id = w.createSession({ source: 'cli', model: 'gpt-5' }); w.appendMessages(id, [{ role: 'user', content: 'hello' }]); }],
    ];
    for (const [what, fn] of steps) {
      await t.change(fn);
      const [ra] = t.a.forwarder.forwardOnce();
      const [rb] = await t.b.forwarder.forwardOnceAsync();
      assert.equal(rb!.error, null, what);
      assert.ok(ra!.sessionsWritten + ra!.sessionsRemoved > 0, `${what} changes the dataset`);
      assert.equal(rb!.sessionsWritten, ra!.sessionsWritten, what);
      assert.equal(rb!.sessionsRemoved, ra!.sessionsRemoved, what);
      // Continued, never rebuilt: the store keeps its identity, and only what changed is read.
      assert.equal(rb!.replaced, false, what);
      assert.deepEqual(dataset(t.b, t.pgHome), dataset(t.a, t.sqliteHome), what);
    }

    // Nothing changed in PostgreSQL: the mirror is not written, and the pass reads nothing.
    const mirror = join(t.b.home, 'mirrors', readdirSync(join(t.b.home, 'mirrors')).find((f) => f.endsWith('.db'))!);
    const before = statSync(mirror).mtimeMs;
    assert.equal(statSync(mirror).mode & 0o777, 0o600, 'the mirror is the user\'s alone');
    const [idle] = await t.b.forwarder.forwardOnceAsync();
    assert.equal(idle!.error, null);
    assert.equal(idle!.sessionsWritten, 0);
    assert.equal(statSync(mirror).mtimeMs, before);

    // The schema dropped and made again (a restore): the mirror is rebuilt, the store read whole, the dataset the same.
    cluster.psql(`DROP SCHEMA "${t.schema}" CASCADE;\n${hermesPgSchema(t.schema)}`, dbName);
    await loadStateDb(t.url, t.schema, t.statePath);
    const [rebuilt] = await t.b.forwarder.forwardOnceAsync();
    assert.equal(rebuilt!.error, null);
    assert.equal(rebuilt!.replaced, true);
    assert.deepEqual(dataset(t.b, t.pgHome), dataset(t.a, t.sqliteHome));
  } finally {
    t.cleanup();
  }
});

test('edits in place (a reaction, a display kind stamped after the turn) and background delegations reach the dataset as they do from the state.db, edits within the minute', async () => {
  const t = await twin('basic');
  /** A tick of both forwarders; `twins`: the datasets are then equal (each looks for edits at a pace of its own). */
  const tick = async (what: string, twins = true) => {
    const [ra] = t.a.forwarder.forwardOnce();
    const [rb] = await t.b.forwarder.forwardOnceAsync();
    assert.equal(ra!.error, null, what);
    assert.equal(rb!.error, null, what);
    if (twins) assert.deepEqual(dataset(t.b, t.pgHome), dataset(t.a, t.sqliteHome), what);
    return [ra!, rb!] as const;
  };
  const shows = (text: string) => JSON.stringify(dataset(t.b, t.pgHome)).includes(text);
  try {
    await tick('first pass');
    const { session, reply, delegation } = await t.change((w) => {
      const id = w.createSession({ source: 'cli', model: 'gpt-5' });
      const [, replyId] = w.appendMessages(id, [{ role: 'user', content: 'look into the flaky test' }, { role: 'assistant', content: 'On it, in the background.', finish_reason: 'stop' }]);
      const d = dispatchDelegation(w, { parent_session_id: id, origin_session_id: id, goals: ['find why the test flakes'] });
      return { session: id, reply: replyId!, delegation: d };
    });
    await tick('a new session with a delegation dispatched');
    assert.deepEqual(t.b.query('SELECT delegation_id, state FROM delegations'), [{ delegation_id: delegation, state: 'running' }]);
    t.clock.t += 61;
    await tick('a minute on, nothing new');

    // Edits in place only (the session row untouched), and the delegation finished. The delegation moves at once; the
    // mirror looks for edits at most once a minute, so within it the PostgreSQL profile may not show them yet.
    await t.change((w) => {
      setMessageReaction(w, reply, '👍', 'user');
      assert.ok(stampDisplayKind(w, session, 'user', 'look into the flaky test', 'steer'));
      completeDelegation(w, delegation, { summary: 'a race in the fixture teardown' });
    });
    await tick('edited, within the minute', false);
    assert.deepEqual(t.b.query('SELECT state FROM delegations'), [{ state: 'completed' }]);

    // A minute on, nothing else written: the edits are found, the session rewritten, and the datasets are twins.
    t.clock.t += 61;
    const [, laterB] = await tick('edited, a minute on');
    assert.equal(laterB.sessionsEdited, 1);
    assert.ok(shows('👍'));
    assert.deepEqual(t.b.query("SELECT kind FROM messages WHERE session_id = ? AND role = 'user'", session), [{ kind: 'steer' }]);

    // The reaction taken back: the same again.
    await t.change((w) => setMessageReaction(w, reply, '👍', 'user'));
    await tick('taken back, within the minute', false);
    t.clock.t += 61;
    const [, backB] = await tick('taken back, a minute on');
    assert.equal(backB.sessionsEdited, 1);
    assert.ok(!shows('👍'));

    // Nothing changed since: a minute on, the mirror looks again, copies nothing and the pass writes nothing.
    t.clock.t += 61;
    const [, quietB] = await tick('a minute on, nothing new again');
    assert.equal(quietB.sessionsEdited, 0);
    assert.equal(quietB.sessionsWritten, 0);

    // Eight days on the session is settled (quiet for more than a week): a reaction on it is still found, both sides
    // looking at every session once a day.
    t.clock.t += 8 * 86400;
    await t.change((w) => setMessageReaction(w, reply, '🎯', 'agent'));
    const [settledA, settledB] = await tick('settled, a reaction a week on');
    assert.equal(settledA.sessionsEdited, 1);
    assert.equal(settledB.sessionsEdited, 1);
    assert.ok(shows('🎯'));
  } finally {
    t.cleanup();
  }
});

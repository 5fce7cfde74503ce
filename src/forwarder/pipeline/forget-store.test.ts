// `hermetic forget --store` (decision 0157): every row read from a store no pass reads any more goes, in every table
// that names a store, and nothing of another store; the kept counts stay true; read again, the store comes back as it
// was. A store the passes read on their own, or one the dataset does not hold, is refused before anything goes.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Db } from '../../shared/sqlite.js';
import { DATASET_TABLES } from '../dataset/columns.js';
import { generate } from '../../state-db/generate/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { recountRows, tableRows } from '../sinks/sqlite/row-counts.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { logHead, registerSink, SHIPPED } from '../sinks/remote/changelog.js';
import { forwarderRig } from '../testing/index.js';
import { mirrorFile } from '../reader/postgres/settings.js';
import { forgetStores, storeKey } from './forget.js';
import { findStores } from './stores.js';

/** The tables that name a store, each with its rows of `store` in key order. */
function rowsOf(db: Db, store: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of DATASET_TABLES) {
    if (!t.columns.some((c) => c.name === 'store')) continue;
    out[t.name] = db.prepare(`SELECT * FROM "${t.name}" WHERE store = ? ORDER BY ${t.primaryKey.map((k) => `"${k}"`).join(', ')}`).all(store);
  }
  return out;
}

/** The dataset's triggers, by name, with their SQL. */
const triggersOf = (db: Db) => db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();

/** Two generated stores (a `demo` and an `other`) backfilled into one dataset; `done` removes it all. */
function backfilledTwo(prefix: string) {
  const { dir, cleanup } = tempDir(prefix);
  const a = generate({ out: join(dir, 'demo', 'state.db'), sessions: 12, messages: 300, seed: 'forget-store-a' }).path;
  const b = generate({ out: join(dir, 'other', 'state.db'), sessions: 9, messages: 200, seed: 'forget-store-b' }).path;
  const rig = forwarderRig([a, b], { dir });
  rig.forwarder.backfill();
  rig.forwarder.close();
  return { dir, a, b, home: rig.home, done: () => { rig.cleanup(); cleanup(); } };
}

test('forget --store removes every row of the store in every table that names one, nothing of another; read again, it is back as it was', () => {
  const { dir, a, b, home, done } = backfilledTwo('hermetic-forget-store-');
  try {
    let before: { a: Record<string, unknown[]>; b: Record<string, unknown[]> };
    const sink = SqliteSink.open(home);
    try {
      before = { a: rowsOf(sink.db, a), b: rowsOf(sink.db, b) };
      const triggers = triggersOf(sink.db);
      // The store is rich enough to say something: rows in the transcript, usage, activity and tool calls.
      for (const t of ['sessions', 'messages', 'parts', 'model_usage', 'usage_ledger', 'session_activity', 'tool_activity', 'tool_calls', 'session_cursors', 'stores']) {
        assert.ok(before.a[t]!.length > 0, `store a has ${t}`);
      }
      const r = forgetStores(sink, [join(dir, 'demo')], [], home);
      assert.deepEqual(r, [{ store: a, sessions: before.a.sessions!.length, messagesRemoved: before.a.messages!.length, partsRemoved: before.a.parts!.length, mirror: null }]);
      for (const [t, rows] of Object.entries(rowsOf(sink.db, a))) assert.equal(rows.length, 0, `nothing of store a is left in ${t}`);
      assert.deepEqual(rowsOf(sink.db, b), before.b, 'store b is as it was');
      // The counts status shows stay the tables' own, and the triggers set aside for the deletes are back as they were.
      const kept = tableRows(sink.db);
      recountRows(sink.db);
      assert.deepEqual(tableRows(sink.db), kept);
      assert.deepEqual(triggersOf(sink.db), triggers);
    } finally {
      sink.close();
    }
    // Its cursors went with it: a backfill of it reads it whole again, as it was.
    const again = forwarderRig([a], { dir, home: home });
    again.forwarder.backfill();
    again.forwarder.close();
    const after = SqliteSink.open(home);
    try {
      const back = rowsOf(after.db, a);
      // Only the stores row's bookkeeping of the pass itself (its times) may differ.
      const { stores: s1, ...rest1 } = back;
      const { stores: s0, ...rest0 } = before.a;
      assert.deepEqual(rest1, rest0);
      assert.equal(s1!.length, s0!.length);
    } finally {
      after.close();
    }
  } finally {
    done();
  }
});

/** Runs `check` on the dataset of `backfilledTwo`, opened; closes and removes it all after. */
function withTwo(prefix: string, check: (two: ReturnType<typeof backfilledTwo>, sink: SqliteSink) => void): void {
  const two = backfilledTwo(prefix);
  try {
    const sink = SqliteSink.open(two.home);
    try {
      check(two, sink);
    } finally {
      sink.close();
    }
  } finally {
    two.done();
  }
}

test('forget --store that fails part-way leaves no trace: every row, count and trigger is as it was', () => {
  withTwo('hermetic-forget-store-fail-', ({ dir, a, home }, sink) => {
    // A table deleted after the transcript refuses: by then messages and parts are gone and their triggers set aside.
    sink.db.exec("CREATE TRIGGER refuse AFTER DELETE ON usage_ledger BEGIN SELECT RAISE(ABORT, 'refused by a test'); END");
    const rows = rowsOf(sink.db, a);
    const counts = tableRows(sink.db);
    const triggers = triggersOf(sink.db);
    assert.throws(() => forgetStores(sink, [join(dir, 'demo')], [], home), /refused by a test/);
    assert.deepEqual(rowsOf(sink.db, a), rows);
    assert.deepEqual(tableRows(sink.db), counts);
    assert.deepEqual(triggersOf(sink.db), triggers);
    // And the counts are the tables' own.
    recountRows(sink.db);
    assert.deepEqual(tableRows(sink.db), counts);
  });
});

test('forget --store with a remote sink registered logs every row it removes, as a row-by-row delete would', () => {
  withTwo('hermetic-forget-store-log-', ({ dir, a, home }, sink) => {
    registerSink(sink.db, { id: 'pg-test', display: 'postgres://test' }, 1);
    const from = logHead(sink.db);
    const before = rowsOf(sink.db, a);
    forgetStores(sink, [join(dir, 'demo')], [], home);
    const logged = sink.db.prepare('SELECT tbl, COUNT(*) AS n FROM change_log WHERE seq > ? GROUP BY tbl').all(from) as { tbl: string; n: number }[];
    const byTable = Object.fromEntries(logged.map((r) => [r.tbl, r.n]));
    for (const t of SHIPPED) {
      if ((before[t.name]?.length ?? 0) > 0) assert.equal(byTable[t.name], before[t.name]!.length, `every ${t.name} row removed is logged`);
    }
    assert.ok(byTable.messages! > 0 && byTable.parts! > 0);
  });
});

test('forget --store refuses a store the dataset does not hold, and one every pass reads on its own; nothing is removed', () => {
  const { dir, a, b, home, done } = backfilledTwo('hermetic-forget-store-no-');
  // b is also this user's Hermes home: ~/.hermes/state.db, found by every backfill and forward.
  mkdirSync(join(dir, 'user'), { recursive: true });
  symlinkSync(join(dir, 'other'), join(dir, 'user', '.hermes'));
  try {
    const sink = SqliteSink.open(home);
    try {
      const count = () => sink.db.prepare('SELECT COUNT(*) FROM messages').pluck().get();
      const n = count();
      const byDefault = findStores({ userHome: join(dir, 'user'), hermesHome: undefined });
      assert.throws(() => forgetStores(sink, [a, b], byDefault, home), (e: any) => e.code === 'HERMETIC_FORGET_READ' && e.message === `${b} is a store every backfill and forward here reads (it is in ${join(dir, 'user', '.hermes')}): removed, it would be read again by the next pass. Nothing was removed.`);
      assert.throws(() => forgetStores(sink, [a, join(dir, 'nowhere')], [], home), (e: any) => e.code === 'HERMETIC_FORGET_NONE' && e.message === `The dataset holds no store ${join(dir, 'nowhere')} (it holds ${a}, ${b}); nothing was removed.`);
      assert.equal(count(), n, 'nothing was removed');
    } finally {
      sink.close();
    }
  } finally {
    done();
  }
});

test('a store is named as the dataset keys it, by its folder, or through a link to it; a gone file by its path', () => {
  const { dir, cleanup } = tempDir('hermetic-forget-key-');
  try {
    const key = join(dir, 'demo', 'state.db');
    mkdirSync(join(dir, 'demo'));
    writeFileSync(key, '');
    symlinkSync(join(dir, 'demo'), join(dir, 'link'));
    const pg = 'postgres://hermes@db:5432/hermes#public';
    const known = [key, pg];
    assert.equal(storeKey(pg, known), pg);
    assert.equal(storeKey(key, known), key);
    assert.equal(storeKey(join(dir, 'demo'), known), key);
    assert.equal(storeKey(join(dir, 'link', 'state.db'), known), key);
    assert.equal(storeKey(join(dir, 'gone', 'state.db'), [...known, join(dir, 'gone', 'state.db')]), join(dir, 'gone', 'state.db'));
    assert.equal(storeKey(join(dir, 'elsewhere'), known), null);
  } finally {
    cleanup();
  }
});

test('a dataset another process keeps locked: forget says so and removes nothing, and works once it is free', () => {
  const { a, home, done } = backfilledTwo('hermetic-forget-store-busy-');
  try {
    const sink = SqliteSink.open(home);
    const other = new Database(join(home, 'hermetic.db'));
    try {
      sink.db.pragma('busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      assert.throws(() => forgetStores(sink, [a], [], home), (e: any) => e.code === 'HERMETIC_DATASET_WRITE' && e.message.startsWith(`Another process kept the dataset ${join(home, 'hermetic.db')} locked (a backfill or forward writing it); store ${a} was not removed`));
      other.exec('ROLLBACK');
      assert.ok((sink.db.prepare('SELECT COUNT(*) FROM messages WHERE store = ?').pluck().get(a) as number) > 0, 'nothing was removed');
      assert.equal(forgetStores(sink, [a], [], home)[0]!.store, a);
    } finally {
      other.close();
      sink.close();
    }
  } finally {
    done();
  }
});

/** A dataset that knows one PostgreSQL store (its `stores` row alone), with the path of that store's mirror. */
function withPgStore(prefix: string, body: (sink: SqliteSink, home: string, pg: string, mirror: string) => void): void {
  const { dir, cleanup } = tempDir(prefix);
  const home = join(dir, 'home');
  const sink = SqliteSink.open(home);
  try {
    const pg = 'postgres://hermes@db:5432/hermes#hermes_default_0123456789ab';
    sink.db.prepare("INSERT INTO stores (store, profile, max_message_id) VALUES (?, 'default', 0)").run(pg);
    body(sink, home, pg, mirrorFile(home, { identity: pg }));
  } finally {
    sink.close();
    cleanup();
  }
}

test('a mirror that cannot be deleted stops forget --store with a sentence before any row goes; once it can, forget goes on', () => {
  withPgStore('hermetic-forget-mirror-stuck-', (sink, home, pg, mirror) => {
    // Something rm cannot take without being told to: a folder where the mirror's -wal would be.
    mkdirSync(`${mirror}-wal`, { recursive: true });
    writeFileSync(join(`${mirror}-wal`, 'x'), '');
    assert.throws(() => forgetStores(sink, [pg], [], home), (e: any) => e.code === 'HERMETIC_FORGET_MIRROR'
      && e.message.startsWith(`The local mirror of ${pg} could not be deleted (${mirror}-wal: `)
      && e.message.endsWith(`); nothing of the store was removed. Delete the file, or let this user write ${join(home, 'mirrors')}, and run hermetic forget again.`));
    assert.equal(sink.db.prepare('SELECT COUNT(*) FROM stores WHERE store = ?').pluck().get(pg), 1, 'the store is still known');
    rmSync(`${mirror}-wal`, { recursive: true });
    assert.equal(forgetStores(sink, [pg], [], home)[0]!.store, pg);
    assert.equal(sink.db.prepare('SELECT COUNT(*) FROM stores WHERE store = ?').pluck().get(pg), 0);
  });
});

test('forget --store of a PostgreSQL store deletes what a rebuild of its mirror cut short left too, and no other store\'s mirror', () => {
  withPgStore('hermetic-forget-mirror-', (sink, home, pg, mirror) => {
    const kept = mirrorFile(home, { identity: 'postgres://hermes@db:5432/hermes#other' });
    mkdirSync(join(home, 'mirrors'));
    // A forwarder killed while it built the mirror anew leaves its half-made copy, named by its process and thread.
    for (const f of [mirror, `${mirror}-journal`, `${mirror}.4242-0.new`, `${mirror}.4242-0.new-journal`, kept, `${kept}.4242-0.new`]) writeFileSync(f, 'sessions');
    const [r] = forgetStores(sink, [pg], [], home);
    assert.equal(r!.mirror, mirror);
    assert.deepEqual(readdirSync(join(home, 'mirrors')).sort(), [`${kept}`, `${kept}.4242-0.new`].map((f) => f.slice(join(home, 'mirrors').length + 1)).sort());
  });
});

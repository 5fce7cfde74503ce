// Triggers set aside for a bulk statement come back as they were, and with the rollback when the work fails.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withTriggersAside } from './triggers-aside.js';

function counted() {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE t (x); CREATE TABLE n (k PRIMARY KEY, v);
    INSERT INTO n VALUES ('t', 0), ('other', 0);
    CREATE TRIGGER t_delete AFTER DELETE ON t BEGIN UPDATE n SET v = v - 1 WHERE k = 't'; END;
    CREATE TRIGGER "odd ""name""" AFTER DELETE ON t BEGIN UPDATE n SET v = v - 1 WHERE k = 'other'; END;
    INSERT INTO t VALUES (1), (2), (3);`);
  const triggers = () => db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
  const count = (k: string) => db.prepare('SELECT v FROM n WHERE k = ?').pluck().get(k);
  return { db, triggers, count };
}

test('the named triggers do not fire during the work, are told to it, and are back as they were after; others fire', () => {
  const { db, triggers, count } = counted();
  const before = triggers();
  const aside = db.transaction(() => withTriggersAside(db, ['t_delete', 'no_such_trigger'], (set) => {
    db.prepare('DELETE FROM t').run();
    return [...set];
  }))();
  assert.deepEqual(aside, ['t_delete']);
  assert.equal(count('t'), 0, 'the trigger set aside did not fire');
  assert.equal(count('other'), -3, 'the one not named fired for each row');
  assert.deepEqual(triggers(), before);
  db.prepare('INSERT INTO t VALUES (4)').run();
  db.prepare('DELETE FROM t').run();
  assert.equal(count('t'), -1, 'and fires again after');
});

test('work that throws leaves the triggers and rows as they were, by the rollback', () => {
  const { db, triggers, count } = counted();
  const before = triggers();
  assert.throws(() => db.transaction(() => withTriggersAside(db, ['t_delete', 'odd "name"'], () => {
    db.prepare('DELETE FROM t').run();
    throw new Error('work failed');
  }))(), /work failed/);
  assert.deepEqual(triggers(), before);
  assert.equal(db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 3);
  db.prepare('DELETE FROM t WHERE x = 1').run();
  assert.deepEqual([count('t'), count('other')], [-1, -1]);
});

test('outside a transaction it refuses, and drops nothing', () => {
  const { db, triggers } = counted();
  const before = triggers();
  assert.throws(() => withTriggersAside(db, ['t_delete'], () => 1), /inside a transaction/);
  assert.deepEqual(triggers(), before);
});

test('a caller that catches the failure and commits still has its triggers: the work runs in a savepoint of its own', () => {
  const { db, triggers, count } = counted();
  const before = triggers();
  db.exec('BEGIN');
  assert.throws(() => withTriggersAside(db, ['t_delete', 'odd "name"'], () => {
    db.prepare('DELETE FROM t WHERE x = 1').run();
    throw new Error('work failed');
  }), /work failed/);
  db.prepare('DELETE FROM t WHERE x = 2').run();
  db.exec('COMMIT');
  assert.deepEqual(triggers(), before);
  assert.equal(db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 2, "the work was undone, the caller's own delete kept");
  assert.deepEqual([count('t'), count('other')], [-1, -1], "the caller's delete fired both");
});

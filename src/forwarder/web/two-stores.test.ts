// Two stores holding the same session ids (a profile copied, HERMES_HOME and ~/.hermes kept apart): a session's page
// counts only its own store's usage, and every link the dashboard gives to a session names its store.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { generate } from '../../state-db/generate/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { forwarderRig } from '../testing/index.js';
import { sqliteSource } from './data/sqlite.js';
import type { UsageSource } from './data/source.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
let tmp: { dir: string; cleanup: () => void };
let one: { db: Database.Database; source: UsageSource };
let two: { db: Database.Database; source: UsageSource; stores: [string, string] };

before(() => {
  tmp = tempDir('hermetic-web-two-stores-');
  const g = generate({ out: join(tmp.dir, 'a', 'state.db'), sessions: 12, messages: 200, seed: 'two-stores', end: NOW, days: 5 });
  mkdirSync(join(tmp.dir, 'b'));
  const copy = join(tmp.dir, 'b', 'state.db');
  copyFileSync(g.path, copy);
  const open = (stores: string[], name: string) => {
    const rig = forwarderRig(stores, { dir: join(tmp.dir, name), timeZone: 'UTC' });
    rig.forwarder.backfill();
    rig.forwarder.close();
    const db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
    return { db, source: sqliteSource(db) };
  };
  one = open([g.path], 'one');
  two = { ...open([g.path, copy], 'two'), stores: [g.path, copy] };
});
after(async () => {
  await one.source.close();
  await two.source.close();
  tmp.cleanup();
});

it('a session page counts its own store\'s usage, not the other store\'s session of the same id', async () => {
  const id = (one.db.prepare('SELECT session_id FROM sessions ORDER BY estimated_cost_usd DESC LIMIT 1').pluck().get()) as string;
  const alone = (await one.source.session({ id, store: null, machine: null }, { page: 1, size: 10, from: null }))!;
  for (const store of two.stores) {
    const view = (await two.source.session({ id, store, machine: null }, { page: 1, size: 10, from: null }))!;
    assert.equal(view.session.store, store);
    assert.deepEqual(view.usage.totals, alone.usage.totals, `${store}: one session's usage, not two`);
    assert.deepEqual(view.usage.rows, alone.usage.rows);
  }
});

it('the slowest calls and a session\'s lineage name the store of each session they link to', async () => {
  const slow = await two.source.slowestCalls({}, 50);
  assert.ok(slow.length > 0);
  assert.ok(slow.every((c) => two.stores.includes(c.store)), 'each call names its store');
  assert.deepEqual(new Set(slow.map((c) => c.store)), new Set(two.stores), 'the same call in both stores, told apart');
  const child = two.db.prepare('SELECT session_id, store FROM sessions WHERE parent_session_id IS NOT NULL LIMIT 1').get() as { session_id: string; store: string } | undefined;
  if (child) {
    const view = (await two.source.session({ id: child.session_id, store: child.store, machine: null }, { page: 1, size: 10, from: null }))!;
    assert.equal(view.parent?.store, child.store, 'the parent link is in the same store');
  }
});

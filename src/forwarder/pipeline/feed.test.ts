// `auto` reads with the worker only when it wins (issue 16 §4): with a core free, judged by the cores' measured idle
// time since the last look, else by the core count and the last minute's load (decisions 0033, 0044).
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { generatedStore } from '../../state-db/testing/generated.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { readStore, StoreReader } from '../reader/index.js';
import { coreFree, READ_WORKER_MIN_SESSIONS, SessionFeed, type CoreJudge } from './feed.js';
import { IdleCores, MAX_WINDOW_MS, MIN_WINDOW_MS } from './idle-cores.js';

test('without a measure of idle time: a core is free with two or more cores and a load below one less than their number; never with one core', () => {
  assert.deepEqual([coreFree(2, null, 0.3), coreFree(2, null, 0.99), coreFree(2, null, 1), coreFree(2, null, 4.5), coreFree(1, null, 0), coreFree(8, null, 6.5), coreFree(8, null, 7.2)], [true, true, false, false, false, true, false]);
});

test('measured idle time decides over the load average: a just-ended process raises the load of an idle machine', () => {
  assert.equal(coreFree(2, 0.95, 1.4), true); // the previous backfill's load, both cores now idle but this one
  assert.equal(coreFree(2, 0.1, 0.2), false); // another process took the second core a moment ago
  assert.equal(coreFree(2, 0.6, 3), true);
  assert.equal(coreFree(2, 0.59, 0), false);
  assert.equal(coreFree(1, 1, 0), false);
});

test('idle cores are the idle milliseconds over the window, a window too short says nothing and keeps growing', () => {
  let now = 0;
  let idle = 1000;
  const meter = new IdleCores(() => now, () => idle);
  now = MIN_WINDOW_MS - 1;
  idle += 40;
  assert.equal(meter.ready(), false);
  assert.equal(meter.sample(), null);
  now = 200;
  idle = 1000 + 300; // 300 idle ms over 200 ms: one and a half cores idle
  assert.equal(meter.sample(), 1.5);
  now = 300;
  idle += 5;
  assert.equal(meter.sample(), 0.05);
  // A stale window (a forward process between big passes) starts over rather than averaging minutes.
  now = 300 + MAX_WINDOW_MS + 1;
  assert.equal(meter.ready(), false);
  now += MIN_WINDOW_MS;
  idle += MIN_WINDOW_MS * 2;
  assert.equal(meter.ready(), true);
  assert.equal(meter.sample(), 2);
  const none = new IdleCores(() => now, () => null);
  assert.equal(none.ready(), true);
  now = 1000;
  assert.equal(none.sample(), null);
});

test('the real meter reads the machine: a number of cores between none and all of them, after a window', async () => {
  const meter = new IdleCores();
  await new Promise((r) => setTimeout(r, MIN_WINDOW_MS + 30));
  const idle = meter.sample();
  if (process.platform === 'linux') assert.notEqual(idle, null, 'Linux reports per-core idle time');
  if (idle !== null) assert.ok(idle >= 0 && idle <= (await import('node:os')).availableParallelism() + 0.5, `idle ${idle}`);
});

/** Every session of a generated store through a feed in `auto`, with a judge of the cores given. */
function feedAll(judge: CoreJudge): { indexes: number[]; byWorker: number; parallel: boolean } {
  const { path } = generatedStore({ out: join(storeDir, 'state.db'), sessions: READ_WORKER_MIN_SESSIONS + 20, messages: (READ_WORKER_MIN_SESSIONS + 20) * 8, seed: 'feed-join', replace: true });
  const ids = (new Database(path, { readonly: true }).prepare('SELECT id FROM sessions ORDER BY id').pluck().all() as string[]);
  return readStore(path, (db) => {
    const reader = new StoreReader(db, path);
    const ref = { path, profile: 'default', hermesHome: dirname(path), backend: 'sqlite' as const, warning: null, exists: true };
    const feed = new SessionFeed({ reader, ref, redact: false, origin: 'backfill', ids, priorOf: () => null, mode: 'auto', window: { sessions: 8, messages: 400 }, cores: judge });
    const indexes: number[] = [];
    try {
      for (let item = feed.next(); item !== null; item = feed.next()) {
        assert.ok(item.read !== null && !('error' in item.read));
        indexes.push(item.index);
      }
    } finally {
      feed.close();
    }
    return { indexes: indexes.sort((a, b) => a - b), byWorker: feed.readByWorker, parallel: feed.parallel };
  });
}

const { dir: storeDir, cleanup } = tempDir('hermetic-feed-');
after(cleanup);

test('auto: a meter not ready at the start lets this thread read until it is, then the worker joins; every session once', () => {
  let calls = 0;
  let asked = 0;
  // Not ready for the constructor and the first three sessions, then ready with a core free.
  const r = feedAll({ ready: () => ++calls > 4, free: () => (asked++, true) });
  assert.deepEqual(r.indexes, Array.from({ length: READ_WORKER_MIN_SESSIONS + 20 }, (_, i) => i));
  assert.equal(asked, 1, 'decided once');
  // The worker was started (how many it then reads before this thread has taken the rest depends on the machine).
  assert.equal(r.parallel, true);
});

test('auto: no core free, judged late or at once: this thread reads every session', () => {
  for (const readyAfter of [0, 3]) {
    let calls = 0;
    const r = feedAll({ ready: () => ++calls > readyAfter, free: () => false });
    assert.equal(r.indexes.length, READ_WORKER_MIN_SESSIONS + 20);
    assert.deepEqual([r.byWorker, r.parallel], [0, false]);
  }
});

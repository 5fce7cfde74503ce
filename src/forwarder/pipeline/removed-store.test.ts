// A store a running forwarder read, gone since: a profile folder removed, the home's state.db deleted. Discovery no
// longer lists the profile, so a pass used to drop it without a word; it now stays in every pass as not there (its
// result says it was removed), writes nothing, and is read again as any store once it is back (decision 0104).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { createForwarder, type ForwarderOptions, type PassOptions } from './forwarder.js';

/** A store of `sessions` sessions of one turn each, at `path` (its folder made). */
function store(path: string, seed: string, sessions: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'delete', fts: false, generation: seed });
  let t = 1_780_000_000;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource(seed) });
  for (let i = 0; i < sessions; i++) w.appendMessages(w.createSession({ source: 'cli' }), [{ role: 'user', content: `hi ${i}` }]);
  db.close();
}

/** A user home in a temp folder: the home's store (`main`, one session) and profile work's (`work`, `workSessions`). */
function twoProfiles(workSessions: number): { dir: string; cleanup: () => void; hermes: string; main: string; work: string } {
  const { dir, cleanup } = tempDir('hermetic-removed-store-');
  const hermes = join(dir, '.hermes');
  const main = join(hermes, 'state.db');
  const work = join(hermes, 'profiles', 'work', 'state.db');
  store(main, 'main', 1);
  store(work, 'work', workSessions);
  return { dir, cleanup, hermes, main, work };
}

/** A forwarder of the user home `dir` (its dataset in `dir/hermetic`), reading on one thread, on a fixed clock. */
function forwarderOf(dir: string): ForwarderOptions {
  return { userHome: dir, hermesHome: undefined, home: join(dir, 'hermetic'), readWorker: 'off', now: () => 1_800_000_000_000 };
}

test('a profile removed under a running forwarder is said removed in each pass, writes nothing, and is read again when back', () => {
  const { dir, cleanup, hermes, main, work } = twoProfiles(2);
  const forwarder = createForwarder(forwarderOf(dir));
  const pass = () => forwarder.forwardOnce().map((r) => [r.profile, r.store, r.sessionsWritten, r.error?.message ?? null]);
  try {
    assert.deepEqual(pass(), [['default', main, 1, null], ['work', work, 2, null]]);
    // The profile folder removed: discovery lists the home's store only; the pass still names the profile's.
    renameSync(join(hermes, 'profiles', 'work'), join(dir, 'work-aside'));
    const gone = ['work', work, 0, `${work} was removed after this forwarder read it`];
    assert.deepEqual(pass(), [['default', main, 0, null], gone]);
    assert.deepEqual(pass(), [['default', main, 0, null], gone]);
    assert.deepEqual(forwarder.stores().map((s) => s.path), [main], 'discovery itself does not list it');
    // Back (the same file): read as any store, nothing new in it.
    renameSync(join(dir, 'work-aside'), join(hermes, 'profiles', 'work'));
    assert.deepEqual(pass(), [['default', main, 0, null], ['work', work, 0, null]]);
    // The home's own store deleted (its folder stays, so discovery lists it as missing): said removed too.
    rmSync(main);
    assert.deepEqual(pass(), [['default', main, 0, `${main} was removed after this forwarder read it`], ['work', work, 0, null]]);
    // The whole profiles folder removed, then both made again as new files: each read whole, as a new store file.
    rmSync(join(hermes, 'profiles'), { recursive: true });
    assert.deepEqual(pass().map(([, , , e]) => e), [`${main} was removed after this forwarder read it`, `${work} was removed after this forwarder read it`]);
    // (Each new file holds other sessions: made again byte for byte, the home's store may get back its inode, size and
    // change counter, and is then rightly the same store with nothing new to write.)
    store(work, 'work-again', 3);
    store(main, 'main-again', 1);
    assert.deepEqual(pass(), [['default', main, 1, null], ['work', work, 3, null]]);
  } finally {
    forwarder.close();
    cleanup();
  }
});

test('a store made again with the inode, size and change counter of the one removed is opened, not taken for it', () => {
  const { dir, cleanup } = tempDir('hermetic-removed-store-');
  const main = join(dir, '.hermes', 'state.db');
  const aside = join(dir, 'aside.db');
  const other = join(dir, 'other', 'state.db');
  store(main, 'main', 1);
  // Other sessions in a file of the same size and commits: copied into the removed file's inode, it has its stamp.
  store(other, 'mabn', 1);
  const forwarder = createForwarder(forwarderOf(dir));
  const pass = () => forwarder.forwardOnce().map((r) => [r.sessionsWritten, r.error?.message ?? null]);
  try {
    assert.deepEqual(pass(), [[1, null]]);
    renameSync(main, aside);
    assert.deepEqual(pass(), [[0, `${main} was removed after this forwarder read it`]]);
    assert.equal(statSync(other).size, statSync(aside).size);
    copyFileSync(other, aside);
    renameSync(aside, main);
    assert.deepEqual(pass(), [[1, null]], 'the new file\'s session is read');
  } finally {
    forwarder.close();
    cleanup();
  }
});

test('a store never read is not said removed, and a fresh forwarder knows nothing of stores gone before it', () => {
  const { dir, cleanup, hermes, main } = twoProfiles(1);
  const options = forwarderOf(dir);
  const first = createForwarder(options);
  try {
    assert.equal(first.forwardOnce().length, 2);
  } finally {
    first.close();
  }
  rmSync(join(hermes, 'profiles'), { recursive: true });
  const second = createForwarder(options);
  try {
    assert.deepEqual(second.forwardOnce().map((r) => [r.store, r.error]), [[main, null]]);
  } finally {
    second.close();
    cleanup();
  }
});

test('a store removed between discovery and its step (mid-tick) is said removed, not as a store that could not be opened', async () => {
  const { dir, cleanup, hermes, work } = twoProfiles(2);
  const forwarder = createForwarder(forwarderOf(dir));
  try {
    for (const run of [(o: PassOptions) => forwarder.forwardOnce(o), (o: PassOptions) => forwarder.forwardOnceAsync(o)]) {
      store(work, 'work', 2);
      assert.equal((await run({})).length, 2);
      const heard: [string, boolean, boolean][] = [];
      // Removed just before its step, after discovery listed it (onStore is called between the two).
      const results = await run({
        onStore: (ref) => {
          heard.push([ref.profile, ref.exists, ref.gone === true]);
          if (ref.profile === 'work' && ref.exists) rmSync(join(hermes, 'profiles'), { recursive: true });
        },
      });
      assert.deepEqual(results.map((r) => [r.profile, r.error?.message ?? null]), [['default', null], ['work', `${work} was removed after this forwarder read it`]]);
      assert.deepEqual(heard, [['default', true, false], ['work', true, false], ['work', false, true]]);
    }
  } finally {
    forwarder.close();
    cleanup();
  }
});

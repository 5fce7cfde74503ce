// Hermes reinstalled under a running forward: state.db deleted and created again, its message ids starting over. The
// dataset keeps the old file's sessions, marked removed, with their newest ids; the new file's sessions reuse those ids.
// Each new file is read whole once (it is another file), and then as any store: a session removed with an earlier file
// stays removed (it is not said removed again) and is never taken for the holder of the new file's newest id, which
// made every later pass read the store whole as "replaced" (decision 0101).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import type { Db } from '../../shared/sqlite.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { forwarderRig, hermesStore } from '../testing/index.js';

test('a store deleted and created again, twice, is read whole once each time, then by what changed', () => {
  let t = 1_780_000_000;
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-reinstall-', 'first', () => (t += 1));
  const turn = [{ role: 'user' as const, content: 'hi' }, { role: 'assistant' as const, content: 'hello', finish_reason: 'stop' }];
  w.appendMessages(w.createSession({ source: 'cli' }), turn);
  db.close();
  const rig = forwarderRig([path], { dir, readWorker: 'off' });
  let open: Db | null = null;
  /** The store deleted and made again: an empty session first (the files' commit counts differ), then one of two messages, ids 1 and 2. */
  const reinstall = (generation: string) => {
    open?.close();
    rmSync(path);
    open = createStore({ path, level: LATEST_LEVEL, journal: 'delete', fts: false, generation });
    const writer = new StateDbWriter(open, { now: () => (t += 1), ids: createIdSource(generation) });
    writer.createSession({ source: 'cli' });
    writer.appendMessages(writer.createSession({ source: 'cli' }), turn);
    return writer;
  };
  const did = () => {
    const [r] = rig.forwarder.forwardOnce();
    assert.equal(r!.error, null);
    return [r!.replaced, r!.sessionsWritten, r!.sessionsRemoved];
  };
  try {
    assert.deepEqual(did(), [false, 1, 0]);
    const second = reinstall('second');
    assert.deepEqual(did(), [true, 2, 1], 'another file: read whole, the old session removed');
    // Hermes opens a session (its row only): one session new, nothing read again.
    second.createSession({ source: 'cli' });
    assert.deepEqual(did(), [false, 1, 0]);
    const third = reinstall('third');
    assert.deepEqual(did(), [true, 2, 3], 'the second file\'s three sessions removed; the first file\'s was already');
    third.createSession({ source: 'cli' });
    assert.deepEqual(did(), [false, 1, 0]);
    assert.deepEqual(rig.query('SELECT removed_from_store AS removed, COUNT(*) AS n FROM sessions GROUP BY 1 ORDER BY 1'), [{ removed: 0, n: 3 }, { removed: 1, n: 4 }]);
    assert.deepEqual(rig.query("SELECT COUNT(*) AS n FROM session_cursors WHERE fingerprint = '-removed-'"), [{ n: 4 }]);
  } finally {
    (open as Db | null)?.close();
    rig.cleanup();
    cleanup();
  }
});

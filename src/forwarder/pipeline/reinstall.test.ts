// Hermes reinstalled under a running forward: state.db deleted and created again, its message ids starting over. The
// dataset keeps the old file's sessions, marked removed, with their newest ids; the new file's sessions reuse those ids.
// The file is read whole once (it is another file), and then as any store: never taken for replaced again because a
// removed session of the old file held the same newest id (decision 0101).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { forwarderRig, hermesStore } from '../testing/index.js';

test('a store deleted and created again is read whole once, then by what changed (a removed session\'s newest id is not its)', () => {
  let t = 1_780_000_000;
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-reinstall-', 'before', () => (t += 1));
  const turn = [{ role: 'user' as const, content: 'hi' }, { role: 'assistant' as const, content: 'hello', finish_reason: 'stop' }];
  w.appendMessages(w.createSession({ source: 'cli' }), turn);
  db.close();
  const rig = forwarderRig([path], { dir, readWorker: 'off' });
  let again: ReturnType<typeof createStore> | null = null;
  try {
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 1);
    rmSync(path);
    again = createStore({ path, level: LATEST_LEVEL, journal: 'delete', fts: false, generation: 'after' });
    const w2 = new StateDbWriter(again, { now: () => (t += 1), ids: createIdSource('after') });
    // Its newest id, 2, is the removed session's too (an empty first session keeps the two files' commit counts apart).
    w2.createSession({ source: 'cli' });
    w2.appendMessages(w2.createSession({ source: 'cli' }), turn);
    const [reread] = rig.forwarder.forwardOnce();
    assert.deepEqual([reread!.replaced, reread!.sessionsWritten, reread!.sessionsRemoved], [true, 2, 1], 'another file: read whole, the old session removed');
    // Hermes opens a session (its row only, no message yet): one session new, nothing read again.
    w2.createSession({ source: 'cli' });
    const [next] = rig.forwarder.forwardOnce();
    assert.deepEqual([next!.replaced, next!.sessionsWritten, next!.sessionsRemoved], [false, 1, 0]);
    assert.deepEqual(rig.query('SELECT removed_from_store AS removed, COUNT(*) AS n FROM sessions GROUP BY 1 ORDER BY 1'), [{ removed: 0, n: 3 }, { removed: 1, n: 1 }]);
    assert.deepEqual(rig.query('SELECT COUNT(*) AS n FROM messages'), [{ n: 4 }], 'the old session\'s two messages kept, the new file\'s two');
  } finally {
    again?.close();
    rig.cleanup();
    cleanup();
  }
});

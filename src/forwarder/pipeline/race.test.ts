// Two forwarders on one home (a backfill run beside a running forward): a session the other process wrote between
// this pass's read and its write is left to it — not quarantined, not a failure — and a session left in quarantine
// whose cursor matches the store again is cleared by the next pass. The dataset ends as a clean backfill's.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Batch } from '../sinks/sink.js';
import { assertCleanBackfill, forwarderRig, hermesStore } from '../testing/index.js';

test('a session another process wrote since it was read is left to it; a stale quarantine entry is cleared', () => {
  let t = 1_780_000_000;
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-race-', 'race', () => (t += 1));
  const ids = [w.createSession({ source: 'cli' }), w.createSession({ source: 'cli' })];
  for (const id of ids) w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  const home = join(dir, 'home');
  const a = forwarderRig([path], { dir, home, readWorker: 'off' });
  const b = forwarderRig([path], { dir, home, readWorker: 'off' });
  try {
    a.forwarder.backfill();
    for (const id of ids) w.appendMessages(id, [{ role: 'user', content: 'more' }, { role: 'assistant', content: 'yes', finish_reason: 'stop' }]);
    // A's write comes after B has written the same sessions: A's delta is against cursors that moved.
    let once = true;
    const beforeWrite = (batch: Batch) => {
      if (once && batch.writes.length > 0) {
        once = false;
        assert.equal(b.forwarder.forwardOnce()[0]!.error, null);
      }
    };
    const [r] = a.forwarder.forwardOnce({ beforeWrite });
    // Both sessions were B's by then: A wrote none of them, and failed none.
    assert.deepEqual([r!.error, r!.sessionsQuarantined, r!.sessionsWritten], [null, 0, 0]);
    assert.deepEqual(a.query('SELECT session_id FROM quarantine'), []);
    // A quarantine entry left by an older Hermetic for a session whose cursor matches the store: cleared.
    a.forwarder.close();
    b.forwarder.close();
    const c = forwarderRig([path], { dir, home, readWorker: 'off' });
    try {
      const sink = (c.forwarder.sink as unknown as { dataset(): { db: import('../../shared/sqlite.js').Db } }).dataset();
      sink.db.prepare("INSERT INTO quarantine (store, session_id, failures, last_error, retry_at) VALUES (?, ?, 1, 'session was written by another process since it was read', 0)").run(path, ids[0]);
      assert.equal(c.forwarder.forwardOnce()[0]!.error, null);
      assert.deepEqual(c.query('SELECT session_id FROM quarantine'), []);
      assertCleanBackfill(c, path, 'two forwarders on one home');
    } finally {
      c.cleanup();
    }
  } finally {
    db.close();
    a.cleanup();
    b.cleanup();
    cleanup();
  }
});

test('a dataset removed under a running forwarder: the next pass says so and writes a new one from the stores, nothing lost', () => {
  let t = 1_780_000_000;
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-removed-home-', 'removed', () => (t += 1));
  const id = w.createSession({ source: 'cli' });
  w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  const home = join(dir, 'home');
  const rig = forwarderRig([path], { dir, home, readWorker: 'off' });
  try {
    rig.forwarder.forwardOnce();
    rmSync(home, { recursive: true, force: true });
    w.appendMessages(id, [{ role: 'user', content: 'more' }]);
    const [r] = rig.forwarder.forwardOnce();
    assert.match(r!.warning ?? '', /^the dataset at .*hermetic\.db was removed or replaced while this forwarder ran: it writes to the file there now/);
    assert.equal(r!.sessionsWritten, 1);
    rig.forwarder.close();
    assertCleanBackfill(rig, path, 'a dataset removed under a forwarder');
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
});

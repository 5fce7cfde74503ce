// A pass that stops half way (a crash, a failed write) resumes where it stopped: the sessions whose batches were
// committed are not read again, whatever moved the store-wide cursors (new messages, auxiliary usage).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { forwarderRig } from '../testing/index.js';

test('a backfill stopped after some batches resumes with only the sessions it had not written', () => {
  const { dir, cleanup } = tempDir();
  const out = join(dir, 'state.db');
  const made = generatedStore({ out, sessions: 300, messages: 6000, seed: 'resume' });
  const rig = forwarderRig([out], { dir });
  try {
    let batches = 0;
    const [stopped] = rig.forwarder.backfill({ beforeWrite: () => { if (++batches === 2) throw new HermeticError('HERMETIC_DATASET_WRITE', 'crash'); } });
    assert.match(stopped!.error!.message, /crash/);
    const [written] = rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM sessions');
    assert.ok(written!.n > 0 && written!.n < made.sessions, `the first batch landed: ${written!.n}`);
    const [r] = rig.forwarder.backfill();
    const live = rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM sessions')[0]!.n;
    assert.equal(r!.sessionsWritten + r!.sessionsUnchanged, r!.sessionsSeen);
    assert.equal(r!.sessionsUnchanged, written!.n);
    assert.equal(live, r!.sessionsSeen);
    const [again] = rig.forwarder.backfill();
    assert.deepEqual([again!.sessionsWritten, again!.sessionsUnchanged], [0, r!.sessionsSeen]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

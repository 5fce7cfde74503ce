// A pass whose read worker goes quiet lets the event loop run between its looks (step.ts nextRead), so a thread that
// ends is told on any platform, also where its task cannot be looked for (decision 0129).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { generatedStore } from '../../state-db/testing/generated.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { createPolicyResolver } from '../policy/index.js';
import { discoverStores } from '../reader/index.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { fakeWorker } from './testing/workers.js';
import { stepStoreInSteps, type StepResult } from './step.js';

/** A worker that hides its task id, takes two sessions, stays quiet for 1.5 s and exits. */
const QUIET_THEN_GONE = fakeWorker({ take: 2, hideTask: true, then: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500); process.exit(9);' });

test('only: a worker quiet past a look and then gone fails the pass with its own reason, told by a turn of the event loop', async () => {
  const { dir, cleanup } = tempDir('hermetic-worker-stopped-');
  const { path } = generatedStore({ out: join(dir, 'state.db'), sessions: 12, messages: 120, seed: 'worker-stopped' });
  const sink = SqliteSink.open(join(dir, 'home'));
  try {
    const steps = stepStoreInSteps(discoverStores({ home: dir, explicit: [path] })[0]!, {
      sink, policy: createPolicyResolver({ stateDir: join(dir, 'home'), now: () => 0 }), redact: false, origin: 'backfill', now: () => Date.now() / 1000,
      readWorker: 'only', readWorkerModule: QUIET_THEN_GONE,
    });
    // Driven as the CLI's passes are: a turn of the event loop at every pause.
    let pauses = 0;
    let r: StepResult;
    for (;;) {
      const next = steps.next();
      if (next.done) {
        r = next.value;
        break;
      }
      pauses++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(pauses >= 1, 'paused while the worker was quiet');
    assert.equal(r.error?.code, 'HERMETIC_INTERNAL');
    assert.match(r.error?.message ?? '', /^The read worker stopped in the pass over .*state\.db \(its thread exited with code 9\); HERMETIC_READ_WORKER=only/);
  } finally {
    sink.close();
    cleanup();
  }
});

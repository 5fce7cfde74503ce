// A usage policy changed after sessions were forwarded moves them on the next pass, without waiting for them to change
// in Hermes: a channel folder that becomes local-only makes its sessions local-only (and the change log carries the move
// to remote sinks); full again, they are full again; `ignore` is left to `hermetic forget`; a pass that just wrote every
// session (a first backfill) does not judge them twice.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { forwarderRig, hermesStore } from '../testing/index.js';

test('a folder that becomes local-only moves the sessions forwarded before; full again, they move back', () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-policy-moves-', 'moves');
  const telegram = w.createSession({ source: 'telegram' });
  const cron = w.createSession({ source: 'cron' });
  for (const id of [telegram, cron]) w.appendMessages(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  db.close();
  let clock = 1_800_000_000_000;
  const rig = forwarderRig([path], { dir, now: () => clock });
  const policies = () => Object.fromEntries(rig.query<{ session_id: string; policy: string }>('SELECT session_id, policy FROM sessions').map((r) => [r.session_id, r.policy]));
  const channel = join(dir, 'hermes', 'channels', 'telegram');
  try {
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'local-only\n');
    // The policy's cache and the moves' pace are a few seconds: the next pass after them moves the session.
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'local-only', [cron]: 'full' });
    rmSync(join(channel, '.hypignore'));
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
    // `ignore` is forget's to apply: the rows stay as they were until then.
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    clock += 10_000;
    rig.forwarder.backfill();
    assert.deepEqual(policies(), { [telegram]: 'full', [cron]: 'full' });
  } finally {
    rig.cleanup();
    cleanup();
  }
});

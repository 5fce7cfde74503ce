// The machine's clock set back under a running forward (NTP stepping a clock that ran ahead, a VM resumed, a person
// fixing the date): what a pass remembers as times — when it last said it was alive, last looked for edits, last
// applied the usage policy, and when a failed session is retried — must not make it wait for the clock to catch up.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { failingSessionRig, forwarderRig, hermesStore } from '../testing/index.js';

const DAY_MS = 86_400_000;

test('the clock set back a day: the heartbeat, the usage policy\'s moves and the look for edits go on at their pace', () => {
  const T = 1_800_000_000;
  let clock = T * 1000;
  const { dir, cleanup, path, w } = hermesStore('hermetic-clock-back-', 'clock', () => clock / 1000 - 30);
  const s = w.createSession({ source: 'telegram' });
  const [, reply] = w.appendMessages(s, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', finish_reason: 'stop' }]);
  const rig = forwarderRig([path], { dir, now: () => clock, readWorker: 'off' });
  const lastTick = () => rig.query<{ last_tick_at: number }>('SELECT last_tick_at FROM stores')[0]!.last_tick_at;
  const policy = () => rig.query<{ policy: string }>('SELECT policy FROM sessions')[0]!.policy;
  try {
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsWritten, 1);
    // A reaction a minute later is found by the look for edits (the pace this test then expects after the clock moved).
    w.setMessageReaction(reply!, '👍');
    clock += 61_000;
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsEdited, 1);
    assert.equal(lastTick(), T + 61);

    // The clock goes back a day; the channel's folder becomes local-only; nothing commits to the store.
    clock -= DAY_MS;
    const channel = join(dir, 'hermes', 'channels', 'telegram');
    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'local-only\n');
    clock += 61_000;
    const [idle] = rig.forwarder.forwardOnce();
    assert.deepEqual([idle!.read, idle!.error], [null, null], 'an idle tick');
    assert.equal(lastTick(), clock / 1000, 'the heartbeat said now, not a day later');
    assert.equal(policy(), 'local-only', 'the policy move made now, not a day later');

    // Another reaction: seen on the next look, a minute after the last (by the clock as it is now).
    w.setMessageReaction(reply!, '🎉');
    clock += 61_000;
    assert.equal(rig.forwarder.forwardOnce()[0]!.sessionsEdited, 1, 'the edit seen now, not a day later');
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('the clock set back a day: a quarantined session is retried after its backoff, not a day later', () => {
  const rig = failingSessionRig('hermetic-clock-back-q-', { readWorker: 'off' });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.sessionsQuarantined, 1);
    rig.failing = false;
    rig.now -= DAY_MS;
    rig.now += 40_000;
    const [r] = rig.forwarder.forwardOnce();
    assert.deepEqual([r!.sessionsWaiting, r!.sessionsWritten], [0, 1], 'retried once its 30 s backoff passed');
    assert.equal(rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM quarantine')[0]!.n, 0);
  } finally {
    rig.cleanup();
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ControlledClock } from './clock.js';

test('a frozen clock stays put until set or advanced', () => {
  const clock = new ControlledClock({ start: 100, frozen: true });
  assert.equal(clock.now(), 100);
  clock.advance(5);
  assert.equal(clock.now(), 105);
  clock.set(50);
  assert.equal(clock.now(), 50);
});

test('advance fires every due timer in order, each seeing its own due time', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  const seen: Array<[string, number]> = [];
  const tick = () => {
    seen.push(['tick', clock.now()]);
    clock.schedule(60, tick);
  };
  clock.schedule(60, tick);
  clock.schedule(90, () => seen.push(['once', clock.now()]));
  clock.advance(200);
  assert.deepEqual(seen, [['tick', 60], ['once', 90], ['tick', 120], ['tick', 180]]);
  assert.equal(clock.now(), 200);
});

test('cancelled timers never fire; setting the clock back fires nothing', () => {
  const clock = new ControlledClock({ start: 10, frozen: true });
  let fired = 0;
  clock.schedule(5, () => fired++).cancel();
  clock.set(0);
  clock.schedule(1, () => fired++);
  clock.set(0.5);
  assert.equal(fired, 0);
  clock.advance(1);
  assert.equal(fired, 1);
});

test('an unfrozen clock follows real time from its start and fires timers on its own', async () => {
  let real = 1000;
  const clock = new ControlledClock({ start: 5, real: () => real });
  real += 2.5;
  assert.equal(clock.now(), 7.5);
  clock.freeze(true);
  real += 10;
  assert.equal(clock.now(), 7.5);
  clock.freeze(false);
  real += 1;
  assert.equal(clock.now(), 8.5);

  const live = new ControlledClock();
  // The clock's own timer is unref'd (it never keeps a process alive), so hold the loop open meanwhile.
  const hold = setTimeout(() => {}, 5000);
  await new Promise<void>((resolve) => live.schedule(0.02, resolve));
  clearTimeout(hold);
  live.close();
});

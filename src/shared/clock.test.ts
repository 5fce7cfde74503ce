import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ControlledClock, EPOCH_MAX, EPOCH_MIN, MAX_FIRINGS_PER_STEP, MIN_INTERVAL, epochProblem } from './clock.js';
import { HermeticError } from './errors.js';

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
  const hold = setTimeout(() => {}, 60_000);
  await new Promise<void>((resolve) => live.schedule(0.02, resolve));
  clearTimeout(hold);
  live.close();
});

const rangeError = (message: string) => (e: unknown) =>
  e instanceof HermeticError && e.code === 'HERMETIC_CLOCK_RANGE' && e.message === message;

test('a periodic timer fires once for a jump across the whole range, then keeps its phase', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  const seen: number[] = [];
  clock.every(60, () => seen.push(clock.now()));
  // 4.2e9 missed periods: replaying them one by one would hang the process.
  clock.set(EPOCH_MAX);
  const last = Math.floor(EPOCH_MAX / 60) * 60;
  assert.deepEqual(seen, [last]);
  assert.equal(clock.now(), EPOCH_MAX);
  clock.set(last - 0.5);
  clock.set(EPOCH_MAX);
  assert.deepEqual(seen, [last, last], 'set back, then forward over the same boundary: once more');
});

test('a 1 ms periodic timer over the whole range (2.5e14 missed periods) fires once', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  let calls = 0;
  clock.every(MIN_INTERVAL, () => calls++);
  clock.advance(EPOCH_MAX - 1);
  assert.equal(calls, 1);
  clock.advance(0.001);
  assert.equal(calls, 2);
});

test('the phase rule: fire at the last boundary reached, next at the following one; setting back re-phases', () => {
  const clock = new ControlledClock({ start: 1000, frozen: true });
  const seen: Array<[string, number]> = [];
  clock.every(60, () => seen.push(['tick', clock.now()]));
  clock.schedule(90, () => seen.push(['once', clock.now()]));
  clock.schedule(150, () => seen.push(['late once', clock.now()]));
  clock.advance(140);
  // Boundaries 1060 and 1120 were passed: one tick, at 1120, after the one-shot due at 1090.
  assert.deepEqual(seen, [['once', 1090], ['tick', 1120]]);
  clock.advance(40);
  assert.deepEqual(seen.slice(2), [['late once', 1150], ['tick', 1180]]);
  clock.set(500);
  clock.advance(19);
  assert.equal(seen.length, 4);
  clock.advance(1);
  assert.deepEqual(seen.slice(4), [['tick', 520]], 'after a set back, the first boundary (1000 + 60k) after the new time');
});

test('a periodic timer may cancel itself from its own callback; close cancels everything', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  let calls = 0;
  const timer = clock.every(10, () => {
    calls++;
    timer.cancel();
  });
  clock.advance(100);
  clock.advance(100);
  assert.equal(calls, 1);
  let other = 0;
  clock.every(1, () => other++);
  clock.close();
  clock.advance(10);
  assert.equal(other, 0);
});

test('a one-shot that reschedules itself at zero delay is bounded per step', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  let calls = 0;
  const loop = () => {
    calls++;
    clock.schedule(0, loop);
  };
  clock.schedule(0, loop);
  clock.advance(1);
  // The budget in due order, then each timer still due runs once, late; the rest waits for the next step.
  assert.equal(calls, MAX_FIRINGS_PER_STEP + 1);
  assert.equal(clock.now(), 1);
  clock.advance(0);
  assert.equal(calls, 2 * (MAX_FIRINGS_PER_STEP + 1));
});

test('a self-rescheduling one-shot over a huge jump replays up to the budget, then runs once at the target', () => {
  const clock = new ControlledClock({ start: 0, frozen: true });
  const seen: number[] = [];
  const tick = () => {
    seen.push(clock.now());
    clock.schedule(60, tick);
  };
  clock.schedule(60, tick);
  clock.set(EPOCH_MAX);
  assert.equal(seen.length, MAX_FIRINGS_PER_STEP + 1);
  assert.equal(seen[MAX_FIRINGS_PER_STEP - 1], 60 * MAX_FIRINGS_PER_STEP);
  assert.equal(seen[MAX_FIRINGS_PER_STEP], EPOCH_MAX);
});

test('times outside 0 … 253402300799 and bad steps are refused and change nothing', () => {
  const clock = new ControlledClock({ start: 1789169800, frozen: true });
  assert.throws(
    () => clock.set(1796000000000),
    rangeError('Clock time 1796000000000 looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000).'),
  );
  assert.throws(
    () => clock.set(1e20),
    rangeError("Clock time 100000000000000000000 is outside the clock's range, 0 to 253402300799 seconds since the epoch (the end of year 9999)."),
  );
  assert.throws(() => clock.set(-1), rangeError("Clock time -1 is outside the clock's range, 0 to 253402300799 seconds since the epoch (the end of year 9999)."));
  assert.throws(() => clock.set(NaN), rangeError('Clock time NaN is not a finite number.'));
  assert.throws(() => clock.advance(-1), rangeError('A clock advance must be a finite number of seconds, not negative; got -1.'));
  assert.throws(() => clock.advance(Infinity), rangeError('A clock advance must be a finite number of seconds, not negative; got Infinity.'));
  assert.throws(
    () => clock.advance(EPOCH_MAX),
    rangeError('Advancing the clock by 253402300799 seconds would pass 253402300799 (the end of year 9999); it stays at 1789169800.'),
  );
  assert.equal(clock.now(), 1789169800);
  assert.throws(
    () => new ControlledClock({ start: 1789169800123 }),
    rangeError("The clock's start time 1789169800123 looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000)."),
  );
  assert.throws(
    () => clock.every(0, () => {}),
    rangeError("A periodic timer's interval must be a finite number of seconds, at least 0.001; got 0."),
  );
  assert.equal(epochProblem(EPOCH_MAX), null);
  assert.equal(epochProblem(EPOCH_MIN), null);
});

test('reset starts the same clock over: timers cancelled, new start time, frozen as asked', () => {
  const clock = new ControlledClock({ start: 1_000, frozen: true });
  const fired: number[] = [];
  clock.schedule(5, () => fired.push(clock.now()));
  clock.every(60, () => fired.push(clock.now()));
  clock.reset({ start: 5_000, frozen: true });
  assert.equal(clock.now(), 5_000);
  assert.equal(clock.frozen, true);
  clock.advance(600);
  assert.equal(fired.length, 0);
  clock.schedule(1, () => fired.push(clock.now()));
  clock.advance(1);
  assert.deepEqual(fired, [5_601]);
  assert.throws(() => clock.reset({ start: -1 }), /HERMETIC_CLOCK_RANGE|start time/);
  clock.close();
});

// The clock's front doors (decision 0014): out-of-range times are refused with a code and a sentence and change
// nothing; a legal jump of any length leaves the server answering, with one sweep and one keep-alive.
import assert from 'node:assert/strict';
import { it, test } from 'node:test';
import { createEmulator } from '../../src/emulator/index.js';
import { serveOptions } from '../../src/emulator/serve/cli.js';
import { ControlledClock, EPOCH_MAX, type Timer } from '../../src/shared/clock.js';
import { HermeticError } from '../../src/shared/errors.js';
import { describeTransports, std, T0 } from '../support/harness.js';
import { status, submit } from '../support/runs.js';

const MS = 'looks like milliseconds since the epoch; Hermes times are seconds (divide by 1000)';
const OUTSIDE = "is outside the clock's range, 0 to 253402300799 seconds since the epoch (the end of year 9999)";

/** Counts the callbacks of periodic timers (the 60 s sweep, SSE keep-alives). */
class CountingClock extends ControlledClock {
  periodicCalls = 0;
  override every(intervalSeconds: number, fn: () => void): Timer {
    return super.every(intervalSeconds, () => {
      this.periodicCalls++;
      fn();
    });
  }
}

describeTransports('clock range', (open) => {
  it('advance takes a duration, set an ISO time, and reset puts the clock back as the options start it', async () => {
    const h = await open();
    assert.deepEqual(await h.admin.clock({ advance: '1h30m' }), { now: T0 + 5400, frozen: true });
    assert.deepEqual(await h.admin.clock({ advance: '500ms' }), { now: T0 + 5400.5, frozen: true });
    assert.deepEqual(await h.admin.clock({ set: '2026-09-12T00:00:00Z' }), { now: Date.UTC(2026, 8, 12) / 1000, frozen: true });
    assert.deepEqual(await h.admin.clock({ set: '2026-09-12' }), { now: Date.UTC(2026, 8, 12) / 1000, frozen: true });
    assert.deepEqual(await h.admin.clock({ set: '2026-09-12T02:00:00+02:00' }), { now: Date.UTC(2026, 8, 12) / 1000, frozen: true });
    assert.deepEqual(await h.admin.clock({ reset: true }), { now: T0, frozen: true });
    for (const [body, message] of [
      ['{"advance": "soon"}', 'Field "advance" is "soon": give seconds (a number) or a duration such as "90s", "5m", "1h30m", "500ms".'],
      ['{"set": "2026-09-12T00:00:00"}', 'Field "set" is "2026-09-12T00:00:00": give epoch seconds (a number) or an ISO time with its zone, such as "2026-09-12T00:00:00Z" (a date alone is midnight UTC).'],
      ['{"reset": true, "advance": 5}', 'Give "reset" alone: it puts the clock back to how the options start it.'],
    ] as const) {
      const reply = await h.request('POST', '/__admin/clock', { body });
      assert.deepEqual([reply.status, reply.json().error.message], [400, message], body);
    }
    assert.deepEqual(await h.admin.getClock(), { now: T0, frozen: true });
  });

  it('a millisecond time is refused with a code and a sentence, and nothing changes (freeze included)', async () => {
    const h = await open();
    const reply = await h.request('POST', '/__admin/clock', { body: '{"set": 1796000000000, "freeze": false}' });
    assert.equal(reply.status, 400);
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(reply.json(), {
      error: { code: 'HERMETIC_CLOCK_RANGE', message: `Field "set" is 1796000000000, which ${MS}.` },
    });
    assert.deepEqual(await h.admin.getClock(), { now: T0, frozen: true });
  });

  it('times past the year 9999, before 1970, past 2**53, and advances past the range are refused', async () => {
    const h = await open();
    for (const [body, message] of [
      ['{"set": 1e20}', `Field "set" is 100000000000000000000, which ${OUTSIDE}.`],
      ['{"set": 100000000000000000000}', `Field "set" is 100000000000000000000, which ${OUTSIDE}.`],
      ['{"set": -1}', `Field "set" is -1, which ${OUTSIDE}.`],
      ['{"set": 4102444800000.5}', `Field "set" is 4102444800000.5, which ${MS}.`],
      ['{"advance": 1e12}', 'Field "advance" is 1000000000000, which would move the clock past 253402300799 (the end of year 9999).'],
    ] as const) {
      const reply = await h.request('POST', '/__admin/clock', { body });
      assert.equal(reply.status, 400, body);
      assert.deepEqual(reply.json(), { error: { code: 'HERMETIC_CLOCK_RANGE', message } }, body);
    }
    const nan = await h.request('POST', '/__admin/clock', { body: '{"set": NaN}' });
    assert.equal(nan.status, 400);
    assert.deepEqual(nan.json(), { error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Field "set" must be a finite number.' } });
    assert.deepEqual(await h.admin.getClock(), { now: T0, frozen: true });
  });

  it('the admin client throws the code and the sentence', async () => {
    const h = await open();
    await assert.rejects(h.admin.clock({ set: 1796000000000 }), (e: unknown) => {
      assert.ok(e instanceof HermeticError);
      assert.equal(e.code, 'HERMETIC_CLOCK_RANGE');
      assert.equal(e.message, `Field "set" is 1796000000000, which ${MS}.`);
      return true;
    });
  });

  it('a jump to the last legal second keeps the server answering and runs the sweep once', async () => {
    const clock = new CountingClock({ start: T0, frozen: true });
    const h = await open({ clock });
    const runId = await submit(h);
    await h.admin.complete(runId, { output: 'Done.' });
    assert.equal(clock.periodicCalls, 0);
    assert.deepEqual(await h.admin.clock({ set: EPOCH_MAX }), { now: EPOCH_MAX, frozen: true });
    assert.equal(clock.periodicCalls, 1, 'one sweep for 4.2e9 missed minutes');
    const health = await h.request('GET', '/health');
    assert.equal(health.status, 200);
    assert.equal(health.headers.date, 'Fri, 31 Dec 9999 23:59:59 GMT');
    const swept = await status(h, runId);
    assert.equal(swept.status, 404);
    assert.equal(swept.text, std(`Run not found: ${runId}`, 'run_not_found'));
    clock.close();
  });

  it('an event stream attached across a long jump gets one keep-alive, then the next event', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.clock({ advance: 10 * 365 * 86400 });
    await h.admin.event(runId, { event: 'message.delta', delta: 'still here' });
    const text = await stream.until((t) => t.includes('still here'));
    assert.equal(text.split(': keepalive\n\n').length - 1, 1);
    assert.ok(text.startsWith(': keepalive\n\n'), text);
    stream.close();
  });
});

test('createEmulator refuses a millisecond start time at option validation', () => {
  const time = 1796152601596.09;
  assert.throws(
    () => createEmulator({ time }),
    (e: unknown) =>
      e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_INVALID' && e.message === `Option "time" is 1796152601596.09, which ${MS}.`,
  );
  assert.throws(
    () => createEmulator({ time: -5 }),
    (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_INVALID' && e.message === `Option "time" is -5, which ${OUTSIDE}.`,
  );
});

test('hermetic serve --time refuses a millisecond time as a usage error', () => {
  assert.throws(
    () => serveOptions(['--time', '1796000000000'], {}),
    (e: unknown) =>
      e instanceof HermeticError &&
      e.code === 'HERMETIC_CLI_USAGE' &&
      e.message === `--time is 1796000000000, which ${MS}.`,
  );
  assert.throws(
    () => serveOptions(['--time', '-5'], {}),
    (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_CLI_USAGE' && e.message === `--time is -5, which ${OUTSIDE}.`,
  );
  const ok = serveOptions(['--time', '253402300799'], {});
  assert.ok(ok !== 'help');
  assert.equal(ok.time, EPOCH_MAX);
});

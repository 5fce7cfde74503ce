// Fault rules over real client connections (decision 0021): every action and preset once in process and once over a
// node:http server on port 0 with a raw socket client, where a dropped connection is an error and never a status.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { EmulatorOptions } from '../../src/emulator/index.js';
import { openFaultClient, type Answer, type FaultClient, type Outcome } from '../support/faults.js';
import { K, std, tick } from '../support/harness.js';

const answered = (o: Outcome): Answer => {
  if (o.kind !== 'answer') throw new Error(`expected an answer, the connection dropped: ${o.error.message}`);
  return o.answer;
};

/** A dropped connection as each client sees it: fetch rejects with TypeError, node:http errors on the socket. */
function assertDropped(o: Outcome, transport: 'fetch' | 'http'): void {
  assert.equal(o.kind, 'dropped', o.kind === 'answer' ? `answered ${o.answer.status} ${o.answer.text}` : '');
  if (o.kind !== 'dropped') return;
  if (transport === 'fetch') {
    assert.ok(o.error instanceof TypeError);
    assert.equal(o.error.message, 'fetch failed');
  } else {
    assert.match((o.error as NodeJS.ErrnoException).code ?? o.error.message, /ECONNRESET|socket hang up|EPIPE/);
  }
}

const THROTTLED = std('Too many concurrent runs (max 10)', 'rate_limit_exceeded', 'rate_limit_error');
const DRAINING = std('Gateway is draining existing work; retry shortly.', 'gateway_draining');
const KEYED = { 'Idempotency-Key': 'key-1' };

/** Resolves to whether `p` settled within a few event-loop turns. */
async function settledSoon(p: Promise<unknown>, turns = 20): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < turns && !done; i++) await tick();
  return done;
}

for (const transport of ['fetch', 'http'] as const) {
  describe(`faults [${transport}]`, () => {
    const opened: FaultClient[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((c) => c.close()));
    });
    const open = async (options: EmulatorOptions = {}) => {
      const c = await openFaultClient(transport, options);
      opened.push(c);
      return c;
    };
    const submit = async (c: FaultClient, headers: Record<string, string> = {}, body = '{"input":"hi"}') =>
      answered(await c.send('POST', '/v1/runs', { body, headers }));

    it('respond: answers with the status, body (json.dumps) and headers, every time without a limit', async () => {
      const c = await open();
      const rule = await c.admin().addFault({ operation: 'get', action: 'respond', status: 418, body: { a: [1, 'é'] }, headers: { 'X-Fault': 'yes' } });
      assert.equal(rule.id, 'fault_1');
      for (let i = 0; i < 2; i++) {
        const a = answered(await c.send('GET', '/v1/runs/run_x'));
        assert.equal(a.status, 418);
        assert.equal(a.text, '{"a": [1, "\\u00e9"]}');
        assert.equal(a.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(a.headers['x-fault'], 'yes');
        assert.equal(a.headers['content-length'], String(a.text.length));
        assert.equal(a.headers['server'], 'Python/3.11 aiohttp/3.14.3');
      }
      assert.deepEqual((await c.admin().fault('fault_1')).fired, 2);
      // Other operations are untouched; the control plane is never faulted.
      assert.equal(answered(await c.send('GET', '/health')).status, 200);
      await c.admin().addFault({ action: 'respond', status: 500 });
      assert.equal((await c.admin().faults()).faults.length, 2);
    });

    it('a preset added by its path takes the body as overrides; an unknown one is named with the nearest', async () => {
      const c = await open();
      const rule = await c.admin().addPreset('hermes_server_error', { times: 2 });
      assert.deepEqual([rule.action, rule.remaining], ['server_error', 2]);
      assert.equal(answered(await c.send('POST', '/v1/runs', { body: '{"input":"hi"}' })).status, 500);
      const unknown = answered(await c.send('POST', '/__admin/faults/presets/hermes_server_eror', { body: '{}' }));
      assert.equal(unknown.status, 400);
      assert.match(JSON.parse(unknown.text).error.message, /unknown preset "hermes_server_eror"\. Did you mean "hermes_server_error"\?/);
    });

    it('drop: the connection drops before Hermes sees the request; no run exists', async () => {
      const c = await open();
      await c.admin().addFault({ preset: 'hermes_submit_drop' });
      assertDropped(await c.send('POST', '/v1/runs', { body: '{"input":"hi"}', headers: KEYED }), transport);
      assert.deepEqual((await c.admin().runs()).runs, []);
      // One-shot: the retry admits a new run.
      const a = await submit(c, KEYED);
      assert.equal(a.status, 202);
      assert.equal(JSON.parse(a.text).replayed, false);
    });

    it('hermes_submit_accepted_drop: the run is admitted, the 202 is lost, the retry with the key replays it', async () => {
      const c = await open();
      await c.admin().addFault({ preset: 'hermes_submit_accepted_drop' });
      assertDropped(await c.send('POST', '/v1/runs', { body: '{"input":"hi"}', headers: KEYED }), transport);
      const { runs } = await c.admin().runs();
      assert.equal(runs.length, 1);
      const retry = await submit(c, KEYED);
      assert.equal(retry.status, 202);
      assert.equal(retry.headers['idempotency-replayed'], 'true');
      assert.equal(retry.text, `{"run_id": "${runs[0]!.run_id}", "status": "running", "replayed": true}`);
      const rule = (await c.admin().faults()).faults[0]!;
      assert.deepEqual([rule.fired, rule.remaining], [1, 0]);
    });

    it('admit_then_drop is spent only by an answer it drops: a 400 goes out and leaves the rule armed', async () => {
      const c = await open();
      await c.admin().addFault({ preset: 'hermes_submit_accepted_drop' });
      const bad = await submit(c, KEYED, '{"input":""}');
      assert.equal(bad.status, 400);
      assert.equal((await c.admin().runs()).runs.length, 0);
      assert.equal((await c.admin().fault('fault_1')).remaining, 1);
      assertDropped(await c.send('POST', '/v1/runs', { body: '{"input":"hi"}' }), transport);
      assert.equal((await c.admin().runs()).runs.length, 1);
    });

    it('hermes_throttled: Hermes\'s 429 with Retry-After at its place; a replay and a 400 pass and do not spend it', async () => {
      const c = await open();
      const first = JSON.parse((await submit(c, KEYED)).text).run_id;
      await c.admin().addFault({ preset: 'hermes_throttled' });
      const replay = await submit(c, KEYED);
      assert.equal(replay.status, 202);
      assert.equal(JSON.parse(replay.text).run_id, first);
      assert.equal((await submit(c, { 'Idempotency-Key': 'key-2' }, '{"input":""}')).status, 400);
      assert.equal((await c.admin().fault('fault_1')).remaining, 1);
      const refused = await submit(c, { 'Idempotency-Key': 'key-2' });
      assert.equal(refused.status, 429);
      assert.equal(refused.text, THROTTLED);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal(refused.headers['x-frame-options'], 'DENY');
      // No run, no reservation: the same key admits a new run once the rule is spent.
      assert.equal((await c.admin().runs()).runs.length, 1);
      const later = await submit(c, { 'Idempotency-Key': 'key-2' });
      assert.equal(JSON.parse(later.text).replayed, false);
    });

    it('hermes_throttled on a keyless submit, and with the cap disabled it still says Hermes\'s default cap', async () => {
      const c = await open({ maxConcurrentRuns: 0 });
      await c.admin().addFault({ preset: 'hermes_throttled', times: 2 });
      assert.equal((await submit(c)).text, THROTTLED);
      assert.equal((await submit(c, KEYED)).text, THROTTLED);
      assert.equal((await submit(c)).status, 202);
    });

    it('hermes_draining: 503 right after auth, replays included; an unauthenticated submit is 401 and spends nothing', async () => {
      const c = await open();
      await submit(c, KEYED);
      await c.admin().addFault({ preset: 'hermes_draining' });
      const unauth = answered(await c.send('POST', '/v1/runs', { body: '{"input":"hi"}', auth: false }));
      assert.equal(unauth.status, 401);
      const refused = await submit(c, KEYED);
      assert.equal(refused.status, 503);
      assert.equal(refused.text, DRAINING);
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((await submit(c, KEYED)).status, 202);
      assert.equal((await c.admin().faults()).fired_total, 1);
    });

    it('throttle and drain armed together: Hermes\'s order decides (draining first), the other stays armed', async () => {
      const c = await open();
      await c.admin().addFault({ preset: 'hermes_throttled' });
      await c.admin().addFault({ preset: 'hermes_draining' });
      assert.equal((await submit(c)).text, DRAINING);
      assert.equal((await submit(c)).text, THROTTLED);
      assert.equal((await submit(c)).status, 202);
    });

    it('hermes_slow_poll: the GET waits for the namespace clock to reach the time (a frozen clock: until moved)', async () => {
      const c = await open();
      const runId = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ preset: 'hermes_slow_poll', seconds: 5 });
      const poll = c.send('GET', `/v1/runs/${runId}`);
      assert.equal(await settledSoon(poll), false);
      await c.admin().clock({ advance: 4 });
      assert.equal(await settledSoon(poll), false);
      await c.admin().clock({ advance: 1 });
      assert.equal(answered(await poll).status, 200);
      // One-shot.
      assert.equal(answered(await c.send('GET', `/v1/runs/${runId}`)).status, 200);
    });

    it('hermes_poll_timeout is the same rule under Mockingbird\'s name; a wall-clock delay waits real time', async () => {
      const c = await open();
      const rule = await c.admin().addFault({ preset: 'hermes_poll_timeout', clock: 'wall', seconds: 0.05 });
      assert.deepEqual([rule.preset, rule.action, rule.clock], ['hermes_poll_timeout', 'delay', 'wall']);
      const started = performance.now();
      assert.equal(answered(await c.send('GET', '/v1/runs/run_x')).status, 404);
      assert.ok(performance.now() - started >= 45);
    });

    it('a delay after the request is handled: the run is admitted while the 202 waits', async () => {
      const c = await open();
      await c.admin().addFault({ operation: 'submit', action: 'delay', seconds: 2, when: 'after' });
      const pending = c.send('POST', '/v1/runs', { body: '{"input":"hi"}' });
      // The run is admitted, and the answer waits 2 s of the namespace's clock from then.
      while ((await c.admin().runs()).runs.length === 0) await tick();
      assert.equal(await settledSoon(pending), false);
      await c.admin().clock({ advance: 1 });
      assert.equal(await settledSoon(pending), false);
      await c.admin().clock({ advance: 1 });
      assert.equal(answered(await pending).status, 202);
    });

    it('hermes_events_drop: one event, then the connection drops; Hermes deletes the buffer, so a reconnect is 404', async () => {
      const c = await open();
      const runId = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ preset: 'hermes_events_drop' });
      const watch = await c.watch(`/v1/runs/${runId}/events`);
      assert.equal(watch.status, 200);
      await c.admin().event(runId, { event: 'message.delta', delta: 'one' });
      assert.equal(await watch.settled, 'dropped');
      assert.match(watch.text(), /^data: \{"event": "message.delta", [^\n]*"delta": "one"\}\n\n$/);
      // Hermes notices the departed client on its next write and deletes the run's buffer.
      await c.admin().event(runId, { event: 'message.delta', delta: 'two' });
      const again = await c.watch(`/v1/runs/${runId}/events`);
      assert.equal(again.status, 404);
      assert.equal(answered(await c.send('GET', `/v1/runs/${runId}`)).status, 200);
      assert.equal((await c.admin().fault('fault_1')).fired, 1);
    });

    it('sse_drop after 0 events: the head arrives, then the connection drops', async () => {
      const c = await open();
      const runId = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ action: 'sse_drop', after_events: 0 });
      const watch = await c.watch(`/v1/runs/${runId}/events`);
      assert.equal(watch.status, 200);
      assert.equal(await watch.settled, 'dropped');
      assert.equal(watch.text(), '');
      // The journal names the rule that cut it (after its head was journaled).
      const entry = (await c.admin().requests({ operation: 'events' })).requests.at(-1)!;
      assert.equal(entry.fault_id, 'fault_1');
    });

    it('sse_drop is spent only by a stream it cuts: a run that ends first leaves it armed', async () => {
      const c = await open();
      const runId = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ action: 'sse_drop', after_events: 3 });
      const watch = await c.watch(`/v1/runs/${runId}/events`);
      await c.admin().complete(runId, { output: 'ok' });
      assert.equal(await watch.settled, 'ended');
      assert.match(watch.text(), /: stream closed\n\n$/);
      const rule = await c.admin().fault('fault_1');
      assert.deepEqual([rule.fired, rule.remaining], [0, null]);
      // Nor does the journal blame it for the stream it did not affect.
      const entry = (await c.admin().requests({ operation: 'events' })).requests.at(-1)!;
      assert.equal(entry.fault_id, null);
    });

    it('hermes_events_stall: the head, then nothing (no events, no keep-alive, no end) while the connection stays open', async () => {
      const c = await open();
      const runId = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ preset: 'hermes_events_stall' });
      const watch = await c.watch(`/v1/runs/${runId}/events`);
      assert.equal(watch.status, 200);
      await c.admin().event(runId, { event: 'message.delta', delta: 'x' });
      await c.admin().clock({ advance: 60 });
      await c.admin().complete(runId, { output: 'ok' });
      assert.equal(await settledSoon(watch.settled, 50), false);
      assert.equal(watch.text(), '');
      // The run itself finished as usual.
      assert.match(answered(await c.send('GET', `/v1/runs/${runId}`)).text, /"status": "completed"/);
      // A reset of the namespace drops the stalled connection (as the gateway going away would).
      await c.admin().reset();
      assert.equal(await watch.settled, 'dropped');
    });

    it('hermes_server_error: aiohttp\'s 500 page without reaching Hermes, byte for byte the emulator\'s own (text or HTML, connection closed)', async () => {
      const c = await open();
      const withoutDate = (a: Answer) => ({ ...a, headers: Object.fromEntries(Object.entries(a.headers).filter(([k]) => k !== 'date')) });
      for (const accept of [{}, { Accept: 'text/html,application/xhtml+xml' }] as Record<string, string>[]) {
        // A JSON body that is not an object makes Hermes's handler raise: the emulator's own 500.
        const own = await submit(c, accept, '[]');
        assert.equal(own.status, 500);
        await c.admin().addFault({ preset: 'hermes_server_error' });
        const a = await submit(c, accept);
        assert.deepEqual(withoutDate(a), withoutDate(own));
        if (transport === 'http') assert.equal(a.headers.connection, 'close');
      }
      const text = await (async () => { await c.admin().addFault({ preset: 'hermes_server_error' }); return submit(c); })();
      assert.equal(text.text, '500 Internal Server Error\n\nServer got itself in trouble');
      assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
      assert.deepEqual((await c.admin().runs()).runs, []);
    });

    it('matching by method, path prefix and run id', async () => {
      const c = await open();
      const a = JSON.parse((await submit(c)).text).run_id;
      const b = JSON.parse((await submit(c)).text).run_id;
      await c.admin().addFault({ run_id: a, action: 'respond', status: 502 });
      await c.admin().addFault({ method: 'post', path_prefix: `/v1/runs/${b}/`, action: 'respond', status: 504 });
      assert.equal(answered(await c.send('GET', `/v1/runs/${a}`)).status, 502);
      assert.equal(answered(await c.send('POST', `/v1/runs/${a}/stop`)).status, 502);
      assert.equal(answered(await c.send('GET', `/v1/runs/${b}`)).status, 200);
      assert.equal(answered(await c.send('POST', `/v1/runs/${b}/stop`)).status, 504);
    });

    it('namespaces are isolated: a rule in one never fires in another, over the path prefix and the header', async () => {
      const c = await open();
      await c.admin('a').addFault({ action: 'respond', status: 503 });
      assert.equal(answered(await c.send('GET', '/ns/a/health')).status, 503);
      assert.equal(answered(await c.send('GET', '/health', { headers: { 'x-hermetic-namespace': 'a' } })).status, 503);
      assert.equal(answered(await c.send('GET', '/ns/b/health')).status, 200);
      assert.equal(answered(await c.send('GET', '/health')).status, 200);
      assert.deepEqual((await c.admin('b').faults()).faults, []);
      assert.equal((await c.admin('a').faults()).fired_total, 2);
    });

    it('list, read, delete one, delete all; a namespace reset forgets added rules', async () => {
      const c = await open();
      const admin = c.admin();
      await admin.addFault({ preset: 'hermes_draining' });
      await admin.addFault({ id: 'mine', action: 'drop', operation: 'stop' });
      assert.deepEqual((await admin.faults()).faults.map((f) => f.id), ['fault_1', 'mine']);
      const removed = await admin.deleteFault('fault_1');
      assert.equal(removed.preset, 'hermes_draining');
      assert.deepEqual((await admin.faults()).faults.map((f) => f.id), ['mine']);
      // Adding an id again replaces the rule in place, its counts from zero.
      await admin.addFault({ id: 'mine', action: 'respond', status: 409 });
      assert.equal((await admin.fault('mine')).action, 'respond');
      assert.deepEqual(await admin.clearFaults(), { deleted: 1 });
      await admin.addFault({ preset: 'hermes_draining' });
      await admin.reset();
      assert.deepEqual(await admin.faults(), { faults: [], fired_total: 0 });
      const presets = (await admin.faultPresets()).presets.map((p) => p.name);
      for (const name of ['hermes_submit_accepted_drop', 'hermes_throttled', 'hermes_draining', 'hermes_slow_poll', 'hermes_poll_timeout']) {
        assert.ok(presets.includes(name as never), name);
      }
    });

    it('rules from the options apply to every namespace from its creation, and come back on reset', async () => {
      const c = await open({ faults: [{ preset: 'hermes_draining', times: null }] });
      assert.equal((await submit(c)).text, DRAINING);
      const ns = answered(await c.send('POST', '/ns/w1/v1/runs', { body: '{"input":"hi"}' }));
      assert.equal(ns.text, DRAINING);
      await c.admin('w1').clearFaults();
      assert.equal(answered(await c.send('POST', '/ns/w1/v1/runs', { body: '{"input":"hi"}' })).status, 202);
      await c.admin('w1').reset();
      assert.equal((await c.admin('w1').faults()).faults[0]!.preset, 'hermes_draining');
    });

    it('bad rules are 400 HERMETIC_FAULT_INVALID with a sentence that says what to change', async () => {
      const c = await open();
      const refused = async (body: unknown): Promise<[number, string, string]> => {
        const a = answered(await c.send('POST', '/__admin/faults', { body: JSON.stringify(body) }));
        const { error } = JSON.parse(a.text);
        return [a.status, error.code, error.message];
      };
      const bad = (message: string): [number, string, string] => [400, 'HERMETIC_FAULT_INVALID', message];
      assert.deepEqual(await refused({ preset: 'hermes_throttle' }), bad('Fault rule: unknown preset "hermes_throttle". Did you mean "hermes_throttled"?'));
      assert.deepEqual(await refused({ action: 'respond', statuss: 500 }), bad('Fault rule: unknown field "statuss". Did you mean "status"?'));
      assert.deepEqual(await refused({ action: 'respond' }), bad('Fault rule: action "respond" needs "status".'));
      assert.deepEqual(await refused({ action: 'delay', seconds: 1, status: 500 }), bad('Fault rule: field "status" does not apply to action "delay" (it is for respond).'));
      assert.deepEqual(
        await refused({ action: 'throttle', operation: 'get' }),
        bad('Fault rule: action "throttle" only applies to operation "submit" (Hermes\'s check is in POST /v1/runs), not "get".'),
      );
      assert.deepEqual(await refused({ preset: 'hermes_draining', action: 'drop' }), bad('Fault rule: a preset sets the action; leave out "action" or give a rule without "preset".'));
      assert.deepEqual(await refused({ action: 'drop', probability: 0 }), bad('Fault rule: field "probability" must be a number greater than 0 and at most 1, or null (always), not 0.'));
      assert.deepEqual(await refused({ action: 'drop', times: 0 }), bad('Fault rule: field "times" must be a whole number, 1 or more, or null (no limit), not 0.'));
      assert.deepEqual(await refused({ action: 'drop', operation: 'sumbit' }), bad('Fault rule: unknown operation "sumbit". Did you mean "submit"?'));
      assert.deepEqual(await refused({}), bad(
        'Fault rule: give "action" (one of respond, server_error, delay, drop, admit_then_drop, sse_drop, sse_stall, throttle, drain) or "preset" (one of hermes_submit_accepted_drop, hermes_submit_drop, hermes_throttled, hermes_draining, hermes_slow_poll, hermes_poll_timeout, hermes_events_drop, hermes_events_stall, hermes_server_error).',
      ));
      const missing = answered(await c.send('GET', '/__admin/faults/nope'));
      assert.equal(missing.status, 404);
      assert.equal(JSON.parse(missing.text).error.code, 'HERMETIC_FAULT_UNKNOWN');
      assert.deepEqual((await c.admin().faults()).faults, []);
    });
  });
}

describe('faults against an independent HTTP client (undici fetch)', () => {
  it('hermes_submit_accepted_drop: fetch rejects as on a network failure; the retry with the key replays the run', async () => {
    const c = await openFaultClient('http');
    try {
      await c.admin().addFault({ preset: 'hermes_submit_accepted_drop' });
      const init = { method: 'POST', body: '{"input":"hi"}', headers: { Authorization: `Bearer ${K}`, 'Idempotency-Key': 'k' } };
      await assert.rejects(fetch(`${c.url}/v1/runs`, init), (e: unknown) => e instanceof TypeError && e.message === 'fetch failed');
      const retry = await fetch(`${c.url}/v1/runs`, init);
      assert.equal(retry.status, 202);
      assert.equal(retry.headers.get('idempotency-replayed'), 'true');
      assert.equal((await c.admin().runs()).runs.length, 1);
    } finally {
      await c.close();
    }
  });

  it('hermes_events_drop: the body read fails mid-stream after the first event', async () => {
    const c = await openFaultClient('http');
    try {
      const auth = { Authorization: `Bearer ${K}` };
      const { run_id: runId } = await (await fetch(`${c.url}/v1/runs`, { method: 'POST', body: '{"input":"hi"}', headers: auth })).json();
      await c.admin().addFault({ preset: 'hermes_events_drop' });
      const res = await fetch(`${c.url}/v1/runs/${runId}/events`, { headers: auth });
      assert.equal(res.status, 200);
      await c.admin().event(runId, { event: 'message.delta', delta: 'one' });
      const reader = res.body!.getReader();
      let text = '';
      const failure = await (async () => {
        for (;;) {
          try {
            const { done, value } = await reader.read();
            if (done) return null;
            text += new TextDecoder().decode(value);
          } catch (e) {
            return e as Error;
          }
        }
      })();
      assert.ok(failure instanceof TypeError, String(failure));
      assert.match(text, /^data: \{"event": "message.delta", [^\n]*\}\n\n$/);
    } finally {
      await c.close();
    }
  });
});

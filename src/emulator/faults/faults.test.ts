// The fault engine on its own: parsing and presets, seeded probabilities, one-shot spending, the fault id handed to
// the journal, snapshots, and the options and --faults file ways in.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ControlledClock } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { createEmulator } from '../index.js';
import { describeRequest } from '../namespaces/operation.js';
import { serveOptions } from '../serve/cli.js';
import { loadFaultFile } from './file.js';
import { ADMIN_FAULT_CODES, Faults, parseFaultRule, toPy, type FaultRuleInput } from './index.js';

const rule = (input: FaultRuleInput) => parseFaultRule(toPy(input), 'Fault rule', ADMIN_FAULT_CODES);

function request(method: string, path: string): HttpRequest {
  return { method, path, query: '', header: () => undefined, readBody: async () => new Uint8Array(0) };
}

const ok = (): Promise<HttpResponse> => Promise.resolve({ status: 200, headers: [], body: 'ok' });

function faults(initial: FaultRuleInput[] = [], seed: string | null = 'seed', clock = new ControlledClock({ start: 1000, frozen: true })) {
  return new Faults({ clock, seed, initial: initial.map(rule), finish: (r) => r });
}

/** Which of `n` GET /health requests the rules answered themselves ('x') or let through ('.'). */
async function pattern(f: Faults, n: number): Promise<string> {
  let out = '';
  for (let i = 0; i < n; i++) out += (await f.handle(request('GET', '/health'), ok)).status === 200 ? '.' : 'x';
  return out;
}

describe('fault rules', () => {
  it('a preset expands to its rule; other fields override it; the listed form is complete', () => {
    assert.deepEqual(rule({ preset: 'hermes_slow_poll', seconds: 3, clock: 'wall', times: null }), {
      id: null, preset: 'hermes_slow_poll', operation: 'get', method: null, path_prefix: null, run_id: null, namespace: null,
      times: null, probability: null, seed: null, action: 'delay', seconds: 3, clock: 'wall', when: 'before',
    });
    assert.deepEqual(rule({ action: 'sse_stall' }), {
      id: null, preset: null, operation: 'events', method: null, path_prefix: null, run_id: null, namespace: null,
      times: null, probability: null, seed: null, action: 'sse_stall', after_events: 0,
    });
  });

  it('sse_drop and sse_stall take the two event streams, the run events by default; any other operation is refused', () => {
    assert.equal(rule({ action: 'sse_drop', operation: 'session_chat_stream' }).operation, 'session_chat_stream');
    assert.equal(rule({ action: 'sse_stall', operation: 'events' }).operation, 'events');
    assert.equal(rule({ action: 'sse_drop' }).operation, 'events');
    assert.throws(
      () => rule({ action: 'sse_stall', operation: 'session_chat' }),
      (e: unknown) => e instanceof HermeticError && e.message === 'Fault rule: action "sse_stall" only applies to operations "events" and "session_chat_stream" (only an event stream has events), not "session_chat".',
    );
  });

  it('a respond body: a string as it is (text/plain unless given), JSON as json.dumps, null for none', () => {
    assert.deepEqual([rule({ action: 'respond', status: 200, body: 'hi' }).body, rule({ action: 'respond', status: 200, body: 'hi' }).headers], ['hi', { 'Content-Type': 'text/plain; charset=utf-8' }]);
    const json = rule({ action: 'respond', status: 200, body: { b: 1.5, a: null }, headers: { 'X-A': '1' } });
    assert.deepEqual([json.body, json.headers], ['{"b": 1.5, "a": null}', { 'Content-Type': 'application/json; charset=utf-8', 'X-A': '1' }]);
    const own = rule({ action: 'respond', status: 200, body: '<p>', headers: { 'content-type': 'text/html' } });
    assert.deepEqual(own.headers, { 'content-type': 'text/html' });
    assert.deepEqual([rule({ action: 'respond', status: 204 }).body, rule({ action: 'respond', status: 204 }).headers], [null, {}]);
    assert.throws(() => rule({ action: 'respond', status: 200, headers: { 'Content-Length': '3' } }), /header "Content-Length" is the transport's to set/);
    assert.throws(() => rule({ action: 'respond', status: 200, headers: { 'X-A': 'a\r\nb' } }), /must not contain CR, LF or NUL/);
  });

  it('a seeded probability fires the same requests on every run; another seed draws otherwise', async () => {
    const input: FaultRuleInput[] = [{ action: 'respond', status: 503, probability: 0.5 }];
    const a = await pattern(faults(input, 'seed'), 64);
    assert.equal(await pattern(faults(input, 'seed'), 64), a);
    assert.notEqual(await pattern(faults(input, 'other'), 64), a);
    const fired = [...a].filter((c) => c === 'x').length;
    assert.ok(fired > 16 && fired < 48, a);
    // A rule's own seed wins over the namespace's.
    const own: FaultRuleInput[] = [{ action: 'respond', status: 503, probability: 0.5, seed: 'mine' }];
    assert.equal(await pattern(faults(own, 'seed'), 64), await pattern(faults(own, 'other'), 64));
  });

  it('a rule\'s draws do not depend on other rules: one drawing in front of it changes nothing for it', async () => {
    const alone = await pattern(faults([{ id: 'r', action: 'respond', status: 503, probability: 0.3 }]), 40);
    const f = faults([
      { id: 'first', action: 'delay', seconds: 0, probability: 0.5 },
      { id: 'r', action: 'respond', status: 503, probability: 0.3 },
    ]);
    assert.equal(await pattern(f, 40), alone);
  });

  it('a one-shot rule with a probability is spent by the first request it fires for, not by one it skips', async () => {
    const f = faults([{ action: 'respond', status: 503, probability: 0.25, times: 1 }]);
    const seen = await pattern(f, 30);
    assert.equal([...seen].filter((c) => c === 'x').length, 1);
    assert.deepEqual([f.list()[0]!.fired, f.list()[0]!.remaining, f.firedTotal()], [1, 0, 1]);
  });

  it('the rule that affected a request is on the answer (faultId) and on the journal\'s trace', async () => {
    const f = faults([{ id: 'slow', action: 'delay', seconds: 0 }, { id: 'boom', operation: 'get', action: 'drop' }]);
    const req = request('GET', '/v1/runs/run_1');
    const trace = { info: describeRequest(req), faultId: null as string | null };
    const dropped = await f.handle(req, ok, trace);
    assert.deepEqual([dropped.drop, dropped.status, dropped.faultId, trace.faultId], [true, 0, 'boom', 'boom']);
    const delayed = await f.handle(request('GET', '/health'), ok);
    assert.equal(delayed.faultId, 'slow');
    const admin = await f.handle(request('POST', '/__admin/clock'), ok);
    assert.equal(admin.faultId, undefined);
  });

  it('snapshot and restore: plain data; restoring twice gives the same state, and the same draws after it', async () => {
    const f = faults([{ id: 'p', action: 'respond', status: 503, probability: 0.5 }]);
    await pattern(f, 10);
    const saved = f.snapshot();
    assert.deepEqual(JSON.parse(JSON.stringify(saved)), saved);
    const next = await pattern(f, 20);
    f.add(rule({ action: 'drop' }));
    f.restore(saved);
    assert.equal(await pattern(f, 20), next);
    f.restore(saved);
    assert.deepEqual(f.snapshot(), saved);
    assert.equal(await pattern(f, 20), next);
  });

  it('a reset, a restore or a close lets requests waiting on a delay go on (a close drops them)', async () => {
    const clock = new ControlledClock({ start: 1000, frozen: true });
    const f = faults([{ action: 'delay', seconds: 60, times: null }], 'seed', clock);
    const first = f.handle(request('GET', '/health'), ok);
    f.reset();
    assert.equal((await first).status, 200);
    const saved = f.snapshot();
    const restored = f.handle(request('GET', '/health'), ok);
    f.restore(saved);
    assert.equal((await restored).status, 200);
    const second = f.handle(request('GET', '/health'), ok);
    f.close();
    assert.equal((await second).drop, true);
  });

  it('the faults option: checked as the control plane checks a rule, as HERMETIC_OPTIONS_INVALID', () => {
    assert.throws(
      () => createEmulator({ faults: [{ preset: 'hermes_draining' }, { action: 'respond', statuss: 500 } as FaultRuleInput] }),
      (e: unknown) => e instanceof HermeticError && e.code === 'HERMETIC_OPTIONS_INVALID' &&
        e.message === 'Option "faults" item 2: unknown field "statuss". Did you mean "status"?',
    );
    assert.throws(() => createEmulator({ faults: { preset: 'hermes_draining' } as never }), /Option "faults" must be a list of fault rules/);
    assert.throws(() => createEmulator({ faults: [{ id: 'a', action: 'drop' }, { id: 'a', action: 'drop' }] }), /item 2: the id "a" is used twice/);
  });

  it('serve --faults FILE: read and checked at startup, the file and item named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermetic-faults-'));
    writeFileSync(join(dir, 'good.json'), '[{"preset": "hermes_submit_accepted_drop"}, {"action": "drop", "operation": "stop"}]');
    writeFileSync(join(dir, 'bad.json'), '[{"preset": "hermes_submit_accepted_drop", "tims": 2}]');
    writeFileSync(join(dir, 'broken.json'), '[{');
    // The option takes the file's path too (a config file's `faults: faults.json`).
    const emulator = createEmulator({ faults: join(dir, 'good.json') });
    void emulator.close();
    assert.throws(() => createEmulator({ faults: join(dir, 'bad.json') }), /^HermeticError: The fault file .*bad\.json item 1: unknown field "tims"/);
    const settings = serveOptions(['--faults', 'good.json'], {}, dir);
    assert.ok(settings !== 'help');
    assert.deepEqual(settings.faults, loadFaultFile(join(dir, 'good.json')));
    const refused = (file: string) => {
      try {
        serveOptions(['--faults', file], {}, dir);
      } catch (e) {
        return [(e as HermeticError).code, (e as HermeticError).message];
      }
      return null;
    };
    assert.deepEqual(refused('bad.json'), ['HERMETIC_FAULT_INVALID', 'The fault file bad.json item 1: unknown field "tims". Did you mean "times"?']);
    assert.equal(refused('missing.json')?.[1], 'The fault file missing.json does not exist.');
    assert.match(refused('broken.json')?.[1] ?? '', /^The fault file broken\.json is not valid JSON/);
  });
});

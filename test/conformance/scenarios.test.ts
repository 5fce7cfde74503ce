// Scenarios (issue 9 item 2, decision 0023): matching, every step kind, the approval wait and Hermes's 300 s timeout,
// hang until stopped, an ignored stop, the default, the control routes and their refusals, namespaces, restarts and
// checkpoints, and the real-time clock — over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AdminScenarioDocument } from '../../src/emulator/admin/client.js';
import { describeTransports, std, T0, tick, type Harness } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

async function submit(h: Harness, body: object, headers: Record<string, string> = {}): Promise<string> {
  const reply = await h.request('POST', '/v1/runs', { body: JSON.stringify(body), headers });
  assert.equal(reply.status, 202, reply.text);
  return reply.json().run_id;
}

async function advance(h: Harness, seconds: number): Promise<void> {
  await h.admin.clock({ advance: seconds });
  await tick();
}

async function poll(h: Harness, runId: string): Promise<any> {
  const reply = await h.request('GET', `/v1/runs/${runId}`);
  assert.equal(reply.status, 200, reply.text);
  return reply.json();
}

/** A raw control request (exact bytes back), for refusals and for namespaces by path prefix. */
async function control(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, path, { body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: reply.status, json: reply.text ? reply.json() : null, text: reply.text };
}

const done = (name: string, at = 1) => [{ at, complete: { output: name } }];

describeTransports('scenarios: matching', (open) => {
  it('a new run is played by the first scenario whose every field fits: input exact or regex, model, session_id, instructions, a header', async () => {
    const h = await open({ maxConcurrentRuns: 0 });
    await h.admin.scenarios({
      scenarios: [
        { name: 'first', match: { input: 'order' }, steps: done('first') },
        { name: 'second', match: { input: 'order' }, steps: done('second') },
        { name: 'exact', match: { input: 'ping' }, steps: done('exact') },
        { name: 'regex', match: { input: { regex: '^deploy\\b', flags: 'i' } }, steps: done('regex') },
        { name: 'model', match: { model: 'gpt-x' }, steps: done('model') },
        { name: 'session', match: { session_id: { regex: '^s-' } }, steps: done('session') },
        { name: 'instructions', match: { instructions: 'be brief' }, steps: done('instructions') },
        { name: 'header', match: { headers: { 'X-Case': 'h1' } }, steps: done('header') },
        { name: 'all', match: { input: 'both', model: 'm', headers: { 'x-case': { regex: '^h' } } }, steps: done('all') },
        { name: 'parts', match: { input: 'one\ntwo' }, steps: done('parts') },
      ],
    });
    const runs: Record<string, string> = {
      first: await submit(h, { input: 'order' }),
      exact: await submit(h, { input: 'ping' }),
      regex: await submit(h, { input: 'Deploy now' }),
      model: await submit(h, { input: 'x', model: 'gpt-x' }),
      session: await submit(h, { input: 'x', session_id: 's-42' }),
      instructions: await submit(h, { input: 'x', instructions: 'be brief' }),
      header: await submit(h, { input: 'x' }, { 'x-case': 'h1' }),
      all: await submit(h, { input: 'both', model: 'm' }, { 'X-CASE': 'h2' }),
      parts: await submit(h, { input: [{ role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'input_text', text: 'two' }] }] }),
    };
    const unmatched = [
      await submit(h, { input: 'Ping' }), // exact is exact
      await submit(h, { input: 'x', session_id: 'x-s-1' }),
      await submit(h, { input: 'both', model: 'm' }), // no header
    ];
    assert.equal((await h.admin.run(runs.exact!)).scenario, 'exact');
    assert.equal((await h.admin.run(unmatched[0]!)).scenario, null);
    await advance(h, 1);
    for (const [name, id] of Object.entries(runs)) assert.equal((await poll(h, id)).output, name, name);
    for (const id of unmatched) assert.equal((await poll(h, id)).status, 'running', 'nothing matched: left to the control plane');
    const listed = await h.admin.getScenarios();
    assert.deepEqual(listed.scenarios.map((s) => [s.name, s.matched]), [
      ['first', 1], ['second', 0], ['exact', 1], ['regex', 1], ['model', 1], ['session', 1], ['instructions', 1], ['header', 1], ['all', 1], ['parts', 1],
    ]);
    assert.equal(listed.default, 'manual');
    assert.equal((await h.admin.run(runs.exact!)).scenario, null, 'a finished run is no longer played');
  });
});

describeTransports('scenarios: steps', (open) => {
  it('progress events of every kind reach the stream at their offsets; names Hermes drops reach nothing', async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [{
        steps: [
          { at: 0.25, event: { event: 'reasoning.available', text: 'Thinking.' } },
          { at: 0.5, event: { event: 'tool.started', tool: 'terminal', preview: 'ls' } },
          { at: 1, event: { event: 'tool.completed', tool: 'terminal', duration: 0.7714 } },
          { event: { event: 'message.delta', delta: 'Hi' } },
          { event: { event: 'message.delta', delta: null } },
          { event: { event: '_thinking', text: 'hidden' } },
          { at: 2, event: { event: 'subagent.start', preview: 'Go', goal: 'find', task_index: 0, delegation_id: 'd1' } },
          { event: { event: 'subagent.complete', summary: 'Found', cost_usd: 0.5 } },
          { at: 3, complete: { output: 'Hi', usage: { input_tokens: 5, output_tokens: 1 } } },
        ],
      }],
    });
    const runId = await submit(h, { input: 'go' });
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const lastEvents: string[] = [];
    for (const step of [0.25, 0.25, 0.5, 1, 1]) {
      await advance(h, step);
      lastEvents.push((await poll(h, runId)).last_event);
    }
    assert.deepEqual(lastEvents, ['reasoning.available', 'tool.started', 'tool.completed', 'subagent.complete', 'run.completed']);
    const frame = (t: number, rest: string) => `data: {"event": ${rest.slice(0, rest.indexOf(','))}, "run_id": "${runId}", "timestamp": ${T0 + t}${t % 1 === 0 ? '.0' : ''}${rest.slice(rest.indexOf(','))}}\n\n`;
    assert.equal(
      await stream.ended,
      frame(0.25, '"reasoning.available", "text": "Thinking."') +
        frame(0.5, '"tool.started", "tool": "terminal", "preview": "ls"') +
        frame(1, '"tool.completed", "tool": "terminal", "duration": 0.771, "error": false') +
        frame(1, '"message.delta", "delta": "Hi"') +
        frame(2, '"subagent.start", "preview": "Go", "goal": "find", "task_index": 0') +
        frame(2, '"subagent.complete", "summary": "Found", "cost_usd": 0.5') +
        frame(3, '"run.completed", "output": "Hi", "usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6}') +
        ': stream closed\n\n',
    );
  });

  it('an approval parks the run until the client answers; waiting does not count against the offsets; deny plays on_deny', async () => {
    const h = await open();
    const approval = { preset: 'shell' as const, command: 'rm -rf build', description: 'recursive delete' };
    await h.admin.scenarios({
      scenarios: [{
        steps: [
          { at: 1, approval, on_deny: [{ at: 2, fail: { error: 'denied' } }] },
          { at: 2, event: { event: 'tool.completed', tool: 'terminal', duration: 1 } },
          { at: 3, complete: { output: 'Deleted.' } },
        ],
      }],
    });
    const yes = await submit(h, { input: 'a' });
    const no = await submit(h, { input: 'b' });
    await advance(h, 1);
    const parked = await poll(h, yes);
    assert.equal(parked.status, 'waiting_for_approval');
    assert.equal(parked.approval.command, 'rm -rf build');
    await advance(h, 10); // the client takes 10 s
    assert.equal((await poll(h, yes)).status, 'waiting_for_approval');
    const answer = await h.request('POST', `/v1/runs/${yes}/approval`, { body: '{"choice": "approve"}' });
    assert.equal(answer.text, `{"object": "hermes.run.approval_response", "run_id": "${yes}", "choice": "once", "resolved": 1}`);
    await h.request('POST', `/v1/runs/${no}/approval`, { body: '{"choice": "deny"}' });
    await tick();
    const resumed = await poll(h, yes);
    assert.deepEqual([resumed.status, resumed.last_event], ['running', 'approval.responded']);
    await advance(h, 1); // offset 2: 1 s after the answer
    assert.equal((await poll(h, yes)).last_event, 'tool.completed');
    const denied = await poll(h, no);
    assert.deepEqual([denied.status, denied.error, denied.updated_at], ['failed', 'denied', T0 + 12]);
    await advance(h, 1);
    const finished = await poll(h, yes);
    assert.deepEqual([finished.status, finished.output, finished.updated_at], ['completed', 'Deleted.', T0 + 13]);
  });

  it("an approval nobody answers times out after Hermes's 300 s: the request leaves the queue, the status stays waiting, the agent goes on", async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [
        {
          name: 'default-timeout',
          match: { input: 'a' },
          steps: [
            { at: 1, approval: { command: 'rm -rf /', request_id: 'REQ' } },
            { at: 2, event: { event: 'tool.completed', tool: 'terminal' } },
            { at: 3, complete: { output: 'went on' } },
          ],
        },
        { name: 'short', match: { input: 'b' }, steps: [{ at: 1, approval: { command: 'x' }, timeout: 5, on_timeout: [{ at: 1, fail: {} }] }] },
      ],
    });
    const a = await submit(h, { input: 'a' });
    const b = await submit(h, { input: 'b' });
    await advance(h, 1);
    await advance(h, 5);
    const timedOut = await poll(h, b);
    assert.deepEqual([timedOut.status, timedOut.error, timedOut.updated_at], ['failed', 'agent run failed', T0 + 6]);
    await advance(h, 294.5);
    assert.deepEqual((await h.admin.run(a)).pending_approvals, ['REQ']);
    await advance(h, 0.5); // T0 + 301: 300 s after the request
    const waiting = await poll(h, a);
    assert.deepEqual([waiting.status, waiting.approval.request_id], ['waiting_for_approval', 'REQ'], 'nothing resets the status');
    assert.deepEqual((await h.admin.run(a)).pending_approvals, []);
    const late = await h.request('POST', `/v1/runs/${a}/approval`, { body: '{"choice": "once"}' });
    assert.equal(late.text, std(`Run has no pending approval: ${a}`, 'approval_not_pending'));
    await advance(h, 1);
    const progressed = await poll(h, a);
    assert.deepEqual([progressed.status, progressed.last_event], ['waiting_for_approval', 'tool.completed'], 'progress keeps the status');
    await advance(h, 1);
    assert.deepEqual([(await poll(h, a)).status, (await poll(h, a)).output], ['completed', 'went on']);
  });

  it('steer-policy steps decide what a steer gets; accepted text comes back as pending_steer, or the step gives it', async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [
        {
          match: { input: 'a' },
          steps: [
            { steer_policy: { accept: false } },
            { at: 1, steer_policy: { raise: 'steer queue is closed' } },
            { at: 2, steer_policy: { raise: null, accept: true } },
            { at: 3, complete: { output: 'ok' } },
          ],
        },
        { match: { input: 'b' }, steps: [{ at: 1, complete: { output: 'ok', pending_steer: 'given', usage: { input_tokens: 2 } } }] },
      ],
    });
    const a = await submit(h, { input: 'a' });
    const b = await submit(h, { input: 'b' });
    await tick();
    const steer = () => h.request('POST', `/v1/runs/${a}/steer`, { body: '{"input": "left"}' });
    const declined = await steer();
    assert.deepEqual([declined.status, declined.json().error.code], [409, 'steer_not_accepted']);
    await advance(h, 1);
    const raised = await steer();
    assert.equal(raised.status, 500);
    assert.equal(raised.json().error.code, 'steer_failed');
    await advance(h, 1);
    assert.equal((await steer()).status, 200);
    await advance(h, 1);
    const [doneA, doneB] = [await poll(h, a), await poll(h, b)];
    assert.equal(doneA.pending_steer, 'left');
    assert.deepEqual([doneB.pending_steer, doneB.usage], ['given', { input_tokens: 2, output_tokens: 0, total_tokens: 2 }]);
  });

  it('an approval step is a tool boundary: steer text accepted before it is delivered, text after its answer is pending_steer', async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [
        {
          match: { input: 'a' },
          steps: [{ at: 1, approval: { command: 'make test', request_id: 'R' } }, { at: 3, complete: { output: 'tested' } }],
        },
      ],
    });
    const a = await submit(h, { input: 'a' });
    await tick();
    assert.equal((await h.request('POST', `/v1/runs/${a}/steer`, { body: '{"input": "focus on tests"}' })).status, 200);
    await advance(h, 1);
    assert.deepEqual((await h.admin.run(a)).pending_steer, []);
    assert.equal((await h.request('POST', `/v1/runs/${a}/approval`, { body: '{"choice": "once"}' })).status, 200);
    assert.equal((await h.request('POST', `/v1/runs/${a}/steer`, { body: '{"input": "late"}' })).status, 200);
    await advance(h, 2);
    const done = await poll(h, a);
    assert.deepEqual([done.status, done.output, done.pending_steer], ['completed', 'tested', 'late']);
  });

  it('complete, fail, raise and cancel end the run as their control routes do; usage can be counted from the input', async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [
        { match: { input: 'fail' }, steps: [{ fail: {} }] },
        { match: { input: 'fail2' }, steps: [{ fail: { error: 'boom' } }] },
        { match: { input: 'raise' }, steps: [{ raise: { message: 'exploded' } }] },
        { match: { input: 'auth' }, steps: [{ raise: { kind: 'provider_auth', message: 'no key' } }] },
        { match: { input: 'cancelled' }, steps: [{ raise: { kind: 'cancelled' } }] },
        { match: { input: 'interrupted' }, steps: [{ cancel: { output: 'partial' } }] },
        { match: { input: 'count me please' }, steps: [{ complete: { output: 'twelve chars', usage: 'from_input' } }] },
      ],
    });
    const ids = await Promise.all(['fail', 'fail2', 'raise', 'auth', 'cancelled', 'interrupted', 'count me please'].map((input) => submit(h, { input })));
    await tick();
    const seen = await Promise.all(ids.map((id) => poll(h, id)));
    assert.deepEqual(seen.map((s) => [s.status, s.error ?? s.output ?? null]), [
      ['failed', 'agent run failed'],
      ['failed', 'boom'],
      ['failed', 'exploded'],
      ['failed', '\u26a0\ufe0f Provider authentication failed: no key'],
      ['cancelled', null],
      ['completed', 'partial'],
      ['completed', 'twelve chars'],
    ]);
    assert.deepEqual(seen[6].usage, { input_tokens: 4, output_tokens: 3, total_tokens: 7 });
  });

  it('hang: after its steps the run stays running until a client stops it (stopping → cancelled)', async () => {
    const h = await open();
    await h.admin.scenarios({ scenarios: [{ steps: [{ at: 1, event: { event: 'tool.started', tool: 'sleep', preview: null } }, { hang: {} }] }] });
    const runId = await submit(h, { input: 'x' });
    await advance(h, 3600);
    assert.deepEqual([(await poll(h, runId)).status, (await h.admin.run(runId)).scenario], ['running', 'scenario-1']);
    const stop = await h.request('POST', `/v1/runs/${runId}/stop`);
    assert.equal(stop.text, `{"run_id": "${runId}", "status": "stopping"}`);
    await tick();
    assert.equal((await poll(h, runId)).status, 'cancelled');
  });

  it('a stop the agent ignores is held in stopping: the run completes anyway, or is cancelled once the agent honours it', async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [
        { match: { input: 'a' }, steps: [{ stop_policy: { acknowledge: false } }, { at: 5, complete: { output: 'anyway' } }] },
        { match: { input: 'b' }, steps: [{ stop_policy: { acknowledge: false } }, { at: 3, stop_policy: { acknowledge: true } }, { complete: { output: 'too late' } }] },
      ],
    });
    const a = await submit(h, { input: 'a' });
    const b = await submit(h, { input: 'b' });
    await advance(h, 1);
    for (const id of [a, b]) await h.request('POST', `/v1/runs/${id}/stop`);
    await advance(h, 1);
    assert.deepEqual([(await poll(h, a)).status, (await poll(h, b)).status], ['stopping', 'stopping']);
    await advance(h, 1);
    await tick();
    assert.deepEqual([(await poll(h, b)).status, (await poll(h, b)).updated_at], ['cancelled', T0 + 3]);
    await advance(h, 2);
    assert.deepEqual([(await poll(h, a)).status, (await poll(h, a)).output], ['completed', 'anyway']);
  });

  it('start_delay keeps the run queued; offsets count from the moment the agent starts', async () => {
    const h = await open();
    await h.admin.scenarios({ scenarios: [{ start_delay: 2, steps: done('late') }] });
    const runId = await submit(h, { input: 'x' });
    await advance(h, 1);
    assert.equal((await poll(h, runId)).status, 'queued');
    await advance(h, 1);
    assert.equal((await poll(h, runId)).status, 'running');
    await advance(h, 1);
    assert.deepEqual([(await poll(h, runId)).status, (await poll(h, runId)).updated_at], ['completed', T0 + 3]);
  });
});

describeTransports('scenarios: the default', (open) => {
  it('without scenarios the agent waits for the control plane, as before', async () => {
    const h = await open();
    const runId = await submit(h, { input: 'x' });
    await advance(h, 3600);
    assert.equal((await poll(h, runId)).status, 'running');
    await h.admin.complete(runId, { output: 'by hand' });
    assert.equal((await poll(h, runId)).output, 'by hand');
  });

  it('a default plays every run no scenario matches: complete_after with usage from the input, or steps of its own', async () => {
    const h = await open();
    await h.admin.scenarios({ default: { complete_after: 1, usage: 'from_input' }, scenarios: [{ name: 'listed', match: { input: 'listed' }, steps: [] }] });
    const plain = await submit(h, { input: 'abcdefghi' });
    const listed = await submit(h, { input: 'listed' });
    await advance(h, 1);
    const p = await poll(h, plain);
    assert.deepEqual([p.status, p.output, p.usage], ['completed', '', { input_tokens: 3, output_tokens: 0, total_tokens: 3 }]);
    assert.equal((await poll(h, listed)).status, 'running', 'a listed scenario (even with no steps) wins over the default');
    assert.deepEqual((await h.admin.getScenarios()).default, { complete_after: 1, usage: 'from_input' });
    await h.admin.scenarios({ default: { start_delay: 1, steps: [{ at: 1, fail: { error: 'default says no' } }] } });
    const other = await submit(h, { input: 'y' });
    await advance(h, 1);
    assert.equal((await poll(h, other)).status, 'running');
    await advance(h, 1);
    assert.equal((await poll(h, other)).error, 'default says no');
  });
});

describeTransports('scenarios: control routes', (open) => {
  it('POST appends (a listed name is replaced in place), DELETE removes one or all; runs already playing go on', async () => {
    const h = await open();
    let list = await h.admin.scenarios({ scenarios: [{ name: 'a', steps: done('a', 5) }, { match: { input: 'z' }, steps: [] }] });
    assert.deepEqual(list.scenarios.map((s) => s.name), ['a', 'scenario-2']);
    const playing = await submit(h, { input: 'q' });
    list = await h.admin.scenarios({ scenarios: [{ name: 'b', steps: [] }, { name: 'a', match: { input: 'new' }, steps: [] }] });
    assert.deepEqual(list.scenarios.map((s) => s.name), ['a', 'scenario-2', 'b']);
    assert.deepEqual(list.scenarios[0], { name: 'a', match: { input: 'new' }, steps: [], matched: 0 });
    assert.deepEqual((await control(h, 'DELETE', '/__admin/scenarios?name=scenario-2')).json.scenarios.map((s: { name: string }) => s.name), ['a', 'b']);
    assert.deepEqual((await h.admin.deleteScenarios({ name: 'b' })).scenarios.map((s) => s.name), ['a']);
    const missing = await control(h, 'DELETE', '/__admin/scenarios?name=nope');
    assert.deepEqual([missing.status, missing.json], [404, { error: { code: 'HERMETIC_SCENARIO_UNKNOWN', message: 'No scenario "nope" in this namespace (it has "a").' } }]);
    assert.deepEqual(await h.admin.deleteScenarios(), { default: 'manual', scenarios: [] });
    await advance(h, 5);
    assert.equal((await poll(h, playing)).output, 'a', 'a run keeps the scenario it was matched with');
  });

  it('a malformed scenario is 400 HERMETIC_SCENARIO_INVALID saying where, with a suggestion; nothing changes', async () => {
    const h = await open();
    await h.admin.scenarios({ scenarios: [{ name: 'kept', steps: [] }] });
    const where = 'POST /__admin/scenarios';
    const cases: Array<[unknown, string]> = [
      [{ scenarios: [{ steps: [{ at: 1, compelte: {} }] }] }, 'scenarios[0].steps[0]: Unknown field "compelte" for a step. Did you mean "complete"?'],
      [{ scenarios: [{ steps: [{ complete: { outptu: 'x' } }] }] }, 'scenarios[0].steps[0].complete: Unknown field "outptu" for complete. Did you mean "output"?'],
      [{ scenarios: [{ name: 'n', steps: [{ at: 1 }] }] }, 'scenario "n".steps[0]: has no kind; give one of event, approval, complete, fail, raise, cancel, steer_policy, stop_policy, hang.'],
      [{ scenarios: [{ steps: [{ complete: {}, fail: {} }] }] }, 'scenarios[0].steps[0]: does two things (complete and fail); give each its own step.'],
      [{ scenarios: [{ match: { input: { regex: '(' } }, steps: [] }] }, 'scenarios[0].match.input.regex: "(" is not a valid regular expression (Invalid regular expression: /(/: Unterminated group).'],
      [{ scenarios: [{ match: { inputs: 'x' }, steps: [] }] }, 'scenarios[0].match: Unknown field "inputs" for match. Did you mean "input"?'],
      [{ scenarios: [{ steps: [{ at: 2, hang: {} }, { at: 1, fail: {} }] }] }, 'scenarios[0].steps[1]: comes after scenarios[0].steps[0] (hang), which ends the run; nothing can follow it.'],
      [{ scenarios: [{ steps: [{ at: 2, event: { event: 'tool.started', tool: 't' } }, { at: 1, fail: {} }] }] }, 'scenarios[0].steps[1].at: is 1, earlier than the step before it (2); steps run in the order listed.'],
      [{ scenarios: [{ steps: [{ event: { event: 'tool.start', tool: 't' } }] }] }, 'scenarios[0].steps[0].event.event: "tool.start" is neither an event Hermes forwards (tool.started, tool.completed, reasoning.available, message.delta, subagent.start, subagent.complete) nor one its agent sends and Hermes drops (_thinking, subagent.thinking, subagent.tool, subagent.progress, subagent_progress, moa.reference, moa.aggregating, reasoning.delta, tool.failed). Did you mean "tool.started"?'],
      [{ scenarios: [{ steps: [{ event: { event: 'run.completed' } }] }] }, 'scenarios[0].steps[0].event.event: "run.completed" is neither an event Hermes forwards (tool.started, tool.completed, reasoning.available, message.delta, subagent.start, subagent.complete) nor one its agent sends and Hermes drops (_thinking, subagent.thinking, subagent.tool, subagent.progress, subagent_progress, moa.reference, moa.aggregating, reasoning.delta, tool.failed). Use a "complete" step.'],
      [{ scenarios: [{ steps: [{ event: { event: 'tool.started' } }] }] }, 'scenarios[0].steps[0].event: Field "tool" must be a string (it is required).'],
      [{ scenarios: [{ steps: [{ complete: {}, timeout: 5 }] }] }, 'scenarios[0].steps[0]: "timeout" belongs to an approval step.'],
      [{ scenarios: [{ steps: [{ approval: { command: 'x' }, timeout: -1 }] }] }, 'scenarios[0].steps[0].timeout: must be a number of seconds, 0 or more; got -1.'],
      [{ scenarios: [{ steps: [{ raise: { kind: 'oops' } }] }] }, 'scenarios[0].steps[0].raise: Field "kind" must be one of error, provider_auth, cancelled; got "oops".'],
      [{ scenarios: [{ name: 'kept2', steps: [] }, { name: 'kept2', steps: [] }] }, 'scenario "kept2": has the same name as one before it; names must be unique.'],
      [{ scenario: [] }, 'Unknown field "scenario" for a scenarios document. Did you mean "scenarios"?'],
      [{ default: 'auto' }, 'default: must be "manual", {"complete_after": seconds, "output", "usage"} or {"steps": […], "start_delay"}; got "auto".'],
      [{ scenarios: [{ stpes: [] }] }, 'scenarios[0]: Unknown field "stpes" for a scenario. Did you mean "steps"?'],
    ];
    for (const [body, message] of cases) {
      const reply = await control(h, 'POST', '/__admin/scenarios', body);
      const expected = message.startsWith('Unknown field "scenario"') ? `${where}: ${message}` : `${where}, ${message}`;
      assert.deepEqual([reply.status, reply.json], [400, { error: { code: 'HERMETIC_SCENARIO_INVALID', message: expected } }], JSON.stringify(body));
    }
    assert.deepEqual((await h.admin.getScenarios()).scenarios.map((s) => s.name), ['kept']);
  });

  it('a namespace holds at most 1000 scenarios: past it 409 HERMETIC_SCENARIO_LIMIT and nothing changes; a longer document is 400 before it is read', async () => {
    const h = await open();
    const some = (n: number, from: number) => Array.from({ length: n }, (_, i) => ({ name: `s${from + i}`, steps: [] }));
    assert.equal((await h.admin.scenarios({ scenarios: some(999, 0) })).scenarios.length, 999);
    const over = await control(h, 'POST', '/__admin/scenarios', { scenarios: some(2, 999) });
    assert.deepEqual([over.status, over.json], [409, { error: { code: 'HERMETIC_SCENARIO_LIMIT', message: 'This namespace has 999 scenarios and the document adds 2 more; a namespace holds at most 1000. Delete some (DELETE /__admin/scenarios?name=…) first.' } }]);
    // A name already listed is replaced in place, so it takes no room.
    const list = await h.admin.scenarios({ scenarios: [...some(1, 999), ...some(1, 0)] });
    assert.equal(list.scenarios.length, 1000);
    const long = await control(h, 'POST', '/__admin/scenarios', { scenarios: Array.from({ length: 1001 }, () => ({ steps: [] })) });
    assert.deepEqual([long.status, long.json], [400, { error: { code: 'HERMETIC_SCENARIO_INVALID', message: 'POST /__admin/scenarios, scenarios: holds 1001 scenarios; a namespace holds at most 1000.' } }]);
    assert.equal((await h.admin.getScenarios()).scenarios.length, 1000);
  });
});

describeTransports('scenarios: namespaces, restarts, checkpoints, real time', (open) => {
  const BASE: AdminScenarioDocument = { scenarios: [{ name: 'base', match: { input: 'x' }, steps: done('base', 5) }] };

  it("every namespace starts from the options' scenarios and changes only its own; a reset puts them back", async () => {
    const h = await open({ scenarios: BASE });
    const w1 = await control(h, 'POST', '/ns/w1/__admin/scenarios', { scenarios: [{ name: 'w1only', match: { input: 'y' }, steps: done('w1') }] });
    assert.equal(w1.status, 200);
    const names = async (prefix: string) => (await control(h, 'GET', `${prefix}/__admin/scenarios`)).json.scenarios.map((s: { name: string }) => s.name);
    assert.deepEqual([await names(''), await names('/ns/w1'), await names('/ns/w2')], [['base'], ['base', 'w1only'], ['base']]);
    const inW1 = (await h.request('POST', '/ns/w1/v1/runs', { body: '{"input": "y"}' })).json().run_id;
    const inDefault = await submit(h, { input: 'y' });
    await control(h, 'POST', '/ns/w1/__admin/clock', { advance: 1 });
    await advance(h, 1);
    assert.equal((await h.request('GET', `/ns/w1/v1/runs/${inW1}`)).json().output, 'w1');
    assert.equal((await poll(h, inDefault)).status, 'running');
    await control(h, 'POST', '/ns/w1/__admin/reset');
    assert.deepEqual(await names('/ns/w1'), ['base']);
  });

  it("a restart ends every run's script: a keyed run in flight reads interrupted, never completed", async () => {
    const h = await open({ scenarios: BASE });
    const reply = await h.request('POST', '/v1/runs', { body: '{"input": "x"}', headers: { 'Idempotency-Key': 'k1' } });
    const runId = reply.json().run_id;
    await advance(h, 1);
    await h.admin.restart();
    await advance(h, 10);
    const after = await poll(h, runId);
    assert.deepEqual([after.status, after.error], ['interrupted', 'The gateway restarted before this run settled.']);
    // The scenarios themselves survive a restart (they are the control plane's, not the process's).
    assert.deepEqual((await h.admin.getScenarios()).scenarios.map((s) => s.name), ['base']);
  });

  it("a checkpoint keeps the scenarios and each run's place in them; restoring plays the rest again, the same way", async () => {
    const h = await open();
    await h.admin.scenarios({
      scenarios: [{ name: 'ask', steps: [{ at: 1, approval: { command: 'deploy', request_id: 'R' } }, { at: 3, complete: { output: 'deployed' } }] }],
    });
    const runId = await submit(h, { input: 'x' });
    await advance(h, 2);
    const taken = await control(h, 'POST', '/__admin/checkpoints', {});
    assert.equal(taken.status, 200, taken.text);
    const playRest = async () => {
      await h.request('POST', `/v1/runs/${runId}/approval`, { body: '{"choice": "once"}' });
      await tick();
      await advance(h, 1);
      assert.equal((await poll(h, runId)).status, 'running');
      await advance(h, 1);
      return (await h.request('GET', `/v1/runs/${runId}`)).text;
    };
    const first = await playRest();
    assert.match(first, /"status": "completed"/);
    await h.admin.scenarios({ scenarios: [{ name: 'later', steps: [] }] });
    for (let round = 0; round < 2; round++) {
      const restored = await control(h, 'POST', `/__admin/checkpoints/${taken.json.id}/restore`, {});
      assert.equal(restored.status, 200, restored.text);
      assert.deepEqual((await h.admin.getScenarios()).scenarios.map((s) => [s.name, s.matched]), [['ask', 1]]);
      assert.equal((await poll(h, runId)).status, 'waiting_for_approval');
      assert.equal(await playRest(), first, `round ${round}`);
    }
  });

  it('with the clock running (real time), steps run in wall time', async () => {
    const h = await open({ frozen: false, scenarios: { default: { complete_after: 0.2, output: 'soon' } } });
    const runId = await submit(h, { input: 'x' });
    const done = await waitFor(async () => {
      const run = await poll(h, runId);
      return run.status === 'completed' ? run : null;
    }, 'the run to complete in wall time');
    // Not at once: by the emulator's clock the step came 0.2 s after the run began (however busy the machine was).
    assert.ok(done.updated_at - done.created_at >= 0.2 - 1e-9, `created ${done.created_at}, completed ${done.updated_at}`);
    assert.equal(done.output, 'soon');
  });
});

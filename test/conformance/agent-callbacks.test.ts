// The agent's progress callback as Hermes's /v1/runs gateway sees it (decision 0015): which events reach the stream,
// which are dropped without touching the status, and how values keep their Python types on the way.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { JsonValue } from '../../src/emulator/admin/client.js';
import { describeTransports, type Harness, type Reply } from '../support/harness.js';
import { assertJson, runningBody, status, submit } from '../support/runs.js';

/** POSTs one raw event body (exact bytes, so 2 and 2.0 stay apart) and returns the answer. */
async function event(h: Harness, runId: string, body: string): Promise<Reply> {
  const reply = await h.request('POST', `/__admin/runs/${runId}/event`, { body });
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

const head = (name: string, runId: string) => `data: {"event": "${name}", "run_id": "${runId}", "timestamp": 1789169800.0`;

describeTransports('agent callback events', (open) => {
  it('events Hermes drops are accepted, answered "dropped", never streamed, and change nothing in the status', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await event(h, runId, '{"event": "tool.started", "tool": "terminal", "preview": "ls"}');
    await h.admin.clock({ advance: 5 });
    const bodies = [
      '{"event": "_thinking", "tool_name": "first line of thought"}',
      '{"event": "subagent.tool", "tool_name": "read_file", "preview": "a.py", "subagent_id": "sa-1", "task_index": 0}',
      '{"event": "subagent.thinking", "preview": "hmm"}',
      '{"event": "subagent.progress", "preview": "🔀 read_file, terminal"}',
      '{"event": "subagent_progress", "tool_name": "[1] read_file"}',
      '{"event": "moa.reference", "label": "ref-1", "text": "advice", "index": 1, "count": 2}',
      '{"event": "moa.aggregating", "aggregator": "agg"}',
      '{"event": "reasoning.delta", "text": "tok"}',
      '{"event": "tool.failed", "tool": "terminal"}',
      '{"event": "message.delta", "delta": null}',
    ];
    for (const body of bodies) {
      const name = JSON.parse(body).event;
      assert.equal((await event(h, runId, body)).text, JSON.stringify({ run_id: runId, event: name, dropped: true }));
    }
    // Nothing moved: last_event is still tool.started and updated_at is the time of that event.
    assertJson(await status(h, runId), 200, runningBody(runId, ', "last_event": "tool.started"'));
    await event(h, runId, '{"event": "reasoning.available", "text": "next"}');
    await h.admin.complete(runId, {});
    const text = await stream.ended;
    assert.equal(
      text,
      `${head('tool.started', runId)}, "tool": "terminal", "preview": "ls"}\n\n` +
        `${head('reasoning.available', runId).replace('1789169800.0', '1789169805.0')}, "text": "next"}\n\n` +
        `${head('run.completed', runId).replace('1789169800.0', '1789169805.0')}, "output": "", "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}}\n\n` +
        ': stream closed\n\n',
    );
  });

  it('a dropped event on a parked run leaves it waiting_for_approval with its approval', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.approvalRequest(runId, { command: 'ls', request_id: 'R' });
    const before = (await status(h, runId)).text;
    await h.admin.clock({ advance: 1 });
    await event(h, runId, '{"event": "_thinking", "tool_name": "x"}');
    assert.equal((await status(h, runId)).text, before);
  });

  it('dropped names that look like a mistake get a hint', async () => {
    const h = await open();
    const runId = await submit(h);
    assert.deepEqual((await event(h, runId, '{"event": "tool.startd"}')).json(), {
      run_id: runId, event: 'tool.startd', dropped: true, hint: 'Did you mean "tool.started"?',
    });
    assert.deepEqual((await event(h, runId, '{"event": "run.completed", "output": "x"}')).json(), {
      run_id: runId,
      event: 'run.completed',
      dropped: true,
      hint: "Hermes's agent never sends run.completed through the progress callback; use POST /__admin/runs/{run_id}/complete.",
    });
    assert.equal((await status(h, runId)).json().status, 'running');
  });

  it('tool.completed duration: round(x, 3) keeps the type — an int stays an int, a float stays a float', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const cases: Array<[string, string]> = [
      ['"duration": 2', '2'],
      ['"duration": 2.0', '2.0'],
      ['"duration": 0.7714', '0.771'],
      ['"duration": 0.0625', '0.062'],
      ['"duration": -1.2345', '-1.234'],
      ['"duration": 12345678901234567890', '12345678901234567890'],
      ['"duration": 1e400', 'Infinity'],
      ['"duration": null', '0'],
      ['"error": true', '0'],
    ];
    for (const [fields] of cases) await event(h, runId, `{"event": "tool.completed", "tool": "t", ${fields}}`);
    const text = await stream.until((t) => t.split('\n\n').length > cases.length);
    assert.equal(
      text,
      cases.map(([fields, shown]) => `${head('tool.completed', runId)}, "tool": "t", "duration": ${shown}, "error": ${fields.startsWith('"error"')}}\n\n`).join(''),
    );
  });

  it('tool.completed refuses a duration round() would raise on', async () => {
    const h = await open();
    const runId = await submit(h);
    const reply = await h.request('POST', `/__admin/runs/${runId}/event`, { body: '{"event": "tool.completed", "tool": "t", "duration": "2"}' });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json(), {
      error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Field "duration" must be a number (an int stays an int, a float is rounded to 3 places).' },
    });
  });

  it('subagent events: every field accepted, the pinned ones forwarded in Hermes order with their types, None skipped', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    const start = await event(
      h,
      runId,
      '{"event": "subagent.start", "toolsets": ["web"], "model": "m", "preview": "Audit", "delegation_id": "d-1", "depth": 1, "subagent_id": "sa-1", ' +
        '"goal": "Audit the scheduler", "task_count": 2, "task_index": 0, "parent_id": null, "child_session_id": "cs-1", "tool_count": 0}',
    );
    assert.deepEqual(start.json(), { run_id: runId, event: 'subagent.start', dropped: false, ignored_fields: ['toolsets', 'delegation_id'] });
    await event(
      h,
      runId,
      '{"event": "subagent.complete", "preview": null, "output_tail": [{"tool": "terminal", "preview": "ok", "is_error": false}], "cost_usd": 0.10, ' +
        '"duration_seconds": 3, "input_tokens": 12345678901234567890, "output_tokens": 2.0, "reasoning_tokens": 0, "api_calls": 4, ' +
        '"files_read": ["a.py"], "files_written": [], "summary": "done", "status": "completed", "subagent_id": "sa-1"}',
    );
    await event(h, runId, '{"event": "subagent.start", "preview": 5}');
    const text = await stream.until((t) => t.split('\n\n').length > 3);
    assert.equal(
      text,
      `${head('subagent.start', runId)}, "preview": "Audit", "goal": "Audit the scheduler", "task_count": 2, "task_index": 0, "subagent_id": "sa-1", "child_session_id": "cs-1", "depth": 1, "model": "m", "tool_count": 0}\n\n` +
        `${head('subagent.complete', runId)}, "subagent_id": "sa-1", "status": "completed", "summary": "done", "duration_seconds": 3, "input_tokens": 12345678901234567890, "output_tokens": 2.0, "reasoning_tokens": 0, "api_calls": 4, "cost_usd": 0.1, "files_read": ["a.py"], "files_written": [], "output_tail": [{"tool": "terminal", "preview": "ok", "is_error": false}]}\n\n` +
        `${head('subagent.start', runId)}, "preview": "5"}\n\n`,
    );
    assert.equal((await status(h, runId)).json().last_event, 'subagent.start');
  });

  it('reasoning.available sends `text or ""`; message.delta "" is still a delta', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await event(h, runId, '{"event": "reasoning.available", "text": null}');
    await event(h, runId, '{"event": "reasoning.available"}');
    await event(h, runId, '{"event": "message.delta", "delta": ""}');
    const text = await stream.until((t) => t.split('\n\n').length > 3);
    assert.equal(
      text,
      `${head('reasoning.available', runId)}, "text": ""}\n\n`.repeat(2) + `${head('message.delta', runId)}, "delta": ""}\n\n`,
    );
  });
});

describeTransports('the agent raises (runs-api §7.3)', (open) => {
  it('an exception fails the run with str(exc): status error then last_event, and one run.failed event', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.deepEqual(await h.admin.raise(runId, { message: "'x'" }), { run_id: runId, status: 'failed' });
    const failed = (await status(h, runId)).text;
    assert.equal(failed, runningBody(runId, `, "error": "'x'", "last_event": "run.failed"`).replace('"running"', '"failed"'));
    assert.equal(await stream.ended, `${head('run.failed', runId)}, "error": "'x'"}\n\n: stream closed\n\n`);
  });

  it('an empty exception message is "" — no "agent run failed" fallback, unlike a returned failure', async () => {
    const h = await open();
    const raised = await submit(h);
    await h.admin.raise(raised, {});
    assert.equal((await status(h, raised)).json().error, '');
    const returned = await submit(h);
    await h.admin.fail(returned, { error: '' });
    assert.equal((await status(h, returned)).json().error, 'agent run failed');
  });

  it('a returned failure shows str(error), and "agent run failed" for any falsy error', async () => {
    const h = await open();
    const cases: Array<[JsonValue, string]> = [[0, 'agent run failed'], [null, 'agent run failed'], [{ a: 1 }, "{'a': 1}"], [false, 'agent run failed'], [7, '7']];
    for (const [error, shown] of cases) {
      const runId = await submit(h);
      await h.admin.fail(runId, { error });
      assert.equal((await status(h, runId)).json().error, shown, JSON.stringify(error));
    }
  });

  it('a provider-credential failure reads "⚠️ Provider authentication failed: <detail>", unredacted, even from a queued run', async () => {
    const h = await open({ agent: { startDelay: 30 } });
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal((await status(h, runId)).json().status, 'queued');
    await h.admin.raise(runId, { kind: 'provider_auth', message: 'no key sk-proj-abcdefghijklmnop1234' });
    const error = '\\u26a0\\ufe0f Provider authentication failed: no key sk-proj-abcdefghijklmnop1234';
    assertJson(await status(h, runId), 200, runningBody(runId, `, "error": "${error}", "last_event": "run.failed"`).replace('"running"', '"failed"'));
    assert.equal(await stream.ended, `${head('run.failed', runId)}, "error": "${error}"}\n\n: stream closed\n\n`);
  });

  it('a cancelled task ends cancelled with run.cancelled', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.deepEqual(await h.admin.raise(runId, { kind: 'cancelled' }), { run_id: runId, status: 'cancelled' });
    assertJson(await status(h, runId), 200, runningBody(runId, ', "last_event": "run.cancelled"').replace('"running"', '"cancelled"'));
    assert.equal(await stream.ended, `${head('run.cancelled', runId)}}\n\n: stream closed\n\n`);
  });

  it('an unknown kind is refused; a finished run cannot raise', async () => {
    const h = await open();
    const runId = await submit(h);
    const reply = await h.request('POST', `/__admin/runs/${runId}/raise`, { body: '{"kind": "timeout"}' });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json(), { error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Field "kind" must be one of error, provider_auth, cancelled; got "timeout".' } });
    await h.admin.complete(runId, {});
    const late = await h.request('POST', `/__admin/runs/${runId}/raise`, { body: '{}' });
    assert.equal(late.status, 409);
    assert.deepEqual(late.json(), { error: { code: 'HERMETIC_RUN_TERMINAL', message: `Run ${runId} has already finished (completed); its agent can no longer act.` } });
  });
});

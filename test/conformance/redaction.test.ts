// Where Hermes's secret redactor touches /v1/runs answers (redaction.md §2–§5), over both transports. The vectors
// are redaction.md §6 #1, #20 and #64: `x-api-key: <26 chars>` masks to head/tail once and to *** when redacted twice,
// so each field shows how many forced passes it went through.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std, type Harness } from '../support/harness.js';
import { assertJson, runningBody, status, submit } from '../support/runs.js';

const KEY = 'sk-proj-abcdefghijklmnop1234';
const KEY_ONCE = 'sk-pro...1234';
const HEADER = 'upstream said x-api-key: abcdefghijklmnopqrstuvwxyz';
const HEADER_ONCE = 'upstream said x-api-key: abcdef...wxyz';
const HEADER_TWICE = 'upstream said x-api-key: ***';

const head = (name: string, runId: string) => `data: {"event": "${name}", "run_id": "${runId}", "timestamp": 1789169800.0`;

async function raw(h: Harness, path: string, body: string): Promise<void> {
  const reply = await h.request('POST', path, { body });
  assert.equal(reply.status, 200, reply.text);
}

describeTransports('secret redaction on /v1/runs', (open) => {
  it('the error envelope message is force-redacted once: a secret-shaped run id in the URL is masked', async () => {
    const h = await open();
    const notFound = std(`Run not found: ${KEY_ONCE}`, 'run_not_found');
    assertJson(await h.request('GET', `/v1/runs/${KEY}`), 404, notFound);
    assertJson(await h.request('POST', `/v1/runs/${KEY}/stop`), 404, notFound);
    assertJson(await h.request('POST', `/v1/runs/${KEY}/approval`, { body: '{}' }), 404, notFound);
    assertJson(await h.request('POST', `/v1/runs/${KEY}/steer`, { body: '{}' }), 404, notFound);
    const events = await h.events(`/v1/runs/${KEY}/events`);
    assert.equal(events.status, 404);
    assert.equal(events.body, notFound);
    // Ordinary texts pass unchanged.
    assertJson(await h.request('GET', '/v1/runs/run_plain'), 404, std('Run not found: run_plain', 'run_not_found'));
  });

  it('steer_failed redacts the exception text twice (helper, then envelope)', async () => {
    const h = await open();
    const runId = await submit(h);
    await h.admin.steerPolicy(runId, { raise: HEADER });
    assertJson(await h.request('POST', `/v1/runs/${runId}/steer`, { body: '{"input":"x"}' }), 500, std(HEADER_TWICE, 'steer_failed'));
  });

  it('a returned failure and a raised exception are redacted once; the provider-credential text is not', async () => {
    const h = await open();
    const cases: Array<[(runId: string) => Promise<unknown>, string]> = [
      [(id) => h.admin.fail(id, { error: HEADER }), HEADER_ONCE],
      [(id) => h.admin.fail(id, { error: [KEY] }), `['${KEY_ONCE}']`],
      [(id) => h.admin.raise(id, { message: `provider 401: key ${KEY} rejected` }), `provider 401: key ${KEY_ONCE} rejected`],
      [(id) => h.admin.raise(id, { kind: 'provider_auth', message: HEADER }), `\\u26a0\\ufe0f Provider authentication failed: ${HEADER}`],
    ];
    for (const [act, error] of cases) {
      const runId = await submit(h);
      const stream = await h.events(`/v1/runs/${runId}/events`);
      await act(runId);
      const failed = runningBody(runId, `, "error": "${error}", "last_event": "run.failed"`).replace('"running"', '"failed"');
      assertJson(await status(h, runId), 200, failed);
      assert.equal(await stream.ended, `${head('run.failed', runId)}, "error": "${error}"}\n\n: stream closed\n\n`);
    }
  });

  it('subagent preview (any type, via str) and string goal/summary/output_tail are redacted once; other values raw', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await raw(
      h,
      `/__admin/runs/${runId}/event`,
      JSON.stringify({ event: 'subagent.start', preview: HEADER, goal: HEADER, model: KEY, subagent_id: KEY, summary: 5 }),
    );
    await raw(
      h,
      `/__admin/runs/${runId}/event`,
      JSON.stringify({ event: 'subagent.complete', preview: [KEY], summary: HEADER, output_tail: HEADER, status: KEY }),
    );
    await raw(h, `/__admin/runs/${runId}/event`, JSON.stringify({ event: 'subagent.complete', output_tail: [{ tool: 't', preview: KEY }], goal: 7 }));
    const text = await stream.until((t) => t.split('\n\n').length > 3);
    assert.equal(
      text,
      `${head('subagent.start', runId)}, "preview": "${HEADER_ONCE}", "goal": "${HEADER_ONCE}", "subagent_id": "${KEY}", "model": "${KEY}", "summary": 5}\n\n` +
        `${head('subagent.complete', runId)}, "preview": "['${KEY_ONCE}']", "status": "${KEY}", "summary": "${HEADER_ONCE}", "output_tail": "${HEADER_ONCE}"}\n\n` +
        `${head('subagent.complete', runId)}, "goal": 7, "output_tail": [{"tool": "t", "preview": "${KEY}"}]}\n\n`,
    );
  });

  it('the approval command is redacted by the gateway once; the shell preset adds the subsystem pass (twice)', async () => {
    const h = await open();
    const runId = await submit(h);
    const given = await h.request('POST', `/__admin/runs/${runId}/approval-request`, {
      body: JSON.stringify({ command: HEADER, description: HEADER, pattern_key: KEY, request_id: 'R1' }),
    });
    assert.ok(given.text.startsWith(`{"command": "${HEADER_ONCE}", "description": "${HEADER}", "pattern_key": "${KEY}", "request_id": "R1", `), given.text);
    const preset = await h.request('POST', `/__admin/runs/${runId}/approval-request`, {
      body: JSON.stringify({ preset: 'shell', command: HEADER, description: HEADER, request_id: 'R2' }),
    });
    assert.ok(
      preset.text.startsWith(`{"command": "${HEADER_TWICE}", "pattern_key": "${HEADER}", "pattern_keys": ["${HEADER}"], "description": "${HEADER_ONCE}", `),
      preset.text,
    );
    // The status `approval` is the latest dict, with the same redaction.
    assert.equal((await status(h, runId)).json().approval.command, HEADER_TWICE);
  });

  it('with HERMES_REDACT_SECRETS off (redactSecrets: false) the shell preset skips the subsystem pass: the command is redacted once, the description not at all; the forced passes stay', async () => {
    const h = await open({ redactSecrets: false });
    const runId = await submit(h);
    const preset = await h.request('POST', `/__admin/runs/${runId}/approval-request`, {
      body: JSON.stringify({ preset: 'shell', command: HEADER, description: HEADER, request_id: 'R3' }),
    });
    assert.ok(
      preset.text.startsWith(`{"command": "${HEADER_ONCE}", "pattern_key": "${HEADER}", "pattern_keys": ["${HEADER}"], "description": "${HEADER}", `),
      preset.text,
    );
    // A scenario's preset is the same dict.
    await h.admin.scenarios({ scenarios: [{ match: { input: 'scripted' }, steps: [{ at: 0, approval: { preset: 'shell', command: HEADER, description: HEADER, request_id: 'R4' } }] }] });
    const scripted = await submit(h, '{"input":"scripted"}');
    await h.admin.clock({ advance: 1 });
    const approval = (await status(h, scripted)).json().approval;
    assert.deepEqual([approval.command, approval.description], [HEADER_ONCE, HEADER]);
    // What the runs API redacts itself, it redacts whatever the switch says.
    assertJson(await h.request('GET', `/v1/runs/${KEY}`), 404, std(`Run not found: ${KEY_ONCE}`, 'run_not_found'));
  });

  it('tool previews, reasoning, deltas, output and pending_steer stay raw', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    await h.admin.event(runId, { event: 'tool.started', tool: 'terminal', preview: HEADER });
    await h.admin.event(runId, { event: 'reasoning.available', text: HEADER });
    await h.admin.event(runId, { event: 'message.delta', delta: KEY });
    await h.admin.complete(runId, { output: KEY, pending_steer: HEADER });
    const text = await stream.ended;
    const usage = '{"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}';
    assert.equal(
      text,
      `${head('tool.started', runId)}, "tool": "terminal", "preview": "${HEADER}"}\n\n` +
        `${head('reasoning.available', runId)}, "text": "${HEADER}"}\n\n` +
        `${head('message.delta', runId)}, "delta": "${KEY}"}\n\n` +
        `${head('run.completed', runId)}, "output": "${KEY}", "usage": ${usage}, "pending_steer": "${HEADER}"}\n\n: stream closed\n\n`,
    );
    assert.equal((await status(h, runId)).json().output, KEY);
  });
});

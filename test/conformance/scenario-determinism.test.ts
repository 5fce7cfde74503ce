// Issue 9's "done when": the same scenario file and seed give byte-identical Hermes transcripts on two runs. A client
// plays examples/scenarios.yaml against two fresh emulators (in process, and over a real server); every answer's
// status and body and every event stream must be the same bytes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadScenarioFile } from '../../src/emulator/scenarios/index.js';
import { openHarness, type Harness } from '../support/harness.js';

const FILE = new URL('../../examples/scenarios.yaml', import.meta.url).pathname;

/** One client session: submits a run per scenario (and one nothing matches), answers, steers, stops, polls, listens. */
async function session(h: Harness): Promise<string[]> {
  const transcript: string[] = [];
  const call = async (method: string, path: string, body?: string, headers?: Record<string, string>) => {
    const reply = await h.request(method, path, { body, headers });
    transcript.push(`${method} ${path} → ${reply.status} ${reply.text}`);
    return reply;
  };
  const submit = async (body: object, headers?: Record<string, string>) => (await call('POST', '/v1/runs', JSON.stringify(body), headers)).json().run_id as string;
  const runs = {
    list: await submit({ input: 'ls the folder' }),
    approve: await submit({ input: 'please delete build' }),
    deny: await submit({ input: [{ role: 'user', content: 'rm -rf build' }] }),
    timeout: await submit({ input: 'delete it' }),
    research: await submit({ input: 'papers?', model: 'research' }),
    steer: await submit({ input: 'write a poem' }, { 'x-test-case': 'steer' }),
    hang: await submit({ input: 'wait', session_id: 'hang' }),
    stubborn: await submit({ input: 'work', session_id: 'stubborn' }),
    provider: await submit({ input: 'hi', instructions: 'use the provider' }),
    plain: await submit({ input: 'hello there' }),
  };
  const streams = await Promise.all(Object.values(runs).map((id) => h.events(`/v1/runs/${id}/events`)));
  const poll = async () => {
    for (const id of Object.values(runs)) await call('GET', `/v1/runs/${id}`);
  };
  const advance = async (seconds: number) => {
    transcript.push(`clock +${seconds} → ${JSON.stringify(await h.admin.clock({ advance: seconds }))}`);
    await poll();
  };
  await poll();
  await advance(0.5);
  await advance(0.5);
  await advance(1);
  await call('POST', `/v1/runs/${runs.approve}/approval`, '{"choice": "once"}');
  await call('POST', `/v1/runs/${runs.deny}/approval`, '{"choice": "deny"}');
  await call('POST', `/v1/runs/${runs.steer}/steer`, '{"input": "make it rhyme"}');
  await call('POST', `/v1/runs/${runs.hang}/stop`);
  await call('POST', `/v1/runs/${runs.stubborn}/stop`);
  await advance(0.771);
  await advance(1.729);
  await call('POST', `/v1/runs/${runs.steer}/steer`, '{"input": "shorter"}');
  await advance(5);
  await advance(20);
  await advance(300);
  await call('GET', '/__admin/scenarios');
  for (const [i, stream] of streams.entries()) transcript.push(`events ${i}:\n${await stream.ended}`);
  return transcript;
}

for (const transport of ['fetch', 'http'] as const) {
  it(`[${transport}] the same scenario file and seed give byte-identical transcripts on two runs`, async () => {
    const play = async () => {
      const h = await openHarness(transport, { seed: 'determinism', scenarios: loadScenarioFile(FILE) });
      try {
        const transcript = await session(h);
        assert.deepEqual(h.bugs, []);
        return transcript;
      } finally {
        await h.close();
      }
    };
    const first = await play();
    const second = await play();
    assert.deepEqual(second, first);
    // The transcript is the one the file describes, not two identical failures.
    const text = first.join('\n');
    for (const expected of [
      '"tool.completed", "run_id": ', '"duration": 0.771', '"delta": "a, b and c."', '"status": "completed"', '"output": "Deleted build/."',
      '"output": "I did not delete anything."', '"event": "approval.request"', '"subagent_id": "sub-1"', '"pending_steer": "make it rhyme\\nshorter"',
      'Provider authentication failed: No API key for openrouter', '"status": "cancelled"', '"output": "Finished anyway."',
      '"output": "Done.", "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}',
    ]) {
      assert.ok(text.includes(expected), `the transcript lacks ${expected}`);
    }
    assert.ok(!first.filter((t) => t.startsWith('events') || t.startsWith('GET /v1')).join('\n').includes('_thinking'), 'an event Hermes drops never reaches a client');
  });
}

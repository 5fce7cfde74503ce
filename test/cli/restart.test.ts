// A real gateway crash: SIGKILL a `hermetic serve` process and start another on the same --db (spec §12.6).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { K, T0 } from '../support/harness.js';
import { spawnServe } from '../support/process.js';

const auth = { Authorization: `Bearer ${K}`, 'Content-Type': 'application/json' };

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...auth, ...headers }, body });
  return { status: res.status, text: await res.text() };
}

it('SIGKILL and restart on the same store: in-flight keyed runs read interrupted, finished ones survive, keyless ones are gone', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'hermetic-restart-')), 'runs_idempotency.db');
  const args = ['--port', '0', '--db', db, '--api-key', K, '--time', String(T0), '--frozen', '--seed', 'restart'];
  const first = await spawnServe(args);
  const inflight = JSON.parse((await post(`${first.url}/v1/runs`, '{"input":"a"}', { 'Idempotency-Key': 'inflight' })).text).run_id;
  const done = JSON.parse((await post(`${first.url}/v1/runs`, '{"input":"b"}', { 'Idempotency-Key': 'done' })).text).run_id;
  await post(`${first.url}/__admin/runs/${done}/complete`, '{"output":"Done.","usage":{"input_tokens":50,"output_tokens":200}}');
  const keyless = JSON.parse((await post(`${first.url}/v1/runs`, '{"input":"c"}')).text).run_id;
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, 'SIGKILL');

  const second = await spawnServe(args);
  try {
    const get = async (runId: string) => {
      const res = await fetch(`${second.url}/v1/runs/${runId}`, { headers: auth });
      return { status: res.status, text: await res.text() };
    };
    assert.deepEqual(await get(inflight), {
      status: 200,
      text: `{"created_at": ${T0}.0, "model": "hermes-agent", "object": "hermes.run", "run_id": "${inflight}", "session_id": "${inflight}", "status": "interrupted", "updated_at": ${T0}.0, "error": "The gateway restarted before this run settled.", "last_event": "run.interrupted"}`,
    });
    assert.deepEqual(await post(`${second.url}/v1/runs`, '{"input":"a"}', { 'Idempotency-Key': 'inflight' }), {
      status: 202,
      text: `{"run_id": "${inflight}", "status": "interrupted", "replayed": true}`,
    });
    assert.deepEqual(await get(done), {
      status: 200,
      text: `{"created_at": ${T0}.0, "last_event": "run.completed", "model": "hermes-agent", "object": "hermes.run", "output": "Done.", "run_id": "${done}", "session_id": "${done}", "status": "completed", "updated_at": ${T0}.0, "usage": {"input_tokens": 50, "output_tokens": 200, "total_tokens": 250}}`,
    });
    const gone = `{"error": {"message": "Run not found: ${keyless}", "type": "invalid_request_error", "param": null, "code": "run_not_found"}}`;
    assert.deepEqual(await get(keyless), { status: 404, text: gone });
    const events = await fetch(`${second.url}/v1/runs/${inflight}/events`, { headers: auth });
    assert.equal(events.status, 404);
    await events.text();
    // A new key still admits new work on the restarted gateway.
    assert.equal((await post(`${second.url}/v1/runs`, '{"input":"a"}', { 'Idempotency-Key': 'fresh' })).status, 202);
  } finally {
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
    assert.match(second.output(), /hermetic: stopped/);
  }
});

it('50 identical keyed POSTs sent concurrently over HTTP admit exactly one run', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'hermetic-race-')), 'runs_idempotency.db');
  const server = await spawnServe(['--port', '0', '--db', db, '--api-key', K, '--max-concurrent-runs', '0']);
  try {
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => post(`${server.url}/v1/runs`, '{"input":"once"}', { 'Idempotency-Key': 'fifty' })),
    );
    const bodies = replies.map((r) => JSON.parse(r.text) as { run_id: string; replayed: boolean });
    assert.ok(replies.every((r) => r.status === 202));
    assert.equal(new Set(bodies.map((b) => b.run_id)).size, 1);
    assert.equal(bodies.filter((b) => b.replayed === false).length, 1);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});

// A real `hermetic serve` SIGKILLed and restarted on the same --db: every session a client was answered about, and its
// run's messages, are still there (decision 0026: nothing is answered before it is committed).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { K, T0 } from '../support/harness.js';
import { spawnServe } from '../support/process.js';
import { L, list, py } from '../support/sessions.js';

const headers = { Authorization: `Bearer ${K}`, 'Content-Type': 'application/json' };
const call = async (url: string, method = 'GET', body?: string) => {
  const res = await fetch(url, { method, headers, body });
  return { status: res.status, text: await res.text() };
};

it('SIGKILL and restart on the same --db: the Bot Chat, its run\'s turn and its title are kept', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'hermetic-sessions-restart-')), 'hermetic.db');
  const args = ['--port', '0', '--db', db, '--api-key', K, '--time', String(T0), '--frozen', '--seed', 'sessions'];
  const first = await spawnServe(args);
  const created = await call(`${first.url}/api/sessions`, 'POST', '{"title": "Bot Chat", "source": "bot_peer_dm"}');
  assert.equal(created.status, 201);
  const id = JSON.parse(created.text).session.id as string;
  const run = JSON.parse((await call(`${first.url}/v1/runs`, 'POST', `{"input": "hello from peer", "session_id": "${id}"}`)).text).run_id;
  assert.equal((await call(`${first.url}/__admin/runs/${run}/complete`, 'POST', '{"output": "Done."}')).status, 200);
  const hidden = await call(`${first.url}/api/sessions/${id}`, 'PATCH', '{"hidden": true}');
  assert.equal(hidden.status, 200);
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, 'SIGKILL');

  const second = await spawnServe(args);
  try {
    // The run's one API call is added to the session as Hermes's agent adds it (no usage reported: 0 tokens, $0.0), and
    // the agent's upsert gave the model-less row its model (decision 0078).
    const row = L(id, 'Bot Chat', { model: 'hermes-agent', message_count: 2, api_call_count: 1, estimated_cost_usd: py('0.0'), last_active: py(`${T0}.000001`), preview: 'hello from peer', hidden: true });
    assert.deepEqual(await call(`${second.url}/api/sessions?limit=200&title=Bot+Chat&include_hidden=1`), { status: 200, text: list([row], 200) });
    const again = await call(`${second.url}/api/sessions`, 'POST', '{"title": "Bot Chat", "source": "bot_peer_dm"}');
    assert.equal(again.status, 400);
    assert.equal(JSON.parse(again.text).error.message, `Title already in use by session ${id}`);
    const messages = JSON.parse((await call(`${second.url}/api/sessions/${id}/messages`)).text);
    assert.deepEqual(messages.data.map((m: { role: string; content: string }) => [m.role, m.content]), [['user', 'hello from peer'], ['assistant', 'Done.']]);
  } finally {
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  }
});

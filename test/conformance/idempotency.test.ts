// Spec runs-api §18 vectors 23–28 and 38–46: Idempotency-Key validation, replay, conflict, capacity, scope, races.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeTransports, std } from '../support/harness.js';
import { assertJson, submit } from '../support/runs.js';

const BAD_KEY = std('Idempotency-Key must be 1-255 visible ASCII characters', 'invalid_idempotency_key');
const CONFLICT = std('Idempotency-Key was already used with a different request payload', 'idempotency_key_conflict');

describeTransports('vectors 23–28: Idempotency-Key validation', (open) => {
  it('23: a key with a space is 400 invalid_idempotency_key', async () => {
    const h = await open();
    assertJson(await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': 'a b' } }), 400, BAD_KEY);
  });

  it('24: 256 characters is refused, 255 accepted', async () => {
    const h = await open();
    assertJson(await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': 'k'.repeat(256) } }), 400, BAD_KEY);
    const ok = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': 'k'.repeat(255) } });
    assert.equal(ok.status, 202);
  });

  it('25: a whitespace-only key disables idempotency: identical retries make two runs', async () => {
    const h = await open();
    const a = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': '   ' } });
    const b = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': '   ' } });
    assert.equal(a.json().replayed, false);
    assert.equal(b.json().replayed, false);
    assert.notEqual(a.json().run_id, b.json().run_id);
  });

  it('26: the key is checked before input validation', async () => {
    const h = await open();
    assertJson(await h.request('POST', '/v1/runs', { body: '{}', headers: { 'Idempotency-Key': 'a b' } }), 400, BAD_KEY);
  });

  it('27: JSON is checked before the key', async () => {
    const h = await open();
    assertJson(await h.request('POST', '/v1/runs', { body: 'not json', headers: { 'Idempotency-Key': 'a b' } }), 400, std('Invalid JSON'));
  });

  it('28: the key is stripped before use', async () => {
    const h = await open();
    const first = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': ' \tk-1\t ' } });
    const second = await h.request('POST', '/v1/runs', { body: '{"input":"hi"}', headers: { 'Idempotency-Key': 'k-1' } });
    assert.equal(second.json().run_id, first.json().run_id);
    assert.equal(second.json().replayed, true);
  });
});

describeTransports('vectors 38–46: replay and conflict', (open) => {
  it('38: a byte-identical repeat replays with the current status and Idempotency-Replayed: true', async () => {
    const h = await open();
    const first = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    const runId = first.json().run_id;
    assertJson(first, 202, `{"run_id": "${runId}", "status": "started", "replayed": false}`);
    assert.equal(first.headers['idempotency-replayed'], undefined);
    const again = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assertJson(again, 202, `{"run_id": "${runId}", "status": "running", "replayed": true}`);
    assert.equal(again.headers['idempotency-replayed'], 'true');
  });

  it('39: whitespace and key order do not change the fingerprint', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"hello","session_id":"s"}', { 'Idempotency-Key': 'k1' });
    for (const body of ['{ "input" : "hello" , "session_id":"s" }', '{"session_id":"s","input":"hello"}']) {
      const reply = await h.request('POST', '/v1/runs', { body, headers: { 'Idempotency-Key': 'k1' } });
      assert.equal(reply.json().run_id, runId);
      assert.equal(reply.json().replayed, true);
    }
  });

  for (const [n, what, body, headers] of [
    [40, 'a changed input', '{"input":"hello!"}', {}],
    [41, 'an added session key', '{"input":"hello"}', { 'X-Hermes-Session-Key': 'x' }],
    [42, 'an unknown extra field', '{"input":"hello","note":1}', {}],
  ] as const) {
    it(`${n}: ${what} is a 409 conflict`, async () => {
      const h = await open();
      await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
      assertJson(await h.request('POST', '/v1/runs', { body, headers: { 'Idempotency-Key': 'k1', ...headers } }), 409, CONFLICT);
    });
  }

  it('43: a replay after completion reports completed', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.complete(runId, { output: 'Done.' });
    const reply = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assertJson(reply, 202, `{"run_id": "${runId}", "status": "completed", "replayed": true}`);
  });

  it('44: at capacity a replay still answers, a new key is 429 with Retry-After and reserves nothing', async () => {
    const h = await open();
    const first = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    for (let i = 0; i < 9; i++) await submit(h, `{"input":"run ${i}"}`);
    const replay = await h.request('POST', '/v1/runs', { body: '{"input":"hello"}', headers: { 'Idempotency-Key': 'k1' } });
    assert.equal(replay.json().replayed, true);
    const full = await h.request('POST', '/v1/runs', { body: '{"input":"other"}', headers: { 'Idempotency-Key': 'k2' } });
    assertJson(full, 429, '{"error": {"message": "Too many concurrent runs (max 10)", "type": "rate_limit_error", "param": null, "code": "rate_limit_exceeded"}}');
    assert.equal(full.headers['retry-after'], '1');
    await h.admin.complete(first, {});
    const later = await h.request('POST', '/v1/runs', { body: '{"input":"other"}', headers: { 'Idempotency-Key': 'k2' } });
    assert.equal(later.json().replayed, false);
  });

  it('45: the same key under another profile is a different scope', async () => {
    const h = await open({ profiles: { alice: { apiKey: 'alice-key-0123456789abcd' } } });
    const mine = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    const reply = await h.request('POST', '/p/alice/v1/runs', {
      body: '{"input":"hello"}',
      headers: { 'Idempotency-Key': 'k1', Authorization: 'Bearer alice-key-0123456789abcd' },
    });
    assert.equal(reply.status, 202);
    assert.equal(reply.json().replayed, false);
    assert.notEqual(reply.json().run_id, mine);
    // Alice cannot see the default profile's run, and vice versa.
    const peek = await h.request('GET', `/p/alice/v1/runs/${mine}`, { headers: { Authorization: 'Bearer alice-key-0123456789abcd' } });
    assertJson(peek, 404, std(`Run not found: ${mine}`, 'run_not_found'));
    const unknown = await h.request('GET', '/p/bob/v1/runs/x');
    assertJson(unknown, 404, '{"error": "Unknown or unconfigured profile"}');
  });

  it('46: identical keyed POSTs racing admit exactly one run; the losers replay it', async () => {
    const h = await open({ maxConcurrentRuns: 0 });
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => h.request('POST', '/v1/runs', { body: '{"input":"race"}', headers: { 'Idempotency-Key': 'race' } })),
    );
    const ids = new Set(replies.map((r) => r.json().run_id));
    assert.equal(ids.size, 1);
    assert.equal(replies.filter((r) => r.json().replayed === false).length, 1);
    for (const r of replies.filter((x) => x.json().replayed)) assert.equal(r.headers['idempotency-replayed'], 'true');
  });
});

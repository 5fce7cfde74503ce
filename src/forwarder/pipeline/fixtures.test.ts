// Stores written by Hermes's own storage code: after a backfill, the dataset's sessions, usage and transcripts equal
// the facts Hermes itself reported (test/fixtures/state-db/*/expected.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyFixture, EARLY_FIXTURES, FIXTURE_ROOT, FIXTURES, tempDir } from '../../state-db/testing/fixtures.js';
import { forwarderRig } from '../testing/index.js';

type Json = Record<string, any>;
const COUNTERS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count', 'message_count', 'tool_call_count'];
const close = (a: number | null, b: number | null, what: string) => {
  if (a === null || b === null) return assert.equal(a, b, what);
  assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);
};

for (const name of [...FIXTURES, ...EARLY_FIXTURES]) {
  test(`fixture ${name}: sessions, usage and transcripts equal what Hermes reported`, () => {
    const { dir, cleanup } = tempDir();
    const path = copyFixture(name, dir);
    const rig = forwarderRig([path], { dir });
    try {
      const expected = JSON.parse(readFileSync(join(FIXTURE_ROOT, name, 'expected.json'), 'utf8')) as Json;
      const [r] = rig.forwarder.backfill();
      assert.equal(r!.error, null);
      assert.equal(r!.sessionsWritten, expected.sessions.length);

      const sessions = new Map(rig.query<Json>('SELECT * FROM sessions').map((s) => [s.session_id, s]));
      for (const e of expected.sessions as Json[]) {
        const s = sessions.get(e.id)!;
        assert.ok(s, `session ${e.id}`);
        for (const k of COUNTERS) assert.equal(s[k], e[k] ?? 0, `${e.id} ${k}`);
        close(s.estimated_cost_usd, e.estimated_cost_usd, `${e.id} estimated_cost_usd`);
        close(s.actual_cost_usd, e.actual_cost_usd, `${e.id} actual_cost_usd`);
        assert.equal(s.ended_at, e.ended_at);
        assert.equal(s.started_at, e.started_at);
        assert.equal(s.source, e.source);
        assert.equal(s.parent_session_id, e.parent_session_id);
      }
      // Totals: a report summing the sessions table never loses tokens, open sessions included.
      const t = rig.query<Json>('SELECT COUNT(*) AS sessions, SUM(ended_at IS NULL) AS open_sessions, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(reasoning_tokens) AS reasoning_tokens, SUM(api_call_count) AS api_call_count, TOTAL(estimated_cost_usd) AS estimated_cost_usd, TOTAL(actual_cost_usd) AS actual_cost_usd FROM sessions')[0]!;
      for (const k of ['sessions', 'open_sessions', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count']) {
        assert.equal(t[k], expected.totals[k], `total ${k}`);
      }
      close(t.estimated_cost_usd, expected.totals.estimated_cost_usd, 'total estimated_cost_usd');
      close(t.actual_cost_usd, expected.totals.actual_cost_usd, 'total actual_cost_usd');

      // The usage ledger of a first backfill: one event per session with usage, summing to the same totals.
      const ledger = rig.query<Json>('SELECT SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens, SUM(reasoning_tokens) AS reasoning_tokens, SUM(api_call_count) AS api_call_count, SUM(clamped) AS clamped FROM usage_events')[0]!;
      for (const k of ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count']) assert.equal(ledger[k], expected.totals[k], `ledger ${k}`);
      assert.equal(ledger.clamped, 0);
      // Per-day usage equals session_daily_usage.
      const daily = rig.query<Json>('SELECT session_id, day, input_tokens, api_call_count FROM daily_usage ORDER BY session_id, day');
      assert.deepEqual(daily, (expected.session_daily_usage as Json[]).map((d) => ({ session_id: d.session_id, day: d.day, input_tokens: d.input_tokens, api_call_count: d.api_call_count })));

      // model_usage equals session_model_usage, row for row.
      const usage = rig.query<Json>('SELECT * FROM model_usage ORDER BY session_id, model, task, provider_key');
      assert.equal(usage.length, expected.session_model_usage.length);
      for (const e of expected.session_model_usage as Json[]) {
        const u = usage.find((x) => x.session_id === e.session_id && x.model === e.model && x.task === e.task && x.provider_key.startsWith(`${e.billing_provider}|`))!;
        assert.ok(u, `model_usage ${e.session_id} ${e.model} ${e.task}`);
        for (const k of ['api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens']) assert.equal(u[k], e[k], k);
        close(u.estimated_cost_usd, e.estimated_cost_usd, 'estimated');
        close(u.actual_cost_usd, e.actual_cost_usd, 'actual');
        assert.equal(u.in_session_totals, e.task === '' ? 1 : 0);
      }

      // messages equals Hermes's replay of every transcript it reported.
      for (const [sid, tr] of Object.entries(expected.transcripts as Record<string, Json>)) {
        const rows = rig.query<Json>('SELECT * FROM messages WHERE session_id = ? ORDER BY seq', sid);
        const conv = tr.conversation as Json[];
        assert.equal(rows.length, conv.length, `${sid} message count`);
        conv.forEach((m, i) => {
          const row = rows[i]!;
          assert.equal(row.role, m.role);
          assert.equal(row.content, m.content);
          assert.equal(row.created_at, m.timestamp);
          assert.equal(row.tool_call_id, m.tool_call_id ?? null);
          assert.equal(row.tool_name, m.tool_name ?? null);
          assert.equal(row.finish_reason, m.finish_reason ?? null);
          assert.equal(row.reasoning, m.reasoning ?? null);
          assert.deepEqual(row.tool_calls === null ? null : JSON.parse(row.tool_calls), m.tool_calls ?? null);
        });
      }
      // Every nested tool call has its name and arguments (the reference adapter loses all of them).
      const calls = rig.query<Json>("SELECT tool_name, tool_args FROM parts WHERE part_type = 'tool_call'");
      // A v2 store's tool_call_count counts tool-related messages, not calls: its facts give the calls apart.
      assert.equal(calls.length, expected.totals.tool_calls ?? expected.totals.sum_tool_call_count);
      assert.ok(calls.every((c) => c.tool_name && c.tool_args !== null));
      const results = rig.query<Json>("SELECT tool_name FROM parts WHERE part_type = 'tool_result'");
      assert.equal(results.length, expected.totals.messages.tool_rows);
      assert.ok(results.every((c) => c.tool_name));
    } finally {
      rig.cleanup();
      cleanup();
    }
  });
}

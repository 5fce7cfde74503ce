// Replays the real fixtures through the writer: same sessions and messages must give the same rows and counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { createStore, LATEST_LEVEL } from '../schema/index.js';
import { StateDbWriter, type MessageInput } from './index.js';
import { copyFixture, FIXTURE_ROOT, tempDir } from '../testing/fixtures.js';
import { createIdSource } from '../../shared/ids.js';

type Row = Record<string, unknown>;
const MESSAGE_FIELDS = ['session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'finish_reason',
  'reasoning', 'reasoning_content', 'reasoning_details', 'codex_reasoning_items', 'codex_message_items', 'active', 'compacted',
  'display_identity', 'display_order'];

for (const name of ['basic', 'channels'] as const) {
  test(`writing the ${name} fixture's sessions and messages reproduces its message rows and counters`, () => {
    const { dir, cleanup } = tempDir();
    try {
      const real = new Database(copyFixture(name, dir), { readonly: true });
      const sessions = real.prepare('SELECT * FROM sessions ORDER BY started_at').all() as Row[];
      const prompts = new Map((real.prepare('SELECT hash, prompt FROM system_prompts').all() as Row[]).map((r) => [r.hash, r.prompt]));
      let t = 0;
      const db = createStore({ path: ':memory:', level: LATEST_LEVEL });
      const w = new StateDbWriter(db, { now: () => t, ids: createIdSource('x') });
      for (const s of sessions) {
        w.createSession({
          id: s.id as string, source: s.source as string, user_id: s.user_id as string | null, model: s.model as string,
          parent_session_id: s.parent_session_id as string | null, started_at: s.started_at as number,
          system_prompt: prompts.get(s.system_prompt_hash) as string | undefined, cwd: s.cwd,
        });
        if (s.model_config !== null) w.updateSession(s.id as string, { model_config: s.model_config });
      }
      for (const m of real.prepare('SELECT * FROM messages ORDER BY id').all() as Row[]) {
        const input: MessageInput = {
          role: m.role as string, content: m.content as string | null, tool_call_id: m.tool_call_id as string | null,
          tool_name: m.tool_name as string | null, timestamp: m.timestamp as number, finish_reason: m.finish_reason as string | null,
          reasoning: m.reasoning as string | null, reasoning_content: m.reasoning_content as string | null,
          tool_calls: m.tool_calls ? JSON.parse(m.tool_calls as string) : null,
          reasoning_details: m.reasoning_details ? JSON.parse(m.reasoning_details as string) : undefined,
          codex_reasoning_items: m.codex_reasoning_items ? JSON.parse(m.codex_reasoning_items as string) : undefined,
          codex_message_items: m.codex_message_items ? JSON.parse(m.codex_message_items as string) : undefined,
        };
        w.appendMessage(m.session_id as string, input);
      }
      const pick = (rows: Row[]) => rows.map((r) => Object.fromEntries(MESSAGE_FIELDS.map((f) => [f, r[f]])));
      const q = 'SELECT * FROM messages ORDER BY id';
      assert.deepEqual(pick(db.prepare(q).all() as Row[]), pick(real.prepare(q).all() as Row[]));
      const counters = 'SELECT id, message_count, tool_call_count, system_prompt, system_prompt_hash FROM sessions ORDER BY id';
      assert.deepEqual(db.prepare(counters).all(), real.prepare(counters).all());
      real.close();
    } finally {
      cleanup();
    }
  });
}

test('delta usage equal to the basic fixture per-route rows gives its session counters and daily ledger', () => {
  const expected = JSON.parse(readFileSync(`${FIXTURE_ROOT}/basic/expected.json`, 'utf8')) as {
    sessions: Row[]; session_model_usage: Row[]; session_daily_usage: Row[];
  };
  let t = 0;
  const db = createStore({ path: ':memory:', level: LATEST_LEVEL });
  const w = new StateDbWriter(db, { now: () => t, ids: createIdSource('x') });
  for (const s of expected.sessions) w.createSession({ id: s.id as string, source: 'cli', started_at: s.started_at as number });
  for (const u of expected.session_model_usage) {
    t = u.first_seen as number;
    w.updateTokenCounts(u.session_id as string, {
      ...(u as Record<string, number>), api_calls: u.api_call_count as number,
      actual_cost_usd: (u.actual_cost_usd as number) || null, model: u.model as string,
      billing_provider: u.billing_provider as string, billing_base_url: u.billing_base_url as string,
      billing_mode: u.billing_mode as string, cost_status: u.cost_status as string, cost_source: u.cost_source as string,
      pricing_version: '2026-06-01',
    });
  }
  const fields = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count',
    'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'billing_provider', 'billing_mode', 'model'];
  for (const s of expected.sessions) {
    const got = db.prepare('SELECT * FROM sessions WHERE id = ?').get(s.id) as Row;
    for (const f of fields) assert.equal(got[f], s[f], `${s.id as string} ${f}`);
  }
  const daily = db.prepare('SELECT * FROM session_daily_usage ORDER BY session_id').all();
  assert.deepEqual(daily, expected.session_daily_usage);
});

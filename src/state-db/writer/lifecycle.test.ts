import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, LATEST_LEVEL } from '../schema/index.js';
import { StateDbWriter } from './index.js';
import { createIdSource } from '../../shared/ids.js';

function setup(level = LATEST_LEVEL) {
  const clock = { t: 1784024103.25 };
  const db = createStore({ path: ':memory:', level });
  const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('life') });
  const row = (id: string) => db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>;
  return { clock, db, w, row };
}

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'terminal', arguments: '{"command": "ls"}' } });

test('session ids carry the creation time and 6 or 8 hex digits by surface', () => {
  const { w } = setup();
  assert.match(w.createSession({ source: 'cli' }), /^20260714_101503_[0-9a-f]{6}$/);
  assert.match(w.createSession({ source: 'telegram' }), /^20260714_101503_[0-9a-f]{8}$/);
});

test('appending keeps message_count and tool_call_count and nudges equal timestamps by 1 µs', () => {
  const { w, db, row } = setup();
  const id = w.createSession({ source: 'cli', system_prompt: 'You are Hermes.' });
  w.appendMessages(id, [
    { role: 'user', content: 'hi', timestamp: 10 },
    { role: 'assistant', content: null, tool_calls: [call('call_a'), call('call_b')], timestamp: 10 },
    { role: 'tool', content: '{"ok": true}', tool_call_id: 'call_a', tool_name: 'terminal', timestamp: 10 },
    { role: 'user', content: [{ type: 'text', text: 'look' }] },
  ]);
  const s = row(id);
  assert.equal(s.message_count, 4);
  assert.equal(s.tool_call_count, 2);
  assert.equal(s.system_prompt, null);
  assert.equal(typeof s.system_prompt_hash, 'string');
  const ts = db.prepare('SELECT timestamp FROM messages ORDER BY id').pluck().all() as number[];
  assert.deepEqual(ts.slice(0, 3), [10, 10 + 1e-6, 10 + 1e-6 + 1e-6]);
  assert.equal(db.prepare('SELECT content FROM messages WHERE id = 4').pluck().get(), '\x00json:[{"type": "text", "text": "look"}]');
});

test('end_session keeps the first reason; reopen clears it; the next end sets it again', () => {
  const { w, row, clock } = setup();
  const id = w.createSession({ source: 'tui' });
  assert.equal(w.endSession(id, 'tui_shutdown'), true);
  clock.t += 5;
  assert.equal(w.endSession(id, 'user_exit'), false);
  assert.equal(row(id).end_reason, 'tui_shutdown');
  w.reopenSession(id);
  assert.equal(row(id).ended_at, null);
  w.endSession(id, 'user_exit');
  assert.deepEqual([row(id).end_reason, row(id).ended_at], ['user_exit', clock.t]);
});

test('absolute usage overwrites counters (and may go down); delta adds and upserts per route and task', () => {
  const { w, db, row } = setup();
  const g = w.createSession({ source: 'telegram' });
  w.updateTokenCounts(g, { input_tokens: 1000, output_tokens: 50, api_calls: 2 }, 'absolute');
  w.updateTokenCounts(g, { input_tokens: 700, output_tokens: 20, api_calls: 1 }, 'absolute');
  assert.deepEqual([row(g).input_tokens, row(g).api_call_count], [700, 1]);
  assert.equal(db.prepare('SELECT input_tokens FROM session_daily_usage WHERE session_id = ?').pluck().get(g), 1000);
  const c = w.createSession({ source: 'cli' });
  const route = { model: 'gpt-5', billing_provider: 'openai-codex', estimated_cost_usd: 0.5 };
  w.updateTokenCounts(c, { input_tokens: 10, output_tokens: 1, ...route });
  w.updateTokenCounts(c, { input_tokens: 5, output_tokens: 2, ...route });
  w.recordAuxiliaryUsage(c, 'title_generation', { model: 'gemini', input_tokens: 400 });
  assert.deepEqual([row(c).input_tokens, row(c).api_call_count, row(c).estimated_cost_usd, row(c).model], [15, 2, 1, 'gpt-5']);
  const usage = db.prepare('SELECT task, model, api_call_count, input_tokens FROM session_model_usage WHERE session_id = ? ORDER BY task').all(c);
  assert.deepEqual(usage, [{ task: '', model: 'gpt-5', api_call_count: 2, input_tokens: 15 }, { task: 'title_generation', model: 'gemini', api_call_count: 1, input_tokens: 400 }]);
});

test('mimics hermes_state_usage.py: a voice_chat delta counts on the session and keeps its task; an absolute report without an estimate resets it to 0', () => {
  const { w, db, row } = setup();
  const c = w.createSession({ source: 'cli', model: 'main-model' });
  w.updateTokenCounts(c, { input_tokens: 100, model: 'main-model', billing_provider: 'text' });
  w.updateTokenCounts(c, { input_tokens: 20, model: 'voice-model', billing_provider: 'voicep' }, 'delta', 'voice_chat');
  assert.deepEqual([row(c).input_tokens, row(c).api_call_count, row(c).model], [120, 2, 'main-model']);
  const usage = db.prepare('SELECT task, model, input_tokens FROM session_model_usage WHERE session_id = ? ORDER BY task').all(c);
  assert.deepEqual(usage, [{ task: '', model: 'main-model', input_tokens: 100 }, { task: 'voice_chat', model: 'voice-model', input_tokens: 20 }]);
  // _token_update_sql(delta=False): estimated_cost_usd = COALESCE(?, 0).
  const g = w.createSession({ source: 'telegram' });
  w.updateTokenCounts(g, { input_tokens: 10, estimated_cost_usd: 0.5 }, 'absolute');
  w.updateTokenCounts(g, { input_tokens: 12 }, 'absolute');
  assert.deepEqual([row(g).input_tokens, row(g).estimated_cost_usd, row(g).actual_cost_usd], [12, 0, null]);
});

test('mimics _record_model_usage: a main-loop call that omits its route takes the session\'s; a task row never does and names a missing model unknown', () => {
  const { w, db } = setup();
  const c = w.createSession({ source: 'cli', model: 'gpt-5' });
  // The first call's route fills the session's billing columns (COALESCE) before its own row is written.
  w.updateTokenCounts(c, { input_tokens: 10, model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1', billing_mode: 'api_key' });
  w.updateTokenCounts(c, { input_tokens: 5 });
  w.updateTokenCounts(c, { input_tokens: 7, model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1' });
  w.recordAuxiliaryUsage(c, 'background_review', { input_tokens: 40 });
  const rows = db.prepare('SELECT task, model, billing_provider, billing_base_url, billing_mode, api_call_count, input_tokens FROM session_model_usage ORDER BY task').all();
  assert.deepEqual(rows, [
    { task: '', model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1', billing_mode: 'api_key', api_call_count: 3, input_tokens: 22 },
    { task: 'background_review', model: 'unknown', billing_provider: '', billing_base_url: '', billing_mode: '', api_call_count: 1, input_tokens: 40 },
  ]);
});

test('mimics update_token_counts: the first accounted call\'s route replaces the one create_session recorded; a call that accounted nothing fills nothing', () => {
  const { w, db, row } = setup();
  const c = w.createSession({ source: 'cli', model: 'claude-opus-4.1', billing_provider: 'anthropic', billing_base_url: 'https://api.anthropic.com' });
  w.updateTokenCounts(c, { input_tokens: 10, model: 'gpt-5', billing_provider: 'openrouter', billing_base_url: 'https://openrouter.ai/api/v1' });
  w.updateTokenCounts(c, { input_tokens: 10, model: 'gpt-5-mini', billing_provider: 'openai' });
  assert.deepEqual([row(c).model, row(c).billing_provider, row(c).billing_base_url, row(c).billing_mode], ['gpt-5', 'openrouter', 'https://openrouter.ai/api/v1', null]);
  const e = w.createSession({ source: 'cli' });
  w.updateTokenCounts(e, { api_calls: 0, model: 'gpt-5', billing_provider: 'openai', billing_mode: 'api_key' });
  assert.deepEqual([row(e).model, row(e).billing_provider, row(e).billing_mode], [null, null, null]);
  assert.equal(db.prepare('SELECT COUNT(*) FROM session_model_usage WHERE session_id = ?').pluck().get(e), 0);
});

test('usage before create_session leaves an unknown placeholder that the create repairs', () => {
  const { w, row } = setup();
  w.updateTokenCounts('20260714_101503_abcdef', { input_tokens: 3 });
  assert.equal(row('20260714_101503_abcdef').source, 'unknown');
  w.createSession({ id: '20260714_101503_abcdef', source: 'cli', model: 'gpt-5' });
  assert.deepEqual([row('20260714_101503_abcdef').source, row('20260714_101503_abcdef').input_tokens], ['cli', 3]);
});

test('in-place compaction flags old rows compacted, clones the carried tail and leaves originals inactive', () => {
  const { w, db, row } = setup();
  const id = w.createSession({ source: 'cli' });
  w.appendMessages(id, [1, 2, 3, 4].map((i) => ({ role: i % 2 ? 'user' : 'assistant', content: `m${i}`, timestamp: i })));
  w.compactInPlace(id, [{ role: 'user', content: 'summary', _compressed_summary: 1 }], 2);
  const states = db.prepare('SELECT id, content, active, compacted FROM messages ORDER BY id').all();
  assert.deepEqual(states, [
    { id: 1, content: 'm1', active: 0, compacted: 1 },
    { id: 2, content: 'm2', active: 0, compacted: 1 },
    { id: 3, content: 'm3', active: 0, compacted: 0 },
    { id: 4, content: 'm4', active: 0, compacted: 0 },
    { id: 5, content: 'summary', active: 1, compacted: 0 },
    { id: 6, content: 'm3', active: 1, compacted: 0 },
    { id: 7, content: 'm4', active: 1, compacted: 0 },
  ]);
  // The clones are the same logical messages: identical display_identity bytes.
  const ident = db.prepare('SELECT display_identity FROM messages WHERE id = ?').pluck();
  assert.deepEqual(ident.get(6), ident.get(3));
  assert.equal(row(id).message_count, 3);
});

test('compression split ends the parent and numbers the child title; replace and delete rewrite ids', () => {
  const { w, db, row } = setup();
  const p = w.createSession({ source: 'cli', title: 'auth work' });
  w.appendMessages(p, [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }]);
  const c = w.compressSplit(p, [{ role: 'user', content: 'summary' }]);
  assert.deepEqual([row(p).end_reason, row(c).parent_session_id, row(c).title], ['compression', p, 'auth work #2']);
  w.replaceMessages(p, [{ role: 'user', content: 'a' }]);
  assert.deepEqual(db.prepare('SELECT id FROM messages WHERE session_id = ?').pluck().all(p), [4]);
  assert.equal(row(p).message_count, 1);
  const d = w.createSession({ source: 'subagent', parent_session_id: p, model_config: { _delegate_from: p } });
  w.updateTokenCounts(d, { input_tokens: 1 });
  w.deleteSession(p);
  assert.equal(row(d), undefined);
  assert.equal(row(c).parent_session_id, null);
  assert.deepEqual(db.pragma('foreign_key_check'), []);
});

test('replace_messages with archive_dropped soft-archives the live rows; active_only spares archived ones; counters follow the new set', () => {
  const { w, db, row } = setup();
  const id = w.createSession({ source: 'cli' });
  const call = { id: 'call_a', type: 'function' as const, function: { name: 'terminal', arguments: '{}' } };
  w.appendMessages(id, [{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'assistant', content: 'a' }]);
  w.replaceMessages(id, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'better' }], { archiveDropped: true });
  const states = () => db.prepare('SELECT content, active, compacted FROM messages ORDER BY id').raw().all();
  assert.deepEqual(states(), [['q', 0, 0], [null, 0, 0], ['a', 0, 0], ['q', 1, 0], ['better', 1, 0]]);
  assert.deepEqual([row(id).message_count, row(id).tool_call_count], [2, 0]);
  w.replaceMessages(id, [{ role: 'user', content: 'only' }], { activeOnly: true });
  assert.deepEqual(states(), [['q', 0, 0], [null, 0, 0], ['a', 0, 0], ['only', 1, 0]]);
  w.replaceMessages(id, [{ role: 'user', content: 'fresh' }]);
  assert.deepEqual(states(), [['fresh', 1, 0]]);
});

test('older stores get only the columns they have', () => {
  const { w, row } = setup(2);
  const id = w.createSession({ source: 'cli', cwd: '/x', title: 'nope', system_prompt: 'inline' });
  w.appendMessage(id, { role: 'assistant', content: 'x', reasoning: 'r', finish_reason: 'stop' });
  w.updateTokenCounts(id, { input_tokens: 4, cache_read_tokens: 9, estimated_cost_usd: 1 });
  assert.deepEqual([row(id).system_prompt, row(id).input_tokens, row(id).message_count], ['inline', 4, 1]);
});

test('a v2 store counts as Hermes\'s v2 SessionDB did: one per tool-related message, and a later end overwrites the first', () => {
  const { w, row } = setup(2);
  const id = w.createSession({ source: 'cli' });
  const call = (c: string) => ({ id: c, type: 'function' as const, function: { name: 'terminal', arguments: '{}' } });
  w.appendMessages(id, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: null, tool_calls: [call('call_a'), call('call_b')] },
    { role: 'tool', content: 'a', tool_call_id: 'call_a', tool_name: 'terminal' },
    { role: 'tool', content: 'b', tool_call_id: 'call_b', tool_name: 'terminal' },
  ]);
  assert.deepEqual([row(id).message_count, row(id).tool_call_count], [4, 3]);
  w.endSession(id, 'compression', 10);
  w.endSession(id, 'user_exit', 20);
  assert.deepEqual([row(id).ended_at, row(id).end_reason], [20, 'user_exit']);
  // The same at the latest level: calls are counted, and the first end stays.
  const later = setup();
  const l = later.w.createSession({ source: 'cli' });
  later.w.appendMessages(l, [{ role: 'assistant', content: null, tool_calls: [call('call_a'), call('call_b')] }, { role: 'tool', content: 'a', tool_call_id: 'call_a' }]);
  later.w.endSession(l, 'compression', 10);
  later.w.endSession(l, 'user_exit', 20);
  assert.deepEqual([later.row(l).tool_call_count, later.row(l).end_reason], [2, 'compression']);
});

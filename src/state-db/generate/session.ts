// Writes one synthetic conversation through the Hermes-like writer: turns with tool calls, usage, titles, and the
// lifecycle scenario chosen for the session (lineage, compaction, reopen, retry, deletion, ...).
import type { PlainJson as PyJson } from '../../shared/python/index.js';
import type { MessageInput, StateDbWriter } from '../writer/index.js';
import {
  answerText, callUsage, GATEWAY_SOURCES, LOCAL_SOURCES, multimodalContent, reasoningFields, ROUTES, SYSTEM_PROMPTS,
  toolCall, userText, type Route,
} from './content.js';
import type { Rng } from './random.js';

export const SCENARIOS = [
  'plain', 'compression', 'branch', 'delegate', 'compaction', 'reopen', 'retry', 'rewind', 'deleted', 'recreated',
  'model_switch', 'handoff', 'garbage_ts', 'placeholder', 'cron',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Session rows each scenario leaves in the store (lineage adds children; a deleted session leaves none). */
export const SESSION_ROWS: Record<Scenario, number> = {
  plain: 1, compression: 2, branch: 2, delegate: 3, compaction: 1, reopen: 1, retry: 1, rewind: 1, deleted: 0, recreated: 1,
  model_switch: 1, handoff: 1, garbage_ts: 1, placeholder: 1, cron: 1,
};

/**
 * The order the first sessions walk every scenario in: one-session shapes first, lineage last, so a small store
 * (--sessions 12) still has each one-session shape, and exactly as many sessions as asked.
 */
export const WALK: readonly Scenario[] = [...SCENARIOS.filter((x) => SESSION_ROWS[x] <= 1), ...SCENARIOS.filter((x) => SESSION_ROWS[x] > 1)];

export interface GenContext {
  w: StateDbWriter;
  r: Rng;
  time: { t: number };
  level: number;
  /** Serial for unique titles. */
  seq: { title: number };
  /** Every pause is multiplied by this (1 normally; less when a session must fit a slot of --days). */
  scale: number;
  /**
   * The background delegations' own randomness (delegations.ts): drawn apart from `r`, so adding them left every
   * session and message of a seed as it was.
   */
  side: Rng;
}

interface Live {
  id: string;
  route: Route;
  mode: 'delta' | 'absolute';
  totals: Record<'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens' | 'estimated_cost_usd' | 'api_calls', number>;
  written: number;
}

const tick = (ctx: GenContext, lo: number, hi: number) => (ctx.time.t += (ctx.r.int(lo * 1000, hi * 1000) / 1000 + ctx.r.int(0, 999999) / 1e9) * ctx.scale);

function gatewayFields(ctx: GenContext, source: string): Record<string, unknown> {
  const { r } = ctx;
  const chatType = source === 'discord' || source === 'slack' ? 'channel' : r.pick(['dm', 'dm', 'group']);
  const chat = source === 'email' ? `user${r.int(1, 99)}@example.com` : source === 'signal' || source === 'sms' ? `+1555${r.int(1000000, 9999999)}` : `${r.int(-1009999999999, 999999999999)}`;
  const user = source === 'api_server' ? `basic:user${r.int(1, 9)}` : source === 'webhook' ? '' : chat;
  const thread = chatType === 'group' && r.chance(0.5) ? String(r.int(1, 400)) : null;
  return {
    user_id: user, session_key: `agent:main:${source}:${chatType}:${chat}`, chat_id: chat, chat_type: chatType,
    thread_id: thread, display_name: r.pick(['Family chat', '#general', 'Alice', 'Ops room', null]),
    origin_json: `{"platform": "${source}", "chat_id": "${chat}", "chat_type": "${chatType}", "user_id": "${user}", "thread_id": ${thread === null ? 'null' : `"${thread}"`}}`,
    expiry_finalized: 0, transport_profile: r.chance(0.2) ? 'default' : null,
  };
}

/** create_session for a surface, with the columns each surface fills. */
export function openSession(ctx: GenContext, source: string, extra: Record<string, unknown> = {}): Live {
  const { r, w } = ctx;
  const route = r.pick(ROUTES);
  const gateway = (GATEWAY_SOURCES as readonly string[]).includes(source);
  const local = (LOCAL_SOURCES as readonly string[]).includes(source) || source === 'subagent';
  const n = r.int(0, 40);
  const fields: Record<string, unknown> = {
    source, model: route.model, started_at: ctx.time.t,
    model_config: { provider: route.billing_provider, model: route.model, base_url: route.billing_base_url },
    system_prompt: r.pick(source === 'subagent' ? [SYSTEM_PROMPTS[2]!] : gateway ? [SYSTEM_PROMPTS[1]!] : [SYSTEM_PROMPTS[0]!]),
    profile_name: r.chance(0.85) ? 'default' : 'coder', created_source: source === 'cli' && r.chance(0.2) ? 'tui' : null,
    ...(gateway ? gatewayFields(ctx, source) : {}),
    ...(local ? { cwd: `/home/dev/proj${n}`, git_branch: r.pick(['main', 'main', 'feature/auth', 'fix/wal']), git_repo_root: `/home/dev/proj${n}`, git_metadata_generation: 1 } : {}),
    ...extra,
  };
  const id = w.createSession(fields as never);
  return {
    id, route, mode: gateway ? 'absolute' : 'delta', written: 0,
    totals: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0, api_calls: 0 },
  };
}

function account(ctx: GenContext, s: Live): void {
  const u = callUsage(s.route, ctx.r);
  if (s.mode === 'delta') return ctx.w.updateTokenCounts(s.id, u, 'delta');
  const t = s.totals;
  for (const k of ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd'] as const) t[k] += u[k] ?? 0;
  t.api_calls += 1;
  ctx.w.updateTokenCounts(s.id, { ...u, ...t, estimated_cost_usd: Math.round(t.estimated_cost_usd * 1e8) / 1e8 }, 'absolute');
}

/** One user turn, flushed as one batch at its end (spec §8): user, tool rounds, final answer. */
export function turn(ctx: GenContext, s: Live, maxMessages: number): number {
  const { r, w } = ctx;
  const batch: MessageInput[] = [];
  const at = () => tick(ctx, 0.4, 6);
  const mm = r.chance(0.05);
  batch.push({ role: 'user', content: mm ? multimodalContent(r) : userText(r), timestamp: at(),
    display_kind: r.chance(0.03) ? 'steer' : null, platform_message_id: s.mode === 'absolute' ? String(r.int(1000, 99999)) : null });
  if (r.chance(0.04)) batch.push({ role: 'session_meta', content: `{"model": "${s.route.model}"}`, timestamp: at() });
  const rounds = Math.min(r.int(0, 2), Math.max(0, Math.floor((maxMessages - 2) / 2)));
  for (let i = 0; i < rounds; i++) {
    const calls = Array.from({ length: r.chance(0.2) ? 2 : 1 }, () => toolCall(r, () => w.ids.uuid4Hex()));
    batch.push({ role: 'assistant', content: r.chance(0.5) ? null : 'Let me look.', tool_calls: calls.map((c) => c.call),
      finish_reason: 'tool_calls', timestamp: at(), ...reasoningFields(s.route, r, 'Need to inspect the workspace first.') });
    account(ctx, s);
    for (const c of calls) batch.push({ ...c.result, timestamp: at() });
  }
  const final: MessageInput = { role: 'assistant', content: answerText(r), finish_reason: r.chance(0.97) ? 'stop' : 'length', timestamp: at(), ...reasoningFields(s.route, r, 'Summarize the result.') };
  if (s.route.reasoningStyle === 'codex') final.codex_message_items = [{ id: `msg_${r.hex(16)}`, phase: 'final_answer' }] as PyJson;
  if (r.chance(0.03)) Object.assign(final, { display_kind: r.pick(['auto_continue', 'model_switch', 'failed_turn', 'process_complete']), display_metadata: { reactions: [{ emoji: '👍', author: 'user', at: ctx.time.t, seen: true }] } });
  batch.push(final);
  account(ctx, s);
  w.appendMessages(s.id, batch);
  s.written += batch.length;
  return batch.length;
}

/** Turns until about `budget` messages are written; the first exchange earns a title (aux title_generation call). */
export function converse(ctx: GenContext, s: Live, budget: number, title = true): void {
  const start = s.written;
  while (s.written - start < budget) {
    turn(ctx, s, budget - (s.written - start));
    if (title && s.written - start <= 8 && s.written > 0 && ctx.level >= 3 && ctx.r.chance(0.8)) {
      title = false;
      ctx.w.updateSession(s.id, { title: `session ${++ctx.seq.title} ${ctx.r.pick(['auth refactor', 'wal notes', 'release prep', 'triage'])}`, title_source: ctx.r.pick(['llm', 'llm', 'derived', 'user']) });
      ctx.w.recordAuxiliaryUsage(s.id, 'title_generation', { model: 'google/gemini-2.5-flash', billing_provider: 'openrouter', billing_base_url: 'https://openrouter.ai/api/v1', input_tokens: ctx.r.int(200, 600), output_tokens: ctx.r.int(5, 20), estimated_cost_usd: 0.000126 });
    }
    tick(ctx, 5, 120);
  }
}

export function pickSource(ctx: GenContext): string {
  return ctx.r.chance(0.55) ? ctx.r.pick(LOCAL_SOURCES) : ctx.r.pick(GATEWAY_SOURCES);
}

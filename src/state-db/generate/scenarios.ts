// Lifecycle scenarios of spec state-db §8 played on synthetic sessions, each gated on the schema level it needs.
import type { MessageInput, ToolCall } from '../writer/index.js';
import { callUsage, ROUTES } from './content.js';
import { delegated } from './delegations.js';
import { converse, openSession, pickSource, turn, type GenContext, type Scenario } from './session.js';

const END_REASONS = ['user_exit', 'new_session', 'idle', 'session_reset', 'daily', 'tui_shutdown', 'ws_disconnect', 'done', 'lru_evict'];

/** Writes one scenario of about `budget` messages; returns nothing (the store is the result). */
export function runScenario(ctx: GenContext, scenario: Scenario, budget: number): void {
  const { w, r, level } = ctx;
  const end = (id: string, reason = r.pick(END_REASONS)) => w.endSession(id, reason, ctx.time.t);
  const half = Math.max(2, Math.floor(budget / 2));
  switch (scenario) {
    case 'compression': {
      const s = openSession(ctx, r.pick(['cli', 'tui', 'telegram']));
      converse(ctx, s, half);
      const childId = w.compressSplit(s.id, [{ role: 'user', content: '[Context summary] Earlier we refactored the auth module.', timestamp: ctx.time.t }], { started_at: ctx.time.t });
      const child = { ...s, id: childId, written: 1 };
      converse(ctx, child, budget - half, false);
      if (r.chance(0.7)) end(childId);
      return;
    }
    case 'branch': {
      const s = openSession(ctx, 'cli');
      converse(ctx, s, half);
      end(s.id, 'branched');
      const b = openSession(ctx, 'cli', { parent_session_id: s.id, model_config: { _branched_from: s.id } });
      converse(ctx, b, budget - half);
      end(b.id);
      return;
    }
    case 'delegate': {
      const s = openSession(ctx, r.pick(['cli', 'tui']));
      converse(ctx, s, Math.max(2, budget - 8));
      for (let i = 0; i < 2; i++) {
        const from = ctx.time.t;
        const d = openSession(ctx, 'subagent', { parent_session_id: s.id, model_config: { _delegate_from: s.id, goal: `research lib ${i}` } });
        converse(ctx, d, 4, false);
        end(d.id, 'done');
        // Run in the background (schema 24 on): its async_delegations row, dispatched when the child started.
        if (level >= 24) delegated(ctx, s.id, `research lib ${i}`, from);
      }
      end(s.id);
      return;
    }
    case 'compaction': {
      const s = openSession(ctx, r.pick(['cli', 'telegram', 'discord']));
      converse(ctx, s, half);
      if (level >= 13) {
        for (let g = 0; g < 2; g++) {
          w.compactInPlace(s.id, [{ role: 'user', content: `[Compacted context, generation ${g + 1}]`, _compressed_summary: 1, timestamp: ctx.time.t }], 2);
          converse(ctx, s, Math.max(2, Math.floor((budget - half) / 2)), false);
        }
      }
      return;
    }
    case 'reopen': {
      const s = openSession(ctx, r.pick(['cli', 'tui']));
      converse(ctx, s, half);
      end(s.id, 'tui_shutdown');
      ctx.time.t += 3600 * ctx.scale;
      w.reopenSession(s.id);
      converse(ctx, s, budget - half, false);
      end(s.id, 'user_exit');
      return;
    }
    case 'retry': {
      const s = openSession(ctx, 'cli');
      converse(ctx, s, budget);
      const rows = w.db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id').all(s.id) as (MessageInput & { tool_calls: string | null })[];
      const kept: MessageInput[] = rows.slice(0, -1).map((m) => ({
        role: m.role, content: m.content, tool_call_id: m.tool_call_id, tool_name: m.tool_name, timestamp: m.timestamp,
        finish_reason: m.finish_reason, tool_calls: m.tool_calls ? JSON.parse(m.tool_calls) as ToolCall[] : null,
      }));
      w.replaceMessages(s.id, [...kept, { role: 'assistant', content: 'Retried: a better answer.', finish_reason: 'stop', timestamp: ctx.time.t }]);
      end(s.id);
      return;
    }
    case 'rewind': {
      const s = openSession(ctx, 'cli');
      converse(ctx, s, budget);
      const ids = w.db.prepare('SELECT id FROM messages WHERE session_id = ? ORDER BY id').all(s.id) as { id: number }[];
      if (level >= 13 && ids.length > 3) w.rewind(s.id, ids[ids.length - 3]!.id);
      end(s.id);
      return;
    }
    case 'deleted': {
      const s = openSession(ctx, pickSource(ctx));
      converse(ctx, s, Math.min(budget, 4));
      end(s.id);
      w.deleteSession(s.id);
      return;
    }
    case 'recreated': {
      // Deleted while open in a running chat: the next save recreates the id with the whole transcript (new ids).
      const s = openSession(ctx, 'cli');
      converse(ctx, s, half);
      const rows = w.db.prepare('SELECT role, content, tool_call_id, tool_name, timestamp FROM messages WHERE session_id = ? AND tool_calls IS NULL ORDER BY id').all(s.id) as MessageInput[];
      const started = (w.db.prepare('SELECT started_at FROM sessions WHERE id = ?').get(s.id) as { started_at: number }).started_at;
      w.deleteSession(s.id);
      w.createSession({ id: s.id, source: 'cli', model: s.route.model, started_at: started });
      w.appendMessages(s.id, rows);
      s.written = rows.length;
      converse(ctx, s, budget - half, false);
      return;
    }
    case 'model_switch': {
      const s = openSession(ctx, 'cli');
      converse(ctx, s, half);
      const next = ROUTES[(ROUTES.indexOf(s.route) + 1) % ROUTES.length]!;
      w.switchModel(s.id, next.model, { billing_provider: next.billing_provider, billing_base_url: next.billing_base_url, billing_mode: next.billing_mode });
      w.appendMessage(s.id, { role: 'system', content: `Model switched to ${next.model}.`, display_kind: 'model_switch', timestamp: ctx.time.t });
      s.route = next;
      converse(ctx, s, budget - half, false);
      w.recordAuxiliaryUsage(s.id, 'compression', { model: 'google/gemini-2.5-flash', billing_provider: 'openrouter', input_tokens: 20000, output_tokens: 800, estimated_cost_usd: 0.0084 });
      w.recordAuxiliaryUsage(s.id, 'vision', { model: 'gpt-5-mini', billing_provider: 'openai-codex', input_tokens: 1500, output_tokens: 120, api_calls: 2 });
      end(s.id);
      return;
    }
    case 'handoff': {
      const s = openSession(ctx, 'cli');
      converse(ctx, s, budget);
      w.updateSession(s.id, { handoff_state: 'done', handoff_platform: r.pick(['telegram', 'discord']), last_activity_at: ctx.time.t, last_activity_description: 'handed off', archived: r.chance(0.3) ? 1 : 0, pinned: r.chance(0.3) ? 1 : 0 });
      return;
    }
    case 'garbage_ts': {
      const s = openSession(ctx, pickSource(ctx));
      converse(ctx, s, Math.max(2, budget - 1));
      w.appendMessage(s.id, { role: 'assistant', content: 'Salvaged row with a damaged timestamp.', timestamp: 5e246 });
      end(s.id);
      return;
    }
    case 'placeholder': {
      // Usage arrives before create_session: a 'unknown' placeholder row, repaired by the create.
      const id = w.newSessionId('telegram', ctx.time.t);
      const route = r.pick(ROUTES);
      w.updateTokenCounts(id, callUsage(route, r), 'delta');
      const s = openSession(ctx, 'telegram', { id });
      converse(ctx, s, budget);
      return;
    }
    case 'cron': {
      const s = openSession(ctx, 'cron', { model_config: { cron_job_id: `job_${r.pick(['daily_digest', 'inbox_sweep', 'backup'])}` } });
      converse(ctx, s, budget, false);
      end(s.id, 'done');
      return;
    }
    default: {
      const s = openSession(ctx, pickSource(ctx));
      converse(ctx, s, budget);
      if (r.chance(0.75)) end(s.id);
      else if (r.chance(0.3)) turn(ctx, s, 4);
    }
  }
}

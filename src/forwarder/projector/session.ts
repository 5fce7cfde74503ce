// One Hermes session (its row, every message row, its per-model usage) → the dataset's records. Pure: the same
// input gives the same records, byte for byte; no clock, no I/O (spec forwarding §7 "Projector").
import { redactSensitiveText } from '../../shared/redact/index.js';
import type { RecordOf } from '../dataset/columns.js';
import { normalizeMessages, num, numOrNull, str, usageMarkOf, validEpoch, type NormalMessage, type Row } from '../normalize/index.js';
import { lineageKind } from './lineage.js';
import { partsOf } from './parts.js';
import { hostOf, normalizeProvider } from './provider.js';
import { redactValue } from './redact-json.js';
import { scopesOf } from './scope.js';
import { usageEvent, type Ledger } from './usage.js';

export interface ProjectInput {
  store: string;
  profile: string;
  /** The Hermes home the store lives in (its folder): channel and source scopes hang under it. */
  hermesHome: string;
  session: Row;
  /** Every message row of the session, all generations, in id order. */
  messages: readonly Row[];
  modelUsage: readonly Row[];
  /** Ancestors, nearest first (for lineage and inherited scopes). */
  parents: readonly Row[];
  systemPrompt: string | null;
  /** `session_daily_usage` rows of the session (empty when the store has no such table). */
  dailyUsage?: readonly Row[];
  /** What the usage ledger last saw of this session (null: nothing yet). */
  ledger?: Ledger | null;
  redact: boolean;
  origin: 'backfill' | 'forward';
}

export interface Projection {
  session: RecordOf;
  messages: RecordOf[];
  parts: RecordOf[];
  modelUsage: RecordOf[];
  issues: RecordOf[];
  dailyUsage: RecordOf[];
  /** The ledger's event for what changed since `ledger` (null when nothing did), and the ledger's next state. */
  usageEvent: RecordOf | null;
  ledger: Ledger;
  /** The session's usage mark (normalize/usage-mark.ts), for its cursor. */
  usageMark: string;
  /** Every scope that governs the session (policy is the most restrictive of them); empty when it has none. */
  scopes: string[];
  maxMessageId: number;
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const COUNTERS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;

/** Model per assistant row: the main-loop route in use at its time (session_model_usage), else the session's. */
function modelAt(routes: readonly Row[], fallback: string | null): (m: NormalMessage) => string | null {
  const main = routes.filter((r) => (r.task ?? '') === '' && typeof r.first_seen === 'number').sort((a, b) => num(a.first_seen) - num(b.first_seen));
  let metaModel: string | null = null;
  return (m) => {
    if (m.kind === 'session_meta' && m.content) {
      try {
        const meta = JSON.parse(m.content) as { model?: unknown };
        if (typeof meta.model === 'string') metaModel = meta.model;
      } catch { /* not JSON: no model marker */ }
    }
    if (m.role !== 'assistant') return null;
    if (main.length === 0) return metaModel ?? fallback;
    let pick = main[0]!;
    for (const r of main) if (num(r.first_seen) <= m.createdAt + 1e-6) pick = r;
    return str(pick.model) ?? fallback;
  };
}

/** @example projectSession({ store, profile: 'default', hermesHome, session, messages, modelUsage: [], parents: [], systemPrompt: null, redact: false, origin: 'backfill' }) */
export function projectSession(input: ProjectInput): Projection {
  const { store, session: s } = input;
  const sessionId = String(s.id);
  const redact = input.redact ? (t: string | null) => redactSensitiveText(t) : (t: string | null) => t;
  const issues: RecordOf[] = [];
  let startedAt = numOrNull(s.started_at);
  const normalized = normalizeMessages(input.messages, startedAt ?? 0);
  if (!validEpoch(startedAt)) {
    const first = normalized.live.find((m) => !m.timestampRepaired)?.createdAt ?? 0;
    issues.push({ store, session_id: sessionId, message_id: 0, field: 'started_at', problem: `started_at ${String(s.started_at)} is not a plausible time; the first message's time is used` });
    startedAt = first;
  }
  for (const i of normalized.issues) issues.push({ store, session_id: sessionId, message_id: i.messageId ?? 0, field: i.field, problem: i.problem });

  const callNames = new Map<string, string>();
  for (const m of normalized.live) for (const c of m.toolCalls ?? []) if (c.id && c.name) callNames.set(c.id, c.name);
  const model = modelAt(input.modelUsage, str(s.model));
  const messages: RecordOf[] = [];
  const parts: RecordOf[] = [];
  normalized.live.forEach((m, seq) => {
    const msgModel = model(m);
    const toolName = m.toolName ?? (m.role === 'tool' && m.toolCallId ? callNames.get(m.toolCallId) ?? null : null);
    const toolCalls = m.toolCallsJson === null ? null : json(input.redact ? redactValue(m.toolCallsJson, redact) : m.toolCallsJson);
    messages.push({
      store, session_id: sessionId, message_id: m.id, logical_id: m.logicalId, seq, role: m.role, kind: m.kind,
      content: redact(m.content), content_format: m.contentFormat, tool_calls: toolCalls, tool_name: toolName,
      tool_call_id: m.toolCallId, reasoning: redact(m.reasoning), model: msgModel, finish_reason: m.finishReason,
      created_at: m.createdAt,
    });
    parts.push(...partsOf(m, { store, sessionId, callNames, model: msgModel, redact, json }));
  });

  const endedAt = validEpoch(s.ended_at) ? (s.ended_at as number) : null;
  if (s.ended_at !== null && s.ended_at !== undefined && endedAt === null) {
    issues.push({ store, session_id: sessionId, message_id: 0, field: 'ended_at', problem: `ended_at ${String(s.ended_at)} is not a plausible time; the session is treated as open` });
  }
  const lastMessageAt = normalized.live.reduce((t, m) => Math.max(t, m.createdAt), 0);
  const activity = Math.max(startedAt!, lastMessageAt, endedAt ?? 0, validEpoch(s.last_activity_at) ? (s.last_activity_at as number) : 0);
  const provider = normalizeProvider(s.billing_base_url, s.billing_provider, providerOfConfig(s.model_config));
  const counters = Object.fromEntries(COUNTERS.map((k) => [k, num(s[k])]));
  if (endedAt !== null) {
    parts.push({
      store, session_id: sessionId, part_id: `hermes-${sessionId}-session_end-${Math.round(endedAt * 1e6)}#0`, message_id: null,
      part_index: 0, role: 'system', part_type: 'status', content_text: null, tool_name: null, tool_call_id: null,
      tool_args: null, tool_result_for: null, status: json({ status: 'session_end', end_reason: str(s.end_reason) }), model: null,
      created_at: endedAt,
      attributes: json({ hermes: { session_end: true, api_call_count: num(s.api_call_count), estimated_cost_usd: numOrNull(s.estimated_cost_usd), actual_cost_usd: numOrNull(s.actual_cost_usd) }, usage: counters }),
    });
  }
  const parent = input.parents[0];
  const root = input.parents.length > 0 ? String(input.parents[input.parents.length - 1]!.id) : sessionId;
  const scopes = scopesOf(s, input.parents, input.hermesHome);
  const kind = lineageKind(s, parent);
  const session: RecordOf = {
    store, session_id: sessionId, profile: input.profile, source: str(s.source) ?? 'unknown', model: str(s.model), provider,
    billing_host: hostOf(s.billing_base_url), billing_mode: str(s.billing_mode), scope: scopes[0] ?? null, policy: 'full',
    parent_session_id: str(s.parent_session_id) || null, lineage_kind: kind, lineage_root: root, is_sidechain: kind === 'delegate' ? 1 : 0,
    title: redact(str(s.title)), cwd: str(s.cwd), git_branch: str(s.git_branch), git_repo_root: str(s.git_repo_root),
    system_prompt: redact(input.systemPrompt), started_at: startedAt, ended_at: endedAt, end_reason: str(s.end_reason),
    last_activity_at: activity, message_count: num(s.message_count), tool_call_count: num(s.tool_call_count),
    api_call_count: num(s.api_call_count), ...counters, estimated_cost_usd: numOrNull(s.estimated_cost_usd),
    actual_cost_usd: numOrNull(s.actual_cost_usd), cost_status: str(s.cost_status), cost_source: str(s.cost_source),
    rewind_count: num(s.rewind_count), live_messages: messages.length, archived_messages: normalized.compacted,
    inactive_messages: normalized.inactive, removed_from_store: 0, origin: input.origin,
  };
  const modelUsage = input.modelUsage.map((u) => modelUsageRecord(store, sessionId, u));
  const dailyUsage = (input.dailyUsage ?? []).map((d) => ({
    store, session_id: sessionId, day: str(d.day) ?? '', api_call_count: num(d.api_call_count),
    ...Object.fromEntries(COUNTERS.map((k) => [k, num(d[k])])), estimated_cost_usd: numOrNull(d.estimated_cost_usd), actual_cost_usd: numOrNull(d.actual_cost_usd),
  }));
  const { event: usageEventRecord, next: ledger } = usageEvent(input.ledger ?? null, s, {
    store, sessionId, observedAt: activity, model: str(s.model), provider, costStatus: str(s.cost_status),
    costSource: str(s.cost_source), billingMode: str(s.billing_mode), origin: input.origin,
  });
  return { session, messages, parts, modelUsage, issues, dailyUsage, usageEvent: usageEventRecord, ledger, usageMark: usageMarkOf(input.modelUsage), scopes, maxMessageId: normalized.maxMessageId };
}

function providerOfConfig(modelConfig: unknown): unknown {
  if (typeof modelConfig !== 'string') return null;
  try {
    return (JSON.parse(modelConfig) as { provider?: unknown }).provider ?? null;
  } catch {
    return null;
  }
}

/**
 * A billing base URL as a key that never shows its secrets: host and path, plus a short hash of the whole URL when
 * it has more (credentials, a query), so two routes that differ only there stay two rows.
 */
export function routeKey(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') return '';
  let shown = baseUrl;
  try {
    const u = new URL(baseUrl);
    shown = `${u.host}${u.pathname.replace(/\/+$/, '')}`;
    if (!u.username && !u.password && !u.search && !u.hash) return shown;
  } catch {
    shown = 'unparsed';
  }
  let h = 0x811c9dc5; // FNV-1a, 32 bits: a key, not a secret
  for (let i = 0; i < baseUrl.length; i++) h = Math.imul(h ^ baseUrl.charCodeAt(i), 0x01000193) >>> 0;
  return `${shown}#${h.toString(16).padStart(8, '0')}`;
}

/** One session_model_usage row; `in_session_totals` says whether Hermes also counted it on the session row. */
export function modelUsageRecord(store: string, sessionId: string, u: Row): RecordOf {
  const task = str(u.task) ?? '';
  return {
    store, session_id: sessionId, model: str(u.model) ?? '',
    provider_key: [str(u.billing_provider) ?? '', routeKey(u.billing_base_url), str(u.billing_mode) ?? ''].join('|'),
    provider: normalizeProvider(u.billing_base_url, u.billing_provider), billing_mode: str(u.billing_mode), task,
    in_session_totals: task === '' ? 1 : 0, api_call_count: num(u.api_call_count),
    ...Object.fromEntries(COUNTERS.map((k) => [k, num(u[k])])),
    estimated_cost_usd: numOrNull(u.estimated_cost_usd), actual_cost_usd: numOrNull(u.actual_cost_usd),
    cost_status: str(u.cost_status), cost_source: str(u.cost_source), first_seen: numOrNull(u.first_seen), last_seen: numOrNull(u.last_seen),
  };
}

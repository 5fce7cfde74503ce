// Pure: a batch's sessions and messages → spans in the OpenTelemetry GenAI vocabulary (decision 0039). A session is a
// trace; its root span carries the session's usage; each user message opens an `invoke_agent` turn; each assistant
// message is a `chat` span and each of its tool calls an `execute_tool` span under the turn. No IO: what the batch
// leaves out (the turn's earlier messages, the session row) comes through `TraceContext`.
import type { RecordOf } from '../../../dataset/columns.js';
import { decodeToolCalls } from '../../../normalize/tool-calls.js';
import type { ToolCall } from '../../../normalize/types.js';
import { spanIdOf, traceIdOf, type SessionKey } from '../ids.js';
import { AGENT_NAME, providerName, type AttrValue } from './vocabulary.js';

export interface SpanModel {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'internal' | 'client';
  /** Epoch seconds, as the dataset holds them. */
  start: number;
  end: number;
  attributes: Record<string, AttrValue>;
}

/** What the sink may look up beyond the batch (the local dataset, read-only); `NO_CONTEXT` when it has none. */
export interface TraceContext {
  session(store: string, sessionId: string): RecordOf | null;
  /** The session's messages before `seq`, from the user message that opened the turn holding `seq - 1` on. */
  turnBefore(store: string, sessionId: string, seq: number): RecordOf[];
}

export const NO_CONTEXT: TraceContext = { session: () => null, turnBefore: () => [] };

export interface SessionRows {
  store: string;
  sessionId: string;
  /** The session row when the batch (or the context) has it. */
  session: RecordOf | null;
  /** The batch's messages of the session, in `seq` order. */
  messages: RecordOf[];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const isTurnStart = (m: RecordOf) => m.role === 'user' && m.kind === 'message';

/** The root span's usage attributes: GenAI's input counts cache reads and writes; Hermes's net figure is kept too. */
export function usageAttributes(s: RecordOf): Record<string, AttrValue> {
  const input = num(s.input_tokens), cacheRead = num(s.cache_read_tokens), cacheWrite = num(s.cache_write_tokens);
  const out: Record<string, AttrValue> = {
    'gen_ai.usage.input_tokens': input + cacheRead + cacheWrite,
    'gen_ai.usage.output_tokens': num(s.output_tokens),
    'gen_ai.usage.cache_read.input_tokens': cacheRead,
    'gen_ai.usage.cache_creation.input_tokens': cacheWrite,
    'hermes.usage.input_tokens': input,
    'hermes.usage.reasoning_tokens': num(s.reasoning_tokens),
    'hermes.usage.api_calls': num(s.api_call_count),
  };
  const estimated = typeof s.estimated_cost_usd === 'number' ? s.estimated_cost_usd : null;
  const actual = typeof s.actual_cost_usd === 'number' ? s.actual_cost_usd : null;
  if (estimated !== null) out['hermes.cost.estimated_usd'] = estimated;
  if (actual !== null) out['hermes.cost.actual_usd'] = actual;
  if (estimated !== null || actual !== null) out['hermes.cost.usd'] = actual ?? estimated!;
  if (text(s.cost_status)) out['hermes.cost.status'] = s.cost_status as string;
  return out;
}

/** Free texts among a session's attributes (decision 0050): sent only with the content, as the title is. */
const FREE_TEXT: ReadonlySet<string> = new Set(['handoff_error', 'compression_failure_error', 'last_activity_description', 'last_activity_provenance']);

/**
 * Hermes's other session fields (`sessions.attributes`, decision 0050) as `hermes.session.<name>`: numbers, texts and
 * the list of tools used; `model_config` is not sent (its shape is Hermes's runtime configuration, not telemetry).
 */
function sessionExtras(attributes: unknown, content: boolean): Record<string, AttrValue> {
  if (typeof attributes !== 'string') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(attributes);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out: Record<string, AttrValue> = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (k === 'model_config' || (FREE_TEXT.has(k) && !content)) continue;
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) out[`hermes.session.${k}`] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[`hermes.session.${k}`] = v as string[];
  }
  return out;
}

function rootSpan(key: SessionKey, s: RecordOf, content: boolean): SpanModel {
  const provider = text(s.provider);
  const attributes: Record<string, AttrValue> = {
    'gen_ai.conversation.id': key.sessionId,
    'gen_ai.agent.name': AGENT_NAME,
    ...(provider ? { 'gen_ai.provider.name': providerName(provider), 'hermes.provider': provider } : {}),
    ...(text(s.model) ? { 'gen_ai.request.model': s.model as string } : {}),
    ...usageAttributes(s),
    'hermes.store': key.store,
    'hermes.session.id': key.sessionId,
    'hermes.session.profile': String(s.profile ?? ''),
    'hermes.session.source': String(s.source ?? ''),
    'hermes.session.open': s.ended_at === null || s.ended_at === undefined,
    'hermes.session.message_count': num(s.message_count),
    'hermes.session.tool_call_count': num(s.tool_call_count),
    ...(text(s.end_reason) ? { 'hermes.session.end_reason': s.end_reason as string } : {}),
    ...(text(s.parent_session_id) ? { 'hermes.session.parent_id': s.parent_session_id as string } : {}),
    ...(text(s.lineage_kind) ? { 'hermes.session.lineage_kind': s.lineage_kind as string } : {}),
    ...(content && text(s.title) ? { 'hermes.session.title': s.title as string } : {}),
    ...sessionExtras(s.attributes, content),
    ...(content && text(s.system_prompt) ? { 'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: s.system_prompt }]) } : {}),
  };
  const start = num(s.started_at);
  const end = typeof s.ended_at === 'number' ? s.ended_at : num(s.last_activity_at);
  return { traceId: traceIdOf(key), spanId: spanIdOf(key, 'session'), parentSpanId: null, name: 'hermes.session', kind: 'internal', start, end: Math.max(start, end), attributes };
}

interface Turn {
  id: string;
  user: RecordOf;
  last: RecordOf;
  touched: boolean;
}

interface PendingCall {
  spanId: string;
  name: string;
  callId: string | null;
  args: unknown;
  start: number;
  turn: Turn | null;
  isNew: boolean;
}

/**
 * The spans one batch adds or updates for one session: the root (when the session row is known), every turn holding
 * a new message, a chat span per new assistant message, an execute_tool span per call that is new or newly answered.
 * @example sessionSpans('machine-id', { store, sessionId, session, messages }, { content: false, context: [] })
 */
export function sessionSpans(machineId: string, rows: SessionRows, options: { content: boolean; context: RecordOf[] }): SpanModel[] {
  const key: SessionKey = { machineId, store: rows.store, sessionId: rows.sessionId };
  const traceId = traceIdOf(key);
  const rootId = spanIdOf(key, 'session');
  const session = rows.session;
  const model = session && text(session.model);
  const provider = session && text(session.provider);
  const common: Record<string, AttrValue> = {
    'gen_ai.conversation.id': rows.sessionId,
    ...(provider ? { 'gen_ai.provider.name': providerName(provider) } : {}),
  };
  const out: SpanModel[] = [];
  if (session) out.push(rootSpan(key, session, options.content));

  const fresh = new Set(rows.messages);
  const all = [...options.context, ...rows.messages];
  const turns: Turn[] = [];
  let turn: Turn | null = null;
  const calls = new Map<string, PendingCall>();
  const toolSpans = new Map<string, SpanModel>();
  let previous: RecordOf | null = null;

  const toolSpan = (c: PendingCall, result: RecordOf | null): SpanModel => ({
    traceId, spanId: c.spanId, parentSpanId: c.turn ? c.turn.id : rootId,
    name: `execute_tool ${c.name}`, kind: 'internal',
    start: c.start, end: result ? Math.max(c.start, num(result.created_at)) : c.start,
    attributes: {
      ...common,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': c.name,
      'gen_ai.tool.type': 'function',
      ...(c.callId ? { 'gen_ai.tool.call.id': c.callId } : {}),
      ...(result ? {} : { 'hermes.tool.answered': false }),
      ...(options.content && c.args !== null && c.args !== undefined ? { 'gen_ai.tool.call.arguments': typeof c.args === 'string' ? c.args : JSON.stringify(c.args) } : {}),
      ...(options.content && result && text(result.content) ? { 'gen_ai.tool.call.result': result.content as string } : {}),
    },
  });

  for (const m of all) {
    const isNew = fresh.has(m);
    if (isTurnStart(m)) {
      turn = { id: spanIdOf(key, `turn:${m.logical_id}`), user: m, last: m, touched: isNew };
      turns.push(turn);
    } else if (turn) {
      turn.last = m;
      turn.touched ||= isNew;
    }
    if (m.role === 'assistant' && m.kind === 'message') {
      const end = num(m.created_at);
      const start = previous ? Math.min(num(previous.created_at), end) : end;
      const decoded = decodeToolCalls(m.tool_calls).calls ?? [];
      decoded.forEach((c, i) => {
        const callId = c.id;
        // By position, not call id: Hermes's stores reuse a call id within a session (a result answers the latest).
        const spanId = spanIdOf(key, `tool:${m.logical_id}#${i}`);
        const pending: PendingCall = { spanId, name: c.name ?? 'unknown', callId, args: c.args, start: end, turn, isNew };
        if (callId) calls.set(callId, pending);
        if (isNew) toolSpans.set(spanId, toolSpan(pending, null));
      });
      if (isNew) {
        const msgModel = text(m.model) ?? model;
        const finish = text(m.finish_reason);
        out.push({
          traceId, spanId: spanIdOf(key, `chat:${m.logical_id}`), parentSpanId: turn ? turn.id : rootId,
          name: msgModel ? `chat ${msgModel}` : 'chat', kind: 'client', start, end,
          attributes: {
            ...common,
            'gen_ai.operation.name': 'chat',
            ...(msgModel ? { 'gen_ai.request.model': msgModel, 'gen_ai.response.model': msgModel } : {}),
            ...(finish ? { 'gen_ai.response.finish_reasons': [finish] } : {}),
            'hermes.message.id': num(m.message_id),
            'hermes.message.seq': num(m.seq),
            ...(options.content ? { 'gen_ai.output.messages': JSON.stringify([outputMessage(m, decoded)]) } : {}),
          },
        });
      }
    } else if (m.role === 'tool') {
      const c = text(m.tool_call_id) ? calls.get(m.tool_call_id as string) : undefined;
      if (c && (isNew || c.isNew)) toolSpans.set(c.spanId, toolSpan(c, m));
    }
    previous = m;
  }

  for (const t of turns) {
    if (!t.touched) continue;
    const start = num(t.user.created_at);
    out.push({
      traceId, spanId: t.id, parentSpanId: rootId, name: `invoke_agent ${AGENT_NAME}`, kind: 'internal',
      start, end: Math.max(start, num(t.last.created_at)),
      attributes: {
        ...common,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': AGENT_NAME,
        ...(model ? { 'gen_ai.request.model': model } : {}),
        'hermes.message.id': num(t.user.message_id),
        ...(options.content && text(t.user.content) ? { 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: t.user.content }] }]) } : {}),
      },
    });
  }
  out.push(...toolSpans.values());
  return out;
}

// GenAI's output message shape: text, reasoning and tool-call parts, and the finish reason.
function outputMessage(m: RecordOf, calls: ToolCall[]): unknown {
  const parts: unknown[] = [];
  if (text(m.reasoning)) parts.push({ type: 'reasoning', content: m.reasoning });
  if (text(m.content)) parts.push({ type: 'text', content: m.content });
  for (const c of calls) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args });
  return { role: 'assistant', parts, ...(text(m.finish_reason) ? { finish_reason: m.finish_reason } : {}) };
}

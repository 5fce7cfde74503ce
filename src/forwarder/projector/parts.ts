// A live message → its parts in HypAware's vocabulary (spec forwarding §2.4, with §6's fixes): reasoning first,
// then each tool call, then the tool result or one text part per content block. Bookkeeping rows become `status`
// parts; the finish reason and a stored token count ride the last part of the row.
import type { NormalMessage } from '../normalize/index.js';
import type { RecordOf } from '../dataset/columns.js';
import { programOfArgs, TERMINAL_TOOL } from '../dataset/program.js';
import { redactValue } from './redact-json.js';

const BOOKKEEPING = new Set(['session_meta', 'system', 'hidden', 'auto_continue', 'model_switch', 'failed_turn', 'process_complete', 'async_delegation_complete', 'display_other']);

export interface PartContext {
  store: string;
  sessionId: string;
  /** On a tool result without a tool name of its own: the name of the call it answers (the latest before it). */
  answeredName: string | null;
  model: string | null;
  redact: (text: string | null) => string | null;
  json: (value: unknown) => string | null;
}

/** The text of a tool result or message, blocks joined. */
export function textOf(m: NormalMessage): string | null {
  const texts = m.blocks.map((b) => b.text).filter((t): t is string => t !== null);
  if (texts.length > 0) return texts.join('\n');
  return m.replyText ?? (m.content === '' ? '' : null);
}

export function partsOf(m: NormalMessage, ctx: PartContext): RecordOf[] {
  const { store, sessionId, redact, json } = ctx;
  const parts: RecordOf[] = [];
  const base = (partType: string, extra: RecordOf): RecordOf => {
    const k = parts.length;
    return {
      store, session_id: sessionId, part_id: `hermes-${sessionId}-${m.logicalId}-${k}#0`, message_id: m.id, part_index: k,
      role: m.role, part_type: partType, content_text: null, tool_name: null, tool_call_id: null, tool_args: null,
      tool_result_for: null, status: null, model: m.role === 'assistant' ? ctx.model : null, created_at: m.createdAt,
      attributes: null, program: null, ...extra,
    };
  };
  const hermes = {
    ...(m.kind === 'message' ? {} : { kind: m.kind, ...(m.displayKind ? { display_kind: m.displayKind } : {}) }),
    ...(m.afterRewind > 0 ? { after_rewind: m.afterRewind } : {}),
  };
  const kindAttrs = Object.keys(hermes).length > 0 ? { hermes } : {};
  if (m.reasoning) parts.push(base('reasoning', { content_text: redact(m.reasoning) }));
  for (const call of m.toolCalls ?? []) {
    const args = call.args === null || call.args === undefined ? null : json(redactValue(call.args, redact));
    // A terminal call's program, named from the arguments as stored (decision 0152): naming again reads the same text.
    parts.push(base('tool_call', { tool_name: call.name, tool_call_id: call.id, tool_args: args,
      attributes: call.flattened ? json({ hermes: { flattened_call: true } }) : null, program: call.name === TERMINAL_TOOL ? programOfArgs(args) : null }));
  }
  if (m.role === 'tool') {
    const answered = m.toolCallId;
    const name = m.toolName ?? ctx.answeredName;
    parts.push(base('tool_result', { content_text: redact(textOf(m) ?? ''), tool_name: name, tool_call_id: answered, tool_result_for: answered }));
  } else if (BOOKKEEPING.has(m.kind)) {
    parts.push(base('status', { content_text: redact(textOf(m)), status: json({ kind: m.kind }), attributes: json(kindAttrs) }));
  } else {
    // One part per block; a block with no text (audio, a file) gets a placeholder naming its type.
    const blocks = m.blocks.filter((b) => (b.text !== null && b.text !== '') || b.type === 'other');
    for (const b of blocks) {
      const attrs = { ...kindAttrs, ...(b.native ? { content: { native_type: b.native } } : {}) };
      const text = b.text ?? `[${b.native ?? 'content'}]`;
      parts.push(base('text', { content_text: b.text === null ? text : redact(text), attributes: Object.keys(attrs).length ? json(attrs) : null }));
    }
    if (blocks.length === 0 && m.replyText) {
      parts.push(base('text', { content_text: redact(m.replyText), attributes: json({ ...kindAttrs, hermes: { ...(kindAttrs as { hermes?: object }).hermes, reply_from: 'codex_message_items_or_api_content' } }) }));
    }
  }
  // The first part always says what came just before it was rewound (its text part may not be first).
  const first = parts[0];
  if (first && m.afterRewind > 0) {
    const prev = first.attributes ? (JSON.parse(first.attributes as string) as { hermes?: object }) : {};
    first.attributes = json({ ...prev, hermes: { ...prev.hermes, after_rewind: m.afterRewind } });
  }
  const last = parts[parts.length - 1];
  if (last) {
    if (m.finishReason && m.role === 'assistant') last.status = json({ finish_reason: m.finishReason });
    if (m.tokenCount !== null) {
      const prev = last.attributes ? (JSON.parse(last.attributes as string) as RecordOf) : {};
      last.attributes = json({ ...prev, usage: { total_tokens: m.tokenCount } });
    }
  }
  return parts;
}

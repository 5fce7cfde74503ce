// A session's live messages → `messages` and `parts` records, from the first message or continuing where an earlier
// run stopped (decision 0032): seq, the model of assistant rows, the call a tool result answers and the transcript's
// rolling hash all carry over, so the messages Hermes appends are projected alone. Pure.
import type { RecordOf } from '../dataset/columns.js';
import { num, str, type NormalMessage, type Row } from '../normalize/index.js';
import { partsOf } from './parts.js';
import { redactValue } from './redact-json.js';
import { Lanes } from '../normalize/hash.js';
import { Marks, MAX_CALLS, type Tail } from './tail.js';

/** What one run of the transcript leaves for the next. */
export type TranscriptCarry = Pick<Tail, 'live' | 'compacted' | 'firstTime' | 'lastTime' | 'metaModel' | 'calls' | 'hash' | 'step' | 'marks'>;

export interface TranscriptContext {
  store: string;
  sessionId: string;
  redact: boolean;
  text: (t: string | null) => string | null;
  json: (v: unknown) => string | null;
  /** The session's `session_model_usage` rows, and its model. */
  routes: readonly Row[];
  sessionModel: string | null;
  /**
   * Every call of the session before this run (id → name, the latest last), kept by a caller that projects the
   * session in runs from its first row (a session read in chunks): continued from it, a run needs no prefix. Updated.
   */
  calls?: Map<string, string>;
  /** Only the rolling hash and the carry, no records (a long session's chunks looked at for their hashes). */
  hashOnly?: boolean;
}

export interface ProjectedTranscript {
  messages: RecordOf[];
  parts: RecordOf[];
  carry: TranscriptCarry;
  /** The rolling hash before each probed seq (and at the end, when probed): see tail.ts firstDifference. */
  hashes: Map<number, string>;
  /**
   * Continuing only: a tool result answers a call this run cannot see (older than the calls the carry keeps, or none):
   * the caller projects the session whole instead.
   */
  needsPrefix: boolean;
}

/** The main-loop routes, in the order they began (session_model_usage rows of task ''). */
function mainRoutes(routes: readonly Row[]): Row[] {
  return routes.filter((r) => (r.task ?? '') === '' && typeof r.first_seen === 'number').sort((a, b) => num(a.first_seen) - num(b.first_seen));
}

/** What assistant rows' models depend on, beyond the rows themselves: a change means every row is attributed again. */
export function modelsKey(routes: readonly Row[], sessionModel: string | null): string {
  const main = mainRoutes(routes);
  return JSON.stringify(main.length > 0 ? main.map((r) => [str(r.model), r.first_seen]) : ['session', sessionModel]);
}

export const startTranscript = (): TranscriptCarry => ({ live: 0, compacted: 0, firstTime: null, lastTime: 0, metaModel: null, calls: [], hash: new Lanes().hex(), step: 0, marks: [] });

/**
 * Projects `live` (normalized rows, in order) from `from` on (null: the transcript's start). `probes` are seqs whose
 * hash is wanted (an earlier tail's checkpoints).
 * @example projectTranscript(normalized.live, ctx, null).messages.length
 */
export function projectTranscript(live: readonly NormalMessage[], ctx: TranscriptContext, from: TranscriptCarry | null, probes?: ReadonlySet<number>): ProjectedTranscript {
  const start = from ?? startTranscript();
  const { store, sessionId, text, json } = ctx;
  const main = mainRoutes(ctx.routes);
  // Calls by id, the latest last. A whole run keeps every call; a continued one has only the carry's latest.
  const calls = ctx.calls ?? new Map<string, string>(start.calls);
  let metaModel = start.metaModel;
  let firstTime = start.firstTime;
  let lastTime = start.lastTime;
  const hash = new Lanes(start.hash);
  const marks = new Marks(from ?? undefined);
  const hashes = new Map<number, string>();
  let needsPrefix = false;
  const messages: RecordOf[] = [];
  const parts: RecordOf[] = [];
  let seq = start.live;
  let compacted = start.compacted;
  for (const m of live) {
    if (probes?.has(seq)) hashes.set(seq, hash.hex());
    marks.at(seq, hash);
    // Model per assistant row: the main-loop route in use at its time (session_model_usage), else the latest
    // session_meta model marker, else the session's model.
    if (m.kind === 'session_meta' && m.content) {
      try {
        const meta = JSON.parse(m.content) as { model?: unknown };
        if (typeof meta.model === 'string') metaModel = meta.model;
      } catch { /* not JSON: no model marker */ }
    }
    let model: string | null = null;
    if (m.role === 'assistant') {
      if (main.length === 0) model = metaModel ?? ctx.sessionModel;
      else {
        let pick = main[0]!;
        for (const r of main) if (num(r.first_seen) <= m.createdAt + 1e-6) pick = r;
        model = str(pick.model) ?? ctx.sessionModel;
      }
    }
    // A tool result without a name of its own is named by the latest call before it with the id it answers.
    let answeredName: string | null = null;
    if (m.role === 'tool' && m.toolCallId && m.toolName === null) {
      answeredName = calls.get(m.toolCallId) ?? null;
      if (answeredName === null && from && !ctx.calls) needsPrefix = true;
    }
    const toolName = m.toolName ?? answeredName;
    const attributes = m.attributes === null ? null : json(m.attributes);
    if (!ctx.hashOnly) {
      const toolCalls = m.toolCallsJson === null ? null : json(ctx.redact ? redactValue(m.toolCallsJson, text) : m.toolCallsJson);
      messages.push({
        store, session_id: sessionId, message_id: m.id, logical_id: m.logicalId, seq, role: m.role, kind: m.kind,
        content: text(m.content), content_format: m.contentFormat, tool_calls: toolCalls, tool_name: toolName,
        tool_call_id: m.toolCallId, reasoning: text(m.reasoning), model, finish_reason: m.finishReason,
        created_at: m.createdAt, compacted: m.compacted ? 1 : 0, attributes,
      });
      for (const p of partsOf(m, { store, sessionId, answeredName, model, redact: text, json })) parts.push(p);
    }
    if (m.compacted) compacted++;
    for (const c of m.toolCalls ?? []) {
      if (!c.id || !c.name) continue;
      calls.delete(c.id);
      calls.set(c.id, c.name);
    }
    if (firstTime === null && !m.timestampRepaired) firstTime = m.createdAt;
    if (m.createdAt > lastTime) lastTime = m.createdAt;
    // What else than the row's own (unchanging) content decides its records: its place, ids, model, the name it
    // answers, its time and the rewind before it; and what Hermes may edit in place later (decision 0053): the kind a
    // display kind gives it, its attributes (reactions), the reply text api_content gives an empty row.
    hash.num(m.id);
    hash.feed(m.kind);
    hash.feed(attributes ?? '\u0000');
    hash.feed(m.replyText ?? '\u0000');
    hash.num(m.logicalId);
    hash.feed(model ?? '\u0000');
    hash.feed(toolName ?? '\u0000');
    hash.num(m.createdAt);
    hash.num(m.afterRewind);
    hash.num(m.compacted ? 1 : 0);
    seq++;
  }
  if (probes?.has(seq)) hashes.set(seq, hash.hex());
  const kept = [...calls].slice(-MAX_CALLS);
  return {
    messages, parts, hashes, needsPrefix,
    carry: { live: seq, compacted, firstTime, lastTime, metaModel, calls: kept, hash: hash.hex(), step: marks.step, marks: marks.marks },
  };
}

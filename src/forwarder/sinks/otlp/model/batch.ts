// Pure: one DeltaBatch → the spans and metric points it becomes. Rows are grouped by session; what the batch leaves
// out comes from the context. Deletes have no OTLP form (telemetry cannot be taken back): they are counted, not sent.
// Only sessions, messages and model_usage make telemetry: delegations (decision 0054) and row issues (the values the
// forwarder repaired, decision 0092: its own bookkeeping, not the agent's, and no traces or metrics signal to carry
// it) are acknowledged and not sent.
import type { RecordOf } from '../../../dataset/columns.js';
import type { DeltaBatch } from '../../remote/contract.js';
import { metricPoints, type MetricsModel } from './metrics.js';
import { sessionSpans, type SessionRows, type SpanModel, type TraceContext } from './traces.js';

export interface BatchTelemetry {
  spans: SpanModel[];
  metrics: MetricsModel;
  /** Keys the batch deleted, which stay in the receiver (decision 0039). */
  deletesIgnored: number;
}

const rowsOf = (batch: DeltaBatch, table: string): RecordOf[] => batch.upserts.filter((u) => u.table === table).flatMap((u) => u.rows);
const keyOf = (store: unknown, sessionId: unknown) => `${String(store)}\u0000${String(sessionId)}`;

/** @example batchTelemetry(batch, NO_CONTEXT, { content: false }).spans */
export function batchTelemetry(batch: DeltaBatch, context: TraceContext, options: { content: boolean }): BatchTelemetry {
  const bySession = new Map<string, SessionRows>();
  const entry = (store: unknown, sessionId: unknown): SessionRows => {
    const k = keyOf(store, sessionId);
    let e = bySession.get(k);
    if (!e) bySession.set(k, (e = { store: String(store), sessionId: String(sessionId), session: null, messages: [] }));
    return e;
  };
  for (const s of rowsOf(batch, 'sessions')) entry(s.store, s.session_id).session = s;
  for (const m of rowsOf(batch, 'messages')) entry(m.store, m.session_id).messages.push(m);

  const spans: SpanModel[] = [];
  const localOnly = new Set<string>();
  for (const [k, e] of bySession) {
    e.session ??= context.session(e.store, e.sessionId);
    if (e.session?.policy === 'local-only') {
      localOnly.add(k);
      continue;
    }
    e.messages.sort((a, b) => Number(a.seq) - Number(b.seq));
    const first = e.messages[0];
    const before = first && Number(first.seq) > 0 ? context.turnBefore(e.store, e.sessionId, Number(first.seq)) : [];
    spans.push(...sessionSpans(batch.origin.machineId, e, { content: options.content, context: before }));
  }
  const metrics = metricPoints(rowsOf(batch, 'sessions'), rowsOf(batch, 'model_usage'), (store, id) => localOnly.has(keyOf(store, id)) || context.session(store, id)?.policy === 'local-only');
  return { spans, metrics, deletesIgnored: batch.deletes.reduce((n, d) => n + d.keys.length, 0) };
}

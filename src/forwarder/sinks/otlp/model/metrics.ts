// Pure: a batch's usage rows → cumulative metric points (decision 0039). Each session's main loop (its `sessions`
// counters) and each auxiliary task (`model_usage` rows outside the session's totals) is one series, identified by
// attributes that never change over its life (the conversation id; an auxiliary row's task, model and route), and sent
// with its current running totals from the session's start: a replay, a later batch or a /model switch restates the
// same series, so a receiver never counts a token twice.
import type { RecordOf } from '../../../dataset/columns.js';
import { providerName, type AttrValue } from './vocabulary.js';

export interface PointModel {
  attributes: Record<string, AttrValue>;
  /** Epoch seconds: the series' start and the time of its current value. */
  start: number;
  time: number;
}
export interface HistogramPointModel extends PointModel { count: number; sum: number }
export interface SumPointModel extends PointModel { value: number }

export interface MetricsModel {
  /** `gen_ai.client.token.usage` (histogram, {token}): `gen_ai.token.type` input (cache included) or output. */
  tokenUsage: HistogramPointModel[];
  /** `hermetic.usage.tokens` (sum, {token}): Hermes's five counters as it keeps them, by `hermetic.token.type`. */
  tokens: SumPointModel[];
  /** `hermetic.usage.cost` (sum, USD): by `hermetic.cost.kind` estimated or actual, where Hermes has one. */
  cost: SumPointModel[];
}

export const TOKEN_TYPES = [
  ['input', 'input_tokens'], ['output', 'output_tokens'], ['cache_read', 'cache_read_tokens'],
  ['cache_write', 'cache_write_tokens'], ['reasoning', 'reasoning_tokens'],
] as const;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function series(into: MetricsModel, row: RecordOf, base: Record<string, AttrValue>, start: number, time: number): void {
  const input = num(row.input_tokens) + num(row.cache_read_tokens) + num(row.cache_write_tokens);
  const calls = num(row.api_call_count);
  const at = { start, time: Math.max(start, time) };
  into.tokenUsage.push(
    { ...at, attributes: { ...base, 'gen_ai.token.type': 'input' }, count: calls, sum: input },
    { ...at, attributes: { ...base, 'gen_ai.token.type': 'output' }, count: calls, sum: num(row.output_tokens) },
  );
  for (const [type, column] of TOKEN_TYPES) {
    into.tokens.push({ ...at, attributes: { ...base, 'hermetic.token.type': type }, value: num(row[column]) });
  }
  for (const kind of ['estimated', 'actual'] as const) {
    const v = row[`${kind}_cost_usd`];
    if (typeof v === 'number' && Number.isFinite(v)) into.cost.push({ ...at, attributes: { ...base, 'hermetic.cost.kind': kind }, value: v });
  }
}

/**
 * The points of one batch: a series per upserted session row (task `main`) and per upserted auxiliary `model_usage`
 * row (its task); local-only sessions give none.
 * @example metricPoints(sessionsRows, modelUsageRows).tokens.length // 5 per series
 */
export function metricPoints(sessions: RecordOf[], modelUsage: RecordOf[], localOnly: (store: string, sessionId: string) => boolean): MetricsModel {
  const out: MetricsModel = { tokenUsage: [], tokens: [], cost: [] };
  // A series is known by all its attributes, so they must not change over its life. A session's main loop is one
  // series by conversation alone: its model and provider change with a /model switch, and a series keyed by them
  // would leave the old model's series at its last value beside the new one restating the whole session (counted
  // twice). Its split by model is the ledger's (report --by model); an auxiliary row is keyed by its model and route.
  const base = (row: RecordOf, task: string): Record<string, AttrValue> => ({
    'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': String(row.session_id), 'hermes.task': task,
  });
  for (const s of sessions) {
    if (s.policy === 'local-only') continue;
    series(out, s, base(s, 'main'), num(s.started_at), num(s.last_activity_at));
  }
  for (const u of modelUsage) {
    if (num(u.in_session_totals) !== 0 || localOnly(String(u.store), String(u.session_id))) continue;
    const start = typeof u.first_seen === 'number' ? u.first_seen : num(u.last_seen);
    series(out, u, {
      'gen_ai.operation.name': 'chat',
      ...(typeof u.provider === 'string' && u.provider ? { 'gen_ai.provider.name': providerName(u.provider) } : {}),
      ...(typeof u.model === 'string' && u.model ? { 'gen_ai.request.model': u.model } : {}),
      'gen_ai.conversation.id': String(u.session_id), 'hermes.task': String(u.task ?? ''), 'hermes.route': String(u.provider_key ?? ''),
    }, start, num(u.last_seen));
  }
  return out;
}

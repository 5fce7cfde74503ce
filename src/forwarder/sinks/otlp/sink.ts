// The OTLP remote sink (decision 0039): each DeltaBatch becomes spans (POST /v1/traces) and cumulative usage points
// (POST /v1/metrics), protobuf or JSON. Ids and times come from the data, so sending a batch twice sends the same
// telemetry twice; a receiver that dedupes by span id (and any metrics backend, for cumulative points) keeps one.
import { HermeticError } from '../../../shared/errors.js';
import type { AppliedMark, DeltaBatch, Origin, RemoteSink } from '../remote/contract.js';
import { SinkError } from '../remote/contract.js';
import { datasetContext, type DatasetContext } from './context.js';
import { encodeMetrics, encodeSpans } from './encode.js';
import { batchTelemetry } from './model/batch.js';
import type { MetricsModel } from './model/metrics.js';
import { NO_CONTEXT, type SpanModel } from './model/traces.js';
import type { OtlpPartialSuccess, OtlpSettings } from './options.js';
import { postExport, sizeRefusal, TooLarge } from './transport.js';

export interface OtlpWriteResult {
  spans: number;
  points: number;
  requests: number;
  deletesIgnored: number;
  partial: OtlpPartialSuccess[];
}

export class OtlpSink implements RemoteSink {
  readonly id: string;
  readonly display: string;
  /** Telemetry goes to a collector or a vendor: treated as leaving the machine even when the collector is local. */
  readonly leavesMachine = true;
  /** What the last write sent (for `status` and tests). */
  lastWrite: OtlpWriteResult | null = null;
  private context: DatasetContext | null = null;
  /** Aborted by abort(): the requests under way are cut short (a stopping process does not wait out a timeout). */
  private stopping = new AbortController();
  /**
   * The receiver's size limit as 413s taught it, in spans and points per request: the size of the last part sent after
   * a 413, so the next writes start there instead of meeting the same 413s again (for this process's life; a raised
   * limit is used again after a restart).
   */
  private fits = { spans: Infinity, points: Infinity };

  constructor(
    private readonly settings: OtlpSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.id = settings.id;
    this.display = settings.display;
  }

  async open(): Promise<void> {
    if (!this.settings.datasetPath || this.context) return;
    try {
      this.context = datasetContext(this.settings.datasetPath);
    } catch (e) {
      const message = e instanceof HermeticError ? e.message : String(e);
      throw new SinkError('HERMETIC_DATASET_OPEN', `The OTLP sink cannot read the dataset for context: ${message}`, false, { cause: e });
    }
  }

  /** OTLP receivers keep no sequence numbers: every batch is sent, and a replay is harmless (same ids). */
  async applied(_origin: Origin): Promise<AppliedMark | null> {
    return null;
  }

  async write(batch: DeltaBatch): Promise<void> {
    const t = batchTelemetry(batch, this.context ?? NO_CONTEXT, { content: this.settings.content });
    const result: OtlpWriteResult = { spans: t.spans.length, points: 0, requests: 0, deletesIgnored: t.deletesIgnored, partial: [] };
    const per = Math.min(this.settings.spansPerRequest, this.fits.spans);
    for (let i = 0; i < t.spans.length; i += per) await this.sendSpans(result, t.spans.slice(i, i + per), batch);
    for (const chunk of chunks(t.metrics, Math.min(this.settings.pointsPerRequest, this.fits.points))) await this.sendMetrics(result, chunk, batch);
    this.lastWrite = result;
  }

  abort(): void {
    this.stopping.abort();
  }

  async close(): Promise<void> {
    this.stopping = new AbortController();
    this.context?.close();
    this.context = null;
  }

  // A request the receiver finds too large (413) is sent again in two halves, down to one span; the parts already
  // accepted are not sent again by this write (a retry of the batch would, harmlessly: same ids).
  private async sendSpans(result: OtlpWriteResult, spans: SpanModel[], batch: DeltaBatch): Promise<void> {
    try {
      await this.send(result, 'traces', encodeSpans(spans, batch.origin, this.settings.encoding, this.settings.attributeValueLengthLimit));
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      if (spans.length < 2) throw sizeRefusal(e);
      const half = Math.ceil(spans.length / 2);
      this.fits.spans = Math.min(this.fits.spans, half);
      await this.sendSpans(result, spans.slice(0, half), batch);
      await this.sendSpans(result, spans.slice(half), batch);
    }
  }

  // The same for points, split between series (a series' points stay together).
  private async sendMetrics(result: OtlpWriteResult, chunk: MetricsModel, batch: DeltaBatch): Promise<void> {
    try {
      await this.send(result, 'metrics', encodeMetrics(chunk, batch.origin, this.settings.encoding));
      result.points += pointsIn(chunk);
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      const halves = halve(chunk);
      if (!halves) throw sizeRefusal(e);
      this.fits.points = Math.min(this.fits.points, Math.max(...halves.map(pointsIn)));
      for (const h of halves) await this.sendMetrics(result, h, batch);
    }
  }

  private async send(result: OtlpWriteResult, signal: 'traces' | 'metrics', body: Uint8Array): Promise<void> {
    const s = this.settings;
    const partial = await postExport({
      signal, body, encoding: s.encoding, display: s.display, timeoutMs: s.timeoutMs, now: this.now, stop: this.stopping.signal,
      url: signal === 'traces' ? s.tracesUrl : s.metricsUrl,
      headers: signal === 'traces' ? s.tracesHeaders : s.metricsHeaders,
    });
    result.requests++;
    if (partial) {
      result.partial.push(partial);
      s.onPartialSuccess(partial);
    }
  }
}

const pointsIn = (m: MetricsModel): number => m.tokenUsage.length + m.tokens.length + m.cost.length;

// The points of a batch in requests of at most `limit` points, a series' points (at most 9) never split across two.
function* chunks(m: MetricsModel, limit: number): Generator<MetricsModel> {
  const total = pointsIn(m);
  if (total === 0) return;
  if (total <= limit) {
    yield m;
    return;
  }
  const per = Math.max(1, Math.floor(limit / 9));
  const series = m.tokenUsage.length / 2;
  for (let i = 0; i < series; i += per) {
    const ids = new Set(m.tokenUsage.slice(i * 2, (i + per) * 2).map((p) => seriesKey(p.attributes)));
    yield {
      tokenUsage: m.tokenUsage.slice(i * 2, (i + per) * 2),
      tokens: m.tokens.filter((p) => ids.has(seriesKey(p.attributes))),
      cost: m.cost.filter((p) => ids.has(seriesKey(p.attributes))),
    };
  }
}

// A chunk's series in two halves (null for a single series).
function halve(m: MetricsModel): [MetricsModel, MetricsModel] | null {
  const keys = [...new Set(m.tokenUsage.map((p) => seriesKey(p.attributes)))];
  if (keys.length < 2) return null;
  const first = new Set(keys.slice(0, Math.ceil(keys.length / 2)));
  const part = (inFirst: boolean): MetricsModel => {
    const take = <P extends { attributes: Record<string, unknown> }>(ps: P[]) => ps.filter((p) => first.has(seriesKey(p.attributes)) === inFirst);
    return { tokenUsage: take(m.tokenUsage), tokens: take(m.tokens), cost: take(m.cost) };
  };
  return [part(true), part(false)];
}

function seriesKey(a: Record<string, unknown>): string {
  return JSON.stringify([a['gen_ai.conversation.id'], a['hermes.task'], a['hermes.route'] ?? null, a['gen_ai.request.model'] ?? null]);
}

export type { SpanModel };

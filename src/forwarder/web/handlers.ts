// Handlers for the dashboard's endpoints: each parses its query (request.ts), asks the source (data/source.ts) and
// returns the JSON to send. No SQL and no HTTP here; the server turns a thrown HermeticError into its status.
import { HermeticError } from '../../shared/errors.js';
import { CYCLE_DIMENSIONS, FILTERS, ID_FILTERS, MAX_TOP, renderCsv, hourLabel, unreadDays, type ReportRequest, type UsageReport, type ValueFilter } from '../report/index.js';
import { Zone } from '../ledger/zone.js';
import type { MessageText, TextField, UsageSource } from './data/source.js';
import { LIST_BYTES, SESSION_TEXT_FIELDS, TEXT_CHUNK, TEXT_FIELDS, TITLE_CAP } from './data/rows.js';
import { single, usageRequest, wholeParam } from './request.js';
import type { ApiName } from './routes.js';
import { cacheHitRate } from '../report/summary.js';

/** The columns a breakdown can be by (the filters but the session, which has its own endpoint, and the machine). */
export const BREAKDOWNS = ['model', 'provider', 'profile', 'source', 'project', 'task', 'machine'] as const;
/** What `/api/breakdown` takes: those, and the weekday and the hour of the day (the overview's "when" charts). */
const BREAKDOWN_BY: readonly string[] = [...BREAKDOWNS, ...CYCLE_DIMENSIONS];

export interface HandlerContext {
  source: UsageSource;
  /** Epoch seconds: the end of every period (injected by tests). */
  now(): number;
  /** Days and midnights in UTC, not the ledger's zone (`hermetic web --utc`). */
  utc?: boolean;
  /** How often the page asks whether the data changed, in milliseconds; null: it does not follow it (decision 0119). */
  refreshMs?: number | null;
  /**
   * This server's own mark, in front of the source's version: a dashboard started again on the same port (its
   * connection's counters start over) never answers a version an open page already holds for other data.
   */
  instance?: string;
}

/**
 * An answer sent as text/plain instead of JSON, `bytes` long (its Content-Length), its text read a chunk at a time
 * while it is sent (`/api/message-text`): the server holds one chunk, never the whole text.
 */
export class TextAnswer {
  constructor(readonly bytes: number, readonly chunks: () => AsyncIterable<string>) {}
}

/** An answer the browser saves as a file (`Content-Disposition: attachment`), made whole in memory: bounded by its handler. */
export class FileAnswer {
  constructor(readonly type: string, readonly name: string, readonly body: string) {}
}

/**
 * The CSV download's bounds: at most CSV_ROWS rows (the rest summed into the "other" row, as --top sums them), and by
 * session or tree titles cut at TITLE_CAP (ending in "…") and rows stopped at CSV_BYTES of JSON, as the page's lists
 * are at LIST_BYTES: a dataset of millions of sessions makes a file of tens of megabytes, not gigabytes in memory.
 */
export const CSV_ROWS = 200_000;
export const CSV_BYTES = 32 * 1024 * 1024;

type Handler = (query: URLSearchParams, ctx: HandlerContext) => Promise<unknown>;

/** The zone of the page's days, midnights and times: the ledger's, or UTC with --utc. */
const zoneOf = (ctx: HandlerContext) => (ctx.utc ? new Zone('UTC') : ctx.source.zone());

const usage = (query: URLSearchParams, ctx: HandlerContext): ReportRequest => ({ ...usageRequest(query, ctx.now(), zoneOf(ctx)), ...(ctx.utc ? { utc: true } : {}) });

/**
 * `top`: the rows kept, the rest summed into one — up to what `hermetic report --top` takes (decision 0069: the 1,000
 * this once was kept no answer small, since a report without `top` has every row, and refused a script the sessions
 * after the thousandth; the page asks for more as its "show more" button is pressed).
 */
const topParam = (query: URLSearchParams) => wholeParam(query, 'top', 10, 1, MAX_TOP);

function grouping(query: URLSearchParams): { by: string[]; top?: number } {
  const top = query.has('top') ? topParam(query) : undefined;
  return { by: query.getAll('by'), ...(top !== undefined ? { top } : {}) };
}

/**
 * A list stays small whatever the dataset holds (decisions 0094, 0120): titles cut at TITLE_CAP in SQL, and the rows
 * of any grouping stop at LIST_BYTES of JSON, the rest summed into the "other" row (`stopped` says so).
 */
const LIST_BOUNDS = { titleCharacters: TITLE_CAP, bytes: LIST_BYTES };

/** A text's chunks in order; a text that changed while it was read ends the answer (the server breaks it off). */
async function* chunks(text: MessageText): AsyncIterable<string> {
  for (let from = 1; from <= text.characters; from += TEXT_CHUNK) {
    const chunk = await text.chunk(from);
    if (chunk === null) throw new HermeticError('HERMETIC_WEB_NOT_FOUND', 'The text changed while it was read; ask for it again.');
    yield chunk;
  }
}

/** The longest window the spend chart draws by hour (two days: 48 bars at most). */
const HOURLY_SECONDS = 2 * 86400;

/**
 * The names of the hours of [since, until) as the report names them (`hourLabel`): the ledger's cells, UTC hours cut
 * where a local midnight falls inside one. At most 48 (spendUnit's bound) and a few cut ones.
 */
export function hoursOf(zone: Zone, since: number, until: number): string[] {
  const cells = new Set<number>();
  for (let q = Math.floor(since / 900); q * 900 < until; q++) cells.add(zone.cellOf(q).at);
  return [...cells].sort((a, b) => a - b).map((at) => hourLabel(zone, at));
}

/** What the spend chart groups a window by: hours for a window of two days or less, else days. */
export const spendUnit = (w: { since?: number | null; until?: number | null }): 'hour' | 'day' =>
  w.since != null && w.until != null && w.until - w.since <= HOURLY_SECONDS ? 'hour' : 'day';

export const HANDLERS: Record<ApiName, Handler> = {
  // Asked every `refresh_ms` by a visible page (public/live.js): one stat and a pragma on the dataset, one small read
  // on the fleet store. The source is not asked when the page is not to follow.
  // The hour the page's clock is in (the ledger's cell: a UTC hour, cut at a local midnight) is part of it: a window
  // that ends now (today, 7 days) moves with the clock, so an open page looks again when the hour or the day turns,
  // new data or not (decision 0119, addendum).
  version: async (_query, ctx) => {
    const refresh = ctx.refreshMs ?? null;
    const version = refresh === null ? null : await ctx.source.version();
    if (version === null) return { version: null, refresh_ms: refresh };
    const hour = zoneOf(ctx).cellOf(Math.floor(ctx.now() / 900)).at;
    return { version: `${ctx.instance ?? ''}:${version}:${hour}`, refresh_ms: refresh };
  },
  async overview(query, ctx) {
    const request = usage(query, ctx);
    const [report, rowIssues, uncosted, unread, withheld, unknown] = await Promise.all([ctx.source.report(request), ctx.source.rowIssues(request), ctx.source.uncosted(request), ctx.source.unread(request), ctx.source.withheld?.() ?? [], ctx.source.unreadUnknown?.()]);
    // What a windowed backfill left unread in this period, by the local days it spans (as `hermetic report` says it).
    const left = unread && unreadDays(unread, zoneOf(ctx));
    // Notes left out because this role may not read their table (the fleet store; decision 0102): which, and the GRANT.
    // The fleet store's machines that do not say what they left unread (decision 0105): always there on the fleet store.
    const silent = unknown === undefined ? {} : { unread_unknown: unknown };
    return { ...report, cache_hit_rate: cacheHitRate(report.totals), row_issues: rowIssues, uncosted, unread: left, ...silent, ...(withheld.length > 0 ? { withheld } : {}) };
  },
  // Spend over time by model: by day, or by hour for a window of two days or less (today, a custom day), where days
  // would be one or two bars. The answer's `by` says which.
  daily: async (query, ctx) => {
    const request = usage(query, ctx);
    const unit = spendUnit(request);
    const report = await ctx.source.report({ ...request, by: [unit, 'model'] });
    // By hour, every hour of the window is named too (`hours`), so the chart's axis is the day's clock with its quiet
    // hours empty, not only the hours something was spent in.
    return unit === 'hour' ? { ...report, hours: hoursOf(zoneOf(ctx), request.since!, request.until!) } : report;
  },
  async breakdown(query, ctx) {
    const by = single(query, 'by');
    if (by === undefined || !BREAKDOWN_BY.includes(by)) {
      throw new HermeticError('HERMETIC_WEB_INVALID', `"by" must be one of ${BREAKDOWN_BY.join(', ')}; got ${by === undefined ? 'nothing' : `"${by}"`}.`);
    }
    return ctx.source.report({ ...usage(query, ctx), by: [by], top: topParam(query) });
  },
  sessions: async (query, ctx) => ctx.source.report({ ...usage(query, ctx), by: ['session'], top: topParam(query), locate: true, bounds: LIST_BOUNDS }),
  trees: async (query, ctx) => ctx.source.report({ ...usage(query, ctx), by: ['tree'], top: topParam(query), locate: true, bounds: LIST_BOUNDS }),
  async tools(query, ctx) {
    const request = usage(query, ctx);
    const limit = wholeParam(query, 'limit', 10, 1, 100);
    const [report, slowest] = await Promise.all([ctx.source.report({ ...request, by: ['tool'] }), ctx.source.slowestCalls(request, limit)]);
    return { ...report, slowest };
  },
  report: async (query, ctx) => ctx.source.report({ ...usage(query, ctx), ...grouping(query), bounds: LIST_BOUNDS }),
  // The same rows as CSV, as `hermetic report --csv` writes them (render.ts), within the download's bounds.
  async 'report-csv'(query, ctx) {
    const { by, top } = grouping(query);
    const report = await ctx.source.report({ ...usage(query, ctx), by, top: Math.min(top ?? CSV_ROWS, CSV_ROWS), bounds: { titleCharacters: TITLE_CAP, bytes: CSV_BYTES } });
    for (const row of report.rows) {
      const cut = row.cut as { title?: unknown; tree_title?: unknown } | undefined;
      if (cut?.title && typeof row.title === 'string') row.title += '…';
      if (cut?.tree_title && typeof row.tree_title === 'string') row.tree_title += '…';
    }
    // Named by the report's grouping, checked and each dimension once (`by=day&by=day` is by day).
    return new FileAnswer('text/csv; charset=utf-8', `hermetic-report${report.by.length > 0 ? `-by-${report.by.join('-')}` : ''}.csv`, `${renderCsv(report)}\n`);
  },
  async options(query, ctx) {
    const { since, until } = usage(query, ctx);
    const columns = FILTERS.filter((f): f is ValueFilter => !ID_FILTERS.includes(f));
    // What the report by each column would list (its 200 costliest values), read without the report's sums.
    const lists = await Promise.all(columns.map((column) => ctx.source.values({ since, until }, column, 200)));
    const values = Object.fromEntries(columns.map((column, i) => [column, lists[i]!]));
    const zone = zoneOf(ctx);
    return { zone: zone.name, now: zone.iso(ctx.now()), fleet: ctx.source.fleet, period: { since: since === null || since === undefined ? null : zone.iso(since), until: until === null || until === undefined ? null : zone.iso(until) }, values };
  },
  async session(query, ctx) {
    const id = single(query, 'id');
    if (!id) throw new HermeticError('HERMETIC_WEB_INVALID', 'Name the session: /api/session?id=<session id>.');
    const key = { id, store: single(query, 'store') ?? null, machine: single(query, 'machine') ?? null };
    const page = { page: wholeParam(query, 'page', 1, 1, 1_000_000), size: wholeParam(query, 'page_size', 100, 1, 500), from: query.has('from') ? wholeParam(query, 'from', 0, 0, 1_000_000_000) : null };
    const view = await ctx.source.session(key, page);
    if (!view) throw new HermeticError('HERMETIC_WEB_NOT_FOUND', `The dataset has no session "${id}".`);
    return view;
  },
  async 'message-text'(query, ctx) {
    const id = single(query, 'id');
    const seq = single(query, 'seq');
    const name = single(query, 'field');
    if (!id || seq === undefined || name === undefined) throw new HermeticError('HERMETIC_WEB_INVALID', 'Name the text: /api/message-text?id=<session id>&seq=<message number>&field=<content, reasoning, tool_calls, arguments or attributes>.');
    if (!(TEXT_FIELDS as readonly string[]).includes(name)) throw new HermeticError('HERMETIC_WEB_INVALID', `"field" must be one of ${TEXT_FIELDS.join(', ')}; got "${name}".`);
    if ((name === 'arguments') !== query.has('call')) {
      throw new HermeticError('HERMETIC_WEB_INVALID', name === 'arguments' ? 'field=arguments needs the call: call=<its index in the message\'s tool calls, from 0>.' : `"call" is for field=arguments, not field=${name}.`);
    }
    const field: TextField = name === 'arguments' ? { name, call: wholeParam(query, 'call', 0, 0, 1_000_000) } : { name: name as 'content' | 'reasoning' | 'tool_calls' | 'attributes' };
    const at = wholeParam(query, 'seq', 0, 0, 1_000_000_000);
    const key = { id, store: single(query, 'store') ?? null, machine: single(query, 'machine') ?? null };
    const text = await ctx.source.messageText(key, at, field);
    if (!text) throw new HermeticError('HERMETIC_WEB_NOT_FOUND', `The dataset has no session "${id}".`);
    return new TextAnswer(text.bytes, () => chunks(text));
  },
  async 'session-text'(query, ctx) {
    const id = single(query, 'id');
    const field = single(query, 'field');
    if (!id || field === undefined) throw new HermeticError('HERMETIC_WEB_INVALID', `Name the text: /api/session-text?id=<session id>&field=<${SESSION_TEXT_FIELDS.join(', ')}>.`);
    if (!(SESSION_TEXT_FIELDS as readonly string[]).includes(field)) throw new HermeticError('HERMETIC_WEB_INVALID', `"field" must be one of ${SESSION_TEXT_FIELDS.join(', ')}; got "${field}".`);
    const key = { id, store: single(query, 'store') ?? null, machine: single(query, 'machine') ?? null };
    const text = await ctx.source.sessionText(key, field);
    if (!text) throw new HermeticError('HERMETIC_WEB_NOT_FOUND', `The dataset has no session "${id}".`);
    return new TextAnswer(text.bytes, () => chunks(text));
  },
};

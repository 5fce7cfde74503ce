// The usage ledger's attribution rules (decision 0031): one session's counters, its session_model_usage rows, its
// session_daily_usage rows and when its messages were written → ledger rows by cell (UTC hour cut at local
// midnight), model, route and task, adding up exactly to its counters plus its auxiliary rows. Pure: the same input
// gives the same rows; every amount is split in whole units (tokens, calls, 1e-10 dollars), so nothing is lost to
// rounding and nothing is counted twice.
import type { RecordOf } from '../dataset/columns.js';
import { validEpoch } from '../normalize/time.js';
import { QUARTER, type Cell, type Zone } from './zone.js';

/** The ledger's additive measures, in the order of its columns. */
export const MEASURES = ['api_calls', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'] as const;
export type Measure = (typeof MEASURES)[number];
const COST_UNITS = 1e10;
const isCost = (m: Measure) => m === 'estimated_cost_usd' || m === 'actual_cost_usd';
const INPUT_NAME: Record<Measure, string> = { api_calls: 'api_call_count', input_tokens: 'input_tokens', output_tokens: 'output_tokens', cache_read_tokens: 'cache_read_tokens', cache_write_tokens: 'cache_write_tokens', reasoning_tokens: 'reasoning_tokens', estimated_cost_usd: 'estimated_cost_usd', actual_cost_usd: 'actual_cost_usd' };

/** A counter of a Hermes row in whole units: negative, NULL or garbage counts as 0 (decision 0031, clamping). */
export function units(row: Readonly<Record<string, unknown>>, m: Measure): number {
  const v = row[INPUT_NAME[m]];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return 0;
  const u = Math.round(isCost(m) ? v * COST_UNITS : v);
  return Number.isSafeInteger(u) ? u : Number.MAX_SAFE_INTEGER;
}

const fromUnits = (m: Measure, u: number) => (isCost(m) ? u / COST_UNITS : u);

/** The dataset's session row, as far as the ledger reads it (sessions table, plus its project). */
export interface LedgerSession extends Readonly<Record<string, unknown>> {
  store: string;
  session_id: string;
  profile: string;
  source: string;
  model: string | null;
  provider: string;
  billing_mode: string | null;
  cwd: string | null;
  git_repo_root: string | null;
  started_at: number;
  last_activity_at: number;
  actual_cost_usd: number | null;
}

/** A model_usage row (session × model × route × task). */
export interface LedgerRoute extends Readonly<Record<string, unknown>> {
  model: string;
  provider_key: string;
  provider: string;
  billing_mode: string | null;
  task: string;
  cost_status: string | null;
  first_seen: number | null;
  last_seen: number | null;
}

/** A daily_usage row (session × Hermes's local day). */
export interface LedgerDay extends Readonly<Record<string, unknown>> {
  day: string;
}

/** Messages of the session written in one quarter of an hour (epoch seconds / 900), assistant ones apart. */
export interface Activity {
  quarter: number;
  messages: number;
  assistant: number;
}

/** Tool calls (and tool results that say they failed) in one quarter of an hour. */
export interface ToolActivity {
  quarter: number;
  tool_name: string;
  calls: number;
  errors: number;
}

export interface LedgerInput {
  session: LedgerSession;
  routes: readonly LedgerRoute[];
  days: readonly LedgerDay[];
  activity: readonly Activity[];
  tools?: readonly ToolActivity[];
  zone: Zone;
}

/** The task name of the main loop in the ledger (Hermes writes '' in session_model_usage). */
export const MAIN_TASK = 'main';

/**
 * Splits `total` units in proportion to `weights` (largest remainders, ties to the earlier weight): the parts add up
 * to `total` exactly. Weights must not all be 0 unless `total` is.
 */
export function split(total: number, weights: readonly number[]): number[] {
  const out = weights.map(() => 0);
  if (total <= 0) return out;
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) throw new Error('split: no weight to split by');
  if (total * sum < Number.MAX_SAFE_INTEGER) {
    // Every product is exact in a double: the same answer as below, without BigInt.
    const rest: { i: number; r: number }[] = [];
    let given = 0;
    weights.forEach((w, i) => {
      const p = total * w;
      let q = Math.floor(p / sum);
      // p / sum is rounded: the quotient may be one off, the remainder says which way.
      if (p - q * sum < 0) q -= 1;
      else if (p - q * sum >= sum) q += 1;
      out[i] = q;
      given += q;
      rest.push({ i, r: p - q * sum });
    });
    rest.sort((a, b) => b.r - a.r || a.i - b.i);
    for (let k = 0; given < total; k++, given++) out[rest[k % rest.length]!.i]! += 1;
    return out;
  }
  const T = BigInt(total);
  const S = BigInt(sum);
  const rest: { i: number; r: bigint }[] = [];
  let given = 0n;
  weights.forEach((w, i) => {
    const p = T * BigInt(w);
    const q = p / S;
    out[i] = Number(q);
    given += q;
    rest.push({ i, r: p % S });
  });
  rest.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (let k = 0; given < T; k++, given++) out[rest[k % rest.length]!.i]! += 1;
  return out;
}

interface Route {
  model: string;
  provider: string;
  provider_key: string;
  billing_mode: string | null;
  task: string;
  basis: 'route' | 'session' | 'auxiliary' | 'none';
  /** Whether this row's actual cost is one Hermes recorded (else the ledger keeps NULL and shows the estimate). */
  actualRecorded: boolean;
}

interface Slot { cell: Cell; assistant: number; messages: number; quarters: number[] }

/** The session's cells (from its activity), in time order, with their weights. */
function timeline(input: LedgerInput): Slot[] {
  const byAt = new Map<number, Slot>();
  for (const a of input.activity) {
    if (a.messages <= 0 || !validEpoch(a.quarter * QUARTER)) continue;
    const cell = input.zone.cellOf(a.quarter);
    const slot = byAt.get(cell.at) ?? { cell, assistant: 0, messages: 0, quarters: [] };
    slot.assistant += Math.max(0, a.assistant);
    slot.messages += a.messages;
    slot.quarters.push(a.quarter);
    byAt.set(cell.at, slot);
  }
  return [...byAt.values()].sort((a, b) => a.cell.at - b.cell.at);
}

/** Assistant messages as weights, else every message (a session whose assistant rows were all rewound). */
const weightsOf = (slots: readonly Slot[]) => {
  const a = slots.map((s) => s.assistant);
  return a.some((x) => x > 0) ? a : slots.map((s) => s.messages);
};

/** Builds ledger rows keyed by (cell, route). */
class Rows {
  readonly #rows = new Map<string, { cell: Cell; route: Route; amounts: number[] }>();

  add(cell: Cell, route: Route, m: number, amount: number): void {
    if (amount === 0) return;
    const key = `${cell.at}\u0000${route.task}\u0000${route.basis}\u0000${route.model}\u0000${route.provider_key}`;
    let row = this.#rows.get(key);
    if (!row) this.#rows.set(key, (row = { cell, route, amounts: MEASURES.map(() => 0) }));
    row.amounts[m]! += amount;
  }

  values() {
    return this.#rows.values();
  }
}

/**
 * The ledger rows of one session, and its tool rows.
 * @example allocateSession({ session, routes: [], days: [], activity: [{ quarter: 1978000, messages: 2, assistant: 1 }], zone: new Zone('UTC') })
 */
export function allocateSession(input: LedgerInput): { usage: RecordOf[]; tools: RecordOf[] } {
  const { session: s, zone } = input;
  const slots = timeline(input);
  const lastActivity = validEpoch(s.last_activity_at) ? s.last_activity_at : validEpoch(s.started_at) ? s.started_at : null;
  const cellAt = (t: number | null | undefined): Cell => zone.cellOf(Math.floor((validEpoch(t) ? t : lastActivity ?? 0) / QUARTER));
  const rows = new Rows();

  // Where an amount goes in time: split over a plan's slots by weight, or into its one fallback cell.
  interface Plan { over: readonly Slot[]; weights: number[]; fallback: Cell | null }
  const plan = (over: readonly Slot[], fallback: () => Cell): Plan => {
    const weights = weightsOf(over);
    return over.length > 0 && weights.some((x) => x > 0) ? { over, weights, fallback: null } : { over: [], weights: [], fallback: fallback() };
  };
  const spread = (amount: number, p: Plan, into: Map<number, { cell: Cell; amount: number }>) => {
    if (amount <= 0) return;
    const put = (cell: Cell, part: number) => {
      const e = into.get(cell.at);
      if (e) e.amount += part;
      else into.set(cell.at, { cell, amount: part });
    };
    if (p.fallback) return put(p.fallback, amount);
    const parts = split(amount, p.weights);
    for (let i = 0; i < parts.length; i++) if (parts[i]! > 0) put(p.over[i]!.cell, parts[i]!);
  };

  // 1. The main loop: the session's counters, split by route (session_model_usage rows with task '') and the rest
  //    to the session's own model; laid along time by session_daily_usage and the days its messages were written.
  const sessionRoute: Route = {
    model: s.model ?? '', provider: s.provider, provider_key: '', billing_mode: s.billing_mode, task: MAIN_TASK, basis: 'session',
    actualRecorded: s.actual_cost_usd !== null,
  };
  const main = input.routes.filter((r) => r.task === '' || r.task === MAIN_TASK)
    .map((r) => ({ r, route: { model: r.model, provider: r.provider, provider_key: r.provider_key, billing_mode: r.billing_mode, task: MAIN_TASK, basis: 'route' as const, actualRecorded: s.actual_cost_usd !== null } }))
    .sort((a, b) => (validEpoch(a.r.first_seen) ? a.r.first_seen : Infinity) - (validEpoch(b.r.first_seen) ? b.r.first_seen : Infinity)
      || (a.r.provider_key < b.r.provider_key ? -1 : a.r.provider_key > b.r.provider_key ? 1 : 0) || (a.r.model < b.r.model ? -1 : a.r.model > b.r.model ? 1 : 0));
  const routes: Route[] = [...main.map((x) => x.route), sessionRoute];
  const days = input.days.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.day)).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  // Each Hermes day's cells (none: its local noon), and every cell (none: the last activity), planned once.
  const dayPlans = days.map((d) => plan(slots.filter((x) => x.cell.day === d.day), () => cellAt(zone.timeOf(d.day, 12))));
  const everyCell = plan(slots, () => cellAt(lastActivity));
  let estimateByRoute: number[] = [];
  MEASURES.forEach((measure, m) => {
    const total = measure === 'actual_cost_usd' && s.actual_cost_usd === null ? 0 : units(s, measure);
    if (total === 0) return;
    // By route: what each route recorded; more than the counters hold is scaled down to them, the rest is the session's.
    const recorded = main.map((x) => units(x.r, measure));
    const sum = recorded.reduce((a, b) => a + b, 0);
    let byRoute: number[];
    if (measure === 'actual_cost_usd' && sum === 0) {
      // Routes with no billed cost: the session's billed cost follows its estimate's split.
      byRoute = estimateByRoute.some((x) => x > 0) ? split(total, estimateByRoute) : [...recorded, total];
    } else byRoute = sum > total ? [...split(total, recorded), 0] : [...recorded, total - sum];
    if (measure === 'estimated_cost_usd') estimateByRoute = byRoute;
    // By time: each Hermes day's amount over that day's cells (a day too many is scaled down), the rest over every cell.
    const inTime = new Map<number, { cell: Cell; amount: number }>();
    const perDay = days.map((d) => units(d, measure));
    const daySum = perDay.reduce((a, b) => a + b, 0);
    const dayParts = daySum > total ? split(total, perDay) : perDay;
    dayPlans.forEach((p, i) => spread(dayParts[i]!, p, inTime));
    spread(total - Math.min(daySum, total), everyCell, inTime);
    // Routes in the order they were first used take the timeline in order (the session's own model last).
    const cells = [...inTime.values()].sort((a, b) => a.cell.at - b.cell.at);
    let j = 0;
    let left = cells[0]?.amount ?? 0;
    byRoute.forEach((amount, i) => {
      let need = amount;
      while (need > 0 && j < cells.length) {
        const take = Math.min(need, left);
        rows.add(cells[j]!.cell, routes[i]!, m, take);
        need -= take;
        left -= take;
        if (left === 0) left = cells[++j]?.amount ?? 0;
      }
    });
  });

  // 2. Auxiliary tasks (never in the session's counters): each row over the cells between its first and last call.
  for (const r of input.routes) {
    if (r.task === '' || r.task === MAIN_TASK) continue;
    const route: Route = {
      model: r.model, provider: r.provider, provider_key: r.provider_key, billing_mode: r.billing_mode, task: r.task, basis: 'auxiliary',
      actualRecorded: units(r, 'actual_cost_usd') > 0 || r.cost_status === 'actual',
    };
    const first = validEpoch(r.first_seen) ? r.first_seen : validEpoch(r.last_seen) ? r.last_seen : null;
    const last = validEpoch(r.last_seen) ? r.last_seen : first;
    const over = first === null || last === null ? [] : slots.filter((x) => x.quarters.some((q) => q >= Math.floor(first / QUARTER) && q <= Math.floor(last / QUARTER)));
    const between = plan(over, () => cellAt(last));
    MEASURES.forEach((measure, m) => {
      if (measure === 'actual_cost_usd' && !route.actualRecorded) return;
      const inTime = new Map<number, { cell: Cell; amount: number }>();
      spread(units(r, measure), between, inTime);
      for (const e of inTime.values()) rows.add(e.cell, route, m, e.amount);
    });
  }

  const base = {
    store: s.store, session_id: s.session_id, profile: s.profile, source: s.source,
    project: s.git_repo_root || s.cwd || null,
  };
  const usage: RecordOf[] = [];
  for (const { cell, route, amounts } of rows.values()) {
    const record: RecordOf = {
      ...base, at: cell.at, day: cell.day, day_utc: cell.dayUtc, model: route.model, provider: route.provider,
      provider_key: route.provider_key, billing_mode: route.billing_mode, task: route.task, basis: route.basis,
    };
    MEASURES.forEach((measure, m) => (record[measure] = fromUnits(measure, amounts[m]!)));
    if (!route.actualRecorded) record.actual_cost_usd = null;
    record.cost_usd = route.actualRecorded ? record.actual_cost_usd : record.estimated_cost_usd;
    usage.push(record);
  }
  if (usage.length === 0) {
    // No usage at all: one empty row at its last activity, so the session still counts where it was active.
    const cell = cellAt(lastActivity);
    usage.push({
      ...base, at: cell.at, day: cell.day, day_utc: cell.dayUtc, model: sessionRoute.model, provider: s.provider, provider_key: '',
      billing_mode: s.billing_mode, task: MAIN_TASK, basis: 'none', ...Object.fromEntries(MEASURES.map((x) => [x, 0])),
      actual_cost_usd: null, cost_usd: 0,
    });
  }
  usage.sort((a, b) => (a.at as number) - (b.at as number));

  const toolRows = new Map<string, RecordOf>();
  for (const t of input.tools ?? []) {
    if ((t.calls <= 0 && t.errors <= 0) || !validEpoch(t.quarter * QUARTER)) continue;
    const cell = zone.cellOf(t.quarter);
    const key = `${cell.at}\u0000${t.tool_name}`;
    const row = toolRows.get(key) ?? { ...base, at: cell.at, day: cell.day, day_utc: cell.dayUtc, tool_name: t.tool_name, calls: 0, errors: 0 };
    row.calls = (row.calls as number) + Math.max(0, t.calls);
    row.errors = (row.errors as number) + Math.max(0, t.errors);
    toolRows.set(key, row);
  }
  return { usage, tools: [...toolRows.values()] };
}
